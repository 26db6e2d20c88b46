//go:build integration

// These tests need the Docker engine and the image ($KBF_IMAGE, e.g.
// kbf/kafka:4.3.1 from make image; apache/kafka:4.3.1 when unset). They
// start each cluster with testcontainers-go's compose module, which runs
// Docker Compose itself, so what is checked is kbf against a stack it did
// not make. Ryuk, testcontainers' reaper, is turned off: its image would
// need a registry; each test takes its stack down itself.
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration ./compose/tctest/ -run Integration -v -timeout 20m

package tctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	tccompose "github.com/testcontainers/testcontainers-go/modules/compose"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/compose"
)

// project is the compose project the user's stack runs as (docker
// compose -p), and so the prefix of its containers' names.
const project = "kbftc"

func image() string {
	if img := os.Getenv("KBF_IMAGE"); img != "" {
		return img
	}
	return compose.DefaultImage
}

// startStack brings a compose file up with Docker Compose, through
// testcontainers-go, and takes it down with its volumes at the end.
func startStack(ctx context.Context, t *testing.T, file, name string) {
	t.Helper()
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	stack, err := tccompose.NewDockerComposeWith(tccompose.WithStackFiles(file), tccompose.StackIdentifier(name))
	if err != nil {
		t.Fatalf("compose stack %s: %v", file, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := stack.Down(ctx, tccompose.RemoveOrphans(true), tccompose.RemoveVolumes(true)); err != nil {
			t.Errorf("compose down %s: %v", file, err)
		}
	})
	if err := stack.WithEnv(map[string]string{"KBF_IMAGE": image()}).Up(ctx, tccompose.Wait(true)); err != nil {
		t.Fatalf("compose up %s: %v", file, err)
	}
}

