package main

import (
	"bytes"
	"context"
	"encoding/json"
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
	blank := filepath.Join(t.TempDir(), "bench.txt")
	blankDir := filepath.Join(t.TempDir(), "kbf-bench", "bench.txt")
	for _, p := range []string{blank, blankDir} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil || os.WriteFile(p, []byte("\n"), 0o644) != nil {
			t.Fatal(err)
		}
	}
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
		{"on one side only, allowed", []string{"compare", "--allow-missing", old, same + "," + other}, exitTooFew, "2 on one side only, allowed: sigterm/role=leader only in new"},
		{"a unit in ms: converted", []string{"compare", old, ms}, exitTooFew, "verdict: undecided (1 metrics"},
		{"--alpha NaN", []string{"compare", "--alpha", "NaN", old, same}, exitUsage, "--alpha NaN"},
		{"--alpha 0", []string{"compare", "--alpha", "0", old, same}, exitUsage, "--alpha 0"},
		{"--max-regression NaN%", []string{"compare", "--max-regression", "NaN%", old, same}, exitUsage, `--max-regression "NaN%"`},
		{"--max-regression -5%", []string{"compare", "--max-regression", "-5%", old, same}, exitUsage, "at least 0"},
		{"--max-regression 5", []string{"compare", "--max-regression", "5", old, same}, exitUsage, "write 5% for 5 percent"},
		{"--min-change negative", []string{"compare", "--min-change", "-1s", old, same}, exitUsage, `--min-change "-1s"`},
		{"--min-change no duration", []string{"compare", "--min-change", "5", old, same}, exitUsage, `--min-change "5"`},
		{"--metric of no role", []string{"compare", "--metric", "boss:ack_stall", old, same}, exitUsage, `--metric "boss:ack_stall": role "boss"`},
		{"--metric no metric", []string{"compare", "--metric", "ack_stal", old, same}, exitUsage, `--metric "ack_stal": no metric "ack_stal"`},
		{"--metric not measured", []string{"compare", "--metric", "ack_stall,total_stall", old, same}, exitUsage, "--metric total_stall is in neither side's results"},
		{"--metric lost_acked alone: a pass on it", []string{"compare", "--metric", "lost_acked", old, same}, 0, ""},
		{"--output of no format", []string{"compare", "-o", "yaml", old, same}, exitUsage, `--output "yaml": want text, md or json`},
		{"--metric all with another", []string{"compare", "--metric", "all,ack_stall", old, same}, exitUsage, "--metric all gates every metric: give it alone"},
		{"an empty bench.txt: lost, not run more", []string{"compare", old, blank}, exitError, "new: " + blank + ": empty: kbf bench writes its units"},
		{"an empty bench.txt in a directory", []string{"compare", filepath.Dir(blankDir), same}, exitError, blankDir + ": empty"},
		{"no bench.txt", []string{"compare", old, filepath.Join(t.TempDir(), "bench.txt")}, exitError, "bench.txt: no such file"},
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

