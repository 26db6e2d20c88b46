package trialrun

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// The flags of a trial, declared once by the options they set: kbf run,
// bench and tune share them. A check of a flag refuses it with an
// experiment.ErrInvalidOption (experiment.Refusef), worded for the
// command line.

// AddFlags adds the flags of one trial to fs over kbf run's defaults;
// scenario says, for kbf bench and tune, what a scenario's own setting
// does to the flag ("" for kbf run).
func (o *Options) AddFlags(fs *pflag.FlagSet, scenario string) {
	over := func(key string) string {
		if scenario == "" {
			return ""
		}
		return " (a scenario's " + key + ": " + scenario + ")"
	}
	e := &o.Trial
	fs.Var(faultValue{&e.Kill}, "fault", "the fault: "+faultHelp+over("fault"))
	fs.Var(faultValue{&e.Kill}, "kill", "the same as --fault, its short form for sigkill, sigterm and pause")
	fs.DurationVar(&e.ReplicaInterval, "replica-interval", 100*time.Millisecond, "how often the replica view (replicas.csv) asks each broker for its replicas' LEO and the HW; 0 turns it off")
	fs.StringVar(&e.Broker, "broker", "k1", "the broker to fault, by service name; coordinator: the consumer group's coordinator at the fault (needs --consumer group)"+over("broker"))
	fs.DurationVar(&e.Duration, "duration", 30*time.Second, "the longest each trial probes (see --settle)"+over("duration"))
	fs.BoolVar(&e.Failback, "failback", false, "once probing after the fault is over, bring the broker back with the probe running: its restart, its catching up and the preferred leader election, then --failback-for more; the report shows the failback's stall and its tail latency against the baseline's"+over("failback"))
	fs.DurationVar(&e.FailbackAfter, "failback-for", 0, "with --failback: how long to probe on after the preferred leader election (default 1m0s)")
	fs.DurationVar(&e.Settle, "settle", experiment.DefaultSettle, "end probing this long after the fault's consequence (the broker out of every ISR) and every probed partition acking and reading steadily again; 0 probes for all of --duration"+over("settle"))
	fs.DurationVar(&e.FaultAfter, "fault-after", 8*time.Second, "when, after the probe starts, the fault is injected"+over("fault_after"))
	compose.AddImageFlag(fs, &o.Image)
	fs.DurationVar(&e.Grace, "grace", 120*time.Second, "sigterm: how long the broker may take to stop before it is SIGKILLed")
	fs.DurationVar(&e.RecoveryTimeout, "recovery-timeout", 3*time.Minute, "how long recovery may take")
	fs.StringVar(&o.DiskSize, "disk-size", "128m", "disk-full: the size of the tmpfs the faulted broker's log directory is given (and the fault fills)")
	fs.DurationVar(&o.DiskDelay, "disk-delay", 0, "disk-slow: how long every write and fsync into the broker's log directory waits (such as 200ms)")
	fs.StringVar(&o.BrokersLost, "brokers-lost", LostOne, "power-loss: whose power is cut: 1 (the broker's) or all-replicas (every broker's at once)")
	fs.Float64Var(&o.StarveCPUs, "starve-cpus", 0, "cpu-starve: the sliver of a CPU the broker's container is held to, 0.01 to 1 (default 0.05)")
	fs.StringVar(&o.Loss, "loss", "", "packet-loss: the share of the broker's packets dropped at random, each way, on every link but the loopback (such as 30%)")
	d := experiment.DefaultBaseline
	fs.DurationVar(&e.Baseline.Period, "baseline", d.Period, "how long every partition must ack and read steadily before the fault")
	fs.DurationVar(&e.Baseline.Gap, "baseline-gap", d.Gap, "the longest ack or read gap that is steady (default max(10 × --interval, 200ms))")
	fs.DurationVar(&e.Baseline.Timeout, "baseline-timeout", d.Timeout, "how long past --fault-after to wait for a healthy baseline")
}

