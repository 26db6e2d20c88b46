// Package watch is kbf watch: kbf's probe run until stopped against a
// cluster nobody faults, each incident found in what it measures and what
// the cluster shows (a stall, a broker fenced or gone, a leader moved, an
// ISR shrunk) and written as a trial directory (results.KindIncident) from
// a window before its first sign to its recovery, with the nodes' logs.
// It keeps only a rolling window of the probe's records in memory; it
// analyses nothing (the command hands each incident to package analysis)
// and faults or restarts nothing.
package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// Options are a watch's settings, as plain values.
type Options struct {
	Probe probe.Config // its Bootstrap is the target's
	// Stall is the longest gap of a partition's acks or reads that is no
	// incident; Before how much of the probe's records before an
	// incident's first sign it keeps; Settle how long every partition must
	// be steady again for it to have recovered; Poll how often the
	// cluster's metadata is asked for; Longest how long an incident may
	// last before it is written as it is (memory is bounded by it).
	Stall, Before, Settle, Poll, Longest time.Duration
	Out                                  string
	Retain                               Retention
	// Retry is how long the watch waits before trying again a cluster it
	// could not probe.
	Retry time.Duration

	Version string
	Command []string
}

// Defaults are kbf watch's defaults.
var Defaults = Options{Stall: 2 * time.Second, Before: 30 * time.Second, Settle: 10 * time.Second,
	Poll: time.Second, Longest: 10 * time.Minute, Retry: 5 * time.Second}

// The bounds of a watch's durations beyond those of the probe.
const (
	// minPoll: the cluster's metadata is asked for at most 10 times a
	// second.
	minPoll = 100 * time.Millisecond
	// maxKept bounds --before and --longest: the records they keep are in
	// memory, and an incident's directory must start at a time a trial
	// can have (results.EarliestTime).
	maxKept = 7 * 24 * time.Hour
)

// Validate refuses settings that cannot work, naming the flag: each
// duration positive and meaningful beside the others and the probe's
// steady bound.
func (o *Options) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"stall", o.Stall}, {"before", o.Before}, {"settle", o.Settle}, {"poll", o.Poll}, {"longest", o.Longest}} {
		if d.v <= 0 {
			return fmt.Errorf("--%s %v: must be positive", d.name, d.v)
		}
	}
	b := o.Probe.SteadyBound()
	switch {
	case o.Stall < b:
		return fmt.Errorf("--stall %v: below the probe's steady bound %v (10 intervals): every hiccup would be an incident", o.Stall, b)
	case o.Settle < b:
		return fmt.Errorf("--settle %v: below the probe's steady bound %v (10 intervals): no partition can be seen steady for less", o.Settle, b)
	case o.Before < b:
		return fmt.Errorf("--before %v: below the probe's steady bound %v (10 intervals): an incident would have no steady records before it to compare with", o.Before, b)
	case o.Poll < minPoll:
		return fmt.Errorf("--poll %v: below %v: the cluster's metadata would be asked for more than 10 times a second", o.Poll, minPoll)
	case o.Longest < o.Stall+o.Settle:
		return fmt.Errorf("--longest %v: below --stall %v plus --settle %v: no incident could recover before it is cut", o.Longest, o.Stall, o.Settle)
	case o.Before > maxKept:
		return fmt.Errorf("--before %v: over %v: the records kept before an incident are held in memory", o.Before, maxKept)
	case o.Longest > maxKept:
		return fmt.Errorf("--longest %v: over %v: an open incident's records are held in memory", o.Longest, maxKept)
	case o.Poll > o.Longest:
		return fmt.Errorf("--poll %v: over --longest %v: an incident could end before the cluster is asked", o.Poll, o.Longest)
	}
	if o.Out == "" {
		return errors.New("--out: required")
	}
	return nil
}

// Recorded is handed each incident once its directory is written: the
// command analyses it.
type Recorded func(ctx context.Context, dir string, in *Incident) error

// Watcher watches one cluster.
type Watcher struct {
	Opt      Options
	Target   cluster.Cluster
	Metrics  *Metrics // nil: none
	Reporter experiment.Reporter
	Recorded Recorded
	// Observer is where the cluster's view (its brokers, fenced or not,
	// and the probed partitions' leaders and ISRs) is asked for; nil: the
	// Target's own, and when it has none, its partitions alone (no broker
	// gone or fenced is seen then, only leaders and ISRs).
	Observer cluster.Observer
	// NewProbe defaults to probe.New, ReadBack to probe.ReadBack.
	NewProbe experiment.NewProbe
	ReadBack experiment.ReadBack
}

