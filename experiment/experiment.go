package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// Options are one run's settings, as plain values.
type Options struct {
	// Kill is the fault (results.FaultKinds); none (NoFault) is kbf
	// probe's trial: the probe against a running cluster for Duration,
	// nothing brought up, faulted, copied or read back.
	Kill results.FaultKind
	// Broker is the broker to fault, by service name, or by the role it
	// plays at the moment of the fault (BrokerCoordinator).
	Broker   string
	Duration time.Duration // how long a trial probes, fault included
	// Settle, when positive, ends probing this long after every probed
	// partition acks and reads steadily again after the fault (Recovered),
	// rather than at the end of Duration, which stays the cap. Zero probes
	// for the whole Duration.
	Settle     time.Duration
	FaultAfter time.Duration // the fault is due this long after the probe starts
	Repeat     int           // trials in a Run
	Out        string        // the run's results directory
	Grace      time.Duration // sigterm: how long the broker may take to stop
	// ReturnAfter is, for two-brokers, how long after the fault the second
	// broker is started again; zero: half the time left after the fault.
	// For a fault kbf can undo while probing (results.FaultKind.Undoable: a
	// pause, a cut, the active controller's pause) it is how long the
	// fault lasts: undone then with the probe still running, so a hiccup
	// of a given length is one trial; zero: undone at recovery.
	ReturnAfter time.Duration
	// LastStep is how last-replica stops the leader: results.FaultSIGKILL (the
	// default, when empty) or results.FaultSIGTERM.
	LastStep results.FaultKind
	// RecoveryTimeout bounds everything after the probe stops: the logs,
	// the restart, the ISRs, the election and the read-back.
	RecoveryTimeout time.Duration
	// InjectTimeout bounds an injection past Ctrl-C: once a signal is sent
	// its effect is awaited whatever the user does, but not for ever. A
	// sigterm adds Grace to it. Zero means DefaultInjectTimeout.
	InjectTimeout time.Duration
	// Baseline is the health the fault waits for (DefaultBaseline in kbf
	// run; the zero value waits for none of it to last).
	Baseline Baseline
	Probe    probe.Config
	// Clients are the clients that probe the trial side by side; the
	// external ones (not franz-go, the trial's own probe) run as their own
	// processes and write into results.ClientDir. ClientSettings are each
	// client's settings by its own names (clients.Spec.Settings).
	Clients        []clients.Name
	ClientSettings map[clients.Name]map[string]string
	// ReplicaInterval is how often the replica view (Runner.NewSampler)
	// samples; zero turns it off.
	ReplicaInterval time.Duration
	// Failback keeps the probe running through the broker's return, its
	// catching up and the preferred leader election (failback.go).
	Failback bool
	// FailbackAfter is how long a failback probes on after its election;
	// zero: DefaultFailbackAfter.
	FailbackAfter time.Duration
	// Disk are the settings of the faults of a broker's FUSE layer
	// (disk.go).
	Disk DiskFault
	// Hiccup are cpu-starve's and packet-loss's settings (hiccup.go).
	Hiccup HiccupFault
	// External are an external fault's settings (external.go).
	External External
	// ProcRoot is where the host's load is read, /proc when empty.
	ProcRoot string
	// Load is real traffic beside the probe (results.LoadFile), counted
	// apart from it; nil: none. Its bootstrap and security are the
	// probe's, its topic made like the probe's (an empty Topic is the
	// probe's with load.TopicSuffix).
	Load *load.Config

	Version string   // kbf's version, for the metadata
	Command []string // the command line, for the metadata
}

// NoFault is the Kill of a trial with no fault: kbf probe's.
const NoFault results.FaultKind = ""

// probeOnly says whether the trial has no fault: kbf probe's.
func (o *Options) probeOnly() bool { return o.Kill == NoFault }

// DefaultSettle is how long probing goes on, by default, once the fault's
// consequence is seen and every probed partition acks and reads steadily
// again: a trial ends when the cluster has recovered, not at a fixed time.
const DefaultSettle = 5 * time.Second

// DefaultInjectTimeout is how long a SIGKILL or a pause may take to be
// confirmed by the engine.
const DefaultInjectTimeout = 30 * time.Second

// The bounds Validate holds options to: beyond them a setting is a typo or
// exhausts the machine (an interval of 1ns is a busy loop, a billion trials
// a plan that fills the memory) rather than an experiment.
const (
	MinInterval   = time.Millisecond
	MaxDuration   = 24 * time.Hour
	MaxPartitions = 10000 // a probed partition's number is below it
	MaxRepeat     = 1000
)

// InvalidOption is an option that cannot work. Name is the option's name
// as a bench scenario spells it (fault_after); the command line's flag is
// the same with dashes (--fault-after).
type InvalidOption struct {
	Name  string
	Value string
	Why   string
}

func (e *InvalidOption) Error() string { return fmt.Sprintf("%s %s: %s", e.Name, e.Value, e.Why) }

// Is makes an InvalidOption an ErrInvalidOption.
func (e *InvalidOption) Is(target error) bool { return target == ErrInvalidOption }

// ErrInvalidOption marks every error Validate returns: the options, not
// the cluster, are wrong.
var ErrInvalidOption = errors.New("invalid option")

// invalidProbe is the probe's own refusal of its configuration, as it
// says it.
type invalidProbe struct{ err error }

func (e invalidProbe) Error() string        { return e.err.Error() }
func (e invalidProbe) Unwrap() error        { return e.err }
func (e invalidProbe) Is(target error) bool { return target == ErrInvalidOption }

// list is a value shown as it is, not quoted as a string is.
type list string

func invalid(name string, value any, format string, a ...any) error {
	v := fmt.Sprint(value)
	if s, ok := value.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	return &InvalidOption{Name: name, Value: v, Why: fmt.Sprintf(format, a...)}
}

