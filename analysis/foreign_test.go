package analysis

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestForeignProbeGaps rewrites the recorded SIGKILL trial's probe.csv as
// other programs write theirs and checks that `kbf report FILE.csv
// --fault-at T` finds the same per-partition gaps in each as in kbf's own.
func TestForeignProbeGaps(t *testing.T) {
	dir := unpack(t, "sigkill.tar.gz")
	own := analyze(t, dir)
	probe := filepath.Join(dir, results.ProbeFile)
	var msgs []results.Message
	f, err := results.Find(probe)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := f[0].OpenProbe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for {
		var m results.Message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	}
	dec.Close()

	secs := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond())
	}
	millis := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return fmt.Sprint(t.UnixMilli())
	}
	rfc := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.In(time.FixedZone("", 3600)).Format(time.RFC3339Nano)
	}
	tests := []struct {
		name   string
		header []string
		row    func(m *results.Message) []string
		unit   results.TimeUnit
		// within is how far the gaps may differ: the unit's precision.
		within time.Duration
	}{
		{"confluent-kafka, epoch seconds", []string{"partition", "seq", "sent_at", "acked_at", "received_at"},
			func(m *results.Message) []string {
				return []string{fmt.Sprint(m.Partition), fmt.Sprint(m.Seq), secs(m.Sent), secs(m.Acked), secs(m.Received)}
			}, results.UnitSeconds, 0},
		{"milliseconds", []string{"partition", "sequence", "offset", "send_time", "ack_time", "recv_time", "error"},
			func(m *results.Message) []string {
				return []string{fmt.Sprint(m.Partition), fmt.Sprint(m.Seq), fmt.Sprint(m.Offset), millis(m.Sent), millis(m.Acked), millis(m.Received), m.Err}
			}, results.UnitMillis, time.Millisecond},
		{"RFC 3339 with an offset", []string{"partition", "seq", "sent", "acked_at", "received_at"},
			func(m *results.Message) []string {
				return []string{fmt.Sprint(m.Partition), fmt.Sprint(m.Seq), rfc(m.Sent), rfc(m.Acked), rfc(m.Received)}
			}, results.UnitRFC3339, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			w := csv.NewWriter(&b)
			w.Write(tt.header)
			for i := range msgs {
				w.Write(tt.row(&msgs[i]))
			}
			w.Flush()
			path := filepath.Join(t.TempDir(), "probe-kill-1.csv")
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			found, err := results.Find(path)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := Analyze(found[0], Options{FaultAt: own.FaultAt})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Gaps.Partitions) != len(own.Gaps.Partitions) {
				t.Fatalf("%d partitions, want %d", len(tr.Gaps.Partitions), len(own.Gaps.Partitions))
			}
			for i, p := range tr.Gaps.Partitions {
				o := own.Gaps.Partitions[i]
				for _, g := range []struct {
					what      string
					got, want time.Duration
				}{
					{"ack", p.Ack.Fault.Duration(), o.Ack.Fault.Duration()},
					{"receive", p.Receive.Fault.Duration(), o.Receive.Fault.Duration()},
				} {
					if d := (g.got - g.want).Abs(); d > tt.within {
						t.Errorf("p%d %s gap at the fault %v, want %v as in kbf's own probe.csv", p.Partition, g.what, g.got, g.want)
					}
				}
				if p.Sent != o.Sent || p.Acked != o.Acked {
					t.Errorf("p%d sent %d acked %d, want %d and %d", p.Partition, p.Sent, p.Acked, o.Sent, o.Acked)
				}
			}
			notes := strings.Join(tr.Notes, "\n")
			if !strings.Contains(notes, string(tt.unit)) || !strings.Contains(notes, "probe-kill-1.csv is not kbf's probe format") {
				t.Errorf("notes do not say how the file was read (%s):\n%s", tt.unit, notes)
			}
		})
	}
}
