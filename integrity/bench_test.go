package integrity

import (
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// BenchmarkAudit audits 1,000,000 messages over three partitions and their
// 1,000,000 log records, each made in memory as it is added.
func BenchmarkAudit(b *testing.B) {
	const rows, parts = 1_000_000, 3
	t0 := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		a := New()
		var m results.Message
		for i := 0; i < rows; i++ {
			seq := int64(i / parts)
			m = results.Message{Partition: int32(i % parts), Seq: seq, Offset: 1000 + seq,
				Sent: t0.Add(time.Duration(seq) * 20 * time.Millisecond)}
			m.Acked = m.Sent.Add(5 * time.Millisecond)
			a.AddMessage(&m)
		}
		for i := 0; i < rows; i++ {
			seq := int64(i / parts)
			a.AddLog(results.LogRecord{Partition: int32(i % parts), Offset: 1000 + seq, Seq: seq})
		}
		r := a.Close()
		if r.Acknowledged != rows || !r.OK() || r.OffsetMismatch != 0 {
			b.Fatalf("report %+v", r.Counts)
		}
	}
}