// Validate reports the first option that cannot work, as an
// *InvalidOption, or the probe's configuration's error. It is the one
// place a trial's options are checked: kbf run, kbf bench and Run call it.
func (o *Options) Validate() error {
	if o.probeOnly() {
		if o.Duration <= 0 || o.Duration > MaxDuration {
			return invalid("duration", o.Duration, "must be positive and at most %v", MaxDuration)
		}
		return cmp.Or(o.validateLoad(), validateProbe(o.Probe)) // the first refusal
	}
	left := o.Duration - o.FaultAfter
	switch {
	case !o.Kill.Known():
		return invalid("fault", string(o.Kill), "want one of %v", results.FaultKinds())
	case o.Broker == "":
		return invalid("broker", "", "no broker to fault")
	case o.Duration <= 0 || o.Duration > MaxDuration:
		return invalid("duration", o.Duration, "must be positive and at most %v", MaxDuration)
	case o.FaultAfter < 0 || o.FaultAfter >= o.Duration:
		return invalid("fault_after", o.FaultAfter, "must be within duration %v", o.Duration)
	case o.Settle < 0 || o.Settle > MaxDuration:
		return invalid("settle", o.Settle, "must be at least 0 (0 probes for the whole duration) and at most %v", MaxDuration)
	case o.LastStep != "" && o.LastStep != results.FaultSIGKILL && o.LastStep != results.FaultSIGTERM:
		return invalid("last_step", string(o.LastStep), "want sigkill or sigterm")
	case o.Repeat < 1 || o.Repeat > MaxRepeat:
		return invalid("repeat", o.Repeat, "want 1 to %d", MaxRepeat)
	case o.Grace <= 0:
		return invalid("grace", o.Grace, "must be positive")
	case o.RecoveryTimeout <= 0:
		return invalid("recovery_timeout", o.RecoveryTimeout, "must be positive")
	case o.ReplicaInterval < 0:
		return invalid("replica_interval", o.ReplicaInterval, "must not be negative (0 turns the replica view off)")
	case o.Baseline.Period < 0:
		return invalid("baseline", o.Baseline.Period, "must not be negative")
	case o.Baseline.Gap < 0:
		return invalid("baseline_gap", o.Baseline.Gap, "must not be negative")
	case o.Baseline.Timeout < 0:
		return invalid("baseline_timeout", o.Baseline.Timeout, "must not be negative")
	}
	// The fault's return and hiccup (hiccup.go), the broker's role (coordinator.go), the
	// disk's layer (disk.go), the load (load.go), then the failback (failback.go).
	if err := cmp.Or(o.validateReturn(left), o.validateHiccup(), o.validateRole(), o.validateDisk(), o.validateLoad(), o.validateFailback()); err != nil {
		return err
	}
	if o.Probe.Transactional() {
		for _, c := range o.Clients {
			if c != clients.FranzGo {
				return invalid("producer", list(o.Probe.Producer), "the %s probe has no transactional producer: only franz-go's writes in transactions", c)
			}
		}
	}
	return validateProbe(o.Probe)
}

// validateProbe checks a probe's configuration, kbf probe's too: the
// probe's own rules (probe.Config.Validate) and the bounds above. The
// addresses are not checked: the target gives them.
func validateProbe(c probe.Config) error {
	switch {
	case c.Interval < MinInterval:
		return invalid("interval", c.Interval, "must be at least %v", MinInterval)
	}
	seen := map[int32]bool{}
	for _, p := range c.Partitions {
		switch {
		case p < 0 || p >= MaxPartitions:
			return invalid("partitions", partitionList(c.Partitions), "partition %d: want 0 to %d", p, MaxPartitions-1)
		case seen[p]:
			return invalid("partitions", partitionList(c.Partitions), "partition %d given twice", p)
		}
		seen[p] = true
	}
	if len(c.Bootstrap) == 0 {
		c.Bootstrap = []string{"the target's"} // filled in by the trial
	}
	if err := c.Validate(); err != nil {
		return invalidProbe{err}
	}
	return nil
}

func partitionList(ps []int32) list {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprint(p)
	}
	return list(strings.Join(s, ","))
}

// Runner runs trials. Target is required; the other dependencies have
// defaults.
type Runner struct {
	Opt    Options
	Target cluster.Cluster
	// NewProbe defaults to probe.New, ReadBack to probe.ReadBack.
	NewProbe NewProbe
	ReadBack ReadBack
	// StartClient starts an external client (Opt.Clients); the default is
	// clients.Start.
	StartClient StartClient
	// NewSampler, when set, watches the replicas through each trial into
	// replicas.csv every Opt.ReplicaInterval: each replica's LEO, the HW,
	// the ISR and ELR.
	NewSampler NewSampler
	// NewLoad makes the real traffic beside the probe (Opt.Load); the
	// default is load.New.
	NewLoad NewLoad
	// Reporter shows the progress (default: none).
	Reporter Reporter
}

// Check refuses, before anything starts, options that cannot work
// (Options.Validate), a results directory that cannot be written, and a
// fault the target cannot do (Check). Run and
// Trial call it first; a command calls it before its first trial to
// refuse a scenario before anything is written.
func (r *Runner) Check() error {
	if err := r.Opt.Validate(); err != nil {
		return err
	}
	if err := Writable(r.Opt.Out); err != nil {
		return err
	}
	return Check(&r.Opt, r.Target)
}

func (r *Runner) say(format string, a ...any) { r.reporter().Say(fmt.Sprintf(format, a...)) }

func (r *Runner) reporter() Reporter {
	if r.Reporter == nil {
		return Discard
	}
	return r.Reporter
}

