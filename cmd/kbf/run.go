package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/plot"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

func init() { commands = append(commands, newRunCmd) }

type runOptions struct {
	g          *globals
	flags      probeFlags
	kill       string
	broker     string
	duration   time.Duration
	faultAfter time.Duration
	repeat     int
	out        string
	image      string
	grace      time.Duration
	timeout    time.Duration
}

func newRunCmd(g *globals) *cobra.Command { return newRunCmdF(g, runTrials) }

func newRunCmdF(g *globals, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{g: g}
	cmd := &cobra.Command{
		Use:   "run --kill sigkill|sigterm|pause",
		Short: "Run the experiment: probe, kill a broker, recover, report",
		Long: `run makes sure the cluster is up with every ISR full, starts the probe, kills
(sigkill), gracefully stops (sigterm) or freezes (pause, as a long garbage
collection would) a broker after --fault-after, keeps probing to the end of
--duration, then restores the cluster: restarts (or unpauses) the broker, waits until every ISR is full, runs a preferred leader election and
checks the leaders are back. It reads every probed partition back, writes each
trial to its own directory and prints the report; with --repeat, a summary.

Exit status: 0 when every trial ran and no acknowledged record was lost,
duplicated or reordered; 3 when one was; 1 when a trial could not run.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.flags.register(cmd.Flags(), false)
	f := cmd.Flags()
	f.StringVar(&o.kill, "kill", "", "the fault: sigkill (process killed), sigterm (graceful stop) or pause (process frozen until recovery)")
	f.StringVar(&o.broker, "broker", "k1", "the broker to fault, by service name")
	f.DurationVar(&o.duration, "duration", 30*time.Second, "how long each trial probes")
	f.DurationVar(&o.faultAfter, "fault-after", 8*time.Second, "when, after the probe starts, the fault is injected")
	f.IntVar(&o.repeat, "repeat", 1, "number of trials")
	f.StringVar(&o.out, "out", "", "results directory (default kbf-runs/<time>-<kill>)")
	f.StringVar(&o.image, "image", "", "Kafka image (default $KBF_IMAGE or apache/kafka:4.3.1)")
	f.DurationVar(&o.grace, "grace", 120*time.Second, "sigterm: how long the broker may take to stop before it is SIGKILLed")
	f.DurationVar(&o.timeout, "recovery-timeout", 3*time.Minute, "how long recovery may take")
	return cmd
}

func (o *runOptions) validate() error {
	switch {
	case o.kill == "":
		return usagef("--kill is required: sigkill, sigterm or pause")
	case o.kill != chaos.SigKill && o.kill != chaos.SigTerm && o.kill != chaos.Pause:
		return usagef("--kill %q: want sigkill, sigterm or pause", o.kill)
	case o.duration <= 0:
		return usagef("--duration %v: must be positive", o.duration)
	case o.faultAfter < 0 || o.faultAfter >= o.duration:
		return usagef("--fault-after %v: must be within --duration %v", o.faultAfter, o.duration)
	case o.repeat < 1:
		return usagef("--repeat %d: must be at least 1", o.repeat)
	case o.grace <= 0:
		return usagef("--grace %v: must be positive", o.grace)
	}
	_, err := o.flags.config()
	return err
}

// runCluster is what a trial asks of the cluster.
type runCluster interface {
	Up(ctx context.Context) (*compose.UpReport, error)
	WaitISRFull(ctx context.Context, topics ...string) error
	EnsurePreferred(ctx context.Context) (bool, error)
	LeadersPreferred(ctx context.Context, topics ...string) (bool, error)
	Describe(ctx context.Context, topics ...string) ([]compose.Partition, error)
	Bootstrap() []string
	Brokers() map[string]int32
	Services() []string
	TopicNames() []string
	Image() string
	KafkaVersion(ctx context.Context) (string, error)
}

// runFaults is what a trial asks of the fault injector.
type runFaults interface {
	Inject(ctx context.Context, f chaos.Fault) (results.Fault, error)
	Restart(ctx context.Context, service string) error
	CollectLogs(ctx context.Context, service string, since time.Time, dst string) error
}

func runTrials(ctx context.Context, o *runOptions) error {
	cl, err := compose.New(compose.Options{Image: o.image})
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, ok := cl.Brokers()[o.broker]; !ok {
		return usagef("--broker %q: not a broker of the cluster (%v)", o.broker, cl.BrokerServices())
	}
	inj := chaos.New(cl.Docker(), cl.ContainerName)
	if o.out == "" {
		o.out = defaultOut(o.kill)
	}
	return (&trialRunner{o: o, cl: cl, inj: inj}).run(ctx)
}

type trialRunner struct {
	o     *runOptions
	cl    runCluster
	inj   runFaults
	phase atomic.Value // string
}

// say prints a line on the progress stream, clearing the live line first.
func (r *trialRunner) say(format string, a ...any) {
	if isTerminal(r.o.g.errOut) {
		fmt.Fprint(r.o.g.errOut, "\r\033[K")
	}
	fmt.Fprintf(r.o.g.errOut, format+"\n", a...)
}

func (r *trialRunner) run(ctx context.Context) error {
	var trials []*report.Trial
	var findings bool
	for i := 1; i <= r.o.repeat; i++ {
		dir := filepath.Join(r.o.out, results.TrialDir(i))
		r.say("trial %d of %d: %s of %s, into %s", i, r.o.repeat, r.o.kill, r.o.broker, dir)
		tr, err := r.trial(ctx, i, dir)
		if err != nil {
			if ctx.Err() != nil {
				r.say("interrupted: what was measured is in %s", dir)
				return ctx.Err()
			}
			return fmt.Errorf("trial %d: %w", i, err)
		}
		trials = append(trials, tr)
		if tr.Integrity != nil && !tr.Integrity.OK() {
			findings = true
		}
	}
	if len(trials) > 1 {
		s := report.Summarize(trials)
		fmt.Fprintln(r.o.g.out)
		if err := report.WriteSummaryText(r.o.g.out, s); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(filepath.Join(r.o.out, results.SummaryFile), func(f io.Writer) error { return report.WriteSummaryText(f, s) }); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(filepath.Join(r.o.out, results.SummaryJSON), func(f io.Writer) error { return report.WriteSummaryJSON(f, s) }); err != nil {
			return err
		}
	}
	r.say("results in %s (kbf report %s)", r.o.out, r.o.out)
	if findings {
		return fmt.Errorf("%w: acknowledged records were lost, duplicated or reordered (see the integrity lines)", errFindings)
	}
	return nil
}

// trial runs one trial into dir and reports it. Whatever happens, the fault
// is undone before it returns.
func (r *trialRunner) trial(ctx context.Context, n int, dir string) (*report.Trial, error) {
	o := r.o
	r.phase.Store("cluster")
	up, err := r.cl.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if !up.Reused {
		r.say("cluster up in %.1fs", up.Took.Seconds())
	}
	cfg, _ := o.flags.config()
	cfg.Bootstrap = r.cl.Bootstrap()

	rec, err := newRecorder(dir)
	if err != nil {
		return nil, err
	}
	defer rec.close()
	p, err := probe.New(ctx, cfg, rec.output())
	if err != nil {
		rec.discard()
		return nil, fmt.Errorf("probe: %w", err)
	}
	meta := newMeta("trial", p)
	meta.Trial = n
	meta.Cluster.Image = r.cl.Image()
	meta.Cluster.Brokers = r.cl.Brokers()
	if v, err := r.cl.KafkaVersion(ctx); err == nil {
		meta.Cluster.KafkaVersion = v
	} else {
		meta.Notes = append(meta.Notes, "kafka version unknown: "+err.Error())
	}
	if parts, err := r.cl.Describe(ctx, cfg.Topic); err == nil {
		meta.Probe.Leaders = map[int32]int32{}
		meta.Probe.Replicas = map[int32][]int32{}
		for _, pt := range parts {
			meta.Probe.Leaders[pt.Partition] = pt.Leader
			meta.Probe.Replicas[pt.Partition] = pt.Replicas
		}
	}
	if err := rec.setMeta(meta); err != nil {
		return nil, err
	}

	// The probe runs for the whole trial; the fault is injected into it.
	probeCtx, stopProbe := context.WithTimeout(ctx, o.duration)
	defer stopProbe()
	progCtx, stopProg := context.WithCancel(ctx)
	start := time.Now()
	r.phase.Store("baseline")
	go progress(progCtx, o.g.errOut, func() string { return r.phase.Load().(string) }, p, start)
	probeDone := make(chan error, 1)
	go func() {
		stats, err := p.Run(probeCtx)
		meta.Probe.LongestSendGap = longestSendGap(stats)
		probeDone <- err
	}()

	attempted, faultErr := r.inject(ctx, probeCtx, start, meta, rec)
	if faultErr == nil {
		r.phase.Store("probing")
	}
	probeErr := <-probeDone
	stopProg()
	meta.Ended = time.Now().UTC()
	if ctx.Err() != nil {
		meta.Notes = append(meta.Notes, "interrupted by the user")
	}

	// From here on the cluster is put back whatever the caller's context
	// says: Ctrl-C must not leave a broker down.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.timeout)
	defer cancel()
	r.collect(rctx, dir, meta)
	if attempted {
		r.recover(rctx, meta)
		if ctx.Err() != nil {
			if rc := meta.Recovery; rc.Err == "" && rc.LeadersBack {
				r.say("the fault was undone: %s restarted, every ISR full, leaders back where they started", o.broker)
			} else {
				r.say("the cluster is not whole (%s): kbf up restores it", rc.Err)
			}
		}
	}
	if faultErr == nil && probeErr == nil && ctx.Err() == nil {
		r.say("reading the partitions back")
		if err := readBack(rctx, dir, meta); err != nil {
			meta.Notes = append(meta.Notes, "read-back failed: "+err.Error())
		}
	}
	if err := errors.Join(rec.save(), rec.close()); err != nil {
		return nil, err
	}
	if err := errors.Join(faultErr, probeErr); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return r.report(dir)
}

// inject waits until the fault is due and injects it, recording its times.
// attempted is true once a signal may have been sent: the fault must then be
// undone, whatever the error.
// The fault is not injected once probing has ended (probeCtx).
func (r *trialRunner) inject(ctx, probeCtx context.Context, start time.Time, meta *results.Meta, rec *recorder) (attempted bool, err error) {
	select {
	case <-probeCtx.Done():
		return false, nil // interrupted before the fault: nothing to undo
	case <-time.After(time.Until(start.Add(r.o.faultAfter))):
	}
	r.phase.Store(r.o.kill)
	// Once sent, the signal's effect is awaited even through Ctrl-C (a
	// graceful stop is bounded by its grace period): a broker half-way
	// through a controlled shutdown cannot be restarted.
	f, err := r.inj.Inject(context.WithoutCancel(ctx), chaos.Fault{Broker: r.o.broker, Signal: r.o.kill, Grace: r.o.grace})
	if f.Broker != "" {
		f.NodeID = r.cl.Brokers()[r.o.broker]
		meta.Fault = &f
		if serr := rec.save(); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	if err != nil {
		return true, fmt.Errorf("inject %s into %s: %w", r.o.kill, r.o.broker, err)
	}
	if f.Kind == chaos.Pause {
		r.say("%s paused", r.o.broker)
	} else {
		r.say("%s sent to %s; exit code %d", r.o.kill, r.o.broker, f.ExitCode)
	}
	return true, nil
}

// collect copies every node's logs into the trial directory. What the logs
// say (a graceful stop's SIGTERM line) the analysis reads from them.
func (r *trialRunner) collect(ctx context.Context, dir string, meta *results.Meta) {
	for _, svc := range r.cl.Services() {
		dst := filepath.Join(dir, results.NodeLogsDir, svc)
		if err := r.inj.CollectLogs(ctx, svc, meta.Started, dst); err != nil {
			meta.Notes = append(meta.Notes, fmt.Sprintf("logs of %s not copied: %v", svc, err))
		}
	}
}

// recover restarts the faulted broker, waits until every ISR is full, and
// moves leadership back with a preferred leader election.
func (r *trialRunner) recover(ctx context.Context, meta *results.Meta) {
	r.phase.Store("recovery")
	rc := &results.Recovery{}
	meta.Recovery = rc
	fail := func(what string, err error) {
		rc.Err = fmt.Sprintf("%s: %v", what, err)
		r.say("recovery: %s", rc.Err)
	}
	r.say("recovery: restarting %s", r.o.broker)
	switch err := r.inj.Restart(ctx, r.o.broker); {
	case errors.Is(err, chaos.ErrAlreadyRunning):
		r.say("recovery: %s was running", r.o.broker)
	case err != nil:
		fail("restart "+r.o.broker, err)
		return
	}
	rc.Restarted = time.Now().UTC()
	topics := r.cl.TopicNames()
	if err := r.cl.WaitISRFull(ctx, topics...); err != nil {
		fail("wait for full ISRs", err)
		return
	}
	rc.ISRFull = time.Now().UTC()
	if _, err := r.cl.EnsurePreferred(ctx); err != nil {
		fail("preferred leader election", err)
		return
	}
	rc.PreferredElec = time.Now().UTC()
	ok, err := r.cl.LeadersPreferred(ctx, topics...)
	if err != nil {
		fail("check leaders", err)
		return
	}
	rc.LeadersBack = ok
	r.say("recovery: every ISR full %.1fs after the restart; leaders back on their preferred replicas: %v", rc.ISRFull.Sub(rc.Restarted).Seconds(), ok)
}

// readBack reads the probed partitions back into log.csv.
func readBack(ctx context.Context, dir string, meta *results.Meta) error {
	return results.WriteFileAtomic(filepath.Join(dir, results.LogFile), func(f io.Writer) error {
		_, err := probe.ReadBack(ctx, meta.Cluster.Bootstrap, meta.Probe.Topic, meta.Probe.RunID,
			meta.Probe.StartOffsets, results.NewLogEncoder(f))
		return err
	})
}

// report analyses the trial, prints it and keeps it beside the results.
func (r *trialRunner) report(dir string) (*report.Trial, error) {
	trials, err := results.Find(dir)
	if err != nil {
		return nil, err
	}
	col := plot.NewCollector()
	tr, err := report.Analyze(trials[0], report.Options{Messages: col.Add})
	if err != nil {
		return nil, err
	}
	if err := textReport.WriteText(r.o.g.out, tr); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ReportFile), func(f io.Writer) error { return textReport.WriteText(f, tr) }); err != nil {
		return nil, err
	}
	if err := results.WriteFileAtomic(filepath.Join(dir, results.ReportJSON), func(f io.Writer) error { return report.WriteJSON(f, tr) }); err != nil {
		return nil, err
	}
	t := trials[0]
	if err := results.WriteFileAtomic(defaultPlotPath(t), func(f io.Writer) error { return drawTrial(f, tr, col, plot.Options{}) }); err != nil {
		return nil, fmt.Errorf("plot: %w", err)
	}
	return tr, nil
}
