package trialrun

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// base is what kbf bench --kill sigkill's flags give, by hand.
func base() Options {
	return Options{Trial: experiment.Options{Kill: results.FaultSIGKILL, Broker: "k1", Duration: 30 * time.Second,
		FaultAfter: 8 * time.Second, Repeat: 1, Probe: probe.Defaults()}, DiskSize: "128m", BrokersLost: LostOne,
		K8s: K8s{Target: TargetDocker}}
}

// TestScenarioOverOptions: a scenario's settings go over the command's,
// which stay as they were, and the cluster a scenario names is where the
// trial runs.
func TestScenarioOverOptions(t *testing.T) {
	r := New(base())
	s := bench.Scenario{Name: "ext", Fault: "external", Bootstrap: []string{"b1:9092"}, LogsCommand: "kubectl logs my-kafka-{id}",
		Dir: "/scenarios", DiskDelay: time.Second}
	o, err := r.Experiment(s)
	if err != nil {
		t.Fatal(err)
	}
	if o.Kill != "external" || o.External.Dir != "/scenarios" || o.Disk.Delay != 0 {
		t.Errorf("options %+v: want the external fault, its directory, no disk delay", o)
	}
	spec := remoteSpec(s, nil)
	if spec.Remote == nil || len(spec.Remote.Bootstrap) != 1 || spec.Remote.LogsCommand != s.LogsCommand || spec.Remote.Dir != "/scenarios" {
		t.Errorf("remote spec %+v", spec.Remote)
	}
	if r.opt.Trial.Kill != results.FaultSIGKILL {
		t.Errorf("the scenario changed the command's options: %+v", r.opt.Trial)
	}
	slow, err := r.Experiment(bench.Scenario{Fault: "disk-slow", DiskDelay: 200 * time.Millisecond})
	if err != nil || slow.Disk.Delay != 200*time.Millisecond {
		t.Errorf("disk-slow's delay %v, %v", slow.Disk.Delay, err)
	}
	k := r.k8s(bench.Scenario{Target: TargetK8s, Namespace: "kafka", NetImage: "tools:1"})
	if !k.On() || k.Namespace != "kafka" || k.NetImage != "tools:1" {
		t.Errorf("the scenario's target %+v", k)
	}
	if k := New(Options{}).k8s(bench.Scenario{}); k.Target != TargetDocker {
		t.Errorf("no target: %q, want docker", k.Target)
	}
}

// TestScenarioClients: a scenario's clients and their settings are read
// as kbf run's --clients and --client-set are, and refused in one line.
func TestScenarioClients(t *testing.T) {
	r := New(base())
	o, err := r.Experiment(bench.Scenario{Fault: "sigkill", Clients: []string{"franz-go", "java"},
		ClientSettings: map[string]map[string]string{"java": {"linger.ms": "5"}}})
	if err != nil || len(o.Clients) != 2 || o.ClientSettings["java"]["linger.ms"] != "5" {
		t.Errorf("clients %v %v, %v", o.Clients, o.ClientSettings, err)
	}
	_, err = r.Experiment(bench.Scenario{Name: "s", Fault: "sigkill", ClientSettings: map[string]map[string]string{"java": {"linger.ms": "1"}}})
	if err == nil || !strings.HasPrefix(err.Error(), `scenario s: --client-set "java:linger.ms=1": java is not in --clients`) {
		t.Errorf("error %v", err)
	}
}

// TestValidateDisk: a disk setting no fault could use is refused, named.
func TestValidateDisk(t *testing.T) {
	for _, tt := range []struct {
		lost  string
		delay time.Duration
		want  string
	}{
		{LostOne, 0, ""},
		{LostAll, 200 * time.Millisecond, ""},
		{"2", 0, `brokers_lost "2": want 1 or all-replicas`},
		{LostOne, -time.Second, "disk_delay -1s: must be positive"},
		{LostOne, 2 * time.Minute, "disk_delay 2m0s: at most 1m"},
	} {
		o := base()
		o.BrokersLost, o.DiskDelay = tt.lost, tt.delay
		err := o.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want)) {
			t.Errorf("%q %v: %v, want %q", tt.lost, tt.delay, err, tt.want)
		}
	}
}

// waited is a put-back of a lane's trial before that counts its waits.
type waited struct{ n int }

func (w *waited) Wait() (*analysis.Trial, error) { w.n++; return nil, nil }

// TestTrialAfterEndsPrev: a trial that cannot start (a scenario refused)
// returns no put-back only once the lane's trial before has ended: the
// lane's next trial finds nothing of it running.
func TestTrialAfterEndsPrev(t *testing.T) {
	r := New(base())
	prev := &waited{}
	p, _, err := r.TrialAfter(context.Background(), bench.Scenario{Name: "s", Fault: "sigkill", Client: map[string]string{"nosuch": "1"}}, t.TempDir(), prev)
	if p != nil || err == nil || !strings.Contains(err.Error(), "client nosuch: no such probe setting") {
		t.Errorf("put-back %v, error %v; want the scenario refused", p, err)
	}
	if prev.n == 0 {
		t.Error("returned before the trial before's put-back ended")
	}
}
