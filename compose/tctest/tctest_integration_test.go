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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// project is the compose project the user's stack runs as (docker
// compose -p), and so the prefix of its containers' names.
const project = "kbftc"

func image() string { return testkafka.Image(compose.DefaultImage) }

// startStack brings a compose file up with Docker Compose, through
// testcontainers-go, and takes it down with its volumes at the end.
func startStack(ctx context.Context, t *testing.T, file, name string) {
	t.Helper()
	testkafka.Stack{File: file, Project: name, Env: map[string]string{"KBF_IMAGE": image()}}.Start(ctx, t)
}

// TestIntegrationUserFile: a user's compose file, started by Docker
// Compose, measured by kbf -f: the stack found, its settings read back,
// then one whole SIGKILL trial (kbf run -f testdata/shop.yaml --project-name
// kbftc --broker kafka-1 --fault sigkill).
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

	// The trial: kbf run -f on the user's stack, SIGKILL of kafka-1, which
	// leads orders-0. The nodes log to standard output only, so the phases
	// come from their output split by logger.
	c.Close()
	out := filepath.Join(t.TempDir(), "run")
	kbfBinary := testkafka.BuildKBF(ctx, t)
	cmd := exec.CommandContext(ctx, kbfBinary, "run", "-f", file, "--project-name", project,
		"--broker", "kafka-1", "--fault", "sigkill", "--duration", "30s", "--fault-after", "6s", "--out", out)
	cmd.Env = append(os.Environ(), "KBF_IMAGE="+image())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err != nil && code != 6 { // 6: no valid trial on a loaded machine, still checked
		t.Fatalf("kbf run -f: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	trials, err := results.Find(out)
	if err != nil || len(trials) != 1 {
		t.Fatalf("trials in %s: %d, %v", out, len(trials), err)
	}
	tr, err := analysis.Analyze(trials[0], analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("report:\n%s", stdout.String())
		}
	})
	if tr.Meta.Fault == nil || tr.Meta.Fault.Broker != "kafka-1" {
		t.Fatalf("fault %+v, want kafka-1 SIGKILLed (verdict %v)", tr.Meta.Fault, tr.Verdict)
	}
	if v := tr.Verdict; v == nil || v.Status == verdict.Invalid {
		t.Fatalf("verdict %v", v)
	}
	// Partitions 1 and 2 lost only a follower: acks=all waits for the ISR,
	// which holds kafka-1 until the fence, 9 s after its last heartbeat.
	for _, p := range tr.Gaps.Partitions {
		if p.Partition == 0 {
			continue
		}
		if p.Ack.Fault == nil || p.Ack.Fault.Duration() < 5*time.Second {
			t.Errorf("p%d ack stall %v, want at least 5 s (the fence)", p.Partition, p.Ack.Fault)
		}
	}
	if len(tr.Stalls) == 0 {
		t.Errorf("no stall split into phases: the split output gave no evidence (notes %v)", tr.Notes)
	}
	if tr.Integrity == nil || !tr.Integrity.OK() || tr.Integrity.Lost != 0 {
		t.Errorf("integrity %+v, want every acknowledged record found", tr.Integrity)
	}
}

// TestIntegrationEmbeddedFile checks docs/clusters.md's claim that
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
	if err := own.Admin().WaitISRFull(waitCtx); err != nil {
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

// TestIntegrationSASLListener: a real broker whose host listener asks for
// SASL. kbf speaks PLAINTEXT, and must say which listener wants what in one
// line, not wait in silence until its timeout.
func TestIntegrationSASLListener(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	file, err := filepath.Abs(filepath.Join("testdata", "sasl.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const name = "kbfsasl"
	startStack(ctx, t, file, name)
	c, err := compose.New(compose.Options{File: file, ProjectName: name, Env: map[string]string{"KBF_IMAGE": image()},
		Topics: []compose.Topic{}})
	if err != nil {
		t.Fatalf("kbf on %s: %v", file, err)
	}
	defer c.Close()
	upCtx, upCancel := context.WithTimeout(ctx, 3*time.Minute)
	defer upCancel()
	start := time.Now()
	_, err = c.Up(upCtx)
	t.Logf("Up ended after %.1fs: %v", time.Since(start).Seconds(), err)
	if !errors.Is(err, kafkaadmin.ErrSecured) {
		t.Fatalf("Up: %v; want an error saying the listener requires SASL (kafkaadmin.ErrSecured)", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "SASL") || !strings.Contains(msg, "localhost:29192") {
		t.Errorf("Up: %q; want it to name SASL and the listener localhost:29192", msg)
	}
}
