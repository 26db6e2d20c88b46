package clients

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/golden"
	"github.com/kbf-project/kbf/results"
)

func TestParseList(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Name
		wantErr string
	}{
		{name: "one", in: "franz-go", want: []Name{FranzGo}},
		{name: "all, in the order given", in: "java,franz-go,librdkafka", want: []Name{Java, FranzGo, Librdkafka}},
		{name: "spaces around names", in: " librdkafka , java", want: []Name{Librdkafka, Java}},
		{name: "unknown", in: "franz-go,sarama", wantErr: `unknown client "sarama": want one of franz-go, librdkafka, java`},
		{name: "twice", in: "java,java", wantErr: "client java given twice"},
		{name: "empty name", in: "java,", wantErr: "empty client name"},
		{name: "empty", in: "", wantErr: "empty client name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseList(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseList(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseList(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestLookupUnknown(t *testing.T) {
	if _, err := Lookup("kafka-python"); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup error = %v, want ErrUnknown", err)
	}
	for _, c := range Known() {
		got, err := Lookup(c.Name)
		if err != nil || got != c {
			t.Errorf("Lookup(%s) = %+v, %v", c.Name, got, err)
		}
		if c.External && (c.File == "" || c.MakeTarget == "") {
			t.Errorf("%s is external but has no file or make target", c.Name)
		}
	}
}

