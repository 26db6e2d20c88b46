package integrity

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/golden"

	"github.com/kbf-project/kbf/results"
)

// readFiles decodes testdata/<name>.probe.csv and <name>.log.csv.
func readFiles(t *testing.T, name string) ([]results.Message, []results.LogRecord) {
	t.Helper()
	open := func(suffix string) *os.File {
		f, err := os.Open(filepath.Join("testdata", name+suffix))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	var ms []results.Message
	d := results.NewDecoder(open(".probe.csv"), name+".probe.csv")
	for {
		var m results.Message
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	var rs []results.LogRecord
	ld := results.NewLogDecoder(open(".log.csv"), name+".log.csv")
	for {
		var r results.LogRecord
		err := ld.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return ms, rs
}

func audit(ms []results.Message, rs []results.LogRecord) *Report {
	a := New()
	for i := range ms {
		a.AddMessage(&ms[i])
	}
	for _, r := range rs {
		a.AddLog(r)
	}
	return a.Close()
}

func TestGolden(t *testing.T) {
	ackedAt := func(ms int) time.Time { return time.Date(2026, 11, 30, 3, 26, 9, ms*1e6, time.UTC) }
	for _, tc := range []struct {
		name  string
		want  Counts
		ok    bool
		check func(t *testing.T, r *Report)
	}{
		{name: "clean", ok: true,
			want: Counts{Messages: 20, Acknowledged: 19, Failed: 1, Logged: 19}},
		{name: "lost",
			want: Counts{Messages: 20, Acknowledged: 19, Failed: 1, Logged: 18, Lost: 1},
			check: func(t *testing.T, r *Report) {
				want := []Lost{{Seq: 4, AckedOffset: 104, AckedAt: ackedAt(85)}}
				if got := r.Partitions[0].First.Lost; !reflect.DeepEqual(got, want) {
					t.Errorf("p0 lost %+v, want %+v", got, want)
				}
			}},
		{name: "duplicate",
			want: Counts{Messages: 20, Acknowledged: 20, Logged: 21, Duplicated: 1},
			check: func(t *testing.T, r *Report) {
				want := []Duplicate{{Seq: 6, Offsets: []int64{206, 207}}}
				if got := r.Partitions[1].First.Duplicated; !reflect.DeepEqual(got, want) {
					t.Errorf("p1 duplicated %+v, want %+v", got, want)
				}
			}},
		{name: "reorder",
			want: Counts{Messages: 10, Acknowledged: 10, Logged: 10, Reordered: 3},
			check: func(t *testing.T, r *Report) {
				want := []Reorder{{3, 104, 4, 103}, {7, 108, 9, 107}, {8, 109, 9, 107}}
				if got := r.Partitions[0].First.Reordered; !reflect.DeepEqual(got, want) {
					t.Errorf("p0 reordered %+v, want %+v", got, want)
				}
			}},
		{name: "failed-present", ok: true,
			want: Counts{Messages: 20, Acknowledged: 18, Failed: 2, Logged: 19, FailedPresent: 1},
			check: func(t *testing.T, r *Report) {
				want := []FailedPresent{{Seq: 7, Offset: 207, Err: `NOT_ENOUGH_REPLICAS: "orders-1", 1 in sync`}}
				if got := r.Partitions[1].First.FailedPresent; !reflect.DeepEqual(got, want) {
					t.Errorf("p1 failed but present %+v, want %+v", got, want)
				}
			}},
		{name: "many",
			want: Counts{Messages: 30, Acknowledged: 30, Logged: 25, Lost: 8, Duplicated: 1, OffsetMismatch: 1, Unrecorded: 1},
			check: func(t *testing.T, r *Report) {
				p := r.Partitions
				if len(p) != 3 || len(p[0].First.Lost) != MaxOffenders || p[0].First.Lost[0].Seq != 10 ||
					p[0].First.Lost[4].Seq != 14 {
					t.Errorf("p0 lost %+v", p[0].First.Lost)
				}
				if want := []Mismatch{{Seq: 3, AckedOffset: 203, LogOffset: 205}}; !reflect.DeepEqual(p[1].First.OffsetMismatch, want) {
					t.Errorf("p1 mismatch %+v, want %+v", p[1].First.OffsetMismatch, want)
				}
				if want := []Duplicate{{Seq: 2, Offsets: []int64{302, 305, 306}}}; !reflect.DeepEqual(p[2].First.Duplicated, want) {
					t.Errorf("p2 duplicated %+v, want %+v", p[2].First.Duplicated, want)
				}
				if p[2].Unrecorded != 1 || p[2].Reordered != 0 {
					t.Errorf("p2 counts %+v", p[2].Counts)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, rs := readFiles(t, tc.name)
			r := audit(ms, rs)
			if r.Counts != tc.want {
				t.Errorf("counts\n%+v\nwant\n%+v", r.Counts, tc.want)
			}
			if r.OK() != tc.ok {
				t.Errorf("OK() = %v, want %v", r.OK(), tc.ok)
			}
			if tc.check != nil {
				tc.check(t, r)
			}
			var text, js bytes.Buffer
			if err := WriteText(&text, r); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&js, r); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tc.name+".golden"), text.Bytes())
			golden.Check(t, filepath.Join("testdata", tc.name+".json"), js.Bytes())
		})
	}
}

// TestLogOrder checks the reorder and duplicate rules on one partition's
// sequence numbers, listed in offset order.
func TestLogOrder(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		seqs                  []int64
		reordered, duplicated int
	}{
		{"in order", []int64{0, 1, 2, 3}, 0, 0},
		{"one swap", []int64{0, 1, 3, 2, 4}, 1, 0},
		{"one moved early counts those it passed", []int64{0, 3, 1, 2}, 2, 0},
		{"one moved late counts once", []int64{1, 2, 3, 0}, 1, 0},
		{"reversed", []int64{3, 2, 1, 0}, 3, 0},
		{"adjacent copy", []int64{0, 1, 1, 2}, 0, 1},
		{"late copy is a duplicate, not a reorder", []int64{5, 6, 5, 7}, 0, 1},
		{"a reorder and its copy", []int64{1, 0, 0}, 1, 1},
		{"three copies count once", []int64{0, 0, 0}, 0, 1},
		{"gaps in seqs are not reorders", []int64{0, 5, 9}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := New()
			for i, s := range tc.seqs {
				a.AddMessage(&results.Message{Partition: 0, Seq: s, Offset: int64(i), Sent: time.Unix(1, 0), Acked: time.Unix(2, 0)})
				a.AddLog(results.LogRecord{Partition: 0, Offset: int64(i), Seq: s})
			}
			r := a.Close()
			if r.Reordered != tc.reordered || r.Duplicated != tc.duplicated || r.Lost != 0 {
				t.Errorf("reordered %d, duplicated %d, lost %d; want %d, %d, 0",
					r.Reordered, r.Duplicated, r.Lost, tc.reordered, tc.duplicated)
			}
			if r.OK() != (tc.reordered == 0 && tc.duplicated == 0) {
				t.Errorf("OK() = %v", r.OK())
			}
		})
	}
}

