// Package trialrun runs a benchmark's trials (bench.Runner, bench.Lanes)
// with kbf run's trial protocol (experiment.Runner) on the cluster each
// scenario names: kbf's Docker cluster, kept from one trial to the next
// (platform.Pool), a Kafka in Kubernetes, or, for fault external, a
// cluster reached by its addresses. A scenario's settings are laid over
// Options, what the command's flags set; each trial recorded is analysed
// once and its reports written beside it (report.JustRecorded).
//
// It is all that ties kbf bench and kbf tune to the trial protocol; kbf run
// shares its rules for shaping a cluster for a fault (DockerSpec, Lead,
// FaultShape, Disk) and its protocol (NewExperiment).
package trialrun

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/replicas"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// Options are what every trial starts from: kbf run's options as the
// command's flags set them. A scenario's own settings go over them.
type Options struct {
	// Trial are one trial's experiment options; Out and Repeat are the
	// runner's (the trial directory, one).
	Trial experiment.Options
	// Clients and ClientSet are --clients and --client-set as given
	// (clients.ParseChoice): a scenario's clients and client_settings are
	// laid over them and read the same way.
	Clients   string
	ClientSet []string
	// Image is kbf's cluster's image; a scenario's image or kafka_version
	// goes over it.
	Image string
	// DiskSize is the tmpfs a disk-full fault fills; DiskDelay and
	// BrokersLost are disk-slow's delay and power-loss's brokers
	// (LostOne, LostAll), each for the scenarios of its fault (Disk).
	DiskSize    string
	DiskDelay   time.Duration
	BrokersLost string
	// StarveCPUs and Loss are cpu-starve's sliver of a CPU (zero: the
	// default) and packet-loss's share as --loss spells it ("30%"), each
	// for the scenarios of its fault (Hiccup).
	StarveCPUs float64
	Loss       string
	// K8s says where a Kafka in Kubernetes is; a scenario's target,
	// namespace, selector and net_image go over it.
	K8s K8s
	// BrokerSet says the broker was given: a pod's name has no default.
	BrokerSet bool
	// Clusters is how many of kbf's clusters may be up at once
	// (docker.Pool); Parallel how many trials run at once, each on a
	// lane, a cluster of its own (bench.Lanes).
	Clusters, Parallel int
	// Offline, when set, gives kbf's cluster's options their fallback to
	// the offline image (compose.Options' Notice and BuildOffline).
	Offline func(*compose.Options)
	// Reporter shows a trial's progress; prefix, when not "", begins its
	// lines, those of one lane of several.
	Reporter func(prefix string) experiment.Reporter
	// Text is how each trial's report.txt is written.
	Text render.TextOptions
	// Log takes what is said beside the trials: a Kubernetes target's
	// notes, a cluster that could not be taken down.
	Log io.Writer
}

// The places a cluster can live, as --target and a scenario's target name
// them.
const (
	TargetDocker = "docker"
	TargetK8s    = "k8s"
)

// K8s is where a Kafka in Kubernetes is (--target k8s).
type K8s struct {
	Target, Namespace, Kubeconfig, Selector, NetImage string
}

// On says whether the trial runs on Kubernetes.
func (k K8s) On() bool { return k.Target == TargetK8s }

// Spec is the Kubernetes cluster k names, for a fault of kind on lead:
// when opened, the namespace's pods are listed and the brokers asked where
// they advertise themselves now; say takes the target's notes.
func (k K8s) Spec(bootstrap []string, lead string, kind results.FaultKind, sec *kafkasec.Config, say io.Writer) platform.Spec {
	return platform.Spec{K8s: &platform.K8s{Kubeconfig: k.Kubeconfig, Namespace: k.Namespace,
		Options: platform.K8sOptions{Selector: k.Selector, Bootstrap: bootstrap, Lead: lead, Security: sec,
			Fault: kind, NetImage: k.NetImage, Say: func(line string) { fmt.Fprintln(say, line) }}}}
}

// Whose power a power-loss cuts (--brokers-lost).
const (
	LostOne = "1"
	LostAll = "all-replicas"
)