// partitionsOnly is the view of a cluster that shows only its
// partitions.
type partitionsOnly struct{ c cluster.Cluster }

func (o partitionsOnly) View(ctx context.Context, topic string) (cluster.View, error) {
	parts, err := o.c.Partitions(ctx, topic)
	return cluster.View{At: time.Now(), Partitions: parts}, err
}

var errStopped = errors.New("the watch stopped")

// readBackTimeout bounds an incident's read-back.
const readBackTimeout = 2 * time.Minute

func (w *Watcher) say(format string, a ...any) {
	if w.Reporter != nil {
		w.Reporter.Say(fmt.Sprintf(format, a...))
	}
}

// Run watches until ctx ends; it returns nil then, once the incident open
// at that moment is written (within ShutdownTimeout). A cluster it cannot
// probe is tried again every Opt.Retry, said each time, not an error; an
// incident it cannot write is, even as it stops.
func (w *Watcher) Run(ctx context.Context) error {
	if err := w.Opt.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(w.Opt.Out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	gone, err := cleanPartial(w.Opt.Out)
	for _, name := range gone {
		w.say("removed %s: an incident a watch was stopped or crashed while writing (it is written aside, then renamed)", filepath.Join(w.Opt.Out, name))
	}
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	next, err := nextNumber(w.Opt.Out)
	if err != nil {
		return err
	}
	clock, release := newStopClock(ctx)
	defer release()
	down := time.Time{}
	for ctx.Err() == nil {
		n, err := w.probeRun(ctx, clock, next)
		next = n
		var werr writeError
		var ferr *FlagError
		switch {
		case errors.As(err, &werr), errors.As(err, &ferr):
			return err
		case err == nil || ctx.Err() != nil:
			continue
		}
		if down.IsZero() {
			down = time.Now()
		}
		w.say("the cluster cannot be probed (%v) for %v: trying again in %v", err, time.Since(down).Round(time.Second), w.Opt.Retry)
		select {
		case <-ctx.Done():
		case <-time.After(w.Opt.Retry):
		}
	}
	return nil
}

// FlagError is a flag the cluster shows cannot be meant (a partition the
// topic does not have): the watch stops, blaming the flag.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// partitionsTimeout bounds the question of the topic's partitions.
const partitionsTimeout = 15 * time.Second

// checkPartitions refuses --partitions the topic does not have; a topic
// that cannot be described is the cluster's error, tried again.
func (w *Watcher) checkPartitions(ctx context.Context, cfg probe.Config) error {
	if len(cfg.Partitions) == 0 {
		return nil
	}
	pctx, cancel := context.WithTimeout(ctx, partitionsTimeout)
	defer cancel()
	parts, err := w.Target.Partitions(pctx, cfg.Topic)
	if err != nil || len(parts) == 0 {
		return err
	}
	has := map[int32]bool{}
	for _, p := range parts {
		has[p.Partition] = true
	}
	for _, p := range cfg.Partitions {
		if !has[p] {
			return &FlagError{fmt.Errorf("--partitions %d: topic %s has no partition %d (it has %d)", p, cfg.Topic, p, len(parts))}
		}
	}
	return nil
}

// writeError is an incident that could not be written: the watch stops.
type writeError struct{ error }

func (e writeError) Unwrap() error { return e.error }

// running is a probe run on its own goroutine.
type running struct {
	p    experiment.Probe
	stop context.CancelFunc
	done chan struct{}
	err  error // once done is closed
}

func start(ctx context.Context, p experiment.Probe) *running {
	pctx, stop := context.WithCancel(ctx)
	r := &running{p: p, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		_, r.err = p.Run(pctx)
	}()
	return r
}

// halt stops the probe and waits for it for at most within (0: for as
// long as it takes): a probe still draining to a frozen cluster is left
// behind, its records so far in the windows.
func (r *running) halt(within time.Duration) {
	r.stop()
	if within <= 0 {
		<-r.done
		return
	}
	t := time.NewTimer(within)
	defer t.Stop()
	select {
	case <-r.done:
	case <-t.C:
	}
}

// newProbe is w.NewProbe, or probe.New.
func (w *Watcher) newProbe(ctx context.Context, cfg probe.Config, out probe.Output) (experiment.Probe, error) {
	if w.NewProbe != nil {
		return w.NewProbe(ctx, cfg, out)
	}
	p, err := probe.New(ctx, cfg, out)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// probeRun runs one probe until ctx ends or it fails, writing each
// incident it finds from number n on; it returns the next number.
func (w *Watcher) probeRun(ctx context.Context, clock *stopClock, n int) (next int, err error) {
	ictx, cancel := context.WithTimeout(ctx, experiment.IdentifyTimeout)
	err = w.Target.Identify(ictx)
	cancel()
	if err != nil {
		return n, err
	}
	cfg := w.Opt.Probe.Identified() // its run id, for the read-back
	cfg.Bootstrap = w.Target.Bootstrap()
	if err := w.checkPartitions(ctx, cfg); err != nil {
		return n, err
	}
	win := newWindows(cfg)
	p, err := w.newProbe(ctx, cfg, win.output())
	if err != nil {
		return n, fmt.Errorf("probe: %w", err)
	}
	r := start(ctx, p)
	stopping := false
	defer func() {
		if stopping { // waited for already, within probeStopTimeout
			r.stop()
		} else {
			r.halt(0)
		}
	}()
	if w.Metrics != nil {
		w.Metrics.probing(p.Progress, w.Opt.Stall)
		defer w.Metrics.probing(nil, 0)
	}
	parts := "every partition"
	if len(cfg.Partitions) > 0 {
		parts = fmt.Sprintf("partitions %v", cfg.Partitions)
	}
	w.say("watching %s, %s: an incident is a stall over %v or a sign from the cluster", cfg.Topic, parts, w.Opt.Stall)
	s := &session{w: w, cfg: cfg, run: r, win: win, n: n, clock: clock,
		d: &detector{stall: w.Opt.Stall, settle: w.Opt.Settle, bound: cfg.SteadyBound(), most: w.Opt.Longest, since: time.Now()}}
	err = s.loop(ctx)
	stopping = ctx.Err() != nil
	return s.n, err
}

// session is one probe's run: the incidents found in what it measures
// and what the cluster shows, written from number n on.
type session struct {
	clock *stopClock
	w     *Watcher
	cfg   probe.Config
	run   *running
	win   *windows
	d     *detector
	n     int
}

// observer is where the cluster's view is asked for.
func (w *Watcher) observer() cluster.Observer {
	switch {
	case w.Observer != nil:
		return w.Observer
	case w.Target.Observer() != nil:
		return w.Target.Observer()
	}
	return partitionsOnly{w.Target}
}

// loop feeds the detector the probe's progress every 100 ms and the
// cluster's views as they come, and writes each incident it ends, until
// ctx ends (the open incident is written then, within ShutdownTimeout)
// or the probe does.
func (s *session) loop(ctx context.Context) error {
	pctx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	views := make(chan viewResult, 1)
	go poll(pctx, s.w.observer(), s.cfg.Topic, s.w.Opt.Poll, views)
	var last viewResult
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var r *viewResult
		select {
		case <-ctx.Done():
			return s.stopped(ctx)
		case <-s.run.done:
			return s.probeEnded(ctx)
		case v := <-views:
			r, last = &v, v
		case <-tick.C:
		}
		if err := s.step(ctx, r, last); err != nil {
			return err
		}
	}
}

// step takes the probe's progress and the view r (nil: none new) at
// now: an incident opened is said, one ended is written.
func (s *session) step(ctx context.Context, r *viewResult, last viewResult) error {
	now := time.Now()
	stats := s.run.p.Progress()
	if s.w.Metrics != nil {
		s.w.Metrics.observe(stats)
	}
	var opened bool
	if r != nil {
		opened = s.d.view(now, r.v, r.err, stats)
	} else {
		opened = s.d.progress(now, stats)
	}
	if opened {
		sign := s.d.open.Signs[0]
		s.w.say("incident %d opened: the %s's sign: %s", s.n, sign.Source, sign.What)
		if s.w.Metrics != nil {
			s.w.Metrics.opened()
		}
	}
	if in := s.d.end(now, stats, last.v, last.err); in != nil {
		if err := s.write(ctx, newBudget(ctx, s.clock), in); err != nil {
			return err
		}
	}
	if s.d.open == nil {
		s.win.trim(now.Add(-s.w.Opt.Before))
	}
	return nil
}

// stopped writes the incident open as the watch was told to stop, from
// what the windows hold, within ShutdownTimeout of now: the probe is
// given probeStopTimeout to finish, the cluster is asked nothing that
// could keep the watch past the bound.
func (s *session) stopped(ctx context.Context) error {
	in := s.d.stop(time.Now())
	if in != nil {
		s.w.say("stopping: writing incident %d as it is (within %v)", s.n, ShutdownTimeout)
	}
	s.run.halt(max(time.Millisecond, min(probeStopTimeout, s.clock.until(ShutdownTimeout))))
	if in == nil {
		return nil
	}
	return s.write(ctx, newBudget(ctx, s.clock), in)
}

// probeEnded writes the open incident, if any, once the probe ended on
// its own, and returns why it ended.
func (s *session) probeEnded(ctx context.Context) error {
	err := s.run.err
	if err == nil {
		err = errors.New("the probe ended")
	}
	if in := s.d.stop(time.Now()); in != nil {
		in.Why = "the probe stopped: " + err.Error()
		if werr := s.write(ctx, newBudget(ctx, s.clock), in); werr != nil {
			return werr
		}
	}
	return err
}

// windows are the probe's files as the watch keeps them: the probe CSV
// and the clients' log always, the group reader's and the transactions'
// when the probe has them.
type windows struct {
	msgs, clog          *window
	group, events, txns *window // nil when the probe has none
}

func newWindows(cfg probe.Config) *windows {
	w := &windows{msgs: newWindow(sentColumn), clog: newWindow(notCSV)}
	if cfg.GroupReader() {
		w.group, w.events = newWindow(processedColumn), newWindow(timeColumn)
	}
	if cfg.Transactional() {
		w.txns = newWindow(beginColumn)
	}
	return w
}

// output is where the probe writes into the windows.
func (w *windows) output() probe.Output {
	out := probe.Output{Messages: w.msgs, ClientLog: w.clog}
	if w.group != nil {
		out.Group, out.GroupEvents = w.group, w.events
	}
	if w.txns != nil {
		out.Txn = w.txns
	}
	return out
}

// files are the windows kept, by the trial file each becomes.
func (w *windows) files() map[string]*window {
	fs := map[string]*window{results.ProbeFile: w.msgs, results.ClientLog: w.clog}
	if w.group != nil {
		fs[results.GroupFile], fs[results.GroupEventsFile] = w.group, w.events
	}
	if w.txns != nil {
		fs[results.TxnFile] = w.txns
	}
	return fs
}

func (w *windows) trim(cut time.Time) {
	for _, win := range w.files() {
		win.trim(cut)
	}
}

// snapshot is each window from from on, by the trial file it becomes.
func (w *windows) snapshot(from time.Time) map[string][]byte {
	b := map[string][]byte{}
	for name, win := range w.files() {
		b[name] = win.since(from)
	}
	return b
}

type viewResult struct {
	v   cluster.View
	err error
}

// poll asks for the cluster's view every interval until ctx ends, on its
// own goroutine so that a view that hangs does not hold up the probe's.
func poll(ctx context.Context, obs cluster.Observer, topic string, every time.Duration, out chan<- viewResult) {
	for ctx.Err() == nil {
		asked := time.Now()
		vctx, cancel := context.WithTimeout(ctx, max(every, 5*time.Second))
		v, err := obs.View(vctx, topic)
		cancel()
		select {
		case out <- viewResult{v, err}:
		case <-ctx.Done():
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(asked.Add(every))):
		}
	}
}

