// Package testnode holds the single-node Kubernetes that kbf's Kubernetes tests run against: node.sh
// assembles it from Debian's packages and Kubernetes' Go modules, with no image pulled, and the
// smoke test (build tag k8s) checks on a node that is up that a Kafka broker runs in a pod, that
// its logs and exec go through the API, and that the kubelet restarts a killed JVM.
package testnode
