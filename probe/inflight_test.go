package probe

import (
	"runtime"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// TestInflight: records complete out of order; the front is dropped as
// the oldest complete, a failed one is moved aside rather than holding
// the records after it, and what remains is written in sequence order.
func TestInflight(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC)
	var f inflight
	for seq := range int64(6) {
		f.add(seq, t0.Add(time.Duration(seq)*time.Millisecond))
	}
	f.drop(2) // out of order: nothing dropped from the front yet
	if len(f.slots) != 6 || f.held != 5 || f.get(2) != nil {
		t.Fatalf("after dropping 2: %d slots, %d held, get(2) %v", len(f.slots), f.held, f.get(2))
	}
	f.drop(0)
	f.drop(1) // 0, 1 and 2 done: the front goes
	if f.base != 3 || len(f.slots) != 3 {
		t.Fatalf("base %d, %d slots: want 3, 3", f.base, len(f.slots))
	}
	f.fail(f.get(3), "NOT_ENOUGH_REPLICAS") // the oldest fails: aside
	if f.base != 4 || len(f.aside) != 1 || f.get(3) == nil || f.message(f.get(3), 1, 3).Err != "NOT_ENOUGH_REPLICAS" {
		t.Fatalf("base %d, aside %v: want 3 aside and the slots from 4", f.base, f.aside)
	}
	s := f.get(5)
	s.acked, s.offset = t0.Add(time.Second).UnixNano(), 42
	f.add(6, t0.Add(6*time.Millisecond))
	if f.get(6) == nil || f.get(7) != nil || f.get(-1) != nil {
		t.Fatal("get of a record held, one not sent, one never")
	}
	n := 0
	f.each(func(*slot) bool { n++; return true })
	if n != 4 { // 3 (aside), 4, 5, 6
		t.Errorf("each saw %d records, want 4", n)
	}
	rest := f.remaining(1)
	var seqs []int64
	for _, m := range rest {
		seqs = append(seqs, m.Seq)
		if m.Partition != 1 {
			t.Errorf("seq %d of partition %d, want 1", m.Seq, m.Partition)
		}
	}
	if len(seqs) != 4 || seqs[0] != 3 || seqs[1] != 4 || seqs[2] != 5 || seqs[3] != 6 {
		t.Fatalf("remaining %v, want 3 4 5 6", seqs)
	}
	if m := rest[2]; m.Offset != 42 || !m.Acked.Equal(t0.Add(time.Second)) || !m.Received.IsZero() || !m.Sent.Equal(t0.Add(5*time.Millisecond)) {
		t.Errorf("seq 5 written as %+v", m)
	}
	if m := rest[0]; m.Err != "NOT_ENOUGH_REPLICAS" || m.Offset != -1 || !m.Acked.IsZero() {
		t.Errorf("seq 3 written as %+v", m)
	}
	if f.held != 0 || f.get(5) != nil {
		t.Error("records held after remaining")
	}
	f.add(7, t0) // the next keeps its number
	if f.get(7) == nil {
		t.Error("seq 7 not held after the remaining were written")
	}
}

// heapAfterGC is the heap in use once the garbage is collected.
func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkInflightBytes reports the heap a record in flight costs: 4,000
// partitions of 100 records each, in the slots, and in the map of
// *results.Message the probe kept them in before (bytes/record).
func BenchmarkInflightBytes(b *testing.B) {
	const parts, per = 4000, 100
	now := time.Now()
	b.Run("slots", func(b *testing.B) {
		for range b.N {
			h0 := heapAfterGC()
			fs := make([]inflight, parts)
			for p := range fs {
				for s := range int64(per) {
					fs[p].add(s, now)
				}
			}
			b.ReportMetric(float64(heapAfterGC()-h0)/(parts*per), "bytes/record")
			runtime.KeepAlive(fs)
		}
	})
	b.Run("map", func(b *testing.B) {
		for range b.N {
			h0 := heapAfterGC()
			ms := make([]map[int64]*results.Message, parts)
			for p := range ms {
				ms[p] = map[int64]*results.Message{}
				for s := range int64(per) {
					ms[p][s] = &results.Message{Partition: int32(p), Seq: s, Offset: -1, Sent: now}
				}
			}
			b.ReportMetric(float64(heapAfterGC()-h0)/(parts*per), "bytes/record")
			runtime.KeepAlive(ms)
		}
	})
}
