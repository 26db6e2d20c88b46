package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kbf-project/kbf/results"
)

// kbfCmd runs the whole command line as main does, with ctx.
func kbfCmd(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// writeLog writes the trial's log.csv: every message of writeTrial, but
// for the seqs in lose.
func writeLog(t *testing.T, dir string, lose ...int64) {
	t.Helper()
	var b bytes.Buffer
	enc := results.NewLogEncoder(&b)
	for p := range int32(2) {
	next:
		for seq := range int64(50) {
			for _, l := range lose {
				if p == 0 && seq == l {
					continue next
				}
			}
			enc.Encode(&results.LogRecord{Partition: p, Offset: seq, Seq: seq})
		}
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.LogFile), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editProbe rewrites line n (1-based, the header is 1) of the trial's
// probe.csv with edit.
func editProbe(t *testing.T, dir string, n int, edit func(string) string) {
	t.Helper()
	path := filepath.Join(dir, results.ProbeFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines[n-1] = edit(lines[n-1])
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Bad input gets one clear line and a non-zero exit, never a number.
func TestReportBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup makes the input in dir and returns the command line.
		setup func(t *testing.T, dir string) []string
		code  int
		// stderr must hold each of these; stdout must be empty unless out
		// is set, and then hold it.
		stderr []string
		lines  int // lines of stderr
		out    string
	}{
		{
			name: "a named pipe",
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "probe.csv")
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Skip(err)
				}
				return []string{"report", p}
			},
			code: exitError, stderr: []string{"not a regular file but a named pipe"}, lines: 1,
		},
		{
			name:  "/dev/zero",
			setup: func(*testing.T, string) []string { return []string{"report", "/dev/zero"} },
			code:  exitError, stderr: []string{"/dev/zero: not a regular file but a character device"}, lines: 1,
		},
		{
			name: "a year 9999 ack in a trial",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				editProbe(t, dir, 3, func(l string) string {
					f := strings.Split(l, ",")
					f[4] = "9999" + f[4][4:]
					return strings.Join(f, ",")
				})
				return []string{"report", dir}
			},
			code:   exitError,
			stderr: []string{"probe.csv: line 3, column 38: acked: 9999-", "is outside the trial: the trial's window is 2026-11-30T03:26:00Z ~ 2026-11-30T03:26:05Z"},
			lines:  1,
		},
		{
			name: "an ack before its send",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				editProbe(t, dir, 3, func(l string) string {
					f := strings.Split(l, ",")
					f[3], f[4] = f[4], f[3]
					return strings.Join(f, ",")
				})
				return []string{"report", dir}
			},
			code: exitError, stderr: []string{"line 3, column 38: acked: 03:26:00.000000000 is before the message was sent at 03:26:00.005000000"}, lines: 1,
		},
		{
			// Another client's probe CSV cut inside a line: the trial
			// is still reported, and the exit says a file was bad.
			name: "a client's probe CSV cut short",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				b, err := os.ReadFile(filepath.Join(dir, results.ProbeFile))
				if err != nil {
					t.Fatal(err)
				}
				cdir := results.ClientDir(dir, "librdkafka")
				if err := os.MkdirAll(cdir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cdir, results.ProbeFile), b[:len(b)/2+7], 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"report", dir}
			},
			code: exitError, stderr: []string{"client librdkafka: ", "probe.csv: line "}, lines: 1,
			out: "evidence-damaged (client librdkafka's records could not be read",
		},
		{
			name: "a row twice",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				editProbe(t, dir, 5, func(l string) string { return l + l })
				return []string{"report", dir}
			},
			code: exitError, stderr: []string{"line 6, column 3: seq: duplicate row: an earlier row has partition 1 seq 1 too"}, lines: 1,
		},
		{
			name: "--fault-at after the data",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				return []string{"report", dir, "--fault-at", "2026-11-30T04:00:00Z"}
			},
			code: exitUsage, stderr: []string{"--fault-at 2026-11-30T04:00:00Z: outside the data of", "runs 2026-11-30T03:26:00Z ~ 2026-11-30T03:26:05Z"}, lines: 1,
		},
		{
			name: "--fault-at in year 9999",
			setup: func(t *testing.T, dir string) []string {
				return []string{"report", dir, "--fault-at", "9999-01-01T00:00:00Z"}
			},
			code: exitUsage, stderr: []string{"--fault-at 9999-01-01T00:00:00Z: not a time a trial ran at; want one between 2000 and 2100"}, lines: 1,
		},
		{
			name: "50 MB of NUL bytes",
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "probe.csv")
				if err := os.WriteFile(p, make([]byte, 50<<20), 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"report", p}
			},
			code: exitError, stderr: []string{"probe.csv: line 1: line longer than 1024 KiB: not a file kbf wrote"}, lines: 1,
		},
		{
			name: "a header of NUL bytes",
			setup: func(t *testing.T, dir string) []string {
				p := filepath.Join(dir, "probe.csv")
				if err := os.WriteFile(p, append(make([]byte, 100<<10), '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return []string{"report", p}
			},
			code: exitError, stderr: []string{`wrong header: got "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"... (102400 bytes)`}, lines: 1,
		},
		{
			name: "log.csv a directory",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				if err := os.Mkdir(filepath.Join(dir, results.LogFile), 0o755); err != nil {
					t.Fatal(err)
				}
				return []string{"report", dir}
			},
			code: exitError, stderr: []string{"log.csv: not a regular file but a directory"}, lines: 1,
		},
		{
			name: "log.csv a dangling link",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, results.LogFile)); err != nil {
					t.Fatal(err)
				}
				return []string{"report", dir}
			},
			code: exitError, stderr: []string{"log.csv: cannot be read"}, lines: 1,
		},
		{
			name: "a lost record",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				writeLog(t, dir, 7)
				return []string{"report", dir}
			},
			code: exitFindings, stderr: []string{"franz-go: 1 lost under acks=all"},
			lines: 1, out: "p0 lost seq 7",
		},
		{
			name: "a lost record, plot",
			setup: func(t *testing.T, dir string) []string {
				writeTrial(t, dir)
				writeLog(t, dir, 7)
				return []string{"plot", dir}
			},
			code: exitFindings, stderr: []string{"franz-go: 1 lost under acks=all"}, lines: 1, out: results.PlotFile,
		},
		{
			name: "a run with a broken trial",
			setup: func(t *testing.T, dir string) []string {
				for _, n := range []int{1, 2, 3} {
					writeTrial(t, filepath.Join(dir, results.TrialDir(n)))
				}
				os.Remove(filepath.Join(dir, results.TrialDir(2), results.ProbeFile))
				editProbe(t, filepath.Join(dir, results.TrialDir(3)), 4, func(string) string { return "x\n" })
				return []string{"report", dir}
			},
			code:   exitError,
			stderr: []string{results.TrialDir(2) + ": no probe.csv", results.TrialDir(3) + "/probe.csv: line 4: wrong number of fields"},
			lines:  2, out: results.TrialDir(1),
		},
		{
			name: "a run with a broken trial, plot",
			setup: func(t *testing.T, dir string) []string {
				for _, n := range []int{1, 2} {
					writeTrial(t, filepath.Join(dir, results.TrialDir(n)))
				}
				os.Remove(filepath.Join(dir, results.TrialDir(1), results.ProbeFile))
				return []string{"plot", dir}
			},
			code: exitError, stderr: []string{results.TrialDir(1) + ": no probe.csv"}, lines: 1,
			out: filepath.Join(results.TrialDir(2), results.PlotFile),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.setup(t, t.TempDir())
			code, stdout, stderr := kbfCmd(context.Background(), args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %q", code, tc.code, stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr, s) {
					t.Errorf("stderr %q does not say %q", stderr, s)
				}
			}
			if n := strings.Count(stderr, "\n"); n != tc.lines || len(stderr) > 400*tc.lines {
				t.Errorf("stderr has %d lines, %d bytes, want %d short ones: %q", n, len(stderr), tc.lines, stderr)
			}
			for _, l := range strings.SplitAfter(stderr, "\n") {
				if l != "" && !strings.HasPrefix(l, "kbf: ") {
					t.Errorf("stderr line %q does not begin with kbf: ", l)
				}
			}
			if tc.out == "" && stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.Contains(stdout, tc.out) {
				t.Errorf("stdout %q does not hold %q", stdout, tc.out)
			}
		})
	}
}

