package trialrun

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// Runner runs a benchmark's trials (bench.Runner); with Options.Parallel
// over 1, on lanes of their own (bench.Lanes).
type Runner struct {
	opt *Options
	// pool keeps the Docker cluster from one trial to the next.
	pool platform.Pool
	// local caches whether an image is here (a scenario's kafka_version).
	local compose.LocalImages
	// checked are the targets Check made, by their cluster options
	// (shapeKey): loading a compose project takes milliseconds, and
	// 10,000 scenarios of one cluster need one, not 10,000.
	checked map[string]platform.Shape
	// lanes are the runners of lanes 2 and on.
	lanes []*Runner
	// prefix begins the lines a trial on this lane prints, when trials run
	// side by side.
	prefix string
}

var _ bench.Lanes = (*Runner)(nil)

// New is the runner of the trials opt starts from; Close takes down what
// it brought up.
func New(opt Options) *Runner {
	r := &Runner{opt: &opt}
	r.pool.Docker.Clusters = opt.Clusters
	if opt.Parallel > 1 {
		r.pool.Docker.Clusters, r.prefix = 1, "cluster 1: "
	}
	return r
}

// Lane is the runner of lane i (bench.Lanes): the same options, and a
// pool whose one cluster is the i-th beside kbf's own (project kbf-(i+1),
// ports 19091+100i…).
func (r *Runner) Lane(i int) (bench.Runner, error) {
	l := &Runner{opt: r.opt}
	l.pool.Docker.Lane = i
	l.prefix = fmt.Sprintf("cluster %d: ", i+1)
	r.lanes = append(r.lanes, l)
	return l, nil
}

// Close takes down the clusters the runner brought up beside kbf's own,
// and lets go of the ones Check made.
func (r *Runner) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, l := range r.lanes {
		l.Close()
	}
	if err := r.pool.Close(ctx); err != nil && r.opt.Log != nil {
		fmt.Fprintf(r.opt.Log, "kbf bench: taking down the clusters it brought up beside kbf's own: %v; remove their containers (kbf-2-…) with docker rm -f\n", err)
	}
	for _, t := range r.checked {
		t.Close()
	}
}

// Trial runs one trial of s into dir with kbf run's protocol and target.
func (r *Runner) Trial(ctx context.Context, s bench.Scenario, dir string) (*analysis.Trial, error) {
	opt, spec, err := r.spec(ctx, s, dir)
	if err != nil {
		return nil, err
	}
	t, release, err := r.pool.Open(ctx, spec, s.Fresh)
	if err != nil {
		return nil, err
	}
	defer release()
	n, e := r.experiment(opt, t, dir)
	if err := e.Trial(ctx, n, dir); err != nil {
		return nil, err
	}
	return report.JustRecorded(ctx, dir, r.opt.Text)
}

// spec is the experiment's options of one trial of s into dir, and where
// its cluster lives.
func (r *Runner) spec(ctx context.Context, s bench.Scenario, dir string) (experiment.Options, platform.Spec, error) {
	opt, err := r.Experiment(s)
	if err != nil {
		return opt, platform.Spec{}, err
	}
	opt.Out = dir
	spec, err := r.clusterSpec(ctx, s, opt)
	return opt, spec, err
}

// clusterSpec is where the cluster of s lives: an external fault's is
// reached by its addresses, and a Kubernetes cluster found, anew for each
// trial (its brokers checked again, nothing of kbf's lingering between
// trials, a pod made again since the last at its new address); kbf's
// Docker cluster is the pool's, kept from one trial to the next.
func (r *Runner) clusterSpec(ctx context.Context, s bench.Scenario, opt experiment.Options) (platform.Spec, error) {
	switch k := r.k8s(s); {
	case s.Fault == bench.FaultExternal:
		return remoteSpec(s, opt.Probe.Security), nil
	case k.On():
		return k.Spec(s.Bootstrap, Lead(opt.Broker), opt.Kill, opt.Probe.Security, r.opt.Log), nil
	}
	return r.ClusterOptions(s, opt, func(img string) bool { return r.local.Has(ctx, img) })
}

// remoteSpec is the cluster of an external fault's scenario, at its
// bootstrap, its node logs where logs or logs_command says.
func remoteSpec(s bench.Scenario, sec *kafkasec.Config) platform.Spec {
	return platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: s.Bootstrap, Logs: s.Logs, LogsCommand: s.LogsCommand, Dir: s.Dir, Security: sec}}
}

// experiment is the runner of one trial into dir on target t, and the
// trial's number, from dir's name.
func (r *Runner) experiment(opt experiment.Options, t cluster.Cluster, dir string) (int, *experiment.Runner) {
	n := 1
	fmt.Sscanf(filepath.Base(dir), results.TrialDirPrefix+"%d", &n)
	var rep experiment.Reporter
	if r.opt.Reporter != nil {
		rep = r.opt.Reporter(r.prefix)
	}
	// The reports are in the trial directories, not on the output.
	return n, NewExperiment(opt, t, rep)
}