// Validate refuses disk settings no fault could use, whatever the fault
// (a benchmark's apply to the scenarios of their fault), as
// *experiment.InvalidOption naming the setting.
func (o *Options) Validate() error {
	bad := func(name, value, why string) error {
		return &experiment.InvalidOption{Name: name, Value: value, Why: why}
	}
	switch {
	case o.BrokersLost != LostOne && o.BrokersLost != LostAll:
		return bad("brokers_lost", strconv.Quote(o.BrokersLost), "want 1 or all-replicas")
	case o.DiskDelay < 0:
		return bad("disk_delay", o.DiskDelay.String(), "must be positive")
	case o.DiskDelay > time.Minute:
		return bad("disk_delay", o.DiskDelay.String(), "at most 1m (each write and fsync waits it; Kafka's own timeouts are 30 s)")
	case o.StarveCPUs != 0 && (o.StarveCPUs < results.MinCPUs || o.StarveCPUs > results.MaxCPUs):
		return bad("starve_cpus", strconv.FormatFloat(o.StarveCPUs, 'g', -1, 64), fmt.Sprintf("want %g to %g of a CPU", results.MinCPUs, results.MaxCPUs))
	}
	if _, err := results.ParseLoss(o.Loss); o.Loss != "" && err != nil {
		return bad("loss", strconv.Quote(o.Loss), "want a percentage between 0 and 100, such as 30%")
	}
	return nil
}

// Disk is the experiment's disk settings of a fault of kind: disk-slow's
// delay, power-loss's brokers, each for its own fault only (a benchmark's
// delay applies to its disk-slow scenarios, not to its others).
func Disk(kind results.FaultKind, delay time.Duration, brokersLost string) experiment.DiskFault {
	var d experiment.DiskFault
	if kind == results.FaultDiskSlow {
		d.Delay = delay
	}
	if kind == results.FaultPowerLoss {
		d.AllReplicas = brokersLost == LostAll
	}
	return d
}

// Lead is the broker the cluster is shaped for (it leads partition 0, a
// disk-full fault's gets a tmpfs): the faulted one, or none when broker
// names a role, whose broker is found only at the fault.
func Lead(broker string) string {
	if experiment.BrokerByRole(broker) {
		return ""
	}
	return broker
}

// FaultShape is the fault a trial's cluster is shaped for: a disk-full
// fault's tmpfs of size, a disk fault's FUSE layer under the faulted
// broker or, for a power loss of every replica, under every broker; none
// when the broker is found only at the fault.
func FaultShape(kind results.FaultKind, broker, size string, d experiment.DiskFault) platform.Fault {
	return platform.Fault{Kind: kind, Broker: Lead(broker), DiskSize: size, AllReplicas: d.AllReplicas}
}

// DockerSpec is the spec of kbf's Docker cluster c shaped for the trial
// of e, as kbf run and every scenario shape it: the faulted broker leads
// partition 0 of the probed topic, however many brokers there are (a
// role's broker is found only at the fault: none), and the fault's disk
// (FaultShape) is made; with Offline, the offline image is its fallback.
func (o *Options) DockerSpec(c compose.Options, e experiment.Options) platform.Spec {
	c.Lead = Lead(e.Broker)
	if o.Offline != nil {
		o.Offline(&c)
	}
	return platform.Spec{Docker: &c, Fault: FaultShape(e.Kill, e.Broker, o.DiskSize, e.Disk)}
}

// NewExperiment is the trial protocol of kbf run, probe and bench on
// cluster t: it records trials, which the caller then analyses.
func NewExperiment(opt experiment.Options, t cluster.Cluster, rep experiment.Reporter) *experiment.Runner {
	return &experiment.Runner{
		Opt:      opt,
		Target:   t,
		Reporter: rep,
		NewSampler: func(ctx context.Context, bootstrap []string, topic string, parts []int32, every time.Duration, w io.Writer) (experiment.Sampler, error) {
			return replicas.New(ctx, replicas.Config{Bootstrap: bootstrap, Topic: topic, Partitions: parts, Interval: every, Security: opt.Probe.Security}, w)
		},
	}
}