// write writes the incident as s.n's directory, hands it on, and moves
// s.n on; an incident it cannot write is a writeError.
func (s *session) write(ctx context.Context, b budget, in *Incident) error {
	w := s.w
	n := s.n
	dir := filepath.Join(w.Opt.Out, results.IncidentDir(n))
	if err := s.record(b, dir, in); err != nil {
		return writeError{fmt.Errorf("incident %d not written: %w", n, err)}
	}
	s.n++
	cause := in.Cause()
	if w.Metrics != nil {
		w.Metrics.closed(cause)
	}
	took := in.Ended.Sub(in.Start()).Round(time.Millisecond)
	how := "recovered"
	if in.Recovered.IsZero() {
		how = in.Why
	}
	w.say("incident %d (%s) written to %s: %v from its first sign, %s", n, cause, dir, took, how)
	w.analyse(b, n, dir, in)
	if err := retain(w.Opt.Out, w.Opt.Retain, time.Now()); err != nil {
		w.say("older incidents not removed: %v", err)
	}
	return nil
}

// analyse hands the incident written in dir to Recorded, within the
// budget's time for it; one not analysed is said, with what analyses it
// later: its files are complete, and kbf report reads them as they are.
func (w *Watcher) analyse(b budget, n int, dir string, in *Incident) {
	if w.Recorded == nil {
		return
	}
	actx, cancel := b.analysis()
	defer cancel()
	err := wait(actx, func(ctx context.Context) error { return w.Recorded(ctx, dir, in) })
	switch {
	case err == nil:
	case actx.Err() != nil && b.stopping():
		w.say("incident %d not analysed within the stop's %v: kbf report %s analyses it", n, ShutdownTimeout, dir)
	default:
		w.say("incident %d not analysed (%v): kbf report %s analyses it", n, err, dir)
	}
}

