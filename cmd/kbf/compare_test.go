package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeBench writes a bench.txt of its lines under kbf's units.
func writeBench(t *testing.T, name string, lines ...string) string {
	t.Helper()
	body := "Unit ack-stall-sec better=lower\nUnit lost-acked-records better=lower\nacks: all\n\n" + strings.Join(lines, "\n") + "\n"
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCompareGate runs kbf compare on inputs that once fooled the gate:
// each gets one line saying what is wrong, and its exit code.
func TestCompareGate(t *testing.T) {
	old := benchTxt(t, "old.txt", 6, 1, 0)
	same := benchTxt(t, "same.txt", 6, 1, 0)
	nan := writeBench(t, "nan.txt", "BenchmarkFailover/scenario=sigkill/role=leader 1 8.1 ack-stall-sec 0 lost-acked-records",
		"BenchmarkFailover/scenario=sigkill/role=leader 1 NaN ack-stall-sec 0 lost-acked-records")
	neg := writeBench(t, "neg.txt", "BenchmarkFailover/scenario=sigkill/role=leader 1 8.1 ack-stall-sec -3 lost-acked-records")
	other := writeBench(t, "other.txt",
		strings.Repeat("BenchmarkFailover/scenario=sigterm/role=leader 1 1.1 ack-stall-sec 0 lost-acked-records\n", 6))
	ms := filepath.Join(t.TempDir(), "ms.txt")
	if b, err := os.ReadFile(same); err != nil || os.WriteFile(ms, []byte(msUnits(string(b))), 0o644) != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want int
		line string // in stderr, which has that one line
	}{
		{"NaN: located", []string{"compare", old, nan}, exitError, "nan.txt:6: Failover/scenario=sigkill/role=leader: ack-stall-sec NaN: not a measurement"},
		{"lost_acked -3: located", []string{"compare", neg, old}, exitError, "neg.txt:5: Failover/scenario=sigkill/role=leader: lost-acked-records -3"},
		{"one file on both sides", []string{"compare", old, old}, exitUsage, "old.txt is on both sides"},
		{"a scenario on one side only", []string{"compare", old, same + "," + other}, exitTooFew, "sigterm/role=leader only in new"},
		{"on one side only, allowed", []string{"compare", "--allow-missing", old, same + "," + other}, exitOK, ""},
		{"a unit in ms: converted", []string{"compare", old, ms}, exitOK, ""},
		{"--alpha NaN", []string{"compare", "--alpha", "NaN", old, same}, exitUsage, "--alpha NaN"},
		{"--alpha 0", []string{"compare", "--alpha", "0", old, same}, exitUsage, "--alpha 0"},
		{"--max-regression NaN%", []string{"compare", "--max-regression", "NaN%", old, same}, exitUsage, `--max-regression "NaN%"`},
		{"--max-regression -5%", []string{"compare", "--max-regression", "-5%", old, same}, exitUsage, "at least 0"},
		{"--max-regression 5", []string{"compare", "--max-regression", "5", old, same}, exitUsage, "write 5% for 5 percent"},
		{"--min-change negative", []string{"compare", "--min-change", "-1s", old, same}, exitUsage, `--min-change "-1s"`},
		{"--min-change no duration", []string{"compare", "--min-change", "5", old, same}, exitUsage, `--min-change "5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), tt.args, &out, &errOut)
			if code != tt.want || !strings.Contains(errOut.String(), tt.line) || tt.line != "" && strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, errOut.String(), tt.want, tt.line)
			}
		})
	}
}

// msUnits rewrites a bench.txt's ack stalls in milliseconds.
func msUnits(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		f := strings.Fields(line)
		for i := 2; i+1 < len(f) && strings.HasPrefix(line, "Benchmark"); i += 2 {
			if f[i+1] == "ack-stall-sec" {
				var v float64
				if _, err := fmt.Sscan(f[i], &v); err == nil {
					f[i], f[i+1] = strconv.FormatFloat(v*1000, 'f', -1, 64), "ack-stall-ms"
				}
			}
		}
		if strings.HasPrefix(line, "Benchmark") {
			line = strings.Join(f, " ") + "\n"
		}
		b.WriteString(line)
	}
	return b.String()
}

// TestCompareInterrupted checks that an interrupted comparison exits 130.
func TestCompareInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var errOut bytes.Buffer
	code := run(ctx, []string{"compare", benchTxt(t, "old.txt", 6, 1, 0), benchTxt(t, "new.txt", 6, 1.5, 0)}, &bytes.Buffer{}, &errOut)
	if code != exitCanceled || errOut.String() != "kbf: interrupted\n" {
		t.Errorf("exit %d, stderr %q; want %d", code, errOut.String(), exitCanceled)
	}
}
