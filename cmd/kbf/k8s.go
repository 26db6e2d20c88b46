package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/results"
)

// The places a cluster can live, as --target names them.
const (
	targetDocker = "docker"
	targetK8s    = "k8s"
)

// k8sFlags are the flags of a trial on a Kafka in Kubernetes (--target k8s).
type k8sFlags struct {
	target     string
	namespace  string
	kubeconfig string
	selector   string
	netImage   string
}

func (k *k8sFlags) register(f *pflag.FlagSet) {
	f.StringVar(&k.target, "target", targetDocker, "where the cluster lives: docker (kbf's own, or -f FILE) or k8s (a Kafka in Kubernetes, through the API; --broker then names a pod)")
	f.StringVar(&k.namespace, "namespace", "", "--target k8s: the cluster's namespace (default the kubeconfig context's)")
	f.StringVar(&k.kubeconfig, "kubeconfig", "", "--target k8s: the kubeconfig (default $KUBECONFIG or ~/.kube/config, or the pod's service account in the cluster)")
	f.StringVar(&k.selector, "selector", "", "--target k8s: a label selector for the cluster's pods, e.g. strimzi.io/cluster=my-cluster (default every Kafka pod of the namespace)")
	f.StringVar(&k.netImage, "net-image", "", "--target k8s: the image of the ephemeral container that cuts a broker's links, one with iptables the node can run (default the broker's own image)")
}

// on says whether the trial runs on Kubernetes.
func (k *k8sFlags) on() bool { return k.target == targetK8s }

// validateTarget refuses, before contacting anything, a target kbf does
// not know and a Kubernetes flag without --target k8s (all kbf watch
// asks: it names no broker).
func (k *k8sFlags) validateTarget() error {
	switch {
	case k.target != targetDocker && k.target != targetK8s:
		return usagef("--target %s: want %s or %s", k.target, targetDocker, targetK8s)
	case !k.on() && (k.namespace != "" || k.kubeconfig != "" || k.selector != "" || k.netImage != ""):
		return usagef("--namespace, --kubeconfig, --selector and --net-image are --target k8s's")
	}
	return nil
}

// validate is validateTarget, and for a trial on Kubernetes a broker
// named and a fault the Kubernetes target can make.
func (k *k8sFlags) validate(kill results.FaultKind, brokerSet bool) error {
	if err := k.validateTarget(); err != nil {
		return err
	}
	switch {
	case k.on() && !brokerSet:
		return usagef("--target k8s: give --broker, the pod of the broker to fault")
	case k.on():
		if err := platform.Supports(platform.Spec{K8s: &platform.K8s{}}, kill, ""); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// spec is the Kubernetes cluster the flags name, for a fault of kind on
// lead: when opened, the namespace's pods are listed and the brokers asked
// where they advertise themselves now.
func (k *k8sFlags) spec(bootstrap []string, lead string, kind results.FaultKind, sec *kafkasec.Config, say io.Writer) platform.Spec {
	return platform.Spec{K8s: &platform.K8s{Kubeconfig: k.kubeconfig, Namespace: k.namespace,
		Options: platform.K8sOptions{Selector: k.selector, Bootstrap: bootstrap, Lead: lead, Security: sec,
			Fault: kind, NetImage: k.netImage, Say: func(line string) { fmt.Fprintln(say, line) }}}}
}
