//go:build integration

// The integration test brings the real cluster up in Docker. It needs the
// Docker engine and the image (KBF_IMAGE, e.g. kbf/kafka:4.3.1, built by
// make image), takes the fixed container names and ports of the kbf cluster,
// and leaves no cluster behind:
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration ./compose/ -run Integration -v -timeout 15m

package compose_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/client"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

// upTimeout bounds one Up; a cold start takes about 20 s on two cores.
const upTimeout = 4 * time.Minute

func TestIntegration(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 13*time.Minute)
	defer cancel()
	c, err := compose.New(compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Logf("image %s, bootstrap %v", c.Image(), c.Bootstrap())

	// From nothing.
	if removed, err := c.Down(ctx); err != nil {
		t.Fatalf("Down before the test: %v", err)
	} else if len(removed) > 0 {
		t.Logf("removed a cluster left before the test: %v", removed)
	}
	var volumes []string // the containers' anonymous volumes, which Down must remove
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// The nodes the last subtest recreated have volumes of their own.
		volumes = append(volumes, volumesOf(ctx, t, c)...)
		if _, err := c.Down(ctx); err != nil {
			t.Errorf("Down: %v", err)
		}
		assertNothingLeft(ctx, t, c.Docker(), volumes)
	})

	rep := up(ctx, t, c)
	if rep.Reused || !slices.Equal(rep.Created, []string{"c1", "k1", "k2", "k3"}) {
		t.Errorf("first Up: reused %v, created %v; want all four created", rep.Reused, rep.Created)
	}
	volumes = volumesOf(ctx, t, c)
	for _, svc := range c.Services() {
		ci, err := c.Docker().ContainerInspect(ctx, c.ContainerName(svc))
		if err != nil {
			t.Fatal(err)
		}
		if ci.Config.Labels["com.docker.compose.project"] != "kbf" || ci.Config.Labels["com.docker.compose.service"] != svc {
			t.Errorf("%s: compose labels %v", svc, ci.Config.Labels)
		}
	}
	checkStartingShape(ctx, t, c)

	if v, err := c.KafkaVersion(ctx); err != nil || v != "4.3.1" {
		t.Errorf("KafkaVersion = %q, %v; want 4.3.1", v, err)
	}
	// Both images start the server from the class-data sharing archive
	// they ship: the JVM, PID 1, has it mapped.
	for _, svc := range c.Services() {
		if n, err := c.Exec(ctx, svc, "grep", "-c", "/opt/kafka/kafka.jsa", "/proc/1/maps"); err != nil || strings.TrimSpace(n) == "0" {
			t.Errorf("%s: the JVM has not mapped /opt/kafka/kafka.jsa (%q, %v)", svc, strings.TrimSpace(n), err)
		}
	}

	// One record through, acks=all, and the high watermark moves past it.
	off := produceConsume(ctx, t, c.Bootstrap(), "orders", 0)
	parts, err := c.Describe(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if hw := parts[0].HighWatermark; hw != off+1 {
		t.Errorf("orders-0 high watermark %d after a record at offset %d", hw, off)
	}

	// Up again is the fast path: nothing to create or start.
	rep = up(ctx, t, c)
	if !rep.Reused || len(rep.Created)+len(rep.Started)+len(rep.Recreated) > 0 {
		t.Errorf("second Up: reused %v, created %v started %v recreated %v; want reused only",
			rep.Reused, rep.Created, rep.Started, rep.Recreated)
	}

	// Half-up: k2 stopped gracefully; Up starts it and gives its leadership back.
	inj := chaos.New(c.Docker(), c.ContainerName)
	f, err := inj.Inject(ctx, cluster.Fault{Broker: "k2", Kind: results.FaultSIGTERM})
	if err != nil {
		t.Fatalf("sigterm k2: %v", err)
	}
	t.Logf("sigterm k2: exit %d, %v after the signal", f.ExitCode, f.Finished.Sub(f.SignalSent))
	if f.ExitCode != 143 || f.Escalated || f.Finished.Before(f.SignalSent) {
		t.Errorf("sigterm k2: %+v; want exit code 143, not escalated, finished after the signal", f)
	}
	// Every running node's CPU counter is read, a stopped one's is not.
	if cpu, err := c.CPUTimes(ctx); err != nil {
		t.Errorf("CPUTimes with k2 stopped: %v", err)
	} else {
		for _, svc := range []string{"c1", "k1", "k3"} {
			if cpu[svc] <= 0 {
				t.Errorf("CPUTimes with k2 stopped: %s used %v; want its counter", svc, cpu[svc])
			}
		}
		if _, ok := cpu["k2"]; ok || len(cpu) != 3 {
			t.Errorf("CPUTimes with k2 stopped: %v; want c1, k1 and k3 only", cpu)
		}
	}
	rep = up(ctx, t, c)
	if !slices.Equal(rep.Started, []string{"k2"}) || len(rep.Created)+len(rep.Recreated) > 0 {
		t.Errorf("Up after k2 stopped: created %v started %v recreated %v; want k2 started",
			rep.Created, rep.Started, rep.Recreated)
	}
	checkStartingShape(ctx, t, c)

	// A killed broker's logs can be read from its stopped container.
	f, err = inj.Inject(ctx, cluster.Fault{Broker: "k3", Kind: results.FaultSIGKILL})
	if err != nil {
		t.Fatalf("sigkill k3: %v", err)
	}
	if f.ExitCode != 137 || f.Finished.IsZero() {
		t.Errorf("sigkill k3: %+v; want exit code 137 and a finish time", f)
	}
	dir := t.TempDir()
	for _, svc := range []string{"k3", "c1"} {
		if err := inj.CollectLogs(ctx, svc, f.SignalSent.Add(-time.Hour), filepath.Join(dir, svc)); err != nil {
			t.Fatalf("CollectLogs %s: %v", svc, err)
		}
	}
	for _, p := range []string{"k3/server.log", "k3/state-change.log", "c1/controller.log"} {
		if st, err := os.Stat(filepath.Join(dir, p)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, want a log with lines", p, err)
		}
	}
	if err := inj.Restart(ctx, "k3"); err != nil {
		t.Fatalf("restart k3: %v", err)
	}
	rep = up(ctx, t, c)
	if len(rep.Created)+len(rep.Started)+len(rep.Recreated) > 0 {
		t.Errorf("Up after k3 restarted: created %v started %v recreated %v; want nothing to do",
			rep.Created, rep.Started, rep.Recreated)
	}
	checkStartingShape(ctx, t, c)

	// Last, as it recreates every node.
	t.Run("config", func(t *testing.T) { checkConfig(ctx, t) })
}

