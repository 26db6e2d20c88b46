package analysis

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/results"
)

// reportPath reads path as `kbf report PATH` does before it renders
// anything: results.Find, then Analyze and Check of each trial.
func reportPath(path string) (trials []*Trial, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	found, err := results.Find(path)
	if err != nil {
		return nil, err
	}
	for _, t := range found {
		tr, err := Analyze(t, Options{})
		if err != nil {
			return nil, err
		}
		if err := tr.Check(); err != nil {
			return nil, err
		}
		trials = append(trials, tr)
	}
	return trials, nil
}

// Broken inputs, made from the recorded sigkill trial, end in an error that
// says which file, and which line, is at fault.
func TestBadInput(t *testing.T) {
	probe := filepath.Join(recordedTrial, results.ProbeFile)
	logCSV := filepath.Join(recordedTrial, results.LogFile)
	for _, tc := range []struct {
		name string
		// edit breaks the unpacked trial; it returns the path to report
		// and the place the error must name.
		edit func(t *testing.T) (path, where string)
		want error // the error it must wrap; nil when there is no sentinel
	}{
		{
			name: "empty probe.csv",
			edit: func(t *testing.T) (string, string) {
				write(t, probe, "")
				return recordedTrial, probe + ": line 1: "
			},
			want: results.ErrEmpty,
		},
		{
			name: "wrong header",
			edit: func(t *testing.T) (string, string) {
				editLines(t, probe, func(l []string) []string {
					l[0] = "partition,seq,offset,sent,acked,received\n"
					return l
				})
				return recordedTrial, probe + ": line 1, column 1: "
			},
			want: results.ErrHeader,
		},
		{
			// A probe killed mid-write leaves its last row cut short.
			name: "truncated last line",
			edit: func(t *testing.T) (string, string) {
				b := read(t, probe)
				lines := strings.Count(b, "\n")
				write(t, probe, b[:len(b)-20])
				return recordedTrial, fmt.Sprintf("%s: line %d: ", probe, lines)
			},
			want: results.ErrTruncated,
		},
		{
			name: "bad row in the middle",
			edit: func(t *testing.T) (string, string) {
				editLines(t, probe, func(l []string) []string {
					l[9] = strings.Replace(l[9], ",", ",x", 1)
					return l
				})
				return recordedTrial, probe + ": line 10, column 3: seq: "
			},
		},
		{
			name: "bad row in log.csv",
			edit: func(t *testing.T) (string, string) {
				editLines(t, logCSV, func(l []string) []string {
					l[4] = "1,3,-3\n"
					return l
				})
				return recordedTrial, logCSV + ": line 5, column 5: seq: "
			},
		},
		{
			name: "partition not probed",
			edit: func(t *testing.T) (string, string) {
				editLines(t, probe, func(l []string) []string {
					l[1] = "7" + l[1][1:]
					return l
				})
				return recordedTrial, probe + ": line 2, column 1: partition: "
			},
			want: results.ErrUnknownPartition,
		},
		{
			name: "header only",
			edit: func(t *testing.T) (string, string) {
				write(t, probe, strings.SplitAfter(read(t, probe), "\n")[0])
				return recordedTrial, recordedTrial + ": "
			},
			want: ErrNoMessages,
		},
		{
			name: "meta.json not JSON",
			edit: func(t *testing.T) (string, string) {
				meta := filepath.Join(recordedTrial, results.MetaFile)
				write(t, meta, read(t, meta)[:100])
				return recordedTrial, meta + ": "
			},
		},
		{
			name: "directory with no results",
			edit: func(t *testing.T) (string, string) {
				if err := os.Mkdir("empty", 0o755); err != nil {
					t.Fatal(err)
				}
				return "empty", "empty: "
			},
			want: results.ErrNoResults,
		},
		{
			// A run directory whose trial lost its probe.csv.
			name: "run directory with no trial",
			edit: func(t *testing.T) (string, string) {
				if err := os.Remove(probe); err != nil {
					t.Fatal(err)
				}
				return ".", ".: "
			},
			want: results.ErrNoResults,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			unpack(t, sigkillArchive)
			path, where := tc.edit(t)
			trials, err := reportPath(path)
			if err == nil {
				t.Fatalf("report of %s: no error, %d trials", path, len(trials))
			}
			t.Log(err)
			if strings.HasPrefix(err.Error(), "panic: ") {
				t.Fatal(err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %q does not wrap %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), where) {
				t.Errorf("error %q does not begin with %q", err, where)
			}
		})
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
