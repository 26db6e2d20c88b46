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
	"slices"
	"strconv"
	"strings"
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

// Validate refuses settings that cannot work, naming the flag.
func (o *Options) Validate() error {
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"stall", o.Stall}, {"before", o.Before}, {"settle", o.Settle}, {"poll", o.Poll}, {"longest", o.Longest}} {
		if d.v <= 0 {
			return fmt.Errorf("--%s %v: must be positive", d.name, d.v)
		}
	}
	if b := o.Probe.SteadyBound(); o.Stall < b {
		return fmt.Errorf("--stall %v: below the probe's steady bound %v (10 intervals): every hiccup would be an incident", o.Stall, b)
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

// Run watches until ctx ends; it returns nil then. A cluster it cannot
// probe is tried again every Opt.Retry, said each time, not an error;
// what it cannot write is.
func (w *Watcher) Run(ctx context.Context) error {
	if err := w.Opt.Validate(); err != nil {
		return err
	}
	if err := os.MkdirAll(w.Opt.Out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	next, err := nextNumber(w.Opt.Out)
	if err != nil {
		return err
	}
	down := time.Time{}
	for ctx.Err() == nil {
		n, err := w.probeRun(ctx, next)
		next = n
		if err == nil || ctx.Err() != nil {
			continue
		}
		var werr writeError
		if errors.As(err, &werr) {
			return err
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

// writeError is an incident that could not be written: the watch stops.
type writeError struct{ error }

func (e writeError) Unwrap() error { return e.error }

// probeRun runs one probe until ctx ends or it fails, writing each
// incident it finds from number n on; it returns the next number.
func (w *Watcher) probeRun(ctx context.Context, n int) (int, error) {
	ictx, cancel := context.WithTimeout(ctx, experiment.IdentifyTimeout)
	err := w.Target.Identify(ictx)
	cancel()
	if err != nil {
		return n, err
	}
	cfg := w.Opt.Probe.Identified() // its run id, for the read-back
	cfg.Bootstrap = w.Target.Bootstrap()
	win := newWindows(cfg)
	newProbe := w.NewProbe
	if newProbe == nil {
		newProbe = func(ctx context.Context, cfg probe.Config, out probe.Output) (experiment.Probe, error) {
			p, err := probe.New(ctx, cfg, out)
			if err != nil {
				return nil, err
			}
			return p, nil
		}
	}
	p, err := newProbe(ctx, cfg, win.output())
	if err != nil {
		return n, fmt.Errorf("probe: %w", err)
	}
	pctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(pctx)
		done <- err
	}()
	defer func() { stop(); <-done }()
	if w.Metrics != nil {
		w.Metrics.probing(p.Progress, w.Opt.Stall)
		defer w.Metrics.probing(nil, 0)
	}
	started := time.Now()
	parts := "every partition"
	if len(cfg.Partitions) > 0 {
		parts = fmt.Sprintf("partitions %v", cfg.Partitions)
	}
	w.say("watching %s, %s: an incident is a stall over %v or a sign from the cluster", cfg.Topic, parts, w.Opt.Stall)

	d := &detector{stall: w.Opt.Stall, settle: w.Opt.Settle, bound: cfg.SteadyBound(), most: w.Opt.Longest, since: started}
	obs := w.Observer
	if obs == nil {
		obs = w.Target.Observer()
	}
	if obs == nil {
		obs = partitionsOnly{w.Target}
	}
	views := make(chan viewResult, 1)
	go poll(pctx, obs, cfg.Topic, w.Opt.Poll, views)
	var last viewResult
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var r *viewResult
		select {
		case <-ctx.Done():
			if in := d.stop(time.Now()); in != nil {
				stop()
				<-done
				done <- nil
				wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
				defer cancel()
				return w.write(wctx, n, cfg, p, win, in)
			}
			return n, nil
		case err := <-done:
			done <- err
			if err == nil {
				err = errors.New("the probe ended")
			}
			if in := d.stop(time.Now()); in != nil {
				in.Why = "the probe stopped: " + err.Error()
				if m, werr := w.write(ctx, n, cfg, p, win, in); werr != nil {
					return m, werr
				} else {
					n = m
				}
			}
			return n, err
		case v := <-views:
			r, last = &v, v
		case <-tick.C:
		}
		now := time.Now()
		stats := p.Progress()
		if w.Metrics != nil {
			w.Metrics.observe(stats)
		}
		var opened bool
		if r != nil {
			opened = d.view(now, r.v, r.err, stats)
		} else {
			opened = d.progress(now, stats)
		}
		if opened {
			s := d.open.Signs[0]
			w.say("incident %d opened: the %s's sign: %s", n, s.Source, s.What)
			if w.Metrics != nil {
				w.Metrics.opened()
			}
		}
		if in := d.end(now, stats, last.v, last.err); in != nil {
			m, err := w.write(ctx, n, cfg, p, win, in)
			if err != nil {
				return m, err
			}
			n = m
		}
		if d.open == nil {
			win.trim(now.Add(-w.Opt.Before))
		}
	}
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

// write writes incident n into its directory and hands it on; it returns
// the next number.
func (w *Watcher) write(ctx context.Context, n int, cfg probe.Config, p experiment.Probe, win *windows, in *Incident) (int, error) {
	dir := filepath.Join(w.Opt.Out, results.IncidentDir(n))
	from := in.Start().Add(-w.Opt.Before)
	if err := w.record(ctx, dir, from, cfg, p, win, in); err != nil {
		return n, writeError{fmt.Errorf("incident %d: %w", n, err)}
	}
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
	if w.Recorded != nil {
		if err := w.Recorded(ctx, dir, in); err != nil {
			w.say("incident %d not analysed: %v", n, err)
		}
	}
	if err := retain(w.Opt.Out, w.Opt.Retain, time.Now()); err != nil {
		w.say("older incidents not removed: %v", err)
	}
	return n + 1, nil
}

// record writes the incident's directory: the probe's records and the
// clients' log from from on, its metadata as an external fault's, and
// every node's logs from from on where the cluster has them.
func (w *Watcher) record(ctx context.Context, dir string, from time.Time, cfg probe.Config, p experiment.Probe, win *windows, in *Incident) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, results.MetaFile)); err == nil {
		return fmt.Errorf("%s %w", dir, experiment.ErrDirInUse)
	}
	// The probe runs on while the incident is written: its files are taken
	// first and the incident ends after, so that no record in them was
	// acked or read after the trial's end.
	files := win.snapshot(from)
	m := experiment.NewMeta(results.KindIncident, w.Opt.Version, w.Opt.Command, p)
	m.Started, m.Ended = from.UTC(), time.Now().UTC()
	m.Cluster.Image = w.Target.Image()
	m.Cluster.Brokers = w.Target.Brokers()
	if v, err := w.Target.KafkaVersion(ctx); err == nil {
		m.Cluster.KafkaVersion = v
	}
	if nodes, err := w.Target.NodeConfigs(ctx); err == nil {
		m.Cluster.Nodes = nodes
	}
	f := &results.Fault{Kind: results.FaultExternal, SignalSent: from.UTC(), Signs: in.Signs}
	f.NodeID, f.Broker = experiment.FaultedNode(in.Signs)
	if f.Broker == "" {
		f.Broker = strconv.Itoa(int(f.NodeID))
		for svc, id := range m.Cluster.Brokers {
			if id == f.NodeID {
				f.Broker = svc
			}
		}
	}
	f.Recovered = in.Recovered
	m.Fault = f
	m.Baseline = &results.Baseline{Period: w.Opt.Before, Bound: w.Opt.Stall, Due: from.UTC(), Healthy: from.UTC()}
	experiment.SetProbeResult(m, p.Progress())
	inWindow(m, win.msgs.longestSendGap(from))
	m.Notes = append(m.Notes, fmt.Sprintf("incident: found by kbf watch, opened %s by the %s's sign; nothing was faulted or restarted by kbf",
		in.Opened.UTC().Format(time.RFC3339Nano), in.Signs[0].Source))
	if in.Recovered.IsZero() {
		m.Notes = append(m.Notes, "incident: "+in.Why)
	} else {
		m.Notes = append(m.Notes, fmt.Sprintf("incident: recovered %s, every partition steady for %v", in.Recovered.Format(time.RFC3339Nano), w.Opt.Settle))
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	rctx, cancel := context.WithTimeout(ctx, readBackTimeout)
	err := w.readBack(rctx, dir, cfg, files[results.ProbeFile])
	cancel()
	if err != nil {
		m.Notes = append(m.Notes, fmt.Sprintf("incident: not read back (%v), so no audit", err))
	}
	for _, svc := range w.Target.Services() {
		dst := filepath.Join(dir, results.NodeLogsDir, svc)
		if err := w.Target.CollectLogs(ctx, svc, from, dst); err != nil {
			m.Notes = append(m.Notes, fmt.Sprintf("logs of %s not copied: %v", svc, err))
		}
	}
	return results.WriteMeta(dir, m)
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

// nextNumber is the number after the highest incident in dir: a watch
// restarted on its directory carries on.
func nextNumber(dir string) (int, error) {
	ns, err := numbers(dir)
	if err != nil {
		return 0, err
	}
	if len(ns) == 0 {
		return 1, nil
	}
	return ns[len(ns)-1] + 1, nil
}

// numbers are the incidents' numbers in dir, in order.
func numbers(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var ns []int
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), results.IncidentDirPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		if n, err := strconv.Atoi(rest); err == nil && n > 0 {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	return ns, nil
}

// Retention is which incidents a watch keeps: the last Count, and those
// written within Age; zero keeps all.
type Retention struct {
	Count int
	Age   time.Duration
}

// ParseRetention reads --retain: a count ("50") or an age ("72h", "30d").
func ParseRetention(s string) (Retention, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return Retention{}, fmt.Errorf("--retain %s: must not be negative", s)
		}
		return Retention{Count: n}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return Retention{Age: time.Duration(n) * 24 * time.Hour}, nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return Retention{Age: d}, nil
	}
	return Retention{}, fmt.Errorf("--retain %s: want a count of incidents (50) or an age (72h, 30d)", s)
}

func (r Retention) String() string {
	switch {
	case r.Age > 0 && r.Age%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", r.Age/(24*time.Hour))
	case r.Age > 0:
		return r.Age.String()
	}
	return strconv.Itoa(r.Count)
}

// retain removes the incidents of dir that r does not keep: all but the
// last r.Count, and those whose meta.json was written more than r.Age
// before now.
func retain(dir string, r Retention, now time.Time) error {
	if r.Count <= 0 && r.Age <= 0 {
		return nil
	}
	ns, err := numbers(dir)
	if err != nil {
		return err
	}
	var errs []error
	for i, n := range ns {
		d := filepath.Join(dir, results.IncidentDir(n))
		old := r.Count > 0 && i < len(ns)-r.Count
		if fi, err := os.Stat(filepath.Join(d, results.MetaFile)); r.Age > 0 && err == nil {
			old = old || now.Sub(fi.ModTime()) > r.Age
		}
		if old {
			errs = append(errs, os.RemoveAll(d))
		}
	}
	return errors.Join(errs...)
}
