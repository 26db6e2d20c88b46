//go:build unix

package results

import (
	"bytes"
	"errors"
	"io"
	"syscall"
	"testing"
	"time"
)

// benchRows is the size of the probe CSV the decoding benchmarks read: a
// long trial's probe.csv, about 550 MB.
const benchRows = 5_000_000

// probeCSV writes a probe CSV of n rows over 3 partitions, as a probe
// writes it: nearly in sequence order, one row in a thousand failed.
func probeCSV(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	buf.Grow(n * 110)
	enc := NewEncoder(&buf)
	start := time.Date(2026, 11, 30, 3, 26, 9, 80123456, time.UTC)
	for i := range n {
		m := Message{Partition: int32(i % 3), Seq: int64(i / 3), Offset: int64(i/3) + 1042,
			Sent: start.Add(time.Duration(i) * time.Millisecond)}
		if i%1000 == 999 {
			m.Offset, m.Err = -1, "NOT_ENOUGH_REPLICAS: the ISR is smaller than min.insync.replicas"
		} else {
			m.Acked = m.Sent.Add(3*time.Millisecond + time.Duration(i%977)*time.Microsecond)
			m.Received = m.Acked.Add(2 * time.Millisecond)
		}
		enc.Encode(&m)
		if i%4096 == 0 {
			if err := enc.Flush(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := enc.Flush(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkDecodeProbe decodes a 5,000,000-row probe CSV, as kbf report
// reads a long trial's. Beside the wall time it reports the process's CPU
// time (cpu-ns/op), which a machine whose CPU is shared or capped
// stretches less.
func BenchmarkDecodeProbe(b *testing.B) {
	data := probeCSV(b, benchRows)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	cpu0 := cpuTime(b)
	for range b.N {
		d := NewDecoder(bytes.NewReader(data), "probe.csv")
		var m Message
		n := 0
		for {
			err := d.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != benchRows {
			b.Fatalf("decoded %d rows, want %d", n, benchRows)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used, in user and system mode.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
