package main

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/plot"
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
	baseline   experiment.Baseline
}

func newRunCmd(g *globals) *cobra.Command { return newRunCmdF(g, runTrials) }

func newRunCmdF(g *globals, runF func(context.Context, *runOptions) error) *cobra.Command {
	o := &runOptions{g: g}
	cmd := &cobra.Command{
		Use:   "run --kill sigkill|sigterm|pause",
		Short: "Run the experiment: probe, kill a broker, recover, report",
		Long: `run makes sure the cluster is up with every ISR full, starts the probe, and
after --fault-after kills (sigkill), gracefully stops (sigterm) or freezes
(pause, as a long garbage collection would) a broker. It keeps probing to the
end of --duration, then restores the cluster: restarts (or unpauses) the
broker, waits until every ISR is full, runs a preferred leader election and
checks the leaders are back. It reads every probed partition back, writes
each trial to its own directory and prints the report; with --repeat, a
summary of the valid trials. Ctrl-C in any phase undoes the fault and keeps
what was measured.

The fault waits for a healthy baseline: every probed partition acked and read
for --baseline with no gap longer than --baseline-gap, each led by its
preferred replica with its whole replica set in the ISR. kbf says why it
waits; after --baseline-timeout the trial is recorded invalid and the fault
is not injected. Each report ends its heading with a verdict: valid, suspect
(the probe stalled in the window that decides the stall, or the host was
overloaded) or invalid (no healthy baseline, the fault not confirmed).

` + helpISR + "\n\n" + helpPreferred + "\n\n" + helpAcks + `

Exit status:
  0    every trial ran and no acknowledged record was lost, duplicated or
       reordered
  1    a trial could not run (one line says why)
  2    the command line is wrong
  3    the audit found acknowledged records lost, duplicated or reordered
  6    every trial ran but none was valid (each report's verdict says why)
  130  interrupted (the fault undone, what was measured kept)`,
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
	b := experiment.DefaultBaseline
	f.DurationVar(&o.baseline.Period, "baseline", b.Period, "how long every partition must ack and read steadily before the fault")
	f.DurationVar(&o.baseline.Gap, "baseline-gap", b.Gap, "the longest ack or read gap that is steady (default max(10 × --interval, 200ms))")
	f.DurationVar(&o.baseline.Timeout, "baseline-timeout", b.Timeout, "how long past --fault-after to wait for a healthy baseline")
	return wrapHelp(cmd)
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
	case o.timeout <= 0:
		return usagef("--recovery-timeout %v: must be positive", o.timeout)
	case o.baseline.Period < 0:
		return usagef("--baseline %v: must not be negative", o.baseline.Period)
	case o.baseline.Gap < 0:
		return usagef("--baseline-gap %v: must not be negative", o.baseline.Gap)
	case o.baseline.Timeout < 0:
		return usagef("--baseline-timeout %v: must not be negative", o.baseline.Timeout)
	}
	_, err := o.flags.config()
	return err
}

// experimentOptions turns the flags into the experiment's options.
func (o *runOptions) experimentOptions() experiment.Options {
	cfg, _ := o.flags.config() // validated
	out := o.out
	if out == "" {
		out = defaultOut(o.kill)
	}
	return experiment.Options{
		Kill:            o.kill,
		Broker:          o.broker,
		Duration:        o.duration,
		FaultAfter:      o.faultAfter,
		Repeat:          o.repeat,
		Out:             out,
		Grace:           o.grace,
		RecoveryTimeout: o.timeout,
		Baseline:        o.baseline,
		Probe:           cfg,
		Version:         version,
		Command:         append([]string{"kbf"}, os.Args[1:]...),
	}
}

func runTrials(ctx context.Context, o *runOptions) error {
	opts := compose.Options{Image: o.image}
	withOffline(&opts, o.g)
	cl, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, ok := cl.Brokers()[o.broker]; !ok {
		return usagef("--broker %q: not a broker of the cluster (%v)", o.broker, cl.BrokerServices())
	}
	rep := newReporter(o.g.errOut)
	defer rep.clear()
	r := newRunner(o, cl, chaos.New(cl.Docker(), cl.ContainerName), o.g.out, rep)
	if err := r.Run(ctx); errors.Is(err, experiment.ErrDirInUse) {
		return usageError{err}
	} else {
		return err // ErrFindings is errFindings
	}
}

// composeCluster adapts compose's cluster to what the experiment asks of
// one.
type composeCluster struct{ *compose.Cluster }

func (c composeCluster) Up(ctx context.Context) (experiment.UpInfo, error) {
	up, err := c.Cluster.Up(ctx)
	if err != nil {
		return experiment.UpInfo{}, err
	}
	return experiment.UpInfo{Reused: up.Reused, Took: up.Took}, nil
}

func (c composeCluster) EnsurePreferred(ctx context.Context) error {
	_, err := c.Cluster.EnsurePreferred(ctx)
	return err
}

func (c composeCluster) Partitions(ctx context.Context, topic string) ([]experiment.Partition, error) {
	parts, err := c.Cluster.Describe(ctx, topic)
	if err != nil {
		return nil, err
	}
	out := make([]experiment.Partition, 0, len(parts))
	for _, p := range parts {
		if p.Topic != topic {
			continue
		}
		out = append(out, experiment.Partition{Partition: p.Partition, Leader: p.Leader, Replicas: p.Replicas, ISR: p.ISR})
	}
	return out, nil
}

// newRunner is the trial protocol of kbf run and kbf bench on a compose
// cluster, writing reports to out.
func newRunner(o *runOptions, cl *compose.Cluster, inj experiment.Injector, out io.Writer, rep experiment.Reporter) *experiment.Runner {
	return &experiment.Runner{
		Opt:      o.experimentOptions(),
		Cluster:  composeCluster{cl},
		Faults:   inj,
		Drawings: trialDrawings,
		Text:     textReport,
		Out:      out,
		Reporter: rep,
	}
}

// trialDrawings are the pictures kbf run draws beside each trial's report.
func trialDrawings() map[string]experiment.Drawing {
	return map[string]experiment.Drawing{results.PlotFile: svgDrawing{plot.NewCollector()}}
}

// svgDrawing is plot.svg, drawn from the rows its collector took.
type svgDrawing struct{ col *plot.Collector }

func (d svgDrawing) Add(m *results.Message) { d.col.Add(m) }

func (d svgDrawing) Draw(w io.Writer, tr *report.Trial) error {
	return drawTrial(w, tr, d.col, plot.Options{})
}
