package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// manyTrial is a SIGKILL of k1 probed on n partitions at 100 ms: a third
// led by k1, stalled 8 s plus p ms; a third followed, 0.1 s plus p µs; the
// rest untouched. Every partition missed the same send slots.
func manyTrial(n int) *analysis.Trial {
	roles := []results.Role{results.RoleLed, results.RoleFollowed, results.RoleNone}
	stall := func(p int32) time.Duration {
		switch roles[p%3] {
		case results.RoleLed:
			return 8*time.Second + time.Duration(p)*time.Millisecond
		case results.RoleFollowed:
			return 100*time.Millisecond + time.Duration(p)*time.Microsecond
		}
		return 0
	}
	g := gaps.NewReport(gaps.Options{FaultAt: fault})
	var parts []int32
	missed := map[int32]*results.MissedSends{}
	for p := range int32(n) {
		parts = append(parts, p)
		missed[p] = &results.MissedSends{Count: 7, First: at(-3000), Last: at(-2400)}
		for k := -50; k < 150; k++ {
			sent := at(k * 100)
			acked := sent.Add(5 * time.Millisecond)
			if s := stall(p); sent.After(fault.Add(-time.Millisecond)) && sent.Before(fault.Add(s)) {
				acked = fault.Add(s).Add(5 * time.Millisecond)
			}
			g.Add(&results.Message{Partition: p, Seq: int64(k + 50), Offset: int64(k + 50), Sent: sent, Acked: acked, Received: acked})
		}
	}
	g.Close()
	var stalls []analysis.Stall
	for p := range int32(n) {
		if roles[p%3] == results.RoleNone {
			continue
		}
		d := stall(p)
		stalls = append(stalls, analysis.Stall{Partition: p, Role: roles[p%3], Leader: 1, NewLeader: 2, FirstAck: fault.Add(d), Total: d,
			Phases: []analysis.Phase{{Name: analysis.PhaseDetect, Start: fault, End: fault.Add(d), Duration: d,
				Explanation: analysis.Explanation{Why: fmt.Sprintf("the controller fenced broker 1 after %.2f s", d.Seconds()), Setting: "broker.session.timeout.ms"}}}})
	}
	return &analysis.Trial{
		Meta: &results.Meta{Kind: "trial", Fault: &results.Fault{Kind: results.FaultSIGKILL, Broker: "k1", NodeID: 1},
			Probe: results.Probe{Topic: "wide", Partitions: parts, Interval: 100 * time.Millisecond, Acks: "all", Missed: missed},
			Host:  &results.Host{CPUs: 2, Wall: 20 * time.Second, Self: 4 * time.Second, Cluster: 20 * time.Second}},
		FaultAt: fault, Gaps: g, Stalls: stalls,
	}
}

func lines(s string) int { return strings.Count(s, "\n") }

func TestCondensed(t *testing.T) {
	tr := manyTrial(1000)
	var digest, text, doc bytes.Buffer
	if err := (TextOptions{}).WriteDigest(&digest, tr); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&text, tr); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&doc, tr); err != nil {
		t.Fatal(err)
	}
	if n := lines(digest.String()); n > 30 {
		t.Errorf("the digest at 1,000 partitions is %d lines, want ≤ 30:\n%s", n, digest.String())
	}
	if n := lines(text.String()); n > 80 {
		t.Errorf("the text report at 1,000 partitions is %d lines, want ≤ 80:\n%s", n, text.String())
	}
	// The led third: p0, p3, … p999, stalled 8 s + p ms; 334 of them.
	for _, w := range []string{
		"led       ack      334",
		"8.10 s  8.60 s  9.00 s  9.09 s  9.10 s  p999 9.10 s, p996 9.10 s, p993 9.09 s",
		"followed  ack      333",
		"1000 partitions: acked 200000/200000, failed 0",
		"detect 0.10–9.00 s (667 partitions: p0 p1 p3 …)",
		"-         ack      333",
		"partitions 1000: 0–999",
		"probe self-check: 1000 of 1000 partitions missed send slots, up to 7",
	} {
		if !strings.Contains(digest.String()+text.String(), w) {
			t.Errorf("the reports do not say %q:\n%s\n%s", w, digest.String(), text.String())
		}
	}
	if strings.Contains(text.String(), "p500 ") {
		t.Errorf("the text report has a line for p500, which is not among the worst:\n%s", text.String())
	}
	var got struct {
		Digest struct {
			Rows    []json.RawMessage `json:"rows"`
			Spreads []struct {
				Role       string `json:"role"`
				Partitions int    `json:"partitions"`
				Ack        struct {
					P50, Max float64
				} `json:"ack_seconds"`
				Worst []int32 `json:"worst_partitions"`
			} `json:"spreads"`
		} `json:"digest"`
	}
	if err := json.Unmarshal(doc.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Digest.Rows) != 1000 {
		t.Errorf("report.json has %d rows, want every partition's", len(got.Digest.Rows))
	}
	if len(got.Digest.Spreads) != 3 || got.Digest.Spreads[0].Role != string(results.RoleLed) || got.Digest.Spreads[0].Partitions != 334 ||
		got.Digest.Spreads[0].Ack.Max != 9.099 || got.Digest.Spreads[0].Worst[0] != 999 {
		t.Errorf("report.json's spreads %+v", got.Digest.Spreads)
	}
}

// TestNotCondensed: up to analysis.Condense partitions, a row each and no
// spreads, as the goldens have it.
func TestNotCondensed(t *testing.T) {
	tr := manyTrial(analysis.Condense)
	var digest bytes.Buffer
	if err := (TextOptions{}).WriteDigest(&digest, tr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(digest.String(), "p11  -") || strings.Contains(digest.String(), "p50") {
		t.Errorf("the digest at %d partitions:\n%s", analysis.Condense, digest.String())
	}
	if tr.Digest().Spreads != nil {
		t.Errorf("spreads at %d partitions", analysis.Condense)
	}
}

// TestProbeDigestHost: a probe run's digest says the host's load beside
// its verdict, which is judged on it.
func TestProbeDigestHost(t *testing.T) {
	tr := manyTrial(3)
	tr.Meta.Kind, tr.Meta.Fault, tr.FaultAt = "probe", nil, time.Time{}
	var b bytes.Buffer
	if err := (TextOptions{}).WriteDigest(&b, tr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "host: 2 CPUs") {
		t.Errorf("the probe run's digest has no host line:\n%s", b.String())
	}
	tr = manyTrial(3)
	b.Reset()
	if err := (TextOptions{}).WriteDigest(&b, tr); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "host:") {
		t.Errorf("a trial's digest has a host line, which its goldens do not:\n%s", b.String())
	}
}
