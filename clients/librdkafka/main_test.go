package main

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		check   func(*options) bool
		wantErr string
	}{
		{name: "defaults", args: []string{"--out", "d"}, check: func(o *options) bool {
			return o.topic == "orders" && o.interval == 20*time.Millisecond && o.acks == "all" &&
				o.duration == 0 && o.partitions == nil && o.startOffsets == nil && o.drain == 5*time.Second
		}},
		{name: "kbf's command line", args: []string{"--bootstrap=a:1,b:2", "--topic=t", "--partitions=2,0",
			"--interval=1.5ms", "--acks=1", "--duration=1m30s", "--out=d", "--run-id=r1",
			"--start-offsets=0:1042,2:998", "--drain=2s", "--set=socket.timeout.ms=20000", "--set=debug=all"},
			check: func(o *options) bool {
				return o.bootstrap == "a:1,b:2" && o.topic == "t" && slices.Equal(o.partitions, []int32{2, 0}) &&
					o.interval == 1500*time.Microsecond && o.acks == "1" && o.duration == 90*time.Second &&
					o.runID == "r1" && maps.Equal(o.startOffsets, map[int32]int64{0: 1042, 2: 998}) &&
					o.drain == 2*time.Second &&
					maps.Equal(o.set, map[string]string{"socket.timeout.ms": "20000", "debug": "all"})
			}},
		{name: "no out", args: nil, wantErr: "--out is required"},
		{name: "acks 0", args: []string{"--out=d", "--acks=0"}, wantErr: `--acks "0": want all or 1`},
		{name: "zero interval", args: []string{"--out=d", "--interval=0s"}, wantErr: "--interval 0s: must be positive"},
		{name: "bad partition", args: []string{"--out=d", "--partitions=0,x"}, wantErr: `--partitions: "x" is not a partition number`},
		{name: "partition twice", args: []string{"--out=d", "--partitions=1,1"}, wantErr: "partition 1 given twice"},
		{name: "bad start offset", args: []string{"--out=d", "--start-offsets=0=5"}, wantErr: `"0=5": want partition:offset`},
		{name: "start offset of an unprobed partition", args: []string{"--out=d", "--partitions=0", "--start-offsets=1:5"},
			wantErr: "names partition 1, which --partitions does not"},
		{name: "bad set", args: []string{"--out=d", "--set=debug"}, wantErr: `want name=value, got "debug"`},
		{name: "run id with a space", args: []string{"--out=d", "--run-id=a b"}, wantErr: "must not contain spaces"},
		{name: "positional argument", args: []string{"--out=d", "extra"}, wantErr: `unexpected argument "extra"`},
		{name: "unknown flag", args: []string{"--out=d", "--linger=5ms"}, wantErr: "flag provided but not defined: -linger"},
		{name: "duration without a unit", args: []string{"--out=d", "--interval=5"},
			wantErr: `invalid value "5" for flag -interval: want a duration such as 20ms, 1.5s or 1m30s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseArgs(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseArgs() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(o) {
				t.Fatalf("parseArgs() = %+v", o)
			}
		})
	}
}

func TestLevel(t *testing.T) {
	tests := []struct {
		syslog int
		want   string
	}{{7, "DEBUG"}, {6, "INFO"}, {5, "INFO"}, {4, "WARN"}, {3, "ERROR"}, {0, "ERROR"}}
	for _, tt := range tests {
		if got := level(tt.syslog); got != tt.want {
			t.Errorf("level(%d) = %s, want %s", tt.syslog, got, tt.want)
		}
	}
}

func TestClientLogLine(t *testing.T) {
	var b strings.Builder
	l := newClientLog(&b)
	l.write(time.Date(2026, 11, 30, 3, 26, 17, 460123000, time.UTC), "DEBUG", "producer",
		"TOPIC [thrd:main]: orders [0]: leader 1 epoch 3 -> leader 2 epoch 4\nsecond line\n")
	if err := l.flush(); err != nil {
		t.Fatal(err)
	}
	want := "2026-11-30T03:26:17.460123000Z DEBUG producer TOPIC [thrd:main]: orders [0]: leader 1 epoch 3 -> leader 2 epoch 4 second line\n"
	if b.String() != want {
		t.Fatalf("client.log line = %q, want %q", b.String(), want)
	}
}

// TestSettings checks the settings that keep the probe from shaping, or
// causing, what it measures.
func TestSettings(t *testing.T) {
	o := &options{bootstrap: "b:1", acks: "1", runID: "r1", set: map[string]string{"socket.timeout.ms": "20000"}}
	prod, cons := settings(o)
	for _, tt := range []struct {
		name  string
		conf  map[string]string
		key   string
		value string
	}{
		{"producer does not create topics", flat(prod), "allow.auto.create.topics", "false"},
		{"consumer does not create topics", flat(cons), "allow.auto.create.topics", "false"},
		{"acks from the command line", flat(prod), "acks", "1"},
		{"no linger", flat(prod), "linger.ms", "0"},
		{"franz-go's in-flight limit without idempotence", flat(prod), "max.in.flight.requests.per.connection", "1"},
		{"fast metadata refresh", flat(prod), "topic.metadata.refresh.fast.interval.ms", "100"},
		{"consumer never commits", flat(cons), "enable.auto.commit", "false"},
		{"--set over the probe's", flat(cons), "socket.timeout.ms", "20000"},
		{"a group of its own", flat(cons), "group.id", "kbf-probe-r1"},
	} {
		if got := tt.conf[tt.key]; got != tt.value {
			t.Errorf("%s: %s = %q, want %q", tt.name, tt.key, got, tt.value)
		}
	}
	all, _ := settings(&options{bootstrap: "b:1", acks: "all", runID: "r2"})
	if got := flat(all)["enable.idempotence"]; got != "true" {
		t.Errorf("acks=all: enable.idempotence = %q, want true, as the franz-go and Java probes are", got)
	}
	if got := flat(prod)["enable.idempotence"]; got != "false" {
		t.Errorf("acks=1: enable.idempotence = %q, want false (idempotence needs acks=all)", got)
	}
	off, _ := settings(&options{bootstrap: "b:1", acks: "all", runID: "r3", set: map[string]string{"enable.idempotence": "false"}})
	if got := flat(off)["enable.idempotence"]; got != "false" {
		t.Errorf("--client-set enable.idempotence=false gave %q", got)
	}
	if _, ok := flat(prod)["go.logs.channel.enable"]; ok {
		t.Error("client.json would list the Go binding's own go.* settings")
	}
}

// --command-config's settings reach both clients, under --set, and
// client.json (flat) keeps the protocol and the user but no password and
// no key's place.
func TestCommandConfig(t *testing.T) {
	const password = "pa55-not-in-client-json"
	path := filepath.Join(t.TempDir(), "client.properties")
	sec := map[string]string{
		"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "alice",
		"sasl.password": password, "ssl.ca.location": "/ca.pem", "ssl.key.location": "/client.key",
		"ssl.certificate.location": "/client.pem", "ssl.key.password": password,
	}
	writeProps(t, path, sec)
	o, err := parseArgs([]string{"--out", t.TempDir(), "--command-config", path, "--set", "sasl.username=bob"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	prod, cons := settings(o)
	for _, c := range []struct {
		name string
		conf map[string]string
	}{{"producer", flat(prod)}, {"consumer", flat(cons)}} {
		for key, want := range map[string]string{"security.protocol": "SASL_SSL", "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "bob", "ssl.ca.location": "/ca.pem"} {
			if got := c.conf[key]; got != want {
				t.Errorf("%s: %s = %q, want %q", c.name, key, got, want)
			}
		}
		for _, key := range []string{"sasl.password", "ssl.key.password", "ssl.key.location", "ssl.certificate.location"} {
			if _, ok := c.conf[key]; ok {
				t.Errorf("%s: client.json would hold %s", c.name, key)
			}
		}
	}
	if prod["sasl.password"] != password {
		t.Errorf("the producer was not given the password")
	}
	if _, err := parseArgs([]string{"--out", t.TempDir(), "--command-config", filepath.Join(t.TempDir(), "none")}, io.Discard); err == nil || !strings.HasPrefix(err.Error(), "--command-config: ") {
		t.Errorf("a missing file: %v, want a --command-config error", err)
	}
}

// writeProps writes m as kafkasec.WriteProperties does: keys sorted,
// '=', ':' and backslashes escaped, non-ASCII as \uXXXX.
func writeProps(t *testing.T, path string, m map[string]string) {
	t.Helper()
	esc := strings.NewReplacer(`\`, `\\`, "=", `\=`, ":", `\:`, "é", `\u00E9`, "😀", `\uD83D\uDE00`)
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(m)) {
		b.WriteString(esc.Replace(k) + "=" + esc.Replace(m[k]) + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadProperties(t *testing.T) {
	tests := []struct {
		name    string
		m       map[string]string
		text    string // written as it is when m is nil
		wantErr string
	}{
		{name: "escapes", m: map[string]string{"sasl.password": `p=a:s\s é😀`, "ssl.ca.location": "/a b/ca.pem"}},
		{name: "comments and blank lines", text: "# c\n\n! c\nk=v\n", m: nil},
		{name: "no equals", text: "k\n", wantErr: ":1: no '='"},
		{name: "cut unicode", text: "k=\\u00\n", wantErr: ":1: a \\u escape is cut short"},
		{name: "trailing backslash", text: "k=v\\\n", wantErr: ":1: a '\\' ends the line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.properties")
			if tt.text == "" {
				writeProps(t, path, tt.m)
			} else if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readProperties(path)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case tt.text != "":
				if got["k"] != "v" || len(got) != 1 {
					t.Errorf("got %v, want k=v", got)
				}
			case !maps.Equal(got, tt.m):
				t.Errorf("got %q, want %q", got, tt.m)
			}
		})
	}
}