// TestArgs writes the command lines of a few specs to a golden file.
func TestArgs(t *testing.T) {
	specs := []struct {
		name string
		spec Spec
	}{
		{"minimal", Spec{Client: Librdkafka, Bootstrap: []string{"127.0.0.1:19092"}, Topic: "orders",
			Interval: 20 * time.Millisecond, Acks: "all", Dir: "trial-01/librdkafka"}},
		{"everything", Spec{Client: Java, Bootstrap: []string{"127.0.0.1:19092", "127.0.0.1:19093"}, Topic: "orders",
			Partitions: []int32{2, 0}, Interval: 1500 * time.Microsecond, Acks: "1", Duration: 90 * time.Second,
			RunID: "0a1b2c3d4e5f", StartOffsets: map[int32]int64{2: 998, 0: 1042}, Dir: "out",
			Drain:    2500 * time.Millisecond,
			Settings: map[string]string{"socket.timeout.ms": "20000", "debug": "metadata,topic"}}},
		{"group reader", Spec{Client: Librdkafka, Bootstrap: []string{"127.0.0.1:19092"}, Topic: "orders",
			Interval: 20 * time.Millisecond, Acks: "all", Dir: "trial-01/librdkafka",
			Group: &GroupSpec{ID: "kbf-probe-0a1b2c3d4e5f-librdkafka", Protocol: "consumer", Commit: "interval",
				AutoCommitInterval: time.Second}}},
		{"group reader, sync", Spec{Client: Java, Bootstrap: []string{"127.0.0.1:19092"}, Topic: "orders",
			Interval: 20 * time.Millisecond, Acks: "all", Dir: "trial-01/java",
			Group: &GroupSpec{ID: "kbf-probe-0a1b2c3d4e5f-java", Protocol: "classic", Commit: "sync"}}},
	}
	var b strings.Builder
	for _, s := range specs {
		if err := s.spec.Validate(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		fmt.Fprintf(&b, "%s:\n", s.name)
		for _, a := range s.spec.Args() {
			fmt.Fprintf(&b, "\t%s\n", a)
		}
	}
	golden.Check(t, filepath.Join("testdata", "args.golden"), []byte(b.String()))
}

func TestValidate(t *testing.T) {
	good := Spec{Client: Java, Bootstrap: []string{"b:9092"}, Topic: "orders", Interval: time.Millisecond,
		Acks: "all", Dir: "d", Partitions: []int32{0}}
	tests := []struct {
		name    string
		change  func(*Spec)
		wantErr string
	}{
		{"no bootstrap", func(s *Spec) { s.Bootstrap = nil }, "no bootstrap address"},
		{"no topic", func(s *Spec) { s.Topic = "" }, "no topic"},
		{"zero interval", func(s *Spec) { s.Interval = 0 }, "interval 0s: must be positive"},
		{"acks 0", func(s *Spec) { s.Acks = "0" }, `acks "0": want all or 1`},
		{"negative drain", func(s *Spec) { s.Drain = -time.Second }, "must not be negative"},
		{"no dir", func(s *Spec) { s.Dir = "" }, "no results directory"},
		{"run id with a space", func(s *Spec) { s.RunID = "a b" }, "must not contain spaces"},
		{"offset of an unprobed partition", func(s *Spec) { s.StartOffsets = map[int32]int64{1: 5} }, "partition 1, which is not probed"},
		{"setting with =", func(s *Spec) { s.Settings = map[string]string{"a=b": "c"} }, "without '='"},
		{"group without an id", func(s *Spec) { s.Group = &GroupSpec{Protocol: "classic", Commit: "sync"} }, `group id "": must be non-empty`},
		{"group id with a space", func(s *Spec) { s.Group = &GroupSpec{ID: "a b", Protocol: "classic", Commit: "sync"} }, "without spaces"},
		{"group protocol eager", func(s *Spec) { s.Group = &GroupSpec{ID: "g", Protocol: "eager", Commit: "sync"} },
			`group protocol "eager": want classic or consumer`},
		{"commit never", func(s *Spec) { s.Group = &GroupSpec{ID: "g", Protocol: "classic", Commit: "never"} },
			`commit "never": want sync, async or interval`},
		{"negative auto-commit interval", func(s *Spec) {
			s.Group = &GroupSpec{ID: "g", Protocol: "classic", Commit: "interval", AutoCommitInterval: -time.Second}
		}, "must not be negative"},
	}
	if err := good.Validate(); err != nil {
		t.Fatalf("good spec: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := good
			tt.change(&s)
			if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestReadInfo(t *testing.T) {
	for _, name := range []string{"librdkafka", "java"} {
		t.Run(name, func(t *testing.T) {
			info, err := ReadInfo(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "client %s version %s\nlibrary %s\n", info.Client, info.Version, info.Library)
			fmt.Fprintf(&b, "topic %s partitions %v interval %v acks %s drain %v run %s\n",
				info.Topic, info.Partitions, time.Duration(info.Interval), info.Acks, time.Duration(info.Drain), info.RunID)
			fmt.Fprintf(&b, "start offsets %v\nstarted %s ended %s longest send gap %v\n",
				info.StartOffsets, info.Started.Format(time.RFC3339Nano), info.Ended.Format(time.RFC3339Nano), info.LongestSendGap)
			settings := info.Settings()
			keys := make([]string, 0, len(settings))
			for k := range settings {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(&b, "\t%s = %s\n", k, settings[k])
			}
			golden.Check(t, filepath.Join("testdata", name+".golden"), []byte(b.String()))

			p := info.Probe()
			if p.Topic != info.Topic || !slices.Equal(p.Partitions, info.Partitions) ||
				p.Interval != time.Duration(info.Interval) || p.RunID != info.RunID ||
				p.StartOffsets[0] != info.StartOffsets[0] || p.Client["client"] != settings["client"] {
				t.Errorf("Probe() = %+v, from %+v", p, info)
			}
		})
	}
}

// TestWriteInfo: WriteInfo writes back the librdkafka probe's client.json
// byte for byte, so the probe, which now writes through it, keeps its
// format.
func TestWriteInfo(t *testing.T) {
	src := filepath.Join("testdata", "librdkafka") // written by the librdkafka probe before it shared Info
	info, err := ReadInfo(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WriteInfo(dir, info); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(src, InfoFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("WriteInfo wrote\n%s\nwant\n%s", got, want)
	}
	if err := WriteInfo(filepath.Join(t.TempDir(), "missing"), &Info{Client: Librdkafka}); err == nil ||
		!strings.Contains(err.Error(), "write "+InfoFile) {
		t.Errorf("WriteInfo into a missing directory: %v, want a write error", err)
	}
}

func TestReadInfoBad(t *testing.T) {
	tests := []struct {
		name, dir, wantErr string
	}{
		{"missing", "no-such-dir", "no such file"},
		{"not json", "bad-json", "client.json: unexpected end of JSON input"},
		{"no client", "no-client", "client.json: no client named"},
		{"bad duration", "bad-duration", `unknown unit " ms" in duration "20 ms"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadInfo(filepath.Join("testdata", tt.dir))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("ReadInfo() = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestProbeOutputDecodes reads the first rows of each reference probe's
// probe.csv, as the probes wrote them, with kbf's own decoder, and the
// first words of their client.log lines as kbf's format has them.
func TestProbeOutputDecodes(t *testing.T) {
	for _, name := range []string{"librdkafka", "java"} {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", name, "probe.csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d := results.NewDecoder(f, "probe.csv")
			n := 0
			for {
				var m results.Message
				err := d.Decode(&m)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if m.Offset < 0 || m.Acked.Before(m.Sent) || m.Received.Before(m.Sent) || m.Failed() {
					t.Errorf("row %d: %+v: want a message sent, acked and read", n+1, m)
				}
				n++
			}
			if n == 0 {
				t.Fatal("no rows")
			}
			b, err := os.ReadFile(filepath.Join("testdata", name, "client.log"))
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				f := strings.SplitN(line, " ", 4)
				if len(f) < 4 {
					t.Fatalf("client.log line %d: %q: want time level client message", i+1, line)
				}
				if _, err := results.ParseTime(f[0]); err != nil {
					t.Errorf("client.log line %d: %v", i+1, err)
				}
				if !slices.Contains([]string{"DEBUG", "INFO", "WARN", "ERROR"}, f[1]) ||
					!slices.Contains([]string{"producer", "consumer"}, f[2]) {
					t.Errorf("client.log line %d: level %q, client %q", i+1, f[1], f[2])
				}
			}
		})
	}
}
