package compose

import (
	"context"
	"maps"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
)

func TestControllerPort(t *testing.T) {
	for _, tc := range []struct {
		name      string
		names     string // KAFKA_CONTROLLER_LISTENER_NAMES; "-" unset
		listeners string
		port      int
		ok        bool
	}{
		{name: "a controller", names: "CONTROLLER", listeners: "CONTROLLER://:9093", port: 9093, ok: true},
		{name: "a broker has the name, not the listener", names: "CONTROLLER", listeners: "INTERNAL://:9092,EXTERNAL://:19092"},
		{name: "no listener names", names: "-", listeners: "CONTROLLER://:9093"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := types.MappingWithEquals{"KAFKA_LISTENERS": &tc.listeners}
			if tc.names != "-" {
				env["KAFKA_CONTROLLER_LISTENER_NAMES"] = &tc.names
			}
			var s types.ServiceConfig
			s.Environment = env
			port, ok := controllerPort(s)
			if port != tc.port || ok != tc.ok {
				t.Errorf("controllerPort = %d, %v; want %d, %v", port, ok, tc.port, tc.ok)
			}
		})
	}
}

func TestControllerAddrs(t *testing.T) {
	running := func(networks map[string]string) *container.InspectResponse {
		eps := map[string]*network.EndpointSettings{}
		for n, ip := range networks {
			eps[n] = &network.EndpointSettings{IPAddress: ip}
		}
		return &container.InspectResponse{
			ContainerJSONBase: &container.ContainerJSONBase{State: &container.State{Status: container.StateRunning, Running: true}},
			NetworkSettings:   &container.NetworkSettings{Networks: eps},
		}
	}
	exited := func() *container.InspectResponse {
		ci := running(nil)
		ci.State = &container.State{Status: container.StateExited}
		return ci
	}
	paused := func(ip string) *container.InspectResponse {
		ci := running(map[string]string{"kbf": ip})
		ci.State.Paused = true
		return ci
	}
	for _, tc := range []struct {
		name       string
		opts       Options
		containers map[string]*container.InspectResponse
		want       map[int32]string
	}{
		{
			name: "three controllers, one killed",
			opts: Options{Controllers: 3},
			containers: map[string]*container.InspectResponse{
				"kbf-c1": running(map[string]string{"kbf": "172.18.0.2"}),
				"kbf-c2": exited(),
				"kbf-c3": running(map[string]string{"kbf": "172.18.0.4"}),
				"kbf-k1": running(map[string]string{"kbf": "172.18.0.5"}),
			},
			want: map[int32]string{100: "172.18.0.2:9093", 102: "172.18.0.4:9093"},
		},
		{
			name: "combined: the brokers are the controllers",
			opts: Options{Combined: true},
			containers: map[string]*container.InspectResponse{
				"kbf-k1": running(map[string]string{"kbf": "172.18.0.5"}),
				"kbf-k2": running(map[string]string{"other": "10.0.0.6", "kbf": "172.18.0.6"}),
			},
			want: map[int32]string{1: "172.18.0.5:9093", 2: "172.18.0.6:9093"},
		},
		{
			name: "another network than the cluster's",
			opts: Options{},
			containers: map[string]*container.InspectResponse{
				"kbf-c1": running(map[string]string{"b": "10.0.1.2", "a": "10.0.0.2"}),
			},
			want: map[int32]string{100: "10.0.0.2:9093"},
		},
		{
			name: "a paused controller",
			opts: Options{Controllers: 3},
			containers: map[string]*container.InspectResponse{
				"kbf-c1": paused("172.18.0.2"),
				"kbf-c2": running(map[string]string{"kbf": "172.18.0.3"}),
			},
			want: map[int32]string{101: "172.18.0.3:9093"},
		},
		{
			name:       "no container",
			opts:       Options{},
			containers: map[string]*container.InspectResponse{},
			want:       map[int32]string{},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeEngine()
			f.containers = tc.containers
			c := testCluster(t, tc.opts, f)
			got, err := c.ControllerAddrs(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("ControllerAddrs = %v, want %v", got, tc.want)
			}
		})
	}
}