// Recorded is handed each trial Run has recorded, by its number and
// directory: the command analyses and reports it (package report), as the
// run side does not.
type Recorded func(ctx context.Context, n int, dir string) error

// Run runs Opt.Repeat trials into Opt.Out/trial-NN, handing each to
// recorded once it is on disk. A trial's put-back (every ISR full after its
// broker's restart, the election, the read-back, its files) ends while the
// next trial's probe starts; the next trial hands it to recorded before its
// fault (putback.go).
// An interrupted run returns the context's error; a trial that could not
// run, or that recorded refuses, ends the run with its error. Whatever
// happens, every trial's put-back has ended when Run returns.
func (r *Runner) Run(ctx context.Context, recorded Recorded) error {
	o := &r.Opt
	if err := r.Check(); err != nil {
		return err
	}
	var prev *PutBack
	for i := 1; i <= o.Repeat; i++ {
		dir := filepath.Join(o.Out, results.TrialDir(i))
		r.say("trial %d of %d: %s, into %s", i, o.Repeat, r.what(), dir)
		next, err := r.overlapped(ctx, i, dir, prev, i < o.Repeat, recorded)
		if herr := prev.HandOver(ctx); herr != nil {
			next.wait()
			return herr
		}
		prev = next
		if err != nil {
			if ctx.Err() != nil {
				r.say("interrupted: what was measured is in %s", dir)
				return ctx.Err()
			}
			return fmt.Errorf("trial %d: %w", i, err)
		}
		if next == nil && recorded != nil {
			if err := recorded(ctx, i, dir); err != nil {
				return fmt.Errorf("trial %d: %w", i, err)
			}
		}
	}
	return nil
}

// what is the fault a Run's trials make, in words.
func (r *Runner) what() string {
	o := &r.Opt
	switch {
	case o.Kill == results.FaultExternal:
		return "an external fault, its broker named from what kbf sees" // something else picks it
	case o.Broker == BrokerCoordinator:
		return fmt.Sprintf("%s of the probe's group's coordinator, found at the fault", o.Kill)
	case o.Broker == BrokerTxnCoordinator:
		return fmt.Sprintf("%s of the probe's transactional id's coordinator, found at the fault", o.Kill)
	}
	return fmt.Sprintf("%s of %s", o.Kill, o.Broker)
}

// Trial runs trial n (1-based) and records it into dir; it analyses
// nothing (package report does, from dir). It refuses what Check refuses
// before anything starts.
// Whatever happens — an error, Ctrl-C (ctx cancelled) — the fault is undone
// and what was measured is on disk before it returns; an interrupted trial
// returns the context's error.
func (r *Runner) Trial(ctx context.Context, n int, dir string) error {
	t, err := r.newTrial(ctx, n, dir, nil)
	if err != nil {
		return err
	}
	return t.run(ctx)
}

// newTrial checks the options (Check) and makes trial n, which runs after
// prev's put-back when prev is not nil.
func (r *Runner) newTrial(ctx context.Context, n int, dir string, prev *PutBack) (*trial, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	// The trial's options are its own: a broker named by its role becomes
	// the one found at this trial's fault (coordinator.go).
	o := r.Opt
	t := &trial{r: r, o: &o, n: n, dir: dir, ctx: ctx, prev: prev}
	t.phase.Store("cluster")
	return t, nil
}

// trial is one trial's state. Only the goroutine running run touches meta:
// the probe's goroutine hands its result over a channel.
type trial struct {
	r     *Runner
	o     *Options
	n     int
	dir   string
	rec   *Recorder
	meta  *results.Meta
	p     Probe
	phase atomic.Value // string, read by the progress line
	end   atomic.Value // time.Time the probing is due to end, read by the progress line
	// faultAt is when the fault was asked for: probing goes on from there.
	faultAt time.Time
	// host samples the machine's and the nodes' CPU from the probe's start;
	// the baseline waits for the cluster's own CPU to settle (baseline.go).
	host *hostMeter
	// interrupted is the phase Ctrl-C came in.
	interrupted string
	ctx         context.Context // the caller's, to date Ctrl-C by phase

	// clients are the external clients probing beside p.
	clients []*external
	// load is the real traffic beside the probe, nil without one, and
	// loadFile its rows (load.go).
	load     Load
	loadFile *os.File
	// quorum is the quorum's leader before a controller fault (steps.go).
	quorum quorumState
	// ext is the watch of an external fault, and onReady its injector
	// (external.go, onready.go).
	ext     *externalWatch
	onReady *onReady
	// coordinator is the probe's group's coordinator found just before
	// the fault, and chosenAs the role the faulted broker was chosen by
	// (coordinator.go).
	coordinator *results.Coordinator
	chosenAs    results.ChosenRole
	// group is the group the probe's group reader joins; empty: none.
	group string
	// txnCoordinator is the probe's transactional id's coordinator found
	// just before the fault, nil for an idempotent probe; txnID is that id.
	txnCoordinator *results.Coordinator
	txnID          string

	// What measure leaves for putBack: whether a fault was attempted, and
	// the errors of the fault, the probe, the load and the restart.
	attempted                           bool
	faultErr, probeErr, loadErr, recErr error
	// rctx bounds the recovery (Options.RecoveryTimeout), whatever the
	// caller's context says.
	rctx           context.Context
	cancelRecovery context.CancelFunc
	// prev is the put-back of the trial before, still running when this
	// one starts (putback.go); prevErr why it failed, and steadyFrom when
	// it left the cluster whole: the baseline counts from then.
	prev       *PutBack
	prevErr    error
	steadyFrom time.Time
}

// setPhase moves the trial to its next phase, first noting whether the
// user interrupted the one it leaves.
func (t *trial) setPhase(name string) {
	if t.interrupted == "" && t.ctx.Err() != nil {
		t.interrupted = t.phase.Load().(string)
	}
	if name != "" {
		t.phase.Store(name)
	}
}

