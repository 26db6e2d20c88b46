package main

// The adapter from bench.Runner to the trial protocol, experiment.Runner's
// Trial, on the targets kbf run uses: Docker's, and for fault external the
// remote cluster's. It is all that ties kbf bench to that protocol.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

type benchRunner struct {
	base *runOptions
	// pool keeps the Docker cluster from one trial to the next.
	pool clusters.Pool
	// local caches whether an image is here (a scenario's kafka_version).
	local compose.LocalImages
	// checked are the targets Check made, by their cluster options
	// (shapeKey): loading a compose project takes milliseconds, and
	// 10,000 scenarios of one cluster need one, not 10,000.
	checked map[string]clusters.Shape
	// parallel is --parallel: how many trials run at once, each on a lane
	// of its own (Lane); lanes are the runners of lanes 2 and on.
	parallel int
	lanes    []*benchRunner
	// prefix begins the lines a trial on this lane prints, when trials run
	// side by side.
	prefix string
}

func newBenchRunner(base *runOptions) *benchRunner { return &benchRunner{base: base} }

var _ bench.Lanes = (*benchRunner)(nil)

// Lane is the runner of lane i (bench.Lanes): kbf run's options, and a
// pool whose one cluster is the i-th beside kbf's own (project kbf-(i+1),
// ports 19091+100i…).
func (r *benchRunner) Lane(i int) (bench.Runner, error) {
	l := newBenchRunner(r.base)
	l.pool.Docker.Lane = i
	l.prefix = fmt.Sprintf("cluster %d: ", i+1)
	r.lanes = append(r.lanes, l)
	return l, nil
}

func (r *benchRunner) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, l := range r.lanes {
		l.close()
	}
	if err := r.pool.Close(ctx); err != nil {
		fmt.Fprintf(r.base.g.errOut, "kbf bench: taking down the clusters it brought up beside kbf's own: %v; remove their containers (kbf-2-…) with docker rm -f\n", err)
	}
	for _, t := range r.checked {
		t.Close()
	}
}

// shapeKey is what the Docker cluster of s is made of, as a map key: its
// options shaped for its fault, without their hooks, which say nothing of
// the cluster.
func shapeKey(s clusters.Spec) string {
	opts := *s.Shaped().Docker
	opts.Progress, opts.BuildOffline, opts.Notice = nil, nil, nil
	return fmt.Sprintf("%#v", opts)
}

// checkTarget is the Docker cluster of s made only to be asked: it
// contacts neither Docker nor Kafka, and brings nothing up.
func (r *benchRunner) checkTarget(s clusters.Spec) (clusters.Shape, error) {
	key := shapeKey(s)
	if t, ok := r.checked[key]; ok {
		return t, nil
	}
	t, err := clusters.ShapeOf(s)
	if err != nil {
		return nil, err
	}
	if r.checked == nil {
		r.checked = map[string]clusters.Shape{}
	}
	r.checked[key] = t
	return t, nil
}

