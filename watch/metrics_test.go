package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

func mkdir(dir string, n int) error {
	return os.Mkdir(filepath.Join(dir, results.IncidentDir(n)), 0o755)
}

// TestMetricsLint holds the metrics, with a probe's progress in them, to
// client_golang's naming conventions.
func TestMetricsLint(t *testing.T) {
	m := NewMetrics()
	now := time.Now()
	st := steadyAt(0, now.Add(-time.Minute), now)
	st.AckSteadySince, st.LastAckGap = now.Add(-30*time.Second), 3*time.Second
	m.probing(func() []probe.PartitionStats { return []probe.PartitionStats{st} }, 2*time.Second)
	m.observe([]probe.PartitionStats{st})
	m.closed(CauseBrokerGone)
	m.LastPhases(map[string]time.Duration{"detect": 6 * time.Second}, map[string]time.Duration{"detect": 1500 * time.Millisecond})
	mfs, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.NewWithMetricFamilies(mfs).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", p.Metric, p.Text)
	}
	names := map[string]bool{}
	for _, mf := range mfs {
		names[mf.GetName()] = true
	}
	for _, want := range []string{"kbf_stall_seconds", "kbf_incidents_total", "kbf_last_incident_phase_seconds", "kbf_last_incident_beyond_bound_seconds", "kbf_partition_available",
		"kbf_partition_last_success_age_seconds", "kbf_probe_sent_total", "kbf_probe_acked_total", "kbf_probe_failed_total", "kbf_probe_missed_send_slots_total"} {
		if !names[want] {
			t.Errorf("no %s among the metrics", want)
		}
	}
}

// TestMetricsCountWhatWasMeasured checks each figure against the
// progress it was read from.
func TestMetricsCountWhatWasMeasured(t *testing.T) {
	m := NewMetrics()
	now := time.Now()
	st := steadyAt(3, now.Add(-time.Minute), now.Add(-5*time.Second))
	st.Sent, st.Acked, st.Failed = 100, 90, 2
	st.AckSteadySince, st.LastAckGap = now.Add(-10*time.Second), 4*time.Second
	m.probing(func() []probe.PartitionStats { return []probe.PartitionStats{st} }, 2*time.Second)
	m.observe([]probe.PartitionStats{st})
	m.observe([]probe.PartitionStats{st}) // the same stall seen twice counts once
	if n := testutil.CollectAndCount(m.stalls); n != 1 {
		t.Errorf("%d stall series, want 1", n)
	}
	want := `
# HELP kbf_probe_sent_total Records the probe sent, since it started.
# TYPE kbf_probe_sent_total counter
kbf_probe_sent_total{partition="3"} 100
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(want), "kbf_probe_sent_total"); err != nil {
		t.Error(err)
	}
	avail := `
# HELP kbf_partition_available 1 when the partition's last ack (kind=ack) or read (kind=receive) is no older than the stall threshold, else 0.
# TYPE kbf_partition_available gauge
kbf_partition_available{kind="ack",partition="3",role="franz-go"} 0
kbf_partition_available{kind="receive",partition="3",role="franz-go"} 0
`
	if err := testutil.CollectAndCompare(m, strings.NewReader(avail), "kbf_partition_available"); err != nil {
		t.Error(err)
	}
	m.closed(CauseStall)
	if v := testutil.ToFloat64(m.incidents.WithLabelValues(CauseStall)); v != 1 {
		t.Errorf("kbf_incidents_total{cause=stall} %v, want 1", v)
	}
}

// TestLastBeyond checks the last incident's excess over its bounds, by
// phase: set as given, and replaced, not kept, by the next incident's.
func TestLastBeyond(t *testing.T) {
	m := NewMetrics()
	m.LastPhases(map[string]time.Duration{"detect": 10 * time.Second, "elect": time.Second},
		map[string]time.Duration{"detect": 1500 * time.Millisecond})
	if got := testutil.ToFloat64(m.beyond.WithLabelValues("detect")); got != 1.5 {
		t.Errorf("detect beyond %v, want 1.5", got)
	}
	m.LastPhases(map[string]time.Duration{"detect": 8 * time.Second}, map[string]time.Duration{"detect": 0})
	if got := testutil.ToFloat64(m.beyond.WithLabelValues("detect")); got != 0 {
		t.Errorf("detect beyond %v after a phase within, want 0", got)
	}
	if n := testutil.CollectAndCount(m.beyond); n != 1 {
		t.Errorf("%d series, want the one phase with a bound", n)
	}
}