// A cancelled context (Ctrl-C, SIGTERM) stops report and plot with exit
// 130, before they print anything.
func TestReportInterrupted(t *testing.T) {
	dir := t.TempDir()
	writeTrial(t, dir)
	for _, cmd := range []string{"report", "plot"} {
		t.Run(cmd, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			code, stdout, stderr := kbfCmd(ctx, cmd, dir)
			if code != exitCanceled || stderr != "kbf: interrupted\n" || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and kbf: interrupted", code, stdout, stderr, exitCanceled)
			}
			if _, err := os.Stat(filepath.Join(dir, results.PlotFile)); err == nil {
				t.Error("an interrupted plot wrote its picture")
			}
		})
	}
}

// kbf report prints the digest; --explain the full report in its place.
func TestReportExplain(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{"digest by default", nil, []string{"ack stall", "kbf report --explain"}, []string{"integrity:", "ack gap"}},
		{"explain", []string{"--explain"}, []string{"integrity:", "ack gap"}, []string{"ack stall", "kbf report --explain"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTrial(t, dir)
			writeLog(t, dir)
			code, stdout, stderr := kbfCmd(context.Background(), append([]string{"report", dir}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, s := range tc.want {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout does not hold %q:\n%s", s, stdout)
				}
			}
			for _, s := range tc.notWant {
				if strings.Contains(stdout, s) {
					t.Errorf("stdout holds %q:\n%s", s, stdout)
				}
			}
		})
	}
}
