package main

// The adapter from bench.Runner to the trial protocol, experiment.Runner's
// Trial, with kbf run's cluster and fault adapters. It is all that ties kbf
// bench to that protocol.

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/results"
)

type benchRunner struct {
	base *runOptions
	cl   *compose.Cluster
	inj  *chaos.Injector
	opts compose.Options // cl's
}

func newBenchRunner(base *runOptions) *benchRunner { return &benchRunner{base: base} }

func (r *benchRunner) close() {
	if r.cl != nil {
		r.cl.Close()
	}
}

// Check refuses what the trial protocol cannot do yet, in one line each.
func (r *benchRunner) Check(s bench.Scenario) error {
	switch {
	case !results.FaultKind(s.Fault).Known():
		return fmt.Errorf("fault %q: want one of %s", s.Fault, faultNames())
	case s.Compose != "" && (s.Brokers != 0 || s.Controllers != 0):
		return fmt.Errorf("brokers and controllers size the embedded cluster; with compose %q, the file says what the cluster is", s.Compose)
	case s.Brokers < 0 || s.Controllers < 0 || s.Controllers > 0 && s.Controllers != 1 && s.Controllers != 3:
		return fmt.Errorf("controllers %d: want 1 or 3", s.Controllers)
	}
	if s.Compose != "" {
		if _, err := os.Stat(s.Compose); err != nil {
			return fmt.Errorf("compose %q: %w", s.Compose, err)
		}
	}
	if _, err := r.clusterOptions(s); err != nil {
		return err
	}
	_, err := r.options(s)
	return err
}

// clusterOptions are the compose options of s's cluster.
func (r *benchRunner) clusterOptions(s bench.Scenario) (compose.Options, error) {
	opts := compose.Options{Image: r.base.image, File: s.Compose, ProjectName: s.ProjectName, Brokers: s.Brokers, Controllers: s.Controllers}
	for _, kv := range s.Config {
		st, err := compose.ParseSetting(kv)
		if err != nil {
			return opts, err
		}
		opts.Config = append(opts.Config, st)
	}
	withOffline(&opts, r.base.g)
	return opts, nil
}

// sameCluster reports whether a and b describe one cluster, perhaps with
// other settings: Up then recreates only the nodes whose settings changed.
func sameCluster(a, b compose.Options) bool {
	return a.File == b.File && a.ProjectName == b.ProjectName && a.Brokers == b.Brokers && a.Controllers == b.Controllers && a.Image == b.Image
}

// options are kbf run's options for one trial of s: the bench command's
// flags, then the scenario's settings over them.
func (r *benchRunner) options(s bench.Scenario) (*runOptions, error) {
	o := *r.base
	o.g = &globals{out: io.Discard, errOut: r.base.g.errOut} // the reports go to the trial directories
	o.kill, o.repeat = results.FaultKind(s.Fault), 1
	if s.Broker != "" {
		o.broker = s.Broker
	}
	if s.Duration > 0 {
		o.duration = s.Duration
	}
	if s.FaultAfter > 0 {
		o.faultAfter = s.FaultAfter
	}
	if o.faultAfter >= o.duration {
		return nil, fmt.Errorf("fault_after %v: must be within duration %v", o.faultAfter, o.duration)
	}
	// The probe's settings go through kbf run's own flags, so a client
	// setting takes the flag's name, syntax and checks.
	fs := pflag.NewFlagSet("client", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var pf probeFlags
	pf.register(fs, false)
	pf.cfg, pf.partitions = r.base.flags.cfg, r.base.flags.partitions
	set := map[string]string{}
	for k, v := range s.Client {
		set[k] = v
	}
	if s.Acks != "" {
		set["acks"] = s.Acks
	}
	if s.Interval > 0 {
		set["interval"] = s.Interval.String()
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if fs.Lookup(k) == nil {
			return nil, fmt.Errorf("client %s: no such probe setting (kbf run --help lists them)", k)
		}
		if err := fs.Set(k, set[k]); err != nil {
			return nil, fmt.Errorf("client %s: %w", k, err)
		}
	}
	if _, err := pf.config(); err != nil {
		return nil, err
	}
	o.flags = pf
	if err := scenarioClients(&o, s); err != nil {
		return nil, err
	}
	return &o, nil
}

// connect makes the cluster's client for opts, reusing the last one when
// nothing changed. A scenario on another cluster (another compose file or
// size) takes the last one down first: two clusters at once would share
// the machine and its ports.
func (r *benchRunner) connect(ctx context.Context, opts compose.Options) error {
	if r.cl != nil && sameCluster(r.opts, opts) && slices.Equal(r.opts.Config, opts.Config) && maps.Equal(r.opts.DiskLimits, opts.DiskLimits) {
		return nil
	}
	if r.cl != nil {
		if !sameCluster(r.opts, opts) {
			if _, err := r.cl.Down(ctx); err != nil {
				return fmt.Errorf("the last scenario's cluster: %w", err)
			}
		}
		r.close()
		r.cl = nil
	}
	cl, err := compose.New(opts)
	if err != nil {
		return err
	}
	r.cl, r.inj, r.opts = cl, newInjector(cl), opts
	return nil
}

// Trial runs one trial of s into dir with kbf run's protocol.
func (r *benchRunner) Trial(ctx context.Context, s bench.Scenario, dir string) error {
	o, err := r.options(s)
	if err != nil {
		return err
	}
	opts, err := r.clusterOptions(s)
	if err != nil {
		return err
	}
	limitDisk(&opts, o)
	if err := r.connect(ctx, opts); err != nil {
		return err
	}
	if s.Fresh {
		// A fresh cluster: this one removed and a new client made, so that
		// the trial brings the cluster up from nothing.
		if _, err := r.cl.Down(ctx); err != nil {
			return fmt.Errorf("fresh cluster: %w", err)
		}
		r.close()
		r.cl = nil
		if err := r.connect(ctx, opts); err != nil {
			return err
		}
	}
	if _, ok := r.cl.Brokers()[o.broker]; !ok {
		return fmt.Errorf("broker %q: not a broker of the cluster (%v)", o.broker, r.cl.BrokerServices())
	}
	o.out = dir
	n := 1
	fmt.Sscanf(filepath.Base(dir), results.TrialDirPrefix+"%d", &n)
	// The reports are in the trial directories, not on the output.
	er := newRunner(o, r.cl, r.inj, io.Discard, newReporter(r.base.g.errOut, r.base.quiet))
	if err := er.Opt.Validate(); err != nil {
		return err
	}
	_, err = er.Trial(ctx, n, dir)
	return err
}