// TestCompareAnswers checks each of the gate's three answers' exit code
// and line, on samples tight enough to decide at 6 a side.
func TestCompareAnswers(t *testing.T) {
	tight := func(name string, k float64) string {
		var lines []string
		for i := range 6 {
			lines = append(lines, fmt.Sprintf("BenchmarkFailover/scenario=sigkill/role=leader 1 %.3f ack-stall-sec 0 lost-acked-records", k*(8+0.01*float64(i))))
		}
		return writeBench(t, name, lines...)
	}
	old := tight("old.txt", 1)
	tests := []struct {
		name string
		new  string
		want int
		say  string // in stdout
		line string // in stderr, which has that one line
	}{
		{"same", tight("same.txt", 1), exitOK, "verdict: same (1 metrics same; gated on ack_stall, the other 1 rows figures)", ""},
		{"2 % slower: same, within the bound", tight("slower2.txt", 1.02), exitOK, "verdict: same (1 metrics same; gated on ack_stall", ""},
		{"improvement", tight("faster.txt", 0.8), exitOK, "verdict: different: improvement (1 metrics improved, 0 same; gated on ack_stall", ""},
		{"regression", tight("slower.txt", 1.2), exitRegress, "verdict: different: regression (1 metrics regressed; gated on ack_stall", "verdict: different: regression"},
		{"undecided", benchTxt(t, "spread.txt", 6, 1, 0), exitTooFew, "undecided: p=", "verdict: undecided (1 metrics neither different nor same; gated on ack_stall, the other 1 rows figures): run more trials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"compare", old, tt.new}, &out, &errOut)
			if code != tt.want || !strings.Contains(out.String(), tt.say) || !strings.Contains(errOut.String(), tt.line) || strings.Count(errOut.String(), "\n") > 1 {
				t.Errorf("exit %d, stderr %q; want exit %d, one line with %q, and %q in\n%s", code, errOut.String(), tt.want, tt.line, tt.say, out.String())
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

// TestCompareJSON checks kbf compare -o json: one document whose rows
// carry the gate's p and the p adjusted for the metrics gated with it,
// the verdict the text gives, and the same exit code.
func TestCompareJSON(t *testing.T) {
	tight := func(name string, k float64) string {
		var lines []string
		for i := range 6 {
			lines = append(lines, fmt.Sprintf("BenchmarkFailover/scenario=sigkill/role=leader 1 %.3f ack-stall-sec 0 lost-acked-records", k*(8+0.01*float64(i))))
		}
		return writeBench(t, name, lines...)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"compare", "-o", "json", tight("old.txt", 1), tight("slower.txt", 1.2)}, &out, &errOut)
	if code != exitRegress {
		t.Fatalf("exit %d (%s), want %d", code, errOut.String(), exitRegress)
	}
	var doc struct {
		Answer string `json:"answer"`
		Rows   []struct {
			Metric    string   `json:"metric"`
			P         *float64 `json:"p"`
			PAdjusted *float64 `json:"p_adjusted"`
			Family    int      `json:"family"`
			Gated     bool     `json:"gated"`
			Verdict   string   `json:"verdict"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if doc.Answer != "different" || len(doc.Rows) != 2 {
		t.Fatalf("answer %q, %d rows; want different, 2 rows:\n%s", doc.Answer, len(doc.Rows), out.String())
	}
	for _, r := range doc.Rows {
		// By default the headline stall alone is gated; a lost record
		// fails whatever is.
		if r.P == nil || r.PAdjusted == nil || *r.PAdjusted < *r.P || r.Gated != (r.Metric == "ack_stall") {
			t.Errorf("%s: p %v, adjusted %v, gated %v; want both, adjusted at least p, gated for ack_stall alone", r.Metric, r.P, r.PAdjusted, r.Gated)
		}
	}
	if r := doc.Rows[0]; r.Metric != "ack_stall" || r.Verdict != "regression" || r.Family != 1 {
		t.Errorf("ack_stall row %+v: want a regression in a family of 1 (lost_acked, all zeros, is in none)", r)
	}
}

// TestCompareShardsAndEmpty: a side's shards that do not make one
// benchmark are the command line's mistake (exit 2), and a side with no
// valid trial at all is undecided (exit 5), each in one line.
func TestCompareShardsAndEmpty(t *testing.T) {
	old := benchTxt(t, "old.txt", 6, 1, 0)
	shard := func(dir string, i, n int, plan string) {
		t.Helper()
		b, err := os.ReadFile(benchTxt(t, "s.txt", 3, 1, 0))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("slice-%d", i), "bench.txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append([]byte(fmt.Sprintf("shard: %d/%d\nplan: %s\n", i, n, plan)), b...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, missing, mixed := t.TempDir(), t.TempDir(), t.TempDir()
	shard(whole, 1, 2, "p")
	shard(whole, 2, 2, "p")
	shard(missing, 2, 2, "p")
	shard(mixed, 1, 2, "p")
	shard(mixed, 2, 2, "q")
	empty := writeBench(t, "empty.txt")
	empty2 := writeBench(t, "empty2.txt")
	nan := writeBench(t, "nan.txt", "BenchmarkFailover/scenario=sigkill/role=leader 1 NaN ack-stall-sec 0 lost-acked-records")
	tests := []struct {
		name string
		args []string
		want int
		line string
	}{
		{"two shards, whole: 6 trials", []string{"compare", old, whole}, exitTooFew, "verdict: undecided (1 metrics neither different nor same; gated on ack_stall"},
		{"a shard missing", []string{"compare", old, missing}, exitUsage, "new: shards that do not make one benchmark: shard 1/2 missing"},
		{"shards of two benchmarks", []string{"compare", missing + "," + whole, old}, exitUsage, "old: shards that do not make one benchmark"},
		{"two plans", []string{"compare", old, mixed}, exitUsage, "are of different benchmarks"},
		{"no valid trial new", []string{"compare", old, empty}, exitTooFew, "undecided: no valid trials on the new side"},
		{"no valid trial old", []string{"compare", empty, old}, exitTooFew, "undecided: no valid trials on the old side"},
		{"no valid trial either", []string{"compare", empty, empty2}, exitTooFew, "undecided: no valid trials on either side"},
		{"no valid trial beside a broken file", []string{"compare", empty, nan}, exitError, "nan.txt:5"},
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