type probeResult struct {
	stats []probe.PartitionStats
	err   error
}

// run runs the trial to its end: measure, then the put-back.
func (t *trial) run(ctx context.Context) error {
	if err := t.measure(ctx); err != nil {
		return err
	}
	return t.putBack(ctx, nil)
}

// measure runs the trial up to the faulted broker's restart: the cluster
// up, the probe, the baseline, the fault, the probing, the nodes' logs
// copied. An error means nothing was measured (the cluster or the probe
// never started); otherwise putBack must follow, which puts the cluster
// back whole, writes the files and says whether the trial failed.
func (t *trial) measure(ctx context.Context) error {
	if err := t.clusterUp(ctx); err != nil {
		return err
	}
	if err := t.startProbeBeside(ctx); err != nil {
		return err
	}
	if err := t.newLoad(ctx); err != nil { // load.go
		t.p.Close()
		t.rec.Discard()
		return err
	}
	if err := t.startClients(ctx); err != nil {
		t.p.Close()
		t.closeLoad()
		t.rec.Discard()
		return err
	}

	// The probe runs for the whole trial; the fault is injected into it.
	probeCtx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	start := time.Now()
	probeDone := make(chan probeResult, 1)
	go func() {
		stats, err := t.p.Run(probeCtx)
		probeDone <- probeResult{stats, err}
	}()
	sampled := t.startSampler(probeCtx)
	loaded := t.runLoad(probeCtx) // load.go
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	t.end.Store(start.Add(t.o.Duration))
	go func() {
		defer close(watchDone)
		Watch(watchCtx, t.r.reporter(), func() string { return t.phase.Load().(string) }, t.p, start, func() time.Time { return t.end.Load().(time.Time) })
	}()

	host := startHost(t.o.ProcRoot, func() (map[string]time.Duration, error) { return t.r.Target.CPUTimes(ctx) })
	t.host = host
	if t.o.probeOnly() {
		t.probeFor(probeCtx, start)
	} else if healthy, err := t.baseline(probeCtx, start); err == nil && healthy {
		t.attempted, t.faultErr = t.fault(ctx)
		if t.faultErr == nil {
			t.probing(probeCtx, start)
			if t.o.Failback && probeCtx.Err() == nil {
				t.failback(probeCtx) // failback.go
			}
		}
	}
	stopProbe()
	res := <-probeDone
	t.probeErr = res.err
	t.loadErr = loaded()
	t.stopClients(ctx)
	stopWatch()
	<-watchDone
	SetProbeResult(t.meta, res.stats)
	t.meta.Replicas = sampled()
	t.meta.Ended = time.Now().UTC()
	t.restartAfterLogs(ctx, host)
	return nil
}

// restartAfterLogs copies the nodes' logs and restarts what the fault
// stopped. The host meter ends at its last reading, before the restart,
// whose start-up would count as the trial's, without waiting for another
// (hostMeter.stop). A fault of one broker (overlapKind) restarts it once
// its own logs are copied, while the others' are; any other once every
// node's are.
func (t *trial) restartAfterLogs(ctx context.Context, host *hostMeter) {
	hostDone := make(chan *results.Host, 1)
	go func() { hostDone <- host.stop() }()
	// From here on the cluster is put back whatever the caller's context
	// says: Ctrl-C must not leave a broker down.
	t.rctx, t.cancelRecovery = context.WithTimeout(context.WithoutCancel(ctx), t.o.RecoveryTimeout)
	restart := func() {
		t.meta.Host = <-hostDone
		if t.attempted {
			t.recErr = t.restartFaulted(t.rctx)
		}
	}
	if t.o.probeOnly() {
		restart()
		return
	}
	first := ""
	if t.o.overlapKind() {
		first = t.o.Broker
	}
	t.collectLogs(t.rctx, first, restart)
}

