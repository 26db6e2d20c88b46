package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

func TestDigestGolden(t *testing.T) {
	for _, name := range []string{"sigkill", "sigterm"} {
		t.Run(name, func(t *testing.T) {
			tr := analyze(t, unpack(t, name+".tar.gz"))
			var b bytes.Buffer
			if err := (TextOptions{}).WriteDigest(&b, tr); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, name+".digest.golden", b.Bytes())
			full := new(bytes.Buffer)
			if err := WriteText(full, tr); err != nil {
				t.Fatal(err)
			}
			// The digest exists to be shorter than the full report.
			if d, f := strings.Count(b.String(), "\n"), strings.Count(full.String(), "\n"); d*2 > f {
				t.Errorf("digest %d lines, full report %d: want at most half", d, f)
			}
		})
	}
}

// TestDigestCauses checks that a cause the partitions share is one line
// listing them, and that causes which differ stay apart.
func TestDigestCauses(t *testing.T) {
	tests := []struct {
		name  string
		trial string
		kind  string
		want  [][]int32 // the partitions of each cause of this kind, in order
	}{
		{"sigkill detection is one fence for all", "sigkill", PhaseDetect, [][]int32{{0, 1, 2}}},
		{"sigkill election: leader and followers differ", "sigkill", PhaseElect, [][]int32{{0}, {1, 2}}},
		{"sigkill client phase only where the broker led", "sigkill", PhaseClient, [][]int32{{0}}},
		// p2's 0.27 s gap is within its own noise: it has no phases.
		{"sigterm fetch backoff shared across roles", "sigterm", PhaseFirstAck, [][]int32{{0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := analyze(t, unpack(t, tt.trial+".tar.gz")).Digest()
			var got [][]int32
			for _, c := range d.Causes {
				if c.Kind == tt.kind {
					got = append(got, c.Partitions)
				}
			}
			if !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("%s causes by partitions = %v, want %v", tt.kind, got, tt.want)
			}
		})
	}
}

// TestDigestRows checks the table's data against the analysis it is taken
// from, partition by partition.
func TestDigestRows(t *testing.T) {
	tr := analyze(t, unpack(t, "sigkill.tar.gz"))
	d := tr.Digest()
	if len(d.Rows) != len(tr.Gaps.Partitions) {
		t.Fatalf("%d rows, want one per partition (%d)", len(d.Rows), len(tr.Gaps.Partitions))
	}
	for _, st := range tr.Stalls {
		i := slices.IndexFunc(d.Rows, func(r DigestRow) bool { return r.Partition == st.Partition })
		if i < 0 {
			t.Fatalf("no row for p%d", st.Partition)
		}
		r := d.Rows[i]
		if r.Role != st.Role {
			t.Errorf("p%d role %s, want %s", st.Partition, r.Role, st.Role)
		}
		for _, ph := range st.Phases {
			if got := r.Phases[slices.Index(d.Phases, ph.Name)]; got != ph.Duration {
				t.Errorf("p%d %s = %v, want %v", st.Partition, ph.Name, got, ph.Duration)
			}
		}
		if want := tr.Gaps.Partitions[i].Ack.Fault.Duration(); r.Ack != want {
			t.Errorf("p%d ack stall %v, want %v", st.Partition, r.Ack, want)
		}
	}
	if !d.Audited {
		t.Error("the recorded trial was read back, but the digest says no audit")
	}
}

func TestFigureless(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"durations differ", "answered 0.00 s later", "answered 0.27 s later", true},
		{"broker numbers differ", "chose broker 2", "chose broker 3", true},
		{"words differ", "answered 0.01 s later", "learnt 0.01 s later", false},
		{"a full stop after a figure stays", "after 9 s.", "after 9 s", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := figureless(tt.a) == figureless(tt.b); got != tt.same {
				t.Errorf("figureless(%q) == figureless(%q): %v, want %v", tt.a, tt.b, got, tt.same)
			}
		})
	}
}

// TestDigestNoFault checks a bare CSV with no fault: the longest gap
// stands in the table, and the digest says there was no audit.
func TestDigestNoFault(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	var csv bytes.Buffer
	enc := results.NewEncoder(&csv)
	for i := range 10 {
		at := t0.Add(time.Duration(i) * 20 * time.Millisecond)
		if i >= 5 {
			at = at.Add(time.Second)
		}
		enc.Encode(&results.Message{Partition: 0, Seq: int64(i), Offset: int64(i), Sent: at, Acked: at.Add(time.Millisecond), Received: at.Add(2 * time.Millisecond)})
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "probe.csv")
	if err := os.WriteFile(path, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := Analyze(results.Trial{Probe: path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := tr.Digest()
	if len(d.Rows) != 1 || d.Rows[0].Ack != 1020*time.Millisecond {
		t.Fatalf("rows %+v, want p0 with its longest ack gap, 1.02 s", d.Rows)
	}
	if d.Audited || len(d.Phases) != 0 || len(d.Causes) != 0 {
		t.Errorf("digest %+v: want no audit, no phases, no causes", d)
	}
	var b bytes.Buffer
	if err := (TextOptions{}).WriteDigest(&b, tr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no fault: the longest gaps", "1.02 s", "no audit"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("digest does not say %q:\n%s", want, b.String())
		}
	}
}