// CheckDisk checks the disk faults' flags against the fault (Validate
// among them).
func (o *Options) CheckDisk() error {
	kill := o.Trial.Kill
	if kill == results.FaultDiskSlow && o.DiskDelay <= 0 {
		return experiment.Refusef("--fault disk-slow needs --disk-delay, a positive duration such as 200ms")
	}
	if err := o.Validate(); err != nil {
		return err
	}
	switch {
	case o.DiskDelay > 0 && kill != results.FaultDiskSlow:
		return experiment.Refusef("--disk-delay is disk-slow's, not %s's", kill)
	case o.BrokersLost == LostAll && kill != results.FaultPowerLoss:
		return experiment.Refusef("--brokers-lost all-replicas is power-loss's, not %s's", kill)
	}
	return nil
}

// faultValue is --fault (and --kill): one of the fault kinds results knows.
type faultValue struct{ k *results.FaultKind }

func (f faultValue) String() string {
	if f.k == nil {
		return ""
	}
	return string(*f.k)
}

func (f faultValue) Type() string { return "fault" }

func (f faultValue) Set(v string) error {
	k := results.FaultKind(v)
	if !k.Known() {
		return fmt.Errorf("%q is not a fault: want %s", v, FaultNames())
	}
	if *f.k != "" && *f.k != k {
		return fmt.Errorf("%q: the fault is already %s (--fault and --kill name one fault)", v, *f.k)
	}
	*f.k = k
	return nil
}

// FaultNames are the fault kinds, comma-separated, as --fault takes them.
func FaultNames() string {
	var names []string
	for _, k := range results.FaultKinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}

// faultHelp says what each fault does, for --fault's help.
const faultHelp = "sigkill (process killed), sigterm (graceful stop), pause (process frozen " +
	"until recovery, or for --return-after), isolate (every network link cut, the process running), " +
	"isolate-controller (cut from the controller quorum only), isolate-clients " +
	"(cut from the clients only), isolate-replication (cut from the other brokers only: " +
	"acks=all waits until an ISR shrinks after replica.lag.time.max.ms); the network faults need root; " +
	"two-brokers (the broker and the next SIGKILLed, the second started again after --return-after), " +
	"rolling (every broker stopped gracefully and started in turn, the next once every ISR is full; the probe runs on 10 s after the roll), " +
	"controller-kill and controller-pause (the quorum's active controller killed, or frozen until recovery; needs --controllers 3), " +
	"last-replica (partition 0's followers stopped one by one, then its leader by --last-step, then the followers started, then the leader), " +
	"disk-full (the broker's log directory, a tmpfs of --disk-size, filled until writes fail; recovery restarts it on an empty one), " +
	"disk-slow (every write and fsync into the broker's log directory waits --disk-delay), " +
	"disk-error (the broker's log directory answers EIO), " +
	"power-loss (what the broker, or with --brokers-lost all-replicas every broker, wrote and did not fsync is lost, then it is killed; recovery starts it on what was synced); " +
	"the three disk faults serve the log directory through a FUSE layer and need root on the Docker host; " +
	"cpu-starve (the broker's container held to --starve-cpus of a CPU, its process running), " +
	"packet-loss (--loss of the broker's packets dropped at random each way, its links up; needs root): " +
	"with --return-after, hiccups a healthy broker may have"

// AddFlags adds --target and the Kubernetes target's flags to fs.
func (k *K8s) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&k.Target, "target", TargetDocker, "where the cluster lives: docker (kbf's own, or -f FILE) or k8s (a Kafka in Kubernetes, through the API; --broker then names a pod)")
	fs.StringVar(&k.Namespace, "namespace", "", "--target k8s: the cluster's namespace (default the kubeconfig context's)")
	fs.StringVar(&k.Kubeconfig, "kubeconfig", "", "--target k8s: the kubeconfig (default $KUBECONFIG or ~/.kube/config, or the pod's service account in the cluster)")
	fs.StringVar(&k.Selector, "selector", "", "--target k8s: a label selector for the cluster's pods, e.g. strimzi.io/cluster=my-cluster (default every Kafka pod of the namespace)")
	fs.StringVar(&k.NetImage, "net-image", "", "--target k8s: the image of the ephemeral container that cuts a broker's links, one with iptables the node can run (default the broker's own image)")
}

