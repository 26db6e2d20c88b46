package k8s

import (
	"context"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestControllerAddrs(t *testing.T) {
	status := func(ip string, running bool) *corev1.Pod {
		p := pod("x", nil, ip)
		st := corev1.ContainerStatus{Name: "kafka"}
		if running {
			st.State.Running = &corev1.ContainerStateRunning{}
		} else {
			st.State.Waiting = &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}
		}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{st}
		return &p
	}
	nodes := []Node{
		{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true},
		{Pod: "kafka-controller-100", Container: "kafka", ID: 100, Controller: true, CtlPort: 9093},
		{Pod: "kafka-controller-101", Container: "kafka", ID: 101, Controller: true, CtlPort: 9093},
		{Pod: "c-controllers-102", Container: "kafka", ID: 102, Controller: true}, // Strimzi's: no port known
	}
	for _, tc := range []struct {
		name     string
		statuses map[string][]*corev1.Pod
		want     map[int32]string
	}{
		{
			name: "both running",
			statuses: map[string][]*corev1.Pod{
				"kafka-controller-100": {status("10.0.0.9", true)},
				"kafka-controller-101": {status("10.0.0.10", true)},
				"c-controllers-102":    {status("10.0.0.11", true)},
			},
			want: map[int32]string{100: "10.0.0.9:9093", 101: "10.0.0.10:9093"},
		},
		{
			name: "one killed, the kubelet not yet done restarting it",
			statuses: map[string][]*corev1.Pod{
				"kafka-controller-100": {status("10.0.0.9", false)},
				"kafka-controller-101": {status("10.0.0.10", true)},
			},
			want: map[int32]string{101: "10.0.0.10:9093"},
		},
		{
			name: "one made anew, without an IP yet",
			statuses: map[string][]*corev1.Pod{
				"kafka-controller-100": {status("", true)},
				"kafka-controller-101": {status("10.0.0.10", true)},
			},
			want: map[int32]string{101: "10.0.0.10:9093"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := newCluster(&fakeAPI{statuses: tc.statuses}, Options{}, nodes)
			defer tg.Close()
			if tg.controllers == nil {
				t.Fatal("no controllers to ask, though kbf reaches the pods' addresses")
			}
			got, err := tg.controllerAddrs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("controllerAddrs = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("brokers at --bootstrap: the controllers are not asked", func(t *testing.T) {
		tg := newCluster(&fakeAPI{}, Options{Bootstrap: []string{"kafka.example:9094"}}, nodes)
		defer tg.Close()
		if tg.controllers != nil {
			t.Error("kbf would ask the controllers at the pods' addresses, which --bootstrap says it does not reach")
		}
	})
}
