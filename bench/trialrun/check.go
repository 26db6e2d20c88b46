package trialrun

import (
	"errors"
	"fmt"
	"os"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/platform"
)

// Check refuses, in one line each, before anything is written, what kbf
// run would refuse of the scenario: the same options check and the same
// check of the fault against the cluster (experiment.Check).
func (r *Runner) Check(s bench.Scenario) error {
	if err := r.checkParallel(s); err != nil {
		return err
	}
	if k := r.k8s(s); k.On() || k.Target != TargetDocker {
		if s.Fault == bench.FaultExternal {
			return fmt.Errorf("fault external with target %s: an external fault reaches its cluster by bootstrap, whatever runs it; give no target", k.Target)
		}
		return r.checkK8s(s, k)
	}
	if s.Fault == bench.FaultExternal {
		return r.checkExternal(s)
	}
	return r.checkDocker(s)
}

// checkDocker is Check of a scenario on kbf's Docker cluster. Whether
// kafka_version's image is here is asked of Docker only when a trial
// runs: the check contacts nothing.
func (r *Runner) checkDocker(s bench.Scenario) error {
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
	opt, err := r.validated(s)
	if err != nil {
		return err
	}
	spec, err := r.ClusterOptions(s, opt, nil)
	if err != nil {
		return err
	}
	t, err := r.checkTarget(spec)
	if err != nil {
		return err
	}
	return experiment.Check(&opt, t)
}

// validated is Experiment's options of s, validated.
func (r *Runner) validated(s bench.Scenario) (experiment.Options, error) {
	opt, err := r.Experiment(s)
	if err != nil {
		return opt, err
	}
	return opt, opt.Validate()
}

// shapeKey is what the Docker cluster of s is made of, as a map key: its
// options shaped for its fault, without their hooks, which say nothing of
// the cluster.
func shapeKey(s platform.Spec) string {
	opts := *s.Shaped().Docker
	opts.Progress, opts.BuildOffline, opts.Notice = nil, nil, nil
	return fmt.Sprintf("%#v", opts)
}

// checkTarget is the Docker cluster of s made only to be asked: it
// contacts neither Docker nor Kafka, and brings nothing up.
func (r *Runner) checkTarget(s platform.Spec) (platform.Shape, error) {
	key := shapeKey(s)
	if t, ok := r.checked[key]; ok {
		return t, nil
	}
	t, err := platform.ShapeOf(s)
	if err != nil {
		return nil, err
	}
	if r.checked == nil {
		r.checked = map[string]platform.Shape{}
	}
	r.checked[key] = t
	return t, nil
}

// checkParallel refuses, with Parallel, a scenario whose cluster kbf
// cannot make again beside itself: only kbf's embedded cluster has a
// project and ports for each lane.
func (r *Runner) checkParallel(s bench.Scenario) error {
	if r.opt.Parallel < 2 {
		return nil
	}
	var on string
	switch k := r.k8s(s); {
	case s.Fault == bench.FaultExternal:
		on = "a cluster reached by its addresses (fault external)"
	case k.On() || k.Target != TargetDocker:
		on = "a Kafka in Kubernetes"
	case s.Compose != "" || s.ProjectName != "":
		on = "a compose file's cluster"
	default:
		return nil
	}
	return fmt.Errorf("--parallel %d: this scenario runs on %s, which has one set of nodes for one trial at a time; only kbf's own cluster is made once per lane: give --parallel 1", r.opt.Parallel, on)
}

// checkExternal is Check of a scenario with fault external, on a cluster
// kbf reaches by its addresses: the node logs it names, its options, and
// the fault against what a remote target can do. It contacts nothing: the
// cluster is reached, and every broker checked, when its trial begins.
func (r *Runner) checkExternal(s bench.Scenario) error {
	if s.Logs != "" {
		if st, err := os.Stat(s.Logs); err != nil || !st.IsDir() {
			return fmt.Errorf("logs %s: not a directory: give one with a folder per node, named by its node id", s.Logs)
		}
	}
	if s.LogsCommand != "" {
		if err := platform.CheckLogsCommand(s.LogsCommand); err != nil {
			return fmt.Errorf("logs_command: %w", err)
		}
	}
	opt, err := r.validated(s)
	if err != nil {
		return err
	}
	sh, err := platform.ShapeOf(platform.Spec{Remote: &platform.RemoteOptions{}})
	if err != nil {
		return err
	}
	defer sh.Close()
	return experiment.Check(&opt, sh)
}

// checkK8s refuses, contacting nothing, what a scenario on Kubernetes
// cannot say: the settings that shape kbf's own cluster (the namespace's
// is what it is), a fault the Kubernetes target cannot make, no broker.
func (r *Runner) checkK8s(s bench.Scenario, k K8s) error {
	switch {
	case k.Target != TargetDocker && k.Target != TargetK8s:
		return fmt.Errorf("target %q: want %s or %s", k.Target, TargetDocker, TargetK8s)
	case s.Compose != "" || s.Brokers != 0 || s.Controllers != 0 || s.Image != "" || s.KafkaVersion != "" || len(s.Config) > 0 || s.Fresh:
		return errors.New("target k8s: the namespace's cluster is what it is; compose, brokers, controllers, image, kafka_version, config and fresh shape kbf's own")
	}
	opt, err := r.Experiment(s)
	if err != nil {
		return err
	}
	if s.Broker == "" && !r.opt.BrokerSet {
		return errors.New("target k8s: give broker, the pod of the broker to fault")
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	return platform.Supports(platform.Spec{K8s: &platform.K8s{}}, opt.Kill, opt.Broker)
}