// CheckTarget refuses, before contacting anything, a target kbf does not
// know and a Kubernetes flag without --target k8s (all kbf watch asks: it
// names no broker).
func (k K8s) CheckTarget() error {
	switch {
	case k.Target != TargetDocker && k.Target != TargetK8s:
		return experiment.Refusef("--target %s: want %s or %s", k.Target, TargetDocker, TargetK8s)
	case !k.On() && (k.Namespace != "" || k.Kubeconfig != "" || k.Selector != "" || k.NetImage != ""):
		return experiment.Refusef("--namespace, --kubeconfig, --selector and --net-image are --target k8s's")
	}
	return nil
}

// Check is CheckTarget, and for a trial on Kubernetes a broker named
// (brokerSet) and a fault the Kubernetes target can make.
func (k K8s) Check(kill results.FaultKind, brokerSet bool) error {
	if err := k.CheckTarget(); err != nil {
		return err
	}
	switch {
	case k.On() && !brokerSet:
		return experiment.Refusef("--target k8s: give --broker, the pod of the broker to fault")
	case k.On():
		if err := platform.Supports(platform.Spec{K8s: &platform.K8s{}}, kill, ""); err != nil {
			return experiment.Refusef("%w", err)
		}
	}
	return nil
}

// External are the flags of a trial on a cluster kbf reaches by its
// addresses, faulted by something else (--fault external).
type External struct {
	Bootstrap []string
	// BootstrapSet is whether --bootstrap was given, so that an empty one
	// is refused rather than read as none.
	BootstrapSet       bool
	Logs, LogsCommand  string
	ReadyFile, OnReady string
	// Dir is where OnReady and LogsCommand run: a bench scenario file's
	// directory; empty for kbf run, kbf's own.
	Dir    string
	Margin time.Duration
}

// AddFlags adds --bootstrap and --fault external's flags to fs.
func (e *External) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&e.Bootstrap, "bootstrap", nil, "a cluster kbf did not start, reached at these addresses (no Docker); its only fault is --fault external")
	platform.AddLogsFlags(fs, &e.Logs, &e.LogsCommand, "--fault external", "", "the trial's start")
	fs.StringVar(&e.ReadyFile, "ready-file", "", "--fault external: a file kbf creates once the baseline is healthy, for a script to inject then")
	fs.StringVar(&e.OnReady, "on-ready", "", "--fault external: a shell command kbf runs once the baseline is healthy, in a process group of its own: not waited for; a failure (its exit status) is reported, and what of it still runs when the trial ends is ended")
	fs.DurationVar(&e.Margin, "heal-margin", 0, "--fault external: how long every partition must be steady, its ISR full, to count as healed (default --baseline)")
}

// Check refuses, before contacting anything, what only a remote cluster
// or only an external fault can take, and node logs kbf could not read.
func (e *External) Check(kill results.FaultKind) error {
	if e.BootstrapSet && len(e.Bootstrap) == 0 {
		return experiment.Refusef("--bootstrap: empty; give host:port[,host:port…]")
	}
	if len(e.Bootstrap) > 0 {
		if err := probe.CheckBootstrap(e.Bootstrap); err != nil {
			return experiment.Refusef("%w", err)
		}
		if err := platform.Supports(platform.Spec{Remote: &platform.RemoteOptions{}}, kill, ""); err != nil {
			return experiment.Refusef("%w", err)
		}
	}
	switch {
	case kill != results.FaultExternal && (e.Logs != "" || e.LogsCommand != "" || e.ReadyFile != "" || e.OnReady != "" || e.Margin != 0):
		return experiment.Refusef("--logs, --logs-command, --ready-file, --on-ready and --heal-margin are --fault external's")
	case e.Margin < 0:
		return experiment.Refusef("--heal-margin %v: must not be negative", e.Margin)
	}
	return CheckLogs(e.Logs, e.LogsCommand)
}

