package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// world is a fake target and probe sharing one log of the
// calls the protocol made, in order. A hook runs on a call by its name —
// to cancel the run's context there, or to fail it.
type world struct {
	mu    sync.Mutex
	calls []string
	hooks map[string]func(ctx context.Context) error

	// parts is what the cluster describes; healthy when nil. seenBy is
	// what a broker describes when asked alone, where it differs.
	parts  []cluster.Partition
	seenBy map[int32][]cluster.Partition
	// partsErr, when set, is what Partitions answers instead.
	partsErr error
	// mute are the brokers that, asked alone, never answer; askedBy
	// counts the questions put to each.
	mute    map[int32]bool
	askedBy map[int32]int
	// stats is what the probe reports of itself; healthy when nil.
	stats func(now time.Time) []probe.PartitionStats
	// injected is set once Inject ran; ran when the probe ran.
	injected, probeRan, probeClosed bool
	// injectDeadline is whether Inject's context had a deadline, and
	// injectCanceled whether it was cancelled while Inject ran.
	injectDeadline, injectCanceled bool
	// cannot are the faults the target says it cannot do (Supports).
	cannot map[results.FaultKind]string
	// up is what Up says it did; a reused cluster when nil.
	up *cluster.UpInfo
	// nodes is what NodeConfigs reads back; c1's session timeout when nil.
	nodes map[string]map[string]string
	// coordinator is the node Coordinator names (node 2 when zero), or
	// coordinatorErr its error; coordinatorAsked the keys asked, by kind.
	coordinator      int32
	coordinatorErr   error
	coordinatorAsked []string
	// injectedInto are the brokers Inject was asked to fault, in order.
	injectedInto []string
	// elected are the topics EnsurePreferred was given, and checked those
	// LeadersPreferred was.
	elected, checked []string
}

func newWorld() *world { return &world{hooks: map[string]func(context.Context) error{}} }

// call logs name and runs its hook.
func (w *world) call(ctx context.Context, name string) error {
	w.mu.Lock()
	w.calls = append(w.calls, name)
	h := w.hooks[name]
	w.mu.Unlock()
	if h != nil {
		return h(ctx)
	}
	return nil
}

// log is the calls in order, but the nodes' logs, which are collected
// side by side, by their node's name, and the faulted broker's restart,
// which may come while the others' logs are copied, after them
// (TestRestartAfterOwnLogs checks when it comes).
func (w *world) log() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	calls := slices.Clone(w.calls)
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && (strings.HasPrefix(calls[j], "logs-") || calls[j] == "restart") {
			j++
		}
		slices.SortFunc(calls[i:j], func(a, b string) int {
			return cmp.Or(cmp.Compare(boolInt(a == "restart"), boolInt(b == "restart")), strings.Compare(a, b))
		})
		i = max(j, i+1)
	}
	return strings.Join(calls, " ")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Cluster.

