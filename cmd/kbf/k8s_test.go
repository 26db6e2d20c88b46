package main

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/bench/trialrun"
)

// TestBenchK8sCheck: a scenario on Kubernetes is refused, contacting
// nothing, for what only kbf's own cluster takes, a fault the Kubernetes
// target cannot make, no broker pod, or a target kbf does not know.
func TestBenchK8sCheck(t *testing.T) {
	var base *benchOptions
	runOnly(t, func(g *globals) *cobra.Command {
		return newBenchCmdF(g, func(_ context.Context, o *benchOptions) error { base = o; return nil })
	}, "bench", "--kill", "sigkill")
	if base == nil {
		t.Fatal("no options")
	}
	r := trialrun.New(base.run.Trials())
	k8s := func(s bench.Scenario) bench.Scenario {
		s.Target, s.Namespace = trialrun.TargetK8s, "kafka"
		if s.Fault == "" {
			s.Fault = "sigkill"
		}
		return s
	}
	tests := []struct {
		name    string
		s       bench.Scenario
		wantErr string
	}{
		{name: "a kill of a pod", s: k8s(bench.Scenario{Broker: "kafka-broker-1"})},
		{name: "a pause", s: k8s(bench.Scenario{Fault: "pause", Broker: "kafka-broker-1"})},
		{name: "no broker", s: k8s(bench.Scenario{}), wantErr: "give broker, the pod"},
		{name: "kbf's own cluster's settings", s: k8s(bench.Scenario{Broker: "b-1", Config: []string{"a=b"}}), wantErr: "shape kbf's own"},
		{name: "a fault the kubelet undoes", s: k8s(bench.Scenario{Fault: "rolling", Broker: "b-1"}), wantErr: "the kubelet restarts"},
		{name: "a network cut, in an image of its own", s: k8s(bench.Scenario{Fault: "isolate", Broker: "b-1", NetImage: "tools:1"})},
		{name: "a full disk", s: k8s(bench.Scenario{Fault: "disk-full", Broker: "b-1"}), wantErr: "does not make it on Kubernetes"},
		{name: "an unknown target", s: bench.Scenario{Fault: "sigkill", Target: "nomad", Broker: "b-1"}, wantErr: `target "nomad"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Check(tt.s)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
			}
		})
	}
}

// TestRunK8sFlags: kbf run's Kubernetes flags are refused, before anything
// is contacted, without --target k8s, and --target k8s without a broker pod.
func TestRunK8sFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"namespace without the target", []string{"--kill", "sigkill", "--namespace", "x"}, "--target k8s's"},
		{"net-image without the target", []string{"--kill", "isolate", "--net-image", "tools:1"}, "--target k8s's"},
		{"no broker pod", []string{"--kill", "sigkill", "--target", "k8s"}, "give --broker"},
		{"an unknown target", []string{"--kill", "sigkill", "--target", "swarm"}, "--target swarm"},
		{"disk-full", []string{"--kill", "disk-full", "--target", "k8s", "--broker", "b-1"}, "does not make it on Kubernetes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newRunCmdF(g, func(context.Context, *runOptions) error { called = true; return nil })
			}, append([]string{"run"}, tt.args...)...)
			if called || code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, ran %v, stderr %q; want a usage error saying %q", code, called, stderr, tt.want)
			}
		})
	}
}