// CheckLogs checks --logs and --logs-command, where a cluster reached by
// its addresses keeps its nodes' logs: one of them, a command kbf can run
// or a directory.
func CheckLogs(logs, logsCommand string) error {
	switch {
	case logs != "" && logsCommand != "":
		return experiment.Refusef("--logs and --logs-command: give one")
	case logsCommand != "":
		if err := platform.CheckLogsCommand(logsCommand); err != nil {
			return experiment.Refusef("--logs-command: %v", err)
		}
	case logs != "":
		if st, err := os.Stat(logs); err != nil || !st.IsDir() {
			return experiment.Refusef("--logs %s: not a directory: give one with a folder per node, named by its node id", logs)
		}
	}
	return nil
}

// Options are the experiment's options of an external fault.
func (e *External) Options() experiment.External {
	return experiment.External{ReadyFile: e.ReadyFile, OnReady: e.OnReady, Dir: e.Dir, Margin: e.Margin}
}

// Remote is the spec of the cluster at --bootstrap, its node logs where
// --logs or --logs-command says: contacted when opened, to read its nodes
// and check kbf reaches every broker.
func (e *External) Remote(sec *kafkasec.Config) platform.Spec {
	return platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: e.Bootstrap, Logs: e.Logs, LogsCommand: e.LogsCommand, Dir: e.Dir, Security: sec}}
}

// MaxClusters bounds --clusters and --parallel: each of kbf's clusters
// takes about 3 GiB and its own ports.
const MaxClusters = 4

// AddLaneFlags adds --clusters to fs (kbf bench and kbf tune, usage as
// each says it) and, with parallel, kbf bench's --parallel; without it
// the trials run one at a time.
func (o *Options) AddLaneFlags(fs *pflag.FlagSet, clusters string, parallel bool) {
	fs.IntVar(&o.Clusters, "clusters", 2, clusters)
	o.Parallel = 1 // one trial at a time, unless --parallel
	if parallel {
		fs.IntVar(&o.Parallel, "parallel", 1, "run this many trials at once, each on a cluster of kbf's own (the second on ports 19192…): for a machine with the cores for them, about 2 a cluster; a trial on an overloaded host does not count")
	}
}

// CheckLanes checks --clusters and --parallel (clustersSet: --clusters
// given, which --parallel keeps a cluster a trial without).
func (o *Options) CheckLanes(clustersSet bool) error {
	if o.Clusters < 1 || o.Clusters > MaxClusters {
		return experiment.Refusef("--clusters %d: want 1 to %d", o.Clusters, MaxClusters)
	}
	switch {
	case o.Parallel < 1 || o.Parallel > MaxClusters:
		return experiment.Refusef("--parallel %d: want 1 to %d", o.Parallel, MaxClusters)
	case o.Parallel > 1 && clustersSet:
		return experiment.Refusef("--parallel %d keeps a cluster for each trial running; --clusters is for trials one at a time: give one of them", o.Parallel)
	}
	return nil
}

// CheckFlags checks, in kbf run's order, the flags of a trial's fault
// and of where its cluster lives: the disk faults' (CheckDisk), the
// hiccups' (CheckHiccup), Kubernetes' (K8s.Check), then a remote
// cluster's (External.Check), unless the trial is on Kubernetes, whose
// --bootstrap is its first address, not a remote cluster's.
func (o *Options) CheckFlags(ext *External) error {
	if err := o.CheckDisk(); err != nil {
		return err
	}
	if err := o.CheckHiccup(); err != nil {
		return err
	}
	if err := o.K8s.Check(o.Trial.Kill, o.BrokerSet); err != nil {
		return err
	}
	if err := ext.Check(o.Trial.Kill); err != nil && !o.K8s.On() {
		return err
	}
	return nil
}
