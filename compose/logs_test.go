package compose

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
)

func TestCollectOutput(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("..", "nodelog", "testdata", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	f := newFakeEngine()
	upFromNothing(t, f, Options{})
	stop(f, "kbf-k1", 137) // a killed node's output stays readable
	f.output = map[string]string{"kbf-k1": string(out)}
	c := testCluster(t, Options{}, f)
	dir := t.TempDir()
	if err := c.CollectOutput(context.Background(), "k1", dir); err != nil {
		t.Fatalf("CollectOutput: %v", err)
	}
	// The container's output, split as nodelog splits it (its goldens).
	for _, n := range []string{"server.log", "controller.log", "state-change.log", "log-cleaner.log"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("..", "nodelog", "testdata", "split", n+".golden"), b)
	}
	if err := c.CollectOutput(context.Background(), "k9", dir); err == nil {
		t.Errorf("CollectOutput of no container: no error")
	}
}

func TestNodeConfigs(t *testing.T) {
	// Brokers 0, 1, 2 in kfake, a controller whose container answers the
	// cat of its server.properties.
	kc, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.BrokerConfigs(map[string]string{"broker.session.timeout.ms": "4000"}))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	file := "name: cfg\nservices:\n  kraft:\n    image: i\n    environment: {KAFKA_NODE_ID: 9, KAFKA_PROCESS_ROLES: controller}\n"
	for i, addr := range kc.ListenAddrs() {
		_, port, _ := strings.Cut(addr, ":")
		file += fmt.Sprintf("  b%d:\n    image: i\n    ports: ['127.0.0.1:%s:%s']\n    environment: {KAFKA_NODE_ID: %d, KAFKA_PROCESS_ROLES: broker, KAFKA_ADVERTISED_LISTENERS: 'HOST://127.0.0.1:%s'}\n",
			i, port, port, i, port)
	}
	f := newFakeEngine()
	f.containers["cfg-kraft-1"] = &container.InspectResponse{
		ContainerJSONBase: &container.ContainerJSONBase{Name: "/cfg-kraft-1", State: &container.State{Running: true}}}
	f.properties = "# rendered\nnode.id=9\nprocess.roles=controller\nbroker.session.timeout.ms = 4000\n\n"
	c := testCluster(t, Options{File: writeFile(t, file), Topics: []Topic{}}, f)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got, err := c.NodeConfigs(ctx)
	if err != nil {
		t.Fatalf("NodeConfigs: %v", err)
	}
	if len(got) != 4 {
		t.Errorf("configurations of %v, want kraft b0 b1 b2", slices.Sorted(maps.Keys(got)))
	}
	for _, b := range []string{"b0", "b1", "b2"} {
		if v := got[b]["broker.session.timeout.ms"]; v != "4000" {
			t.Errorf("%s: broker.session.timeout.ms = %q, want 4000 as the broker reports it", b, v)
		}
	}
	want := map[string]string{"node.id": "9", "process.roles": "controller", "broker.session.timeout.ms": "4000"}
	if !maps.Equal(got["kraft"], want) {
		t.Errorf("kraft: %v, want %v", got["kraft"], want)
	}

	// A controller that is not running is named, the brokers still read.
	f.containers["cfg-kraft-1"].State.Running = false
	got, err = c.NodeConfigs(ctx)
	if err == nil || !strings.Contains(err.Error(), "configuration of kraft") || len(got) != 3 {
		t.Errorf("NodeConfigs with kraft stopped: %d nodes, %v; want the three brokers and kraft named", len(got), err)
	}
}
