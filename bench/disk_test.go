package bench

import (
	"strings"
	"testing"
	"time"
)

func TestDiskSettings(t *testing.T) {
	f, err := Parse(strings.NewReader("trials: 1\nscenarios: [{name: slow, fault: disk-slow, disk_delay: 200ms}, {name: all, fault: power-loss, brokers_lost: all-replicas}]\n"), "bench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Scenarios[0].DiskDelay != 200*time.Millisecond || f.Scenarios[1].BrokersLost != "all-replicas" {
		t.Errorf("scenarios %+v", f.Scenarios)
	}
	for _, tc := range []struct{ in, want string }{
		{"{name: a, fault: sigkill, disk_delay: 1s}", "disk_delay is fault disk-slow's, not sigkill's"},
		{"{name: a, fault: disk-slow, disk_delay: -1s}", "disk_delay -1s: must be positive"},
		{"{name: a, fault: power-loss, brokers_lost: 2}", `brokers_lost "2": want 1 or all-replicas`},
		{"{name: a, fault: disk-error, brokers_lost: all-replicas}", "brokers_lost is fault power-loss's, not disk-error's"},
	} {
		_, err := Parse(strings.NewReader("trials: 1\nscenarios: ["+tc.in+"]\n"), "bench.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bench.yaml: ") {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestHiccupSettings(t *testing.T) {
	f, err := Parse(strings.NewReader("trials: 1\nscenarios: [{name: starve, fault: cpu-starve, starve_cpus: 0.1, return_after: 2s}, {name: lossy, fault: packet-loss, loss: 30%, return_after: 2s}]\n"), "bench.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if f.Scenarios[0].StarveCPUs != 0.1 || f.Scenarios[1].Loss != "30%" {
		t.Errorf("scenarios %+v", f.Scenarios)
	}
	for _, tc := range []struct{ in, want string }{
		{"{name: a, fault: pause, starve_cpus: 0.1}", "starve_cpus is fault cpu-starve's, not pause's"},
		{"{name: a, fault: cpu-starve, starve_cpus: 2}", "starve_cpus 2: want 0.01 to 1 of a CPU"},
		{"{name: a, fault: sigkill, loss: 30%}", "loss is fault packet-loss's, not sigkill's"},
		{"{name: a, fault: packet-loss, loss: 0%}", `loss "0%": want a percentage between 0 and 100`},
	} {
		_, err := Parse(strings.NewReader("trials: 1\nscenarios: ["+tc.in+"]\n"), "bench.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "bench.yaml: ") {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
}