// TestOrderIndependent feeds the same files in other orders: logs first,
// both reversed; the report must not change.
func TestOrderIndependent(t *testing.T) {
	for _, name := range []string{"many", "reorder", "duplicate"} {
		ms, rs := readFiles(t, name)
		want := audit(ms, rs)

		a := New()
		for i := len(rs) - 1; i >= 0; i-- {
			a.AddLog(rs[i])
		}
		for i := len(ms) - 1; i >= 0; i-- {
			a.AddMessage(&ms[i])
		}
		if got := a.Close(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: reversed input gives\n%+v\nwant\n%+v", name, got, want)
		}
	}
}

// TestSparseSeqs checks that sequence numbers far apart, and on both sides
// of a page boundary, are matched and visited in order.
func TestSparseSeqs(t *testing.T) {
	a := New()
	seqs := []int64{0, 1023, 1024, 1 << 40, 1<<62 + 5}
	for i, s := range seqs {
		a.AddMessage(&results.Message{Partition: 7, Seq: s, Offset: int64(i), Sent: time.Unix(1, 0), Acked: time.Unix(2, 0)})
		if i != 2 {
			a.AddLog(results.LogRecord{Partition: 7, Offset: int64(i), Seq: s})
		}
	}
	r := a.Close()
	if r.Acknowledged != 5 || r.Lost != 1 || r.Reordered != 0 || len(r.Partitions) != 1 ||
		r.Partitions[0].First.Lost[0].Seq != 1024 {
		t.Errorf("report %+v", r)
	}
}