// TestIntegrationUserFile: a user's compose file, started by Docker
// Compose, measured by kbf -f. The SIGKILL below is the fault of a trial;
// extend it to a whole one (kbf run -f testdata/shop.yaml --project-name
// kbftc --broker kafka-1 --kill sigkill) once run takes -f.
func TestIntegrationUserFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	file, err := filepath.Abs(filepath.Join("testdata", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	startStack(ctx, t, file, project)

	c, err := compose.New(compose.Options{File: file, ProjectName: project, Env: map[string]string{"KBF_IMAGE": image()}})
	if err != nil {
		t.Fatalf("kbf on %s: %v", file, err)
	}
	defer c.Close()
	upCtx, upCancel := context.WithTimeout(ctx, 4*time.Minute)
	rep, err := c.Up(upCtx)
	upCancel()
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	for _, p := range rep.Phases {
		t.Logf("  %-20s %6.2fs %s", p.Name, p.Took.Seconds(), p.Detail)
	}
	// Docker Compose made every container; kbf uses them as they are.
	if len(rep.Created)+len(rep.Recreated)+len(rep.Started) > 0 {
		t.Errorf("Up created %v, recreated %v, started %v; want the stack used as it is", rep.Created, rep.Recreated, rep.Started)
	}
	if got, want := c.BrokerServices(), []string{"kafka-1", "kafka-2", "kafka-3"}; !slices.Equal(got, want) {
		t.Errorf("brokers %v, want %v", got, want)
	}
	if id, err := c.Admin().ClusterID(ctx); err != nil || id != c.ClusterID() {
		t.Errorf("cluster id %q, %v; want %q, the file's CLUSTER_ID", id, err, c.ClusterID())
	}
	parts, err := c.Describe(ctx, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[0].Leader != 1 {
		t.Fatalf("orders: %+v; want 3 partitions, partition 0 led by kafka-1 (node 1)", parts)
	}
	cfgs, err := c.NodeConfigs(ctx)
	if err != nil {
		t.Errorf("NodeConfigs: %v", err)
	}
	for _, svc := range c.Services() {
		if len(cfgs[svc]) == 0 {
			t.Errorf("no configuration read back for %s", svc)
		}
	}
	if v := cfgs["kafka-2"]["broker.session.timeout.ms"]; v != "9000" {
		t.Errorf("kafka-2 broker.session.timeout.ms = %q, want Kafka's default 9000", v)
	}
	produce(ctx, t, c.Bootstrap())

	// The fault: kafka-1 SIGKILLed, then the controller's fence read from
	// the nodes' standard output, split into their log files.
	inj := chaos.New(c.Docker(), c.ContainerName)
	f, err := inj.Inject(ctx, chaos.Fault{Broker: "kafka-1", Signal: chaos.SigKill})
	if err != nil {
		t.Fatalf("sigkill kafka-1: %v", err)
	}
	if f.ExitCode != 137 {
		t.Errorf("kafka-1 exit code %d, want 137", f.ExitCode)
	}
	dir := t.TempDir()
	fenced := false
	for deadline := time.Now().Add(90 * time.Second); !fenced && time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		if err := c.CollectOutput(ctx, "kraft", filepath.Join(dir, "kraft")); err != nil {
			t.Fatalf("CollectOutput kraft: %v", err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "kraft", "controller.log"))
		fenced = bytes.Contains(b, []byte("Fencing broker 1"))
	}
	if !fenced {
		t.Errorf("kraft/controller.log never showed broker 1 fenced")
	}
	for _, svc := range []string{"kafka-1", "kafka-2"} {
		if err := c.CollectOutput(ctx, svc, filepath.Join(dir, svc)); err != nil {
			t.Fatalf("CollectOutput %s: %v", svc, err)
		}
		for _, name := range []string{"server.log", "state-change.log"} {
			if st, err := os.Stat(filepath.Join(dir, svc, name)); err != nil || st.Size() == 0 {
				t.Errorf("%s/%s: %v, want lines split from its output", svc, name, err)
			}
		}
	}
	if err := inj.Restart(ctx, "kafka-1"); err != nil {
		t.Fatalf("restart kafka-1: %v", err)
	}
	if err := c.WaitISRFull(ctx); err != nil {
		t.Fatalf("WaitISRFull after the restart: %v", err)
	}
	if _, err := c.EnsurePreferred(ctx); err != nil {
		t.Fatalf("EnsurePreferred: %v", err)
	}
	produce(ctx, t, c.Bootstrap())
}

// TestIntegrationEmbeddedFile checks the README's claim that
// compose/compose.yaml runs as it is under Docker Compose, and that kbf's
// Kafka side takes to the stack Compose made.
func TestIntegrationEmbeddedFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	own, err := compose.New(compose.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer own.Close()
	// The file names its containers (kbf-c1, ...): kbf's own cluster must go first.
	if _, err := own.Down(ctx); err != nil {
		t.Fatalf("kbf down before the test: %v", err)
	}
	file, err := filepath.Abs(filepath.Join("..", "compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	startStack(ctx, t, file, compose.Project)

	waitCtx, waitCancel := context.WithTimeout(ctx, 4*time.Minute)
	defer waitCancel()
	if err := own.WaitBrokers(waitCtx); err != nil {
		t.Fatalf("brokers of the compose stack: %v", err)
	}
	if id, err := own.Admin().ClusterID(waitCtx); err != nil || id != own.ClusterID() {
		t.Errorf("cluster id %q, %v; want %q", id, err, own.ClusterID())
	}
	if _, err := own.EnsureTopics(waitCtx); err != nil {
		t.Fatalf("EnsureTopics: %v", err)
	}
	if err := own.WaitISRFull(waitCtx); err != nil {
		t.Fatalf("WaitISRFull: %v", err)
	}
	produce(ctx, t, own.Bootstrap())
	states, err := own.Containers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range states {
		if !st.Running {
			t.Errorf("%s: %s, want running", st.Name, st.Status)
		}
	}
}

// produce sends one record with acks=all to every partition of orders and
// reads each back.
func produce(ctx context.Context, t *testing.T, bootstrap []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	offsets := map[int32]kgo.EpochOffset{}
	value := fmt.Sprintf("kbf tctest %d", time.Now().UnixNano())
	for p := range int32(3) {
		r, err := cl.ProduceSync(ctx, &kgo.Record{Topic: "orders", Partition: p, Value: []byte(value)}).First()
		if err != nil {
			t.Fatalf("produce to orders-%d: %v", p, err)
		}
		offsets[p] = kgo.EpochOffset{Epoch: -1, Offset: r.Offset}
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{
		"orders": {0: kgo.NewOffset().At(offsets[0].Offset), 1: kgo.NewOffset().At(offsets[1].Offset), 2: kgo.NewOffset().At(offsets[2].Offset)},
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	seen := map[int32]bool{}
	for len(seen) < 3 {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("read back: %d of 3 partitions' records seen: %v", len(seen), ctx.Err())
		}
		fs.EachRecord(func(r *kgo.Record) {
			if string(r.Value) == value {
				seen[r.Partition] = true
			}
		})
	}
}