// putBack ends the trial measure began: the cluster whole again (every
// ISR full, leaders preferred), the read-back, the files. whole, when not
// nil, is told as soon as the cluster is whole again, or why it is not:
// the next trial's fault waits for it (Runner.Run). ctx is the caller's:
// Ctrl-C skips the read-back, never the cluster's put-back.
func (t *trial) putBack(ctx context.Context, whole func(error)) error {
	defer t.cancelRecovery()
	defer t.rec.Close()
	defer t.p.Close()
	recErr := t.recErr
	if t.attempted && recErr == nil {
		recErr = t.wholeAgain(t.rctx)
	}
	if whole != nil {
		whole(recErr)
	}
	if t.attempted && ctx.Err() != nil {
		if recErr == nil {
			t.r.say("the fault was undone: %s restarted, every ISR full, leaders back where they started", t.o.Broker)
		} else {
			t.r.say("the cluster is not whole (%v): kbf up restores it", recErr)
		}
	}
	if !t.o.probeOnly() && t.faultErr == nil && t.probeErr == nil && recErr == nil && ctx.Err() == nil {
		// The read-back stops at Ctrl-C: the fault is undone by now, and
		// without log.csv the report only leaves out the audit.
		rbctx, cancel := context.WithTimeout(ctx, t.o.RecoveryTimeout)
		t.readBack(rbctx)
		cancel()
	}
	t.endOnReady()
	if ctx.Err() != nil {
		t.setPhase("")
		t.meta.Notes = append(t.meta.Notes, "interrupted by the user during "+t.interrupted)
	}
	if err := errors.Join(t.rec.Save(), t.saveClients(), t.rec.Close()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err := errors.Join(t.prevErr, t.faultErr, t.probeErr, recErr, t.loadErr); err != nil {
		return err
	}
	return nil
}

// clusterUp makes sure the cluster is up with every ISR full. A trial
// with no fault probes the cluster as it is, once it knows the brokers at
// its addresses are the cluster's own.
func (t *trial) clusterUp(ctx context.Context) error {
	if t.o.probeOnly() {
		ictx, cancel := context.WithTimeout(ctx, IdentifyTimeout)
		defer cancel()
		return t.r.Target.Identify(ictx)
	}
	if t.prev != nil {
		return nil // the trial before brought it up, and its put-back makes it whole (putback.go)
	}
	up, err := t.r.Target.Up(ctx)
	if err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	switch {
	case up.Reused:
	case up.Changes != "":
		t.r.say("cluster up in %.1fs: %s", up.Took.Seconds(), up.Changes)
	default:
		t.r.say("cluster up in %.1fs", up.Took.Seconds())
	}
	// Up gives kbf's own topics back to their preferred leaders; a probed
	// topic of the user's (--topic wide) is given back too, or after a
	// fault in a trial of another topic the baseline waits for its leaders
	// in vain.
	if tp := t.o.Probe.Topic; tp != "" && !slices.Contains(t.r.Target.TopicNames(), tp) {
		ectx, cancel := context.WithTimeout(ctx, PreferredTimeout)
		defer cancel()
		if err := t.r.Target.EnsurePreferred(ectx, tp); err != nil && ctx.Err() == nil {
			t.r.say("cluster: %s's leaders not all on their preferred replicas: %v", tp, err)
		}
	}
	return nil
}

// PreferredTimeout bounds the preferred leader election a trial runs on
// its probed topic before its baseline; the baseline then judges what it
// finds.
const PreferredTimeout = 30 * time.Second

// startProbe makes the trial directory and the probe, and writes the
// metadata known before the probe sends. A probe that cannot start leaves
// no directory behind.
func (t *trial) startProbe(ctx context.Context) error {
	cfg := t.o.Probe.Identified() // the group known before the probe joins it
	t.group, t.txnID = cfg.Group, cfg.TxnID
	cfg.Bootstrap = t.r.Target.Bootstrap()
	cfg.SteadyGap = t.o.Baseline.Gap
	rec, err := NewRecorder(t.dir)
	if err != nil {
		return err
	}
	newProbe := t.r.NewProbe
	if newProbe == nil {
		newProbe = defaultNewProbe
	}
	p, err := newProbe(ctx, cfg, rec.Output())
	if err != nil {
		rec.Discard()
		switch {
		case errors.Is(err, probe.ErrNotInCluster):
			// The cluster answered: the flags named what it lacks.
			return fmt.Errorf("probe: %w", invalidProbe{err})
		case t.o.probeOnly():
			return fmt.Errorf("probe: %w (is the cluster up? kbf up starts it)", err)
		}
		return fmt.Errorf("probe: %w", err)
	}
	m := NewMeta(results.KindTrial, t.o.Version, t.o.Command, p)
	m.Trial = t.n
	if t.o.probeOnly() {
		m.Kind, m.Trial = results.KindProbe, 0
	}
	m.Cluster.Image = t.r.Target.Image()
	m.Cluster.Brokers = t.r.Target.Brokers()
	if t.prev == nil { // else once the trial before has put the cluster back (awaitPrev)
		t.describe(ctx, m)
	}
	if err := rec.SetMeta(m); err != nil {
		p.Close()
		rec.Discard()
		return err
	}
	t.rec, t.meta, t.p = rec, m, p
	return nil
}

// describe records in m what the cluster says of itself: Kafka's version,
// the nodes' settings, the probed partitions' leaders and replicas.
func (t *trial) describe(ctx context.Context, m *results.Meta) {
	if v, err := t.r.Target.KafkaVersion(ctx); err == nil {
		m.Cluster.KafkaVersion = v
	} else {
		m.Notes = append(m.Notes, "kafka version unknown: "+err.Error())
	}
	if nodes, err := t.r.Target.NodeConfigs(ctx); err == nil {
		m.Cluster.Nodes = nodes // their secrets hidden when written (results.WriteMeta)
	} else {
		m.Notes = append(m.Notes, "nodes' configuration not read back: "+err.Error())
	}
	if parts, err := t.r.Target.Partitions(ctx, m.Probe.Topic); err == nil {
		m.Probe.Leaders = map[int32]int32{}
		m.Probe.Replicas = map[int32][]int32{}
		for _, pt := range parts {
			m.Probe.Leaders[pt.Partition] = pt.Leader
			m.Probe.Replicas[pt.Partition] = pt.Replicas
		}
		m.Probe.TopicID = topicIDOf(parts)
	}
}

// baseline waits until the fault is due and the cluster healthy (see
// Steady), and records the wait. It returns false, with no error, for a
// baseline never healthy within the timeout: the trial is then invalid and
// the fault is not injected. An error means probing ended first (Ctrl-C):
// there is nothing to undo.
func (t *trial) baseline(ctx context.Context, start time.Time) (bool, error) {
	t.setPhase("baseline")
	if err := t.awaitPrev(ctx); err != nil { // putback.go
		return false, err
	}
	b, err := t.waitHealthy(ctx, start)
	t.meta.Baseline = b
	if serr := t.rec.Save(); serr != nil && err == nil {
		err = serr
	}
	if err != nil {
		return false, err
	}
	if b.Unhealthy != "" {
		t.r.say("baseline: not healthy %v after the fault was due (%s): the trial is invalid; no fault injected",
			t.o.Baseline.Timeout, b.Unhealthy)
		return false, nil
	}
	return true, nil
}

// fault injects the fault and records its times. attempted is true once a
// signal may have been sent: the fault must then be undone, whatever the
// error.
func (t *trial) fault(ctx context.Context) (attempted bool, err error) {
	if err := t.findCoordinator(ctx); err != nil { // coordinator.go
		return false, err
	}
	if t.o.Kill.MultiStep() {
		return t.stepsFault(ctx) // steps.go
	}
	if t.o.Kill == results.FaultExternal {
		return t.externalFault(ctx) // external.go
	}
	t.setPhase(string(t.o.Kill))
	// Once sent, the signal's effect is awaited even through Ctrl-C — a
	// broker half-way through a controlled shutdown cannot be restarted —
	// but for a bounded time.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.injectTimeout(t.o.Kill))
	defer cancel()
	t.faultAt = time.Now()
	f, err := t.r.Target.Inject(ictx, cluster.Fault{Broker: t.o.Broker, Kind: t.o.Kill, Grace: t.o.Grace,
		Controllers: controllersOf(t.r.Target), Peers: otherBrokers(t.r.Target, t.o.Broker), HaltWait: t.haltWait(),
		DiskDelay: t.o.Disk.Delay, AlsoLose: t.alsoLost(), CPUs: t.o.Hiccup.CPUs, Loss: t.o.Hiccup.Loss})
	if f.Broker != "" {
		f.NodeID = t.r.Target.Brokers()[t.o.Broker]
		t.noteChoice(&f)
		t.meta.Fault = &f
		if serr := t.rec.Save(); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	if err != nil {
		return true, fmt.Errorf("inject %s into %s: %w", t.o.Kill, t.o.Broker, err)
	}
	switch {
	case f.Kind == results.FaultPause:
		t.r.say("%s paused", t.o.Broker)
	case f.Kind == results.FaultDiskFull && f.Finished.IsZero():
		t.r.say("%s's log directory is full; its process runs on", t.o.Broker)
	case f.Kind == results.FaultDiskFull:
		t.r.say("%s's log directory is full; its process ended %.2f s later, exit code %d", t.o.Broker, f.Finished.Sub(f.Filled).Seconds(), f.ExitCode)
	case f.Kind.FaultFS():
		t.r.say("%s", diskSaid(f))
	case f.Kind.Hinders():
		t.r.say("%s", HiccupSaid(&f))
	default:
		t.r.say("%s sent to %s; exit code %d", t.o.Kill, t.o.Broker, f.ExitCode)
	}
	return true, nil
}

// probing keeps the probe running after the fault until the trial's
// duration is over: as long after the fault as Duration − FaultAfter, and
// not before Duration from the start. With Settle it ends sooner, once the
// probe has seen every partition recover and stay so for Settle.
func (t *trial) probing(ctx context.Context, start time.Time) {
	if t.o.Kill == results.FaultExternal {
		t.externalProbing(ctx) // external.go
		return
	}
	t.setPhase("probing")
	end := start.Add(t.o.Duration)
	if after := t.faultAt.Add(t.o.Duration - t.o.FaultAfter); after.After(end) {
		end = after
	}
	t.end.Store(end)
	from := t.faultAt
	if t.o.Kill.MultiStep() {
		end = t.laterSteps(ctx, end) // steps.go
		t.end.Store(end)
		from = later(from, time.Now()) // the steps are done: settle from the last
	} else if t.hiccup(ctx) { // hiccup.go
		from = later(from, t.meta.Fault.Returned)
	}
	if t.o.Settle > 0 {
		t.settle(ctx, from, end)
		return
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(end)):
	}
}

// IdentifyTimeout bounds the question of whose cluster answers at the
// addresses a trial with no fault probes.
const IdentifyTimeout = 15 * time.Second

// probeFor probes a trial with no fault until its Duration is over or ctx
// ends (Ctrl-C).
func (t *trial) probeFor(ctx context.Context, start time.Time) {
	t.setPhase("probing")
	cfg := t.p.Config()
	t.r.say("probing %s partitions %s every %v for %v into %s", cfg.Topic, partitionsText(cfg.Partitions), cfg.Interval, t.o.Duration, t.dir)
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(start.Add(t.o.Duration))):
	}
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// settle waits until the probe has seen every partition recover (Recovered)
// for Settle, and at least Settle and the steady bound after from, or
// until end; a trial ended early says so in its notes.
//
// A broker fault's consequence may come late: a broker cut from the
// controller serves on until it is fenced a session timeout later, and
// only then do its partitions move and maybe stall. Quiet partitions
// before that are not a recovery. So for the faults that take the broker
// out of the cluster (awaitsExit), settling also waits until the cluster
// shows the broker gone from every probed partition's leader and ISR, as
// another broker sees it (brokerLeft), and counts its margin from then; a
// fault whose broker never leaves probes to the cap, as without --settle.
func (t *trial) settle(ctx context.Context, from, end time.Time) {
	cfg := t.p.Config()
	bound := cfg.SteadyBound()
	every := min(bound/4, 100*time.Millisecond)
	id, awaits := t.r.Target.Brokers()[t.o.Broker]
	// A fault undone while probing (hiccup.go) may end without the broker
	// ever leaving: the probe alone says when it is over.
	awaits = awaits && awaitsExit(t.o.Kill) && (t.meta.Fault == nil || t.meta.Fault.Returned.IsZero())
	var left, asked time.Time // when the broker was seen gone; when last asked
	for {
		now := time.Now()
		if !now.Before(end) {
			return
		}
		if awaits && left.IsZero() && now.Sub(asked) >= min(time.Second, t.o.Settle/2) {
			asked = now
			if t.brokerLeft(ctx, id, cfg.Topic, cfg.Partitions) {
				left = time.Now()
				from = later(from, left)
			}
		}
		// A stall shows as a gap once it is longer than bound: until then
		// a partition stalled at the fault looks steady.
		if (!awaits || !left.IsZero()) && !now.Before(from.Add(t.o.Settle+bound)) && Recovered(now, t.o.Settle, bound, t.p.Progress()) == nil {
			t.end.Store(now)
			why := ""
			if awaits {
				why = fmt.Sprintf(", %.1fs after the cluster showed %s out of every probed partition's ISR", now.Sub(left).Seconds(), t.o.Broker)
			}
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("probing ended %.1fs after the fault%s: every partition had acked and been read steadily for --settle %v (the cap was %.1fs)",
				now.Sub(t.faultAt).Seconds(), why, t.o.Settle, end.Sub(t.faultAt).Seconds()))
			return
		}
		if err := sleepUntil(ctx, earlier(now.Add(every), end)); err != nil {
			return
		}
	}
}