// TestSparseMemory: the audit's memory follows the number of records, not
// the span of their sequence numbers (200,000 rows with sparse seqs once
// took 892 MB).
func TestSparseMemory(t *testing.T) {
	const rows = 200_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a := New()
	m := results.Message{Partition: 0, Sent: time.Unix(1, 0), Acked: time.Unix(2, 0)}
	for i := int64(0); i < rows; i++ {
		m.Seq = i * 1_000_003 // a page of its own for each, in a paged table
		m.Offset = i
		a.AddMessage(&m)
		a.AddLog(results.LogRecord{Partition: 0, Offset: i, Seq: m.Seq})
	}
	r := a.Close()
	runtime.ReadMemStats(&after)
	if r.Acknowledged != rows || !r.OK() {
		t.Fatalf("counts %+v", r.Counts)
	}
	// 48 bytes a row kept, twice over for slices that grow by doubling,
	// and ample headroom (the race detector's own allocations): a table
	// indexed by seq needs thousands of bytes a row.
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(rows*512); got > limit {
		t.Errorf("the audit of %d rows allocated %d MB, want under %d MB", rows, got>>20, limit>>20)
	}
}

// A message listed twice counts once, with its last row.
func TestRepeatedMessage(t *testing.T) {
	a := New()
	a.AddMessage(&results.Message{Partition: 0, Seq: 3, Offset: -1, Sent: time.Unix(1, 0)})
	a.AddMessage(&results.Message{Partition: 0, Seq: 3, Offset: 9, Sent: time.Unix(1, 0), Acked: time.Unix(2, 0)})
	r := a.Close()
	if want := (Counts{Messages: 1, Acknowledged: 1, Lost: 1}); r.Counts != want {
		t.Errorf("counts %+v, want %+v", r.Counts, want)
	}
}

func TestEmpty(t *testing.T) {
	r := New().Close()
	if !r.OK() || r.Partitions == nil {
		t.Errorf("empty report %+v", r)
	}
	var b bytes.Buffer
	if err := WriteText(&b, r); err != nil {
		t.Fatal(err)
	}
	if want := "integrity: 0 acknowledged, 0 lost, 0 duplicated, 0 reordered, 0 failed but present\n"; b.String() != want {
		t.Errorf("text %q, want %q", b.String(), want)
	}
}

// TestManyRecords adds thousands of log records in reverse offset order,
// with one pair swapped.
func TestManyRecords(t *testing.T) {
	const chunkSize = 4096
	const n = 3*chunkSize + 17
	a := New()
	for seq := int64(0); seq < n; seq++ {
		a.AddMessage(&results.Message{Partition: 1, Seq: seq, Offset: seq, Sent: time.Unix(1, 0), Acked: time.Unix(2, 0)})
	}
	for off := int64(n - 1); off >= 0; off-- {
		seq := off
		switch off {
		case chunkSize + 5:
			seq = chunkSize + 6
		case chunkSize + 6:
			seq = chunkSize + 5
		}
		a.AddLog(results.LogRecord{Partition: 1, Offset: off, Seq: seq})
	}
	r := a.Close()
	want := Counts{Messages: n, Acknowledged: n, Logged: n, Reordered: 1, OffsetMismatch: 2}
	if r.Counts != want {
		t.Errorf("counts\n%+v\nwant\n%+v", r.Counts, want)
	}
	if got := r.Partitions[0].First.Reordered; len(got) != 1 || got[0] != (Reorder{chunkSize + 5, chunkSize + 6, chunkSize + 6, chunkSize + 5}) {
		t.Errorf("reordered %+v", got)
	}
}
