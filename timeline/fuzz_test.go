package timeline

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// seeds adds every log file of the test trials to the fuzz corpus.
func seeds(f *testing.F, pattern string) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkEvent holds for every event a parser emits, whatever its input.
func checkEvent(t *testing.T, e Event) {
	t.Helper()
	if !e.Kind.Valid() || e.Time.IsZero() || e.Source == "" || e.Node == "" {
		t.Fatalf("malformed event %+v", e)
	}
	if e.Topic != "" && e.Partition < 0 {
		t.Fatalf("event names topic %q without a partition: %+v", e.Topic, e)
	}
}

func FuzzParseKafkaLog(f *testing.F) {
	seeds(f, filepath.Join("testdata", "*", "logs", "*", "*"))
	f.Add([]byte("[2026-11-30 03:26:17,385] INFO x\n\tat y\n[2026-13-30 00:00:00,000] INFO\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		unparsed, err := parseKafkaLog(bytes.NewReader(data), "k1", "k1/server.log", 1, func(e Event) {
			checkEvent(t, e)
			n++
		})
		if err != nil {
			t.Fatalf("reading from memory failed: %v", err)
		}
		if unparsed < 0 || unparsed+n > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d unparsed and %d events from %d lines", unparsed, n, bytes.Count(data, []byte("\n"))+1)
		}
	})
}

func FuzzParseClientLog(f *testing.F) {
	seeds(f, filepath.Join("testdata", "*", "client.log"))
	f.Add([]byte("2026-11-30T03:26:17.460123456Z DEBUG producer metadata refresh topic partition data changed topic=\"a\\\" b\" partition=0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		unparsed, err := parseClientLog(bytes.NewReader(data), "client.log", func(e Event) {
			checkEvent(t, e)
			n++
		})
		if err != nil {
			t.Fatalf("reading from memory failed: %v", err)
		}
		if unparsed < 0 || unparsed+n > bytes.Count(data, []byte("\n"))+1 {
			t.Fatalf("%d unparsed and %d events from %d lines", unparsed, n, bytes.Count(data, []byte("\n"))+1)
		}
	})
}
