package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/results"
)

// scaledTrial writes s into a temporary directory and returns it as Find
// finds it.
func scaledTrial(tb testing.TB, s testtrial.Scale) results.Trial {
	tb.Helper()
	dir, err := s.Write(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	found, err := results.Find(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return found[0]
}

// TestScaledTrial holds the report of a small scaled trial — its stalls,
// failed sends, lost and duplicated records — to its golden files, so that
// a faster reading of a large trial cannot change what a report says.
func TestScaledTrial(t *testing.T) {
	tr := scaledTrial(t, testtrial.Scale{Partitions: 60, Rows: 12_000, Duration: time.Minute})
	got, err := Trial(context.Background(), tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(); err != nil {
		t.Fatal(err)
	}
	// Every finding the generator makes is found: 2 failed sends (p0,
	// p33), one of them present (p0); 1 duplicated (p7); 1 lost (p5).
	c := got.Integrity.Counts
	if c.Messages != 12_000 || c.Failed != 2 || c.FailedPresent != 1 || c.Duplicated != 1 || c.Lost != 1 || c.Reordered != 0 {
		t.Errorf("integrity counts %+v", c)
	}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"scaled.digest.golden", func(b *bytes.Buffer) error { return render.TextOptions{}.WriteDigest(b, got) }},
		{"scaled.txt.golden", func(b *bytes.Buffer) error { return render.WriteText(b, got) }},
		{"scaled.json.golden", func(b *bytes.Buffer) error { return render.WriteJSON(b, got) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			out := bytes.ReplaceAll(b.Bytes(), []byte(tr.Dir), []byte("TRIAL"))
			golden.Check(t, filepath.Join("testdata", tc.name), out)
		})
	}
}

// BenchmarkTrialLarge analyses a scaled trial of KBF_LARGE_ROWS rows over
// KBF_LARGE_PARTITIONS partitions (200,000 over 100 by default, so the
// unit run stays fast; kbf report's own measurement in docs/measurements.md
// is of 5,000,000 over 1,000), as kbf report does: every row of probe.csv
// and log.csv read, the gaps and the audit made, nothing written.
func BenchmarkTrialLarge(b *testing.B) {
	s := testtrial.Scale{Partitions: envInt(b, "KBF_LARGE_PARTITIONS", 100), Rows: envInt(b, "KBF_LARGE_ROWS", 200_000), Duration: 10 * time.Minute}
	tr := scaledTrial(b, s)
	b.ReportAllocs()
	for b.Loop() {
		got, err := Trial(context.Background(), tr, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if got.Integrity.Messages != s.Rows {
			b.Fatalf("audited %d messages, want %d", got.Integrity.Messages, s.Rows)
		}
	}
	b.ReportMetric(float64(s.Rows), "rows")
}

func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		tb.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