// awaitsExit reports whether kind's consequence is the faulted broker
// leaving its partitions' leadership and ISRs: the single-step broker
// faults, whose stalls follow that exit (at once for a signal, a session
// timeout later for a cut or a pause). isolate-clients leaves the cluster
// as it is and the controller faults touch no partition: they settle on
// the probe alone.
func awaitsExit(kind results.FaultKind) bool {
	switch kind {
	case results.FaultSIGKILL, results.FaultSIGTERM, results.FaultPause, results.FaultIsolate,
		results.FaultIsolateController, results.FaultDiskFull, results.FaultDiskError, results.FaultPowerLoss:
		return true
	}
	return false
}

// brokerLeft reports whether a broker other than id shows id out of every
// probed partition's leadership and ISR (brokerGone). The brokers are asked
// one after the other, each for at most askTimeout, until one does; id
// itself never is: cut from the controller it goes on serving the
// metadata it had, itself in every ISR, and paused or cut from everyone
// it does not answer. A broker's view is the controller's metadata log as
// far as it has read it, so one that shows id gone saw the controller
// decide it.
func (t *trial) brokerLeft(ctx context.Context, id int32, topic string, probed []int32) bool {
	brokers := t.r.Target.Brokers()
	others := make([]int32, 0, len(brokers))
	for _, b := range brokers {
		if b != id {
			others = append(others, b)
		}
	}
	slices.Sort(others)
	for _, b := range others {
		actx, cancel := context.WithTimeout(ctx, askTimeout)
		parts, err := t.r.Target.PartitionsSeenBy(actx, topic, b)
		cancel()
		if err == nil && brokerGone(id, parts, probed) {
			return true
		}
	}
	return false
}