func (w *world) Up(ctx context.Context) (cluster.UpInfo, error) {
	if w.up != nil {
		return *w.up, w.call(ctx, "up")
	}
	return cluster.UpInfo{Reused: true}, w.call(ctx, "up")
}
func (w *world) WaitISRFull(ctx context.Context, _ ...string) error {
	return w.call(ctx, "isr")
}
func (w *world) EnsurePreferred(ctx context.Context, topics ...string) error {
	w.mu.Lock()
	w.elected = topics
	w.mu.Unlock()
	return w.call(ctx, "elect")
}
func (w *world) LeadersPreferred(ctx context.Context, topics ...string) (bool, error) {
	w.mu.Lock()
	w.checked = topics
	w.mu.Unlock()
	return true, w.call(ctx, "leaders")
}
func (w *world) Partitions(ctx context.Context, _ string) ([]cluster.Partition, error) {
	w.mu.Lock()
	parts, err := w.parts, w.partsErr
	w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if parts == nil {
		parts = []cluster.Partition{
			{Partition: 0, Leader: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}},
			{Partition: 1, Leader: 2, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}},
		}
	}
	return parts, nil
}
func (w *world) PartitionsSeenBy(ctx context.Context, topic string, id int32) ([]cluster.Partition, error) {
	w.mu.Lock()
	parts, ok := w.seenBy[id]
	mute := w.mute[id]
	if w.askedBy == nil {
		w.askedBy = map[int32]int{}
	}
	w.askedBy[id]++
	w.mu.Unlock()
	if mute {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if ok {
		return parts, nil
	}
	return w.Partitions(ctx, topic)
}
func (w *world) Bootstrap() []string                          { return []string{"127.0.0.1:1"} }
func (w *world) Brokers() map[string]int32                    { return map[string]int32{"k1": 1, "k2": 2, "k3": 3} }
func (w *world) Services() []string                           { return []string{"c1", "k1"} }
func (w *world) TopicNames() []string                         { return []string{"orders"} }
func (w *world) Image() string                                { return "fake" }
func (w *world) KafkaVersion(context.Context) (string, error) { return "4.3.1", nil }
func (w *world) NodeConfigs(context.Context) (map[string]map[string]string, error) {
	if w.nodes != nil {
		return w.nodes, nil
	}
	return map[string]map[string]string{"c1": {"broker.session.timeout.ms": "9000"}}, nil
}
func (w *world) CPUTimes(context.Context) (map[string]time.Duration, error) {
	return map[string]time.Duration{"c1": time.Second}, nil
}

// Coordinator names node coordinator, node 2 by default.
func (w *world) Coordinator(ctx context.Context, kind results.CoordinatorKind, key string) (int32, error) {
	err := w.call(ctx, "coordinator")
	w.mu.Lock()
	defer w.mu.Unlock()
	w.coordinatorAsked = append(w.coordinatorAsked, string(kind)+" "+key)
	switch {
	case err != nil:
		return -1, err
	case w.coordinatorErr != nil:
		return -1, w.coordinatorErr
	case w.coordinator == 0:
		return 2, nil
	}
	return w.coordinator, nil
}

// Faults.

func (w *world) Supports(kind results.FaultKind, broker string) error {
	if why, ok := w.cannot[kind]; ok {
		return cluster.Unsupportedf("fault %s on %s: %s", kind, broker, why)
	}
	return nil
}

// Quorum is nil: the fake cannot say which controller leads (quorumWorld
// can).
func (w *world) Quorum() cluster.Quorum { return nil }

// Observer is nil: the fake shows no metadata (observed does).
func (w *world) Observer() cluster.Observer { return nil }

func (w *world) Identify(context.Context) error { return nil }

func (w *world) Close() error { return nil }

func (w *world) Inject(ctx context.Context, f cluster.Fault) (results.Fault, error) {
	_, dl := ctx.Deadline()
	rf := results.Fault{Broker: f.Broker, Kind: f.Kind, SignalSent: time.Now().UTC()}
	err := w.call(ctx, "inject")
	w.mu.Lock()
	w.injected = true
	w.injectedInto = append(w.injectedInto, f.Broker)
	w.injectDeadline = dl
	w.injectCanceled = ctx.Err() != nil
	w.mu.Unlock()
	if errors.Is(err, errBeforeSignal) {
		return results.Fault{}, err
	}
	rf.Finished = time.Now().UTC()
	rf.ExitCode = 137
	return rf, err
}

// errBeforeSignal fails Inject before any signal was sent.
var errBeforeSignal = errors.New("container is not running")

func (w *world) Restart(ctx context.Context, _ string) error { return w.call(ctx, "restart") }
func (w *world) CollectLogs(ctx context.Context, svc string, _ time.Time, _ string) error {
	return w.call(ctx, "logs-"+svc)
}

// Probe.

type fakeProbe struct {
	w   *world
	cfg probe.Config
	enc *results.Encoder
}

func (w *world) newProbe(ctx context.Context, cfg probe.Config, out probe.Output) (Probe, error) {
	if err := w.call(ctx, "probe"); err != nil {
		return nil, err
	}
	cfg.Partitions = []int32{0, 1}
	cfg.RunID = "test"
	return &fakeProbe{w: w, cfg: cfg, enc: results.NewEncoder(out.Messages)}, nil
}

func (p *fakeProbe) Config() probe.Config          { return p.cfg }
func (p *fakeProbe) StartOffsets() map[int32]int64 { return map[int32]int64{0: 0, 1: 0} }

func (p *fakeProbe) Progress() []probe.PartitionStats {
	now := time.Now()
	p.w.mu.Lock()
	f := p.w.stats
	p.w.mu.Unlock()
	if f != nil {
		return f(now)
	}
	var out []probe.PartitionStats
	for _, part := range p.cfg.Partitions {
		out = append(out, probe.PartitionStats{Partition: part, Sent: 1, Acked: 1, Received: 1, LastAck: now, LastRecv: now, LastSent: now})
	}
	return out
}

// Run writes one complete message per partition at the start and one at
// the end, the least a report can be made of.
func (p *fakeProbe) Run(ctx context.Context) ([]probe.PartitionStats, error) {
	p.w.mu.Lock()
	p.w.probeRan = true
	p.w.mu.Unlock()
	write := func(seq int64) {
		now := time.Now().UTC()
		for _, part := range p.cfg.Partitions {
			p.enc.Encode(&results.Message{Partition: part, Seq: seq, Offset: seq, Sent: now, Acked: now, Received: now})
		}
	}
	write(0)
	<-ctx.Done()
	write(1)
	return []probe.PartitionStats{{Partition: 0, Sent: 2, LongestSendGap: 42 * time.Millisecond}}, p.enc.Flush()
}

func (p *fakeProbe) Close() error {
	p.w.mu.Lock()
	p.w.probeClosed = true
	p.w.mu.Unlock()
	return nil
}

// readBack writes back what the fake probe wrote.
func (w *world) readBack(ctx context.Context, cfg probe.Config, _ map[int32]int64, out *results.LogEncoder) error {
	if err := w.call(ctx, "readback"); err != nil {
		return err
	}
	for _, part := range cfg.Partitions {
		for seq := int64(0); seq < 2; seq++ {
			out.Encode(&results.LogRecord{Partition: part, Offset: seq, Seq: seq})
		}
	}
	return out.Flush()
}

// analysed records trial n into dir and analyses it as kbf run does
// afterwards (report.Trial, its report files written), for the tests
// that check what the report makes of what the run recorded.
func analysed(ctx context.Context, r *Runner, n int, dir string) (*analysis.Trial, error) {
	if err := r.Trial(ctx, n, dir); err != nil {
		return nil, err
	}
	found, err := results.Find(dir)
	if err != nil {
		return nil, err
	}
	return report.Trial(ctx, found[0], report.Options{Write: report.Recorded})
}

// runAnalysed is r.Run with each trial analysed and the outcome decided as
// kbf run decides it (analysis.Outcome).
func runAnalysed(ctx context.Context, r *Runner) error {
	var o analysis.Outcome
	err := r.Run(ctx, func(_ context.Context, n int, dir string) error {
		found, err := results.Find(dir)
		if err != nil {
			return err
		}
		tr, err := analysis.Analyze(found[0], analysis.Options{})
		if err != nil {
			return err
		}
		o.Add(fmt.Sprintf("trial %d", n), tr)
		return nil
	})
	if err != nil {
		return err
	}
	return o.Err()
}

// recorder is a Reporter that keeps what it was told.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) Say(line string) {
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
}
func (r *recorder) Live(string) {}
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// quietProc is a /proc of an idle two-CPU machine, so that no verdict
// depends on the load of the machine the tests run on.
func quietProc(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"loadavg":   "0.10 0.20 0.30 1/100 4242\n",
		"stat":      "cpu  100 0 50 10000 0 0 0 0 0 0\ncpu0 50 0 25 5000 0 0 0 0 0 0\n",
		"self/stat": "4242 (kbf test) S 1 1 1 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 1 0 0\n",
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