// volumesOf names the anonymous volumes of the cluster's containers.
func volumesOf(ctx context.Context, t *testing.T, c *compose.Cluster) []string {
	t.Helper()
	var volumes []string
	for _, svc := range c.Services() {
		ci, err := c.Docker().ContainerInspect(ctx, c.ContainerName(svc))
		if err != nil {
			if client.IsErrNotFound(err) {
				continue
			}
			t.Fatal(err)
		}
		for _, m := range ci.Mounts {
			if m.Type == "volume" {
				volumes = append(volumes, m.Name)
			}
		}
	}
	return volumes
}

func up(ctx context.Context, t *testing.T, c *compose.Cluster) *compose.UpReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, upTimeout)
	defer cancel()
	rep, err := c.Up(ctx)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	for _, p := range rep.Phases {
		t.Logf("  %-20s %6.2fs %s", p.Name, p.Took.Seconds(), p.Detail)
	}
	t.Logf("up in %.2fs", rep.Took.Seconds())
	return rep
}

// checkStartingShape checks what the experiment starts from: orders with a
// full ISR, partition p led by broker p+1; single on broker 1.
func checkStartingShape(ctx context.Context, t *testing.T, c *compose.Cluster) {
	t.Helper()
	parts, err := c.Describe(ctx)
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	var orders, single int
	for _, p := range parts {
		isr := slices.Sorted(slices.Values(p.ISR))
		switch p.Topic {
		case "orders":
			orders++
			if p.Leader != p.Partition+1 || !slices.Equal(isr, []int32{1, 2, 3}) || p.Err != nil {
				t.Errorf("orders-%d: leader %d ISR %v err %v; want leader %d, ISR [1 2 3]",
					p.Partition, p.Leader, p.ISR, p.Err, p.Partition+1)
			}
		case "single":
			single++
			if p.Leader != 1 || !slices.Equal(p.Replicas, []int32{1}) || !slices.Equal(isr, []int32{1}) {
				t.Errorf("single-%d: leader %d replicas %v ISR %v; want broker 1 only", p.Partition, p.Leader, p.Replicas, p.ISR)
			}
		}
	}
	if orders != 3 || single != 1 {
		t.Errorf("%d orders and %d single partitions, want 3 and 1", orders, single)
	}
	if ok, err := c.Admin().LeadersPreferred(ctx); err != nil || !ok {
		t.Errorf("LeadersPreferred = %v, %v; want true", ok, err)
	}
}