// askTimeout bounds one question settling puts to a broker: one that does
// not answer (a paused broker, a lost connection) is passed over, not
// waited for.
const askTimeout = time.Second

// brokerGone reports whether id neither leads nor is in the ISR of any
// of parts (of probed, every one when empty).
func brokerGone(id int32, parts []cluster.Partition, probed []int32) bool {
	if len(parts) == 0 {
		return false
	}
	for _, p := range parts {
		if len(probed) > 0 && !slices.Contains(probed, p.Partition) {
			continue
		}
		if p.Leader == id || slices.Contains(p.ISR, id) {
			return false
		}
	}
	return true
}

// startSampler starts the replica view beside the probe, when the runner
// has one. The returned func waits for it to end with ctx and says what it
// saw; a sampler that cannot start costs the trial its replica view, with
// a note, not the trial.
func (t *trial) startSampler(ctx context.Context) func() *results.ReplicaStats {
	none := func() *results.ReplicaStats { return nil }
	if t.r.NewSampler == nil || t.o.ReplicaInterval <= 0 {
		return none
	}
	f, err := os.Create(filepath.Join(t.dir, results.ReplicasFile))
	if err != nil {
		t.meta.Notes = append(t.meta.Notes, "no replica view: "+err.Error())
		return none
	}
	cfg := t.p.Config()
	s, err := t.r.NewSampler(ctx, cfg.Bootstrap, cfg.Topic, cfg.Partitions, t.o.ReplicaInterval, f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		t.meta.Notes = append(t.meta.Notes, "no replica view: "+err.Error())
		return none
	}
	done := make(chan results.ReplicaStats, 1)
	errc := make(chan error, 1)
	go func() {
		st, err := s.Run(ctx)
		done <- st
		errc <- err
	}()
	return func() *results.ReplicaStats {
		st, err := <-done, <-errc
		s.Close()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.meta.Notes = append(t.meta.Notes, "replica view incomplete: "+err.Error())
		}
		return &st
	}
}

// collectLogs copies every node's logs into the trial directory, side by
// side: each is an archive of its log directory, tens of megabytes on a
// busy broker. then runs once first's are copied (first "": once every
// node's are), while the others' still are. What the logs say (a graceful
// stop's SIGTERM line) is read at analysis time.
func (t *trial) collectLogs(ctx context.Context, first string, then func()) {
	t.setPhase("logs")
	svcs := t.r.Target.Services()
	if !slices.Contains(svcs, first) {
		first = ""
	}
	errs := make([]error, len(svcs))
	var all, own sync.WaitGroup
	for i, svc := range svcs {
		wg := &all
		if svc == first {
			wg = &own
		}
		wg.Go(func() {
			errs[i] = t.r.Target.CollectLogs(ctx, svc, t.meta.Started, filepath.Join(t.dir, results.NodeLogsDir, svc))
		})
	}
	own.Wait()
	if first == "" {
		all.Wait()
	}
	then()
	all.Wait()
	for i, err := range errs {
		if err != nil {
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("logs of %s not copied: %v", svcs[i], err))
		}
	}
}

// recoveryFailed records why recovery failed, says it, and returns it.
func (t *trial) recoveryFailed(what string, err error) error {
	rc := t.meta.Recovery
	rc.Err = fmt.Sprintf("%s: %v", what, err)
	t.r.say("recovery: %s", rc.Err)
	return fmt.Errorf("recovery: %s: %w", what, err)
}