// Check refuses, in one line each, before anything is written, what kbf
// run would refuse of the scenario: the same options check and the same
// check of the fault against the cluster (experiment.Runner.Check).
func (r *benchRunner) Check(s bench.Scenario) error {
	if err := r.checkParallel(s); err != nil {
		return err
	}
	if k := r.k8sFlags(s); k.on() || k.target != targetDocker {
		if s.Fault == bench.FaultExternal {
			return fmt.Errorf("fault external with target %s: an external fault reaches its cluster by bootstrap, whatever runs it; give no target", k.target)
		}
		return r.checkK8s(s, k)
	}
	if s.Fault == bench.FaultExternal {
		return r.checkExternal(s)
	}
	switch {
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
	opt, err := r.options(s)
	if err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	// Whether kafka_version's image is here is asked of Docker only when a
	// trial runs: the check contacts nothing.
	spec, err := r.clusterOptions(s, opt, nil)
	if err != nil {
		return err
	}
	t, err := r.checkTarget(spec)
	if err != nil {
		return err
	}
	return experiment.Check(&opt, t)
}

// checkParallel refuses, with --parallel, a scenario whose cluster kbf
// cannot make again beside itself: only kbf's embedded cluster has a
// project and ports for each lane.
func (r *benchRunner) checkParallel(s bench.Scenario) error {
	if r.parallel < 2 {
		return nil
	}
	var on string
	switch k := r.k8sFlags(s); {
	case s.Fault == bench.FaultExternal:
		on = "a cluster reached by its addresses (fault external)"
	case k.on() || k.target != targetDocker:
		on = "a Kafka in Kubernetes"
	case s.Compose != "" || s.ProjectName != "":
		on = "a compose file's cluster"
	default:
		return nil
	}
	return fmt.Errorf("--parallel %d: this scenario runs on %s, which has one set of nodes for one trial at a time; only kbf's own cluster is made once per lane: give --parallel 1", r.parallel, on)
}

// checkExternal is Check of a scenario with fault external, on a cluster
// kbf reaches by its addresses: the node logs it names, its options, and
// the fault against what a remote target can do. It contacts nothing: the
// cluster is reached, and every broker checked, when its trial begins.
func (r *benchRunner) checkExternal(s bench.Scenario) error {
	if s.Logs != "" {
		if st, err := os.Stat(s.Logs); err != nil || !st.IsDir() {
			return fmt.Errorf("logs %s: not a directory: give one with a folder per node, named by its node id", s.Logs)
		}
	}
	if s.LogsCommand != "" {
		if err := clusters.CheckLogsCommand(s.LogsCommand); err != nil {
			return fmt.Errorf("logs_command: %w", err)
		}
	}
	opt, err := r.options(s)
	if err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	sh, err := clusters.ShapeOf(clusters.Spec{Remote: &clusters.RemoteOptions{}})
	if err != nil {
		return err
	}
	defer sh.Close()
	return experiment.Check(&opt, sh)
}

// clusterOptions is the spec of s's Docker cluster, for the fault of opt.
// A scenario's image or kafka_version is its image over --image; local
// says whether an image is here.
func (r *benchRunner) clusterOptions(s bench.Scenario, opt experiment.Options, local func(string) bool) (clusters.Spec, error) {
	opts := compose.Options{Image: r.base.image, File: s.Compose, ProjectName: s.ProjectName, Brokers: s.Brokers, Controllers: s.Controllers}
	if img := s.KafkaImage(local); img != "" {
		opts.Image = img
	}
	for _, kv := range s.Config {
		st, err := compose.ParseSetting(kv)
		if err != nil {
			return clusters.Spec{}, err
		}
		opts.Config = append(opts.Config, st)
	}
	if err := compose.CheckLimits(opts.Config); err != nil {
		return clusters.Spec{}, err
	}
	// As kbf run's: the faulted broker leads partition 0 (a role's broker
	// is found only at the fault: none).
	opts.Security, opts.Lead = opt.Probe.Security, leadOf(opt.Broker)
	withOffline(&opts, r.base.g)
	return clusters.Spec{Docker: &opts, Fault: faultShape(opt.Kill, opt.Broker, r.base.diskSize, opt.Disk)}, nil
}

// options are the experiment's options for one trial of s: the bench
// command's flags, then the scenario's settings over them. They are not
// validated here: Check and the trial do it.
func (r *benchRunner) options(s bench.Scenario) (experiment.Options, error) {
	o, err := r.runOptions(s)
	if err != nil {
		return experiment.Options{}, err
	}
	return o.experimentOptions(), nil
}

// runOptions are kbf run's flags for one trial of s: the command's, then
// the scenario's over them.
func (r *benchRunner) runOptions(s bench.Scenario) (runOptions, error) {
	o := *r.base
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
	if s.Settle != nil {
		o.settle = *s.Settle
	}
	if s.ReturnAfter > 0 {
		o.returnAfter = s.ReturnAfter
	}
	if s.Failback {
		o.failback = true
	}
	if s.DiskDelay > 0 {
		o.diskDelay = s.DiskDelay
	}
	if s.BrokersLost != "" {
		o.brokersLost = s.BrokersLost
	}
	if s.CommandConfig != "" {
		sec, err := kafkasec.Load(s.CommandConfig)
		if err != nil {
			return o, fmt.Errorf("command_config: %w", err)
		}
		o.cluster.commandConfig, o.cluster.sec, o.cluster.secRead = s.CommandConfig, sec, true
	}
	pf, err := scenarioProbe(r.base.flags, s)
	if err != nil {
		return o, err
	}
	o.flags = pf
	if err := scenarioClients(&o, s); err != nil {
		return o, err
	}
	o.external = externalFlags{bootstrap: s.Bootstrap, logs: s.Logs, logsCommand: s.LogsCommand,
		readyFile: s.ReadyFile, onReady: s.OnReady, dir: s.Dir, margin: s.HealMargin}
	return o, nil
}

// scenarioProbe sets a scenario's probe settings (client, acks, interval)
// over the command's. A client setting is spelt as kbf run's flag is
// (retry-backoff: 100ms, kip951: false) and parsed as the flag is, by its
// row of probeSettings, so a setting added to kbf run is one a scenario
// takes.
func scenarioProbe(base probeFlags, s bench.Scenario) (probeFlags, error) {
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
		st, ok := lookupProbeSetting(k)
		if !ok {
			return base, fmt.Errorf("client %s: no such probe setting (kbf run --help lists them)", k)
		}
		if err := st.value(&base.cfg).Set(set[k]); err != nil {
			return base, fmt.Errorf("client %s: %w", k, err)
		}
	}
	inScenario := func(name string) bool { _, ok := set[name]; return ok }
	if err := partnerless(&base.cfg, inScenario, "client "); err != nil {
		return base, err
	}
	return base, nil
}