// ClusterOptions is the spec of s's Docker cluster, for the fault of opt.
// A scenario's image or kafka_version is its image over Options.Image;
// local says whether an image is here.
func (r *Runner) ClusterOptions(s bench.Scenario, opt experiment.Options, local func(string) bool) (platform.Spec, error) {
	opts := compose.Options{Image: r.opt.Image, File: s.Compose, ProjectName: s.ProjectName, Brokers: s.Brokers, Controllers: s.Controllers}
	if img := s.KafkaImage(local); img != "" {
		opts.Image = img
	}
	for _, kv := range s.Config {
		st, err := compose.ParseSetting(kv)
		if err != nil {
			return platform.Spec{}, err
		}
		opts.Config = append(opts.Config, st)
	}
	if err := compose.CheckLimits(opts.Config); err != nil {
		return platform.Spec{}, err
	}
	opts.Security = opt.Probe.Security
	return r.opt.DockerSpec(opts, opt), nil
}

// Experiment is the experiment's options for one trial of s: the
// command's, then the scenario's settings over them. They are not
// validated here: Check and the trial do it.
func (r *Runner) Experiment(s bench.Scenario) (experiment.Options, error) {
	o := r.opt.Trial
	o.Kill, o.Repeat = results.FaultKind(s.Fault), 1
	overString(&o.Broker, s.Broker)
	overDuration(&o.Duration, s.Duration)
	overDuration(&o.FaultAfter, s.FaultAfter)
	if s.Settle != nil {
		o.Settle = *s.Settle
	}
	overDuration(&o.ReturnAfter, s.ReturnAfter)
	o.Failback = o.Failback || s.Failback
	delay, lost := r.opt.DiskDelay, r.opt.BrokersLost
	overDuration(&delay, s.DiskDelay)
	overString(&lost, s.BrokersLost)
	o.Disk = Disk(o.Kill, delay, lost)
	cpus, loss := r.opt.StarveCPUs, r.opt.Loss
	if s.StarveCPUs != 0 {
		cpus = s.StarveCPUs
	}
	overString(&loss, s.Loss)
	o.Hiccup = Hiccup(o.Kill, cpus, loss)
	sec := o.Probe.Security
	if s.CommandConfig != "" {
		var err error
		if sec, err = kafkasec.Load(s.CommandConfig); err != nil {
			return o, fmt.Errorf("command_config: %w", err)
		}
	}
	cfg, err := ScenarioProbe(o.Probe, s)
	if err != nil {
		return o, err
	}
	o.Probe, o.Probe.Security = cfg, sec
	if o.Clients, o.ClientSettings, err = r.clients(s); err != nil {
		return o, err
	}
	o.External = experiment.External{ReadyFile: s.ReadyFile, OnReady: s.OnReady, Dir: s.Dir, Margin: s.HealMargin}
	return o, nil
}

func overString(p *string, v string) {
	if v != "" {
		*p = v
	}
}

func overDuration(p *time.Duration, v time.Duration) {
	if v > 0 {
		*p = v
	}
}

// clients are the clients of s and their settings: the command's, with
// the scenario's clients and client_settings over them, read as the
// command's flags are (clients.ParseChoice).
func (r *Runner) clients(s bench.Scenario) ([]clients.Name, map[clients.Name]map[string]string, error) {
	list, set := r.opt.Clients, slices.Clone(r.opt.ClientSet)
	if len(s.Clients) > 0 {
		list = strings.Join(s.Clients, ",")
	}
	names := slices.Sorted(maps.Keys(s.ClientSettings))
	for _, n := range names {
		keys := make([]string, 0, len(s.ClientSettings[n]))
		for k := range s.ClientSettings[n] {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			set = append(set, n+":"+k+"="+s.ClientSettings[n][k])
		}
	}
	cl, settings, err := clients.ParseChoice(list, set)
	if err != nil {
		return nil, nil, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return cl, settings, nil
}

// ScenarioProbe sets a scenario's probe settings (client, acks, interval)
// over base. A client setting is spelt as kbf run's flag is (retry-backoff:
// 100ms, kip951: false) and parsed as the flag is, by its row of
// probe.Settings, so a setting added to kbf run is one a scenario takes.
func ScenarioProbe(base probe.Config, s bench.Scenario) (probe.Config, error) {
	set := maps.Clone(s.Client)
	if set == nil {
		set = map[string]string{}
	}
	if s.Acks != "" {
		set["acks"] = s.Acks
	}
	if s.Interval > 0 {
		set["interval"] = s.Interval.String()
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		st, ok := probe.LookupSetting(k)
		if !ok {
			return base, fmt.Errorf("client %s: no such probe setting (kbf run --help lists them)", k)
		}
		if err := st.Value(&base).Set(set[k]); err != nil {
			return base, fmt.Errorf("client %s: %w", k, err)
		}
	}
	inScenario := func(name string) bool { _, ok := set[name]; return ok }
	if err := probe.Partnerless(&base, inScenario, "client "); err != nil {
		return base, err
	}
	return base, nil
}

// k8s is where the Kubernetes cluster of s is: the command's, with the
// scenario's target, namespace, selector and net image over it.
func (r *Runner) k8s(s bench.Scenario) K8s {
	k := r.opt.K8s
	if k.Target == "" {
		k.Target = TargetDocker
	}
	overString(&k.Target, s.Target)
	overString(&k.Namespace, s.Namespace)
	overString(&k.Selector, s.Selector)
	overString(&k.NetImage, s.NetImage)
	return k
}
