package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/kbf-project/kbf/compare"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/benchfile"
	"github.com/kbf-project/kbf/results"
)

// The files a benchmark directory holds beside its trials.
const (
	TextFile     = benchfile.TextFile // Go benchmark format: benchstat old.txt new.txt
	JSONFile     = "bench.json"       // github-action-benchmark's customSmallerIsBetter
	MarkdownFile = "summary.md"       // for a CI job's summary page
)

// The format's names, which package benchfile owns; bench's for the
// runner's callers.
const (
	BenchName    = benchfile.BenchName
	RoleLeader   = benchfile.RoleLeader
	RoleFollower = benchfile.RoleFollower
	Confidence   = benchfile.Confidence
)

// Metric is one measure of a trial, per partition role (benchfile.Metric).
type Metric = benchfile.Metric

// Metrics and their look-up, as benchfile has them.
var (
	Metrics      = benchfile.Metrics
	MetricByName = benchfile.MetricByName
	NeedSamples  = benchfile.NeedSamples
)

// WriteAll rewrites the benchmark's outputs in dir, each atomically.
func (s *Set) WriteAll(dir string) error {
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{TextFile, s.WriteText},
		{JSONFile, s.WriteJSON},
		{MarkdownFile, s.WriteMarkdown},
	}
	for _, f := range files {
		if err := results.WriteFileAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return fmt.Errorf("write %s: %w", f.name, err)
		}
	}
	return s.writeSweeps(dir)
}

// config returns the configuration lines every variant shares: the Env's,
// then kbf's version from the first valid trial's metadata, then the
// cores. The cluster's Kafka version and image are each variant's own
// (group.cluster): a scenario may run another.
func (s *Set) config() Env {
	env := append(Env(nil), s.Env...)
	for _, r := range s.Records {
		if r.Valid() && r.M.Meta != nil {
			env = append(env, [2]string{"kbf-version", r.M.Meta.KBFVersion})
			break
		}
	}
	if s.Cores > 0 {
		env = append(env, [2]string{"cores", strconv.Itoa(s.Cores)})
	}
	return env
}

// cluster is the configuration lines of g's cluster, from its first valid
// trial's metadata: the Kafka version and the image.
func (g group) cluster() Env {
	for _, r := range g.Records {
		if r.Valid() && r.M.Meta != nil {
			c := r.M.Meta.Cluster
			return Env{{"kafka-version", c.KafkaVersion}, {"image", c.Image}}
		}
	}
	return nil
}