// Trial runs one trial of s into dir with kbf run's protocol and target.
func (r *benchRunner) Trial(ctx context.Context, s bench.Scenario, dir string) (*report.Trial, error) {
	ro, err := r.runOptions(s)
	if err != nil {
		return nil, err
	}
	opt := ro.experimentOptions()
	opt.Out = dir
	spec, err := r.clusterSpec(ctx, s, ro, opt)
	if err != nil {
		return nil, err
	}
	t, release, err := r.pool.Open(ctx, spec, s.Fresh)
	if err != nil {
		return nil, err
	}
	defer release()
	return r.trial(ctx, opt, t, dir)
}

// clusterSpec is where the cluster of s lives: an external fault's is
// reached by its addresses, and a Kubernetes cluster found, anew for each
// trial (its brokers checked again, nothing of kbf's lingering between
// trials, a pod made again since the last at its new address); kbf's
// Docker cluster is the pool's, kept from one trial to the next.
func (r *benchRunner) clusterSpec(ctx context.Context, s bench.Scenario, ro runOptions, opt experiment.Options) (clusters.Spec, error) {
	switch k := r.k8sFlags(s); {
	case s.Fault == bench.FaultExternal:
		return ro.external.remote(opt.Probe.Security), nil
	case k.on():
		return k.spec(ro.external.bootstrap, leadOf(opt.Broker), opt.Kill, opt.Probe.Security, r.base.g.errOut), nil
	}
	return r.clusterOptions(s, opt, func(img string) bool { return r.local.Has(ctx, img) })
}

// trial runs one trial into dir on target t.
func (r *benchRunner) trial(ctx context.Context, opt experiment.Options, t cluster.Cluster, dir string) (*report.Trial, error) {
	n := 1
	fmt.Sscanf(filepath.Base(dir), results.TrialDirPrefix+"%d", &n)
	// The reports are in the trial directories, not on the output.
	er := newRunner(opt, t, newLaneReporter(r.base.g.errOut, r.base.quiet, r.prefix))
	if err := er.Trial(ctx, n, dir); err != nil {
		return nil, err
	}
	return analyseRecorded(ctx, dir)
}

// k8sFlags are the Kubernetes flags of s: the command's, with the
// scenario's target, namespace, selector and net image over them.
func (r *benchRunner) k8sFlags(s bench.Scenario) k8sFlags {
	k := r.base.k8s
	if s.Target != "" {
		k.target = s.Target
	}
	if s.Namespace != "" {
		k.namespace = s.Namespace
	}
	if s.Selector != "" {
		k.selector = s.Selector
	}
	if s.NetImage != "" {
		k.netImage = s.NetImage
	}
	return k
}

// checkK8s refuses, contacting nothing, what a scenario on Kubernetes
// cannot say: the settings that shape kbf's own cluster (the namespace's
// is what it is), a fault the Kubernetes target cannot make, no broker.
func (r *benchRunner) checkK8s(s bench.Scenario, k k8sFlags) error {
	switch {
	case k.target != targetDocker && k.target != targetK8s:
		return fmt.Errorf("target %q: want %s or %s", k.target, targetDocker, targetK8s)
	case s.Compose != "" || s.Brokers != 0 || s.Controllers != 0 || s.Image != "" || s.KafkaVersion != "" || len(s.Config) > 0 || s.Fresh:
		return errors.New("target k8s: the namespace's cluster is what it is; compose, brokers, controllers, image, kafka_version, config and fresh shape kbf's own")
	}
	opt, err := r.options(s)
	if err != nil {
		return err
	}
	if s.Broker == "" && !r.base.brokerSet {
		return errors.New("target k8s: give broker, the pod of the broker to fault")
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	return clusters.Supports(clusters.Spec{K8s: &clusters.K8s{}}, opt.Kill, opt.Broker)
}