// record writes the incident's directory aside (partialDir) and renames
// it to dir once complete: the probe's records and the clients' log from
// --before its first sign on, the nodes' logs, the read-back, and its
// metadata as an external fault's. What it asks of the cluster is within
// the budget; what the cluster does not answer is noted, not an error.
func (s *session) record(b budget, dir string, in *Incident) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s %w", dir, experiment.ErrDirInUse)
	}
	from := in.Start().Add(-s.w.Opt.Before)
	tmp := partialDir(s.w.Opt.Out, s.n)
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return err
	}
	err := s.fill(b, tmp, from, in)
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return syncDir(s.w.Opt.Out)
}

// fill writes the incident's files into dir.
func (s *session) fill(b budget, dir string, from time.Time, in *Incident) error {
	w := s.w
	// The probe runs on while the incident is written: its files are taken
	// first and the incident ends after, so that no record in them was
	// acked or read after the trial's end.
	files := s.win.snapshot(from)
	m := experiment.NewMeta(results.KindIncident, w.Opt.Version, w.Opt.Command, s.run.p)
	m.Started, m.Ended = from.UTC(), time.Now().UTC()
	for name, data := range files {
		if err := writeSynced(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	m.Cluster.Image = w.Target.Image()
	m.Cluster.Brokers = w.Target.Brokers()
	m.Fault = fault(in, m.Cluster.Brokers, from)
	m.Baseline = &results.Baseline{Period: w.Opt.Before, Bound: w.Opt.Stall, Due: from.UTC(), Healthy: from.UTC()}
	experiment.SetProbeResult(m, s.run.p.Progress())
	inWindow(m, s.win.msgs.longestSendGap(from))
	m.Notes = append(m.Notes, incidentNotes(in, w.Opt.Settle, b)...)
	m.Notes = append(m.Notes, s.askCluster(b, dir, from, m, files[results.ProbeFile])...)
	return results.WriteMeta(dir, m)
}

// fault is the incident as an external fault: its signs, and the broker
// they name.
func fault(in *Incident, brokers map[string]int32, from time.Time) *results.Fault {
	f := &results.Fault{Kind: results.FaultExternal, SignalSent: from.UTC(), Signs: in.Signs}
	f.NodeID, f.Broker = experiment.FaultedNode(in.Signs)
	if f.Broker == "" {
		f.Broker = strconv.Itoa(int(f.NodeID))
		for svc, id := range brokers {
			if id == f.NodeID {
				f.Broker = svc
			}
		}
	}
	f.Recovered = in.Recovered
	return f
}

// incidentNotes say how the incident was found and how it ended.
func incidentNotes(in *Incident, settle time.Duration, b budget) []string {
	notes := []string{fmt.Sprintf("incident: found by kbf watch, opened %s by the %s's sign; nothing was faulted or restarted by kbf",
		in.Opened.UTC().Format(time.RFC3339Nano), in.Signs[0].Source)}
	if in.Recovered.IsZero() {
		notes = append(notes, "incident: "+in.Why)
	} else {
		notes = append(notes, fmt.Sprintf("incident: recovered %s, every partition steady for %v", in.Recovered.Format(time.RFC3339Nano), settle))
	}
	if b.stopping() {
		notes = append(notes, fmt.Sprintf("incident: written as kbf watch stopped, within %v: the cluster was asked only what answered by then", ShutdownTimeout))
	}
	return notes
}

// askCluster copies the nodes' logs, reads the cluster's version and
// settings into m, and reads the partitions back into dir, each within
// the budget; it returns a note for each the cluster did not give. The
// logs, which come from elsewhere (an engine, the API, a command), are
// copied meanwhile, each node's on its own.
func (s *session) askCluster(b budget, dir string, from time.Time, m *results.Meta, csv []byte) []string {
	w := s.w
	logNotes := make(chan []string, 1)
	go func() { logNotes <- s.copyLogs(b, dir, from) }()
	var notes []string
	// The version and the settings are the cluster's as it is: a watch
	// notes only that it did not answer.
	// (A question not answered in time may still be running: what it
	// returns is read only when it answered.)
	var version string
	if err := b.askCluster(func(ctx context.Context) (err error) {
		version, err = w.Target.KafkaVersion(ctx)
		return err
	}); err == nil {
		m.Cluster.KafkaVersion = version
	} else if errors.Is(err, errNoAnswer) {
		notes = append(notes, fmt.Sprintf("incident: the cluster's Kafka version not read: %v", err))
	}
	var nodes map[string]map[string]string
	if err := b.askCluster(func(ctx context.Context) (err error) {
		nodes, err = w.Target.NodeConfigs(ctx)
		return err
	}); err == nil {
		m.Cluster.Nodes = nodes
	} else if errors.Is(err, errNoAnswer) {
		notes = append(notes, fmt.Sprintf("incident: the nodes' settings not read: %v", err))
	}
	if err := b.readBack(func(ctx context.Context) error { return w.readBack(ctx, dir, s.cfg, csv) }); err != nil {
		notes = append(notes, fmt.Sprintf("incident: not read back (%v), so no audit", err))
	}
	return append(<-logNotes, notes...)
}

// copyLogs copies every node's logs from from on into dir, each node's on
// its own goroutine, and returns a note for each not copied, in the
// nodes' order.
func (s *session) copyLogs(b budget, dir string, from time.Time) []string {
	svcs := s.w.Target.Services()
	errs := make([]error, len(svcs))
	var wg sync.WaitGroup
	for i, svc := range svcs {
		wg.Go(func() {
			dst := filepath.Join(dir, results.NodeLogsDir, svc)
			errs[i] = b.logs(func(ctx context.Context) error { return s.w.Target.CollectLogs(ctx, svc, from, dst) })
		})
	}
	wg.Wait()
	var notes []string
	for i, err := range errs {
		if err != nil {
			notes = append(notes, fmt.Sprintf("logs of %s not copied: %v", svcs[i], err))
		}
	}
	return notes
}

// writeSynced writes data to path and flushes it to the disk.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// inWindow holds the probe's record of itself to the incident's window:
// the probe has run for longer, and a hiccup of its own hours before is
// not this incident's. The send slots it missed are those from the
// window's start (the count of those past results.MaxMissedRuns is kept
// as the probe's only when every run is in the window); the longest send
// gap is the one measured in the window's records.
func inWindow(m *results.Meta, longest time.Duration) {
	m.Probe.LongestSendGap = longest
	for part, ms := range m.Probe.Missed {
		var kept []results.MissedRun
		var n int64
		for _, r := range ms.Runs {
			if !r.From.Before(m.Started) {
				kept = append(kept, r)
				n += r.Slots
			}
		}
		if len(kept) == len(ms.Runs) {
			continue
		}
		if len(kept) == 0 {
			delete(m.Probe.Missed, part)
			continue
		}
		last := kept[len(kept)-1]
		m.Probe.Missed[part] = &results.MissedSends{Count: n, First: kept[0].From, Last: last.From.Add(time.Duration(last.Slots-1) * m.Probe.Interval), Runs: kept}
	}
	if len(m.Probe.Missed) == 0 {
		m.Probe.Missed = nil
	}
}