// WriteText writes bench.txt with benchfile's Writer: a shard's shard and
// plan lines (benchfile.WriteOrigin), the units, the
// configuration lines, one line per valid trial, variant and role,
//
//	BenchmarkFailover/scenario=sigkill/role=leader 1 8.66 ack-stall-sec 8.70 receive-stall-sec ...
//
// every unit declared better=lower (a fault of several steps' own units
// only where a trial has them). The probe's acks and interval are lines of
// their own per variant: acks changes what a lost record means, and the
// interval is the resolution of every stall measured.
func (s *Set) WriteText(w io.Writer) error {
	if err := benchfile.WriteOrigin(w, s.Shard.I, s.Shard.N, s.Plan); err != nil {
		return err
	}
	bw := benchfile.NewWriter(w)
	var units []Metric
	for _, m := range Metrics {
		if !m.Optional() || s.measured(m) {
			units = append(units, m)
		}
	}
	if err := bw.Units(units); err != nil {
		return err
	}
	base := s.config()
	for _, g := range s.groups(s.variants()) {
		cfg := append(append(append(Env(nil), base...), g.cluster()...), [2]string{benchfile.ConfigAcks, g.V.Scenario.AcksOrDefault()})
		if iv := g.interval(); iv > 0 {
			cfg = append(cfg, [2]string{benchfile.ConfigProbeInterval, iv.String()})
		}
		for _, r := range g.Records {
			if !r.Valid() {
				continue
			}
			for _, role := range []string{RoleLeader, RoleFollower} {
				vals := r.M.Roles[role]
				if vals == nil {
					continue
				}
				if err := bw.Write(benchfile.Line{Config: cfg, Variant: g.V.Name(), Role: role, Values: vals}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// interval is the probe interval of g's first valid trial that recorded
// one, or zero.
func (g group) interval() time.Duration {
	for _, r := range g.Records {
		if r.Valid() && r.M.Meta != nil && r.M.Meta.Probe.Interval > 0 {
			return r.M.Meta.Probe.Interval
		}
	}
	return 0
}

// measured reports whether a valid trial of s has a value of m.
func (s *Set) measured(m Metric) bool {
	for _, r := range s.Records {
		if !r.Valid() {
			continue
		}
		for _, vals := range r.M.Roles {
			if _, ok := vals[m.Unit]; ok {
				return true
			}
		}
	}
	return false
}

// round keeps a millisecond, as bench.txt does.
func round(v float64) float64 { return benchfile.Round(v) }

// jsonEntry is one entry of github-action-benchmark's custom format.
type jsonEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	Range string  `json:"range,omitempty"`
	Extra string  `json:"extra,omitempty"`
}

// WriteJSON writes github-action-benchmark's customSmallerIsBetter format:
// per variant, role and metric, the median of the valid trials, its 95 %
// interval as the range, and the trials' extremes and count as extra.
func (s *Set) WriteJSON(w io.Writer) error {
	entries := []jsonEntry{}
	for _, g := range s.groups(s.variants()) {
		for _, role := range g.roles() {
			for _, st := range g.stats(role) {
				unit := "s"
				if !st.Metric.Seconds {
					unit = "records"
				}
				e := jsonEntry{
					Name:  strings.TrimPrefix(g.V.Name(), "scenario=") + " " + role + " " + st.Metric.Name,
					Unit:  unit,
					Value: round(st.Summary.Center),
					Extra: fmt.Sprintf("min %s, max %s, n=%d of %d trials", num(st.Values[0]), num(st.Values[len(st.Values)-1]), len(st.Values), len(g.Records)),
				}
				if interval(st.Summary.Lo, st.Summary.Hi) {
					e.Range = num(st.Summary.Lo) + "–" + num(st.Summary.Hi)
				} else {
					e.Range = fmt.Sprintf("no 95%% interval: need %d valid trials", NeedSamples())
				}
				entries = append(entries, e)
			}
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}

func interval(lo, hi float64) bool { return !math.IsInf(lo, 0) && !math.IsInf(hi, 0) }

func num(v float64) string { return strconv.FormatFloat(round(v), 'f', -1, 64) }

// WriteMarkdown writes the summary for a CI job's page: per variant the
// trials valid of total, why the others did not count, and a table of each
// metric's median, 95 % interval and range, per role.
func (s *Set) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kbf bench\n\n")
	for _, kv := range s.config() {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s: `%s`  \n", kv[0], kv[1])
		}
	}
	for _, g := range s.groups(s.variants()) {
		fmt.Fprintf(&b, "\n## %s\n\n", strings.TrimPrefix(g.V.Name(), "scenario="))
		valid := g.valid()
		verdict := "enough for a 95 % interval"
		if need := NeedSamples(); valid < need {
			verdict = fmt.Sprintf("too few for a 95 %% interval: need %d valid", need)
		}
		kafka := ""
		if c := g.cluster(); c != nil && c[0][1] != "" {
			kafka = fmt.Sprintf(", Kafka %s (`%s`)", c[0][1], c[1][1])
		}
		fmt.Fprintf(&b, "%s of %s%s, acks=%s. Trials valid: %d of %d (%s).\n", g.V.Scenario.Fault, brokerOr(g.V.Scenario.Broker), kafka, g.V.Scenario.AcksOrDefault(), valid, len(g.Records), verdict)
		for _, r := range g.Records {
			if !r.Valid() {
				fmt.Fprintf(&b, "- %s did not count: %s\n", r.Trial.ID(), r.Reason)
			}
		}
		roles := g.roles()
		if len(roles) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n| role | metric | median | 95 %% interval | min–max | n |\n|---|---|---:|---:|---:|---:|\n")
		for _, role := range roles {
			for _, st := range g.stats(role) {
				unit := " s"
				if !st.Metric.Seconds {
					unit = ""
				}
				ci := "–"
				if interval(st.Summary.Lo, st.Summary.Hi) {
					ci = num(st.Summary.Lo) + "–" + num(st.Summary.Hi) + unit
				}
				fmt.Fprintf(&b, "| %s | %s | %s%s | %s | %s–%s%s | %d |\n", role, st.Metric.Name, num(st.Summary.Center), unit, ci,
					num(st.Values[0]), num(st.Values[len(st.Values)-1]), unit, len(st.Values))
			}
		}
	}
	s.sweepMarkdown(&b)
	if err := s.gateMarkdown(&b); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func brokerOr(b string) string {
	if b == "" {
		return "the default broker"
	}
	return b
}

// gateMarkdown writes --until-decided's answer and the comparison that
// gave it.
func (s *Set) gateMarkdown(b *bytes.Buffer) error {
	g := s.Gate
	if g == nil {
		return nil
	}
	a, bb := strings.TrimPrefix(s.GateNames[0], "scenario="), strings.TrimPrefix(s.GateNames[1], "scenario=")
	fmt.Fprintf(b, "\n## Gate: %s (A) against %s (B)\n\n", a, bb)
	fmt.Fprintf(b, "Answer: **%s** (%s). Valid trials: %d of %d attempts (A), %d of %d (B).\n", g.Answer(), g.Verdict, g.Valid[0], g.Attempts[0], g.Valid[1], g.Attempts[1])
	fmt.Fprintf(b, "\n%s\n", g.Why)
	if g.Decision != nil {
		b.WriteString("\n")
		return compare.WriteMarkdown(b, g.Decision.Result)
	}
	return nil
}