// restartFaulted begins recovery: it starts what the fault stopped, the
// faulted broker last. wholeAgain ends it.
func (t *trial) restartFaulted(ctx context.Context) error {
	t.setPhase("recovery")
	rc := &results.Recovery{}
	t.meta.Recovery = rc
	if t.o.Kill == results.FaultExternal {
		return nil // external.go: kbf broke nothing; wholeAgain awaits the healing
	}
	undone := time.Now()
	if err := t.undoSteps(ctx); err != nil { // steps.go
		return t.recoveryFailed("start what the steps stopped", err)
	}
	if err := t.waitRejoined(ctx, undone); err != nil { // steps.go
		return t.recoveryFailed("wait for the quorum", err)
	}
	if t.o.Kill.Controller() {
		rc.QuorumRejoined = time.Now().UTC()
	}
	b := t.o.Broker
	t.r.say("recovery: restarting %s, %.2fs after probing ended", b, time.Since(t.meta.Ended).Seconds())
	switch err := t.r.Target.Restart(ctx, b); {
	case errors.Is(err, cluster.ErrAlreadyRunning):
		t.r.say("recovery: %s was running", b)
	case err != nil:
		return t.recoveryFailed("restart "+b, err)
	}
	rc.Restarted = time.Now().UTC()
	return nil
}

// wholeAgain ends recovery: it waits until every ISR is full and moves
// leadership back with a preferred leader election.
func (t *trial) wholeAgain(ctx context.Context) error {
	if t.o.Kill == results.FaultExternal {
		return t.awaitHealed(ctx) // external.go
	}
	rc := t.meta.Recovery
	// kbf's topics, the probed one (which --topic may have named apart from
	// them: the next trial's baseline waits for its leaders to be preferred)
	// and the load's (the next trial's load starts on a whole topic too).
	topics := slices.Clone(t.r.Target.TopicNames())
	if tp := t.p.Config().Topic; !slices.Contains(topics, tp) {
		topics = append(topics, tp)
	}
	if t.meta.Load != nil && !slices.Contains(topics, t.meta.Load.Topic) {
		topics = append(topics, t.meta.Load.Topic)
	}
	if err := t.r.Target.WaitISRFull(ctx, topics...); err != nil {
		return t.recoveryFailed("wait for full ISRs", err)
	}
	rc.ISRFull = time.Now().UTC()
	if err := t.r.Target.EnsurePreferred(ctx, topics...); err != nil {
		return t.recoveryFailed("preferred leader election", err)
	}
	rc.PreferredElec = time.Now().UTC()
	ok, err := t.r.Target.LeadersPreferred(ctx, topics...)
	if err != nil {
		return t.recoveryFailed("check leaders", err)
	}
	rc.LeadersBack = ok
	t.r.say("recovery: every ISR full %.1fs after the restart; leaders back on their preferred replicas: %v",
		rc.ISRFull.Sub(rc.Restarted).Seconds(), ok)
	return nil
}

// writeReadBack reads the partitions back from starts into the log.csv
// at path, whole or not at all; a read-back of no row is its header.
func writeReadBack(ctx context.Context, rb ReadBack, cfg probe.Config, starts map[int32]int64, path string) error {
	return results.WriteFileAtomic(path, func(f io.Writer) error {
		enc := results.NewLogEncoder(f)
		if err := rb(ctx, cfg, starts, enc); err != nil {
			return err
		}
		return enc.Flush()
	})
}

// readBack reads the probed partitions back into log.csv. A failed
// read-back is a note: the report then leaves out the audit.
func (t *trial) readBack(ctx context.Context) {
	t.setPhase("read-back")
	if t.readBackTopic(ctx, true); t.meta.Probe.ReadBackTopicGone {
		t.r.say("the probe's topic %s is gone: nothing to read back", t.meta.Probe.Topic)
		t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("no read-back: the probe's topic %s was gone", t.meta.Probe.Topic))
		return
	}
	t.r.say("reading the partitions back")
	rb := t.r.ReadBack
	if rb == nil {
		rb = defaultReadBack
	}
	err := writeReadBack(ctx, rb, t.p.Config(), t.meta.Probe.StartOffsets, filepath.Join(t.dir, results.LogFile))
	if err != nil {
		t.meta.Notes = append(t.meta.Notes, "read-back failed: "+err.Error())
	}
	t.readBackClients(ctx, rb)
	t.readBackTopic(ctx, false) // a topic made anew while it was read
}

// readBackTopic records in the metadata the probe's topic's ID as the
// read-back finds it (results.Probe.ReadBackTopicID): asked before the
// read-back (first), where a topic gone is recorded as such, and after
// it, where only an ID other than the one found before is. An ID other
// than the probe's start's says the read-back is of another topic.
func (t *trial) readBackTopic(ctx context.Context, first bool) {
	p := &t.meta.Probe
	parts, err := t.r.Target.Partitions(ctx, p.Topic)
	switch {
	case errors.Is(err, cluster.ErrNoTopic) && first:
		p.ReadBackTopicGone = true
	case err != nil && first:
		t.meta.Notes = append(t.meta.Notes, "the probe's topic's ID at the read-back is unknown: "+err.Error())
	case err != nil:
	case first || p.ReadBackTopicID == p.TopicID:
		p.ReadBackTopicID = topicIDOf(parts)
	}
}

// topicIDOf is the topic ID the partitions parts of one topic carry; ""
// when the cluster did not say.
func topicIDOf(parts []cluster.Partition) string {
	for _, pt := range parts {
		if pt.TopicID != "" {
			return pt.TopicID
		}
	}
	return ""
}

// Refusef is an option refused in the words given (a flag's own check, by
// the package whose option the flag sets): an ErrInvalidOption, its
// message as formatted.
func Refusef(format string, a ...any) error { return invalidProbe{fmt.Errorf(format, a...)} }