// produceConsume sends one record with acks=all to the partition, reads it
// back, and returns its offset.
func produceConsume(ctx context.Context, t *testing.T, bootstrap []string, topic string, partition int32) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	prod, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	value := fmt.Sprintf("kbf integration %d", time.Now().UnixNano())
	res := prod.ProduceSync(ctx, &kgo.Record{Topic: topic, Partition: partition, Value: []byte(value)})
	rec, err := res.First()
	if err != nil {
		t.Fatalf("produce: %v", err)
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {partition: kgo.NewOffset().At(rec.Offset)}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	for {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("consume: record at offset %d not read: %v", rec.Offset, err)
		}
		for _, r := range fs.Records() {
			if r.Offset == rec.Offset {
				if string(r.Value) != value {
					t.Fatalf("consume: offset %d holds %q, want %q", r.Offset, r.Value, value)
				}
				return rec.Offset
			}
		}
	}
}

// assertNothingLeft checks Down left no container, network or volume.
func assertNothingLeft(ctx context.Context, t *testing.T, cli *client.Client, volumes []string) {
	t.Helper()
	list, err := cli.ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", "com.docker.compose.project=kbf"))})
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range list {
		t.Errorf("container %v left behind", ct.Names)
	}
	for _, name := range []string{"kbf-c1", "kbf-k1", "kbf-k2", "kbf-k3"} {
		if _, err := cli.ContainerInspect(ctx, name); !client.IsErrNotFound(err) {
			t.Errorf("container %s left behind (%v)", name, err)
		}
	}
	nets, err := cli.NetworkList(ctx, network.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nets {
		if n.Name == "kbf" || n.Labels["com.docker.compose.project"] == "kbf" {
			t.Errorf("network %s left behind", n.Name)
		}
	}
	if len(volumes) == 0 {
		t.Errorf("no anonymous volume seen: the check of their removal checked nothing")
	}
	for _, v := range volumes {
		if _, err := cli.VolumeInspect(ctx, v); !client.IsErrNotFound(err) {
			t.Errorf("volume %s left behind (%v)", v, err)
		}
	}
}

// checkConfig, on kbf's cluster up with no settings: settings given as
// Options.Config reach the nodes they name, the nodes whose settings changed
// are recreated, and the configuration read back from the cluster shows
// them.
func checkConfig(ctx context.Context, t *testing.T) {
	settings := []compose.Setting{
		{Key: "broker.session.timeout.ms", Value: "4000"},
		{Key: "broker.heartbeat.interval.ms", Value: "1000"},
		{Node: "k2", Key: "replica.fetch.backoff.ms", Value: "100"},
	}
	c, err := compose.New(compose.Options{Config: settings})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rep := up(ctx, t, c)
	// Every node's environment changed, the controller's with it.
	if !slices.Equal(rep.Recreated, []string{"c1", "k1", "k2", "k3"}) {
		t.Errorf("recreated %v, want every node", rep.Recreated)
	}
	cfgs, err := c.NodeConfigs(ctx)
	if err != nil {
		t.Fatalf("NodeConfigs: %v", err)
	}
	for _, svc := range c.Services() {
		if v := cfgs[svc]["broker.session.timeout.ms"]; v != "4000" {
			t.Errorf("%s: broker.session.timeout.ms = %q, want 4000", svc, v)
		}
	}
	for _, b := range c.BrokerServices() {
		want := "1000" // Kafka's default
		if b == "k2" {
			want = "100"
		}
		if v := cfgs[b]["replica.fetch.backoff.ms"]; v != want {
			t.Errorf("%s: replica.fetch.backoff.ms = %q, want %s", b, v, want)
		}
	}
	// The same settings again: nothing to recreate.
	if rep := up(ctx, t, c); !rep.Reused {
		t.Errorf("Up with the same settings: created %v recreated %v; want reused", rep.Created, rep.Recreated)
	}
}
