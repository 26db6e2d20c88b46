package gaps

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// benchRows is the size of the benchmark's probe file: three partitions
// probed every 20 ms for about 1 h 51 min.
const benchRows = 1_000_000

var benchFault = time.Date(2026, 11, 30, 4, 0, 0, 0, time.UTC)

// benchMessage fills m with row i of a probe run: sends every 20 ms per
// partition, acks 3–8 ms later and reads 1–3 ms after that, a 9 s stall of
// every partition from benchFault, and a failed send now and then.
func benchMessage(i int, m *results.Message) {
	const parts = 3
	p, seq := int32(i%parts), int64(i/parts)
	start := benchFault.Add(-time.Hour)
	sent := start.Add(time.Duration(seq)*20*time.Millisecond + time.Duration(p)*137*time.Microsecond)
	jitter := time.Duration((seq*7919+int64(p)*104729)%5000) * time.Microsecond
	*m = results.Message{Partition: p, Seq: seq, Offset: 1000 + seq, Sent: sent,
		Acked: sent.Add(3*time.Millisecond + jitter)}
	if d := m.Acked.Sub(benchFault); d > 0 && d < 9*time.Second {
		m.Acked = benchFault.Add(9*time.Second + time.Duration(seq%50)*time.Microsecond)
	}
	m.Received = m.Acked.Add(time.Millisecond + jitter/2)
	if seq%100_000 == 99_999 {
		m.Offset, m.Acked, m.Received, m.Err = -1, time.Time{}, time.Time{}, "REQUEST_TIMED_OUT"
	}
}

// writeBenchFile writes the benchmark's probe file, flushing as it goes so
// the writer holds little.
func writeBenchFile(b *testing.B) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), results.ProbeFile)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	e := results.NewEncoder(w)
	var m results.Message
	for i := 0; i < benchRows; i++ {
		benchMessage(i, &m)
		e.Encode(&m)
		if i%4096 == 4095 {
			if err := e.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := e.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkDecodeReport reads a 1,000,000-row probe.csv from disk through
// results.Decoder into a Report, as kbf report does.
func BenchmarkDecodeReport(b *testing.B) {
	path := writeBenchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r := NewReport(Options{FaultAt: benchFault})
		d := results.NewDecoder(f, results.ProbeFile)
		var m results.Message
		n := 0
		for {
			err := d.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			r.Add(&m)
			n++
		}
		r.Close()
		f.Close()
		if n != benchRows || len(r.Partitions) != 3 || r.Partitions[0].Ack.Fault.Duration() < 9*time.Second {
			b.Fatalf("read %d rows, partitions %+v", n, r.Partitions)
		}
	}
}

// BenchmarkDecode is BenchmarkDecodeReport without the Report: the cost of
// reading the file alone.
func BenchmarkDecode(b *testing.B) {
	path := writeBenchFile(b)
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		d := results.NewDecoder(f, results.ProbeFile)
		var m results.Message
		for {
			err := d.Decode(&m)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
	}
}

// BenchmarkReport is the Report alone, fed 1,000,000 messages made in
// memory one at a time.
func BenchmarkReport(b *testing.B) {
	b.ReportAllocs()
	var m results.Message
	for b.Loop() {
		r := NewReport(Options{FaultAt: benchFault})
		for i := 0; i < benchRows; i++ {
			benchMessage(i, &m)
			r.Add(&m)
		}
		r.Close()
	}
}
