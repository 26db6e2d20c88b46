package watch

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kbf-project/kbf/probe"
)

// RoleProbe is the role label of what kbf's own probe (franz-go)
// measured: the client that acked or read.
const RoleProbe = "franz-go"

// Metrics are what the watch tells Prometheus. Every figure is one the
// probe or the analysis measured: the probe's counters and ages are read
// from its progress when scraped, a stall is observed when the probe
// records its end, and an incident's phases are its report's.
type Metrics struct {
	Registry *prometheus.Registry

	stalls    *prometheus.HistogramVec
	incidents *prometheus.CounterVec
	open      prometheus.Gauge
	phases    *prometheus.GaugeVec
	beyond    *prometheus.GaugeVec

	mu       sync.Mutex
	progress func() []probe.PartitionStats // nil while no probe runs
	stall    time.Duration
	// seen are, per partition and kind, the steady-since the last stall
	// observed ended at.
	seen map[stallKey]time.Time
}

type stallKey struct {
	part int32
	kind string
}

var (
	descAge = prometheus.NewDesc("kbf_partition_last_success_age_seconds",
		"Seconds since the probe's last ack (kind=ack) or read (kind=receive) on the partition.",
		[]string{"partition", "role", "kind"}, nil)
	descUp = prometheus.NewDesc("kbf_partition_available",
		"1 when the partition's last ack (kind=ack) or read (kind=receive) is no older than the stall threshold, else 0.",
		[]string{"partition", "role", "kind"}, nil)
	descSent     = prometheus.NewDesc("kbf_probe_sent_total", "Records the probe sent, since it started.", []string{"partition"}, nil)
	descAcked    = prometheus.NewDesc("kbf_probe_acked_total", "Records acknowledged to the probe, since it started.", []string{"partition"}, nil)
	descReceived = prometheus.NewDesc("kbf_probe_received_total", "Records the probe read back, since it started.", []string{"partition"}, nil)
	descFailed   = prometheus.NewDesc("kbf_probe_failed_total", "Records whose send failed, since the probe started.", []string{"partition"}, nil)
	descMissed   = prometheus.NewDesc("kbf_probe_missed_send_slots_total",
		"Send slots that passed before the probe could send on them (its own stall, not Kafka's).", []string{"partition"}, nil)
)

// NewMetrics makes the watch's metrics in a registry of their own, with
// the Go runtime's and the process's beside them.
func NewMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry(), seen: map[stallKey]time.Time{}}
	m.stalls = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "kbf_stall_seconds",
		Help:    "Gaps between consecutive acks (kind=ack) or reads (kind=receive) of a partition longer than the probe's steady bound.",
		Buckets: []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128},
	}, []string{"partition", "role", "kind"})
	m.incidents = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "kbf_incidents_total",
		Help: "Incidents found and written, by cause: the cluster's first sign, or a stall of the probe's.",
	}, []string{"cause"})
	m.open = prometheus.NewGauge(prometheus.GaugeOpts{Name: "kbf_incident_open", Help: "1 while an incident is open, else 0."})
	m.phases = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kbf_last_incident_phase_seconds",
		Help: "The last analysed incident's phases, as its report states them.",
	}, []string{"phase"})
	m.beyond = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "kbf_last_incident_beyond_bound_seconds",
		Help: "How far the last analysed incident's phases ran past what their settings allow (docs/bounds.md), by phase; 0 within; absent for a phase with no bound stated.",
	}, []string{"phase"})
	for _, c := range Causes {
		m.incidents.WithLabelValues(c)
	}
	m.Registry.MustRegister(m.stalls, m.incidents, m.open, m.phases, m.beyond, m,
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// Describe is prometheus.Collector's: the probe's figures.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descAge, descUp, descSent, descAcked, descReceived, descFailed, descMissed} {
		ch <- d
	}
}

// Collect is prometheus.Collector's: the probe's progress now.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	progress, stall := m.progress, m.stall
	m.mu.Unlock()
	if progress == nil {
		return
	}
	now := time.Now()
	for _, st := range progress() {
		p := strconv.Itoa(int(st.Partition))
		for _, k := range []struct {
			kind string
			last time.Time
		}{{"ack", st.LastAck}, {"receive", st.LastRecv}} {
			if k.last.IsZero() {
				continue
			}
			age := now.Sub(k.last)
			up := 0.0
			if age <= stall {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(descAge, prometheus.GaugeValue, age.Seconds(), p, RoleProbe, k.kind)
			ch <- prometheus.MustNewConstMetric(descUp, prometheus.GaugeValue, up, p, RoleProbe, k.kind)
		}
		ch <- prometheus.MustNewConstMetric(descSent, prometheus.CounterValue, float64(st.Sent), p)
		ch <- prometheus.MustNewConstMetric(descAcked, prometheus.CounterValue, float64(st.Acked), p)
		ch <- prometheus.MustNewConstMetric(descReceived, prometheus.CounterValue, float64(st.Received), p)
		ch <- prometheus.MustNewConstMetric(descFailed, prometheus.CounterValue, float64(st.Failed), p)
		ch <- prometheus.MustNewConstMetric(descMissed, prometheus.CounterValue, float64(st.Missed.Count), p)
	}
}

// probing makes progress the probe the gauges and counters read, with
// stall the threshold of kbf_partition_available; nil: none runs.
func (m *Metrics) probing(progress func() []probe.PartitionStats, stall time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.progress, m.stall = progress, stall
	clear(m.seen)
}

// observe records the stalls that ended since it last looked: a
// partition's ack or read gap past the probe's steady bound, as the
// probe measured it (PartitionStats.LastAckGap, LastRecvGap).
func (m *Metrics) observe(stats []probe.PartitionStats) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, st := range stats {
		for _, k := range []struct {
			kind  string
			since time.Time
			gap   time.Duration
		}{{"ack", st.AckSteadySince, st.LastAckGap}, {"receive", st.RecvSteadySince, st.LastRecvGap}} {
			key := stallKey{st.Partition, k.kind}
			if k.gap <= 0 || k.since.IsZero() || !k.since.After(m.seen[key]) {
				continue
			}
			m.stalls.WithLabelValues(strconv.Itoa(int(st.Partition)), RoleProbe, k.kind).Observe(k.gap.Seconds())
			m.seen[key] = k.since
		}
	}
}

// opened and closed mark an incident open and written, by its cause.
func (m *Metrics) opened() { m.open.Set(1) }

func (m *Metrics) closed(cause string) {
	m.open.Set(0)
	m.incidents.WithLabelValues(cause).Inc()
}

// LastPhases sets the last incident's phases, by name, as its analysis
// found them, and how far those with a bound ran beyond it (beyond, by
// name; 0 within); phases it did not have are dropped.
func (m *Metrics) LastPhases(phases, beyond map[string]time.Duration) {
	m.phases.Reset()
	for name, d := range phases {
		m.phases.WithLabelValues(name).Set(d.Seconds())
	}
	m.beyond.Reset()
	for name, d := range beyond {
		m.beyond.WithLabelValues(name).Set(d.Seconds())
	}
}
