package experiment

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/probe"
)

// ProbeOptions are a probe-only trial's settings: kbf probe's.
type ProbeOptions struct {
	Duration time.Duration // how long the probe sends
	Out      string        // the trial's directory
	Probe    probe.Config  // Bootstrap empty: the target's addresses
	Version  string        // kbf's version, for the metadata
	Command  []string      // the command line, for the metadata
}

// Validate reports the first option that cannot work, as Options.Validate
// does.
func (o *ProbeOptions) Validate() error {
	if o.Duration <= 0 || o.Duration > MaxDuration {
		return invalid("duration", o.Duration, "must be positive and at most %v", MaxDuration)
	}
	return validateProbe(o.Probe)
}

// Reachable is what a probe-only trial asks of the target: where its
// brokers are, and whether those that answer there are its own.
type Reachable interface {
	cluster.Addresses
	// Identify checks that the brokers at Bootstrap are the target's own
	// cluster, not another that holds its addresses.
	Identify(ctx context.Context) error
}

// At is the target of a probe-only trial given only addresses: whoever
// answers there is probed.
type At []string

// Bootstrap returns the addresses.
func (a At) Bootstrap() []string { return a }

// Identify checks nothing: the user named the addresses.
func (At) Identify(context.Context) error { return nil }

// ProbeOnly is a probe-only trial: the probe against a running cluster for
// Opt.Duration with no fault, into Opt.Out (probe.csv, client.log and
// meta.json). Ctrl-C ends probing early and keeps what was measured; the
// trial then returns nil with a note in meta.json, and the caller reports
// it. NewProbe defaults to probe.New, Reporter to none.
type ProbeOnly struct {
	Opt      ProbeOptions
	Target   Reachable
	NewProbe NewProbe
	Reporter Reporter
}

// Run runs the trial.
func (p *ProbeOnly) Run(ctx context.Context) error {
	o := &p.Opt
	if err := o.Validate(); err != nil {
		return err
	}
	if err := Writable(o.Out); err != nil {
		return err
	}
	rep := p.Reporter
	if rep == nil {
		rep = Discard
	}
	cfg := o.Probe
	if len(cfg.Bootstrap) == 0 {
		cfg.Bootstrap = p.Target.Bootstrap()
	}
	if err := p.Target.Identify(ctx); err != nil {
		return err
	}
	rec, err := NewRecorder(o.Out)
	if err != nil {
		return err
	}
	defer rec.Close()
	newProbe := p.NewProbe
	if newProbe == nil {
		newProbe = defaultNewProbe
	}
	pr, err := newProbe(ctx, cfg, rec.Output())
	if err != nil {
		rec.Discard()
		return fmt.Errorf("probe: %w (is the cluster up? kbf up starts it)", err)
	}
	defer pr.Close()
	if err := rec.SetMeta(NewMeta("probe", o.Version, o.Command, pr)); err != nil {
		return err
	}
	rep.Say(fmt.Sprintf("probing %s partitions %v every %v for %v into %s",
		cfg.Topic, pr.Config().Partitions, cfg.Interval, o.Duration, o.Out))

	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	progCtx, stopProg := context.WithCancel(ctx)
	start := time.Now()
	progDone := make(chan struct{})
	go func() {
		defer close(progDone)
		Watch(progCtx, rep, func() string { return "probing" }, pr, start, func() time.Time { return start.Add(o.Duration) })
	}()
	stats, runErr := pr.Run(runCtx)
	stopProg()
	<-progDone
	SetProbeResult(rec.Meta, stats)
	rec.Meta.Ended = time.Now().UTC()
	if ctx.Err() != nil {
		rec.Meta.Notes = append(rec.Meta.Notes, "interrupted after "+time.Since(start).Round(time.Millisecond).String())
	}
	if err := errors.Join(runErr, rec.Save(), rec.Close()); err != nil {
		return err
	}
	if ctx.Err() != nil {
		rep.Say("interrupted: what was measured is in " + o.Out)
	}
	return nil
}
