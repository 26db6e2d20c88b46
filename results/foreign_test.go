package results

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// decodeForeignFile decodes every row of in and returns them in kbf's own format,
// the decoder's account of the file first.
func decodeForeignFile(t *testing.T, in []byte, name string) ([]byte, error) {
	t.Helper()
	d := NewDecoder(bytes.NewReader(in), name)
	var out bytes.Buffer
	enc := NewEncoder(&out)
	var m Message
	for {
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		enc.Encode(&m)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	return append([]byte("# "+d.Foreign()+"\n"), out.Bytes()...), nil
}

// TestForeignGolden reads CSVs written the way other programs write them
// and keeps what each decoded to, in kbf's format, as a golden file.
func TestForeignGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "foreign", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no foreign CSVs under testdata/foreign (%v)", err)
	}
	var first []byte
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".csv"), func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeForeignFile(t, in, name)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(path, ".csv") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s decodes to\n%s\nwant (%s)\n%s", name, got, golden, want)
			}
			// The files hold the same messages, to the precision of
			// their unit: the send times of the first rows agree to the
			// millisecond whatever the unit.
			rows := strings.SplitN(string(got), "\n", 4)
			if first == nil {
				first = []byte(rows[2])
			} else if a, b := strings.Split(string(first), ","), strings.Split(rows[2], ","); a[3][:23] != b[3][:23] {
				t.Errorf("first send %s, want %s as in the other files", b[3], a[3])
			}
		})
	}
}

func TestForeignUnits(t *testing.T) {
	tests := []struct {
		name string
		in   string
		unit TimeUnit
	}{
		{"epoch seconds, decimals", "partition,seq,sent\n0,0,1764520929.503112\n", UnitSeconds},
		{"epoch seconds, exponent", "partition,seq,sent\n0,0,1.764520929e+09\n", UnitSeconds},
		{"epoch milliseconds", "partition,seq,sent\n0,0,1764520929503\n", UnitMillis},
		{"epoch microseconds", "partition,seq,sent\n0,0,1764520929503112\n", UnitMicros},
		{"epoch nanoseconds", "partition,seq,sent\n0,0,1764520929503112000\n", UnitNanos},
		{"RFC 3339", "partition,seq,sent\n0,0,2026-11-30T16:42:09.503+01:00\n", UnitRFC3339},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(strings.NewReader(tt.in), "x.csv")
			var m Message
			if err := d.Decode(&m); err != nil {
				t.Fatal(err)
			}
			if d.foreign.unit != tt.unit {
				t.Errorf("unit %q, want %q", d.foreign.unit, tt.unit)
			}
			if !strings.Contains(d.Foreign(), string(tt.unit)) {
				t.Errorf("Foreign() = %q does not state the unit %q", d.Foreign(), tt.unit)
			}
			if y := m.Sent.Year(); y != 2025 && y != 2026 {
				t.Errorf("sent %v, want a time in 2025 or 2026", m.Sent)
			}
		})
	}
}

// A file kbf cannot understand gets one line naming the column or value.
func TestForeignErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  error
		text []string
	}{
		{"no header", "0,0,1764520929.5,1764520929.6\n0,1,1764520929.52,1764520929.62\n", errNoHeader,
			[]string{"line 1", "no header", "the first line is data", "partition,seq,offset,sent"}},
		{"no header, RFC 3339", "0,0,2026-11-30T16:42:09Z\n", errNoHeader, []string{"no header"}},
		{"unknown time unit", "partition,seq,sent_at\n0,0,17645209\n", errTimeUnit,
			[]string{"line 2, column 5", "sent_at", "17645209", "epoch seconds, milliseconds, microseconds or nanoseconds"}},
		{"units mixed", "partition,seq,sent_at,acked_at\n0,0,1764520929.5,1764520929600\n", errTimeUnit,
			[]string{"acked_at", "milliseconds", "epoch seconds"}},
		{"not a time", "partition,seq,sent_at\n0,0,yesterday\n", errTimeUnit, []string{"sent_at", "yesterday"}},
		{"huge exponent", "partition,seq,sent_at\n0,0,1e999999\n", errTimeUnit, []string{"sent_at", "1e999999"}},
		{"no send column", "partition,seq,acked_at\n0,0,1764520929.5\n", errColumns,
			[]string{"line 1", "no sent column", "sent_at"}},
		{"two send columns", "partition,seq,sent,sent_at\n0,0,1,1\n", errColumns, []string{"sent_at", "both name the sent"}},
		{"a misspelt column", "partition,seq,sent_at,recieved_at\n0,0,1764520929.5,1764520929.6\n", errColumns,
			[]string{"recieved_at", "received_at"}},
		{"a duplicate row", "partition,seq,sent_at\n0,0,1764520929.5\n0,0,1764520929.6\n", errDuplicateRow,
			[]string{"line 3", "seq"}},
		{"an ack before its send", "partition,seq,sent_at,acked_at\n0,0,1764520929.5,1764520929.4\n", errBeforeSent,
			[]string{"acked_at"}},
		{"outside a plausible window", "partition,seq,sent_at\n0,0,2150-01-01T00:00:00Z\n", errOutsideTrial,
			[]string{"sent_at"}},
		{"kbf's own header cut short", "partition,seq,offset,sent,acked,received\n0,0,0,2026-11-30T03:26:00.05Z,,,\n", ErrHeader,
			[]string{"line 1, column 1", "want \"partition,seq,offset,sent,acked,received,error\""}},
		{"a negative partition", "partition,seq,sent_at\n-1,0,1764520929.5\n", nil, []string{"partition", "not a partition number"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeForeignFile(t, []byte(tt.in), "theirs.csv")
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v, want a *ParseError", err)
			}
			if tt.err != nil && !errors.Is(err, tt.err) {
				t.Errorf("error %q does not wrap %q", err, tt.err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is more than one line: %q", msg)
			}
			for _, s := range append(tt.text, "theirs.csv") {
				if !strings.Contains(msg, s) {
					t.Errorf("error %q does not say %q", msg, s)
				}
			}
		})
	}
}

// kbf's own header still takes kbf's own path, with no account of a
// foreign mapping.
func TestForeignNotForKbf(t *testing.T) {
	var b bytes.Buffer
	enc := NewEncoder(&b)
	m := Message{Partition: 0, Seq: 0, Offset: 1, Sent: EarliestTime.AddDate(26, 0, 0)}
	enc.Encode(&m)
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	d := NewDecoder(&b, "probe.csv")
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	if f := d.Foreign(); f != "" {
		t.Errorf("Foreign() = %q for kbf's own file, want \"\"", f)
	}
}

// In a trial directory probe.csv is kbf's own, so another header there is
// damage, refused as before, not a foreign format.
func TestForeignNotInTrialDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ProbeFile)
	if err := os.WriteFile(path, []byte("partition,seq,sent_at\n0,0,1764520929.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		trial   Trial
		foreign bool
	}{
		{"a bare CSV", Trial{Probe: path}, true},
		{"a trial directory's probe.csv", Trial{Dir: dir, Probe: path}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := tt.trial.OpenProbe(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var m Message
			err = d.Decode(&m)
			if tt.foreign && err != nil {
				t.Errorf("error %v, want the row read by its header", err)
			}
			if !tt.foreign && !errors.Is(err, ErrHeader) {
				t.Errorf("error %v, want %v", err, ErrHeader)
			}
		})
	}
}
