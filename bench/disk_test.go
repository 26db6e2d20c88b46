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
