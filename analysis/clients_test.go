package analysis

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// addClient makes the recorded SIGKILL trial a two-client one: a copy of
// the franz-go probe's records as another client's, with partition 0's
// acks after the fault held back until lag after its first one, and a
// client.log that learns the new leader just before.
func addClient(t *testing.T, trial, name string, lag time.Duration) {
	t.Helper()
	dir := results.ClientDir(trial, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	trials, err := results.Find(trial)
	if err != nil {
		t.Fatal(err)
	}
	src := trials[0]
	firstAck := time.Date(2026, 11, 30, 16, 42, 18, 239000000, time.UTC) // p0's, in outputs/sigkill.txt.golden
	held := firstAck.Add(lag)
	dec, err := src.OpenProbe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var buf bytes.Buffer
	enc := results.NewEncoder(&buf)
	var m results.Message
	for {
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if m.Partition == 0 && !m.Acked.Before(firstAck.Add(-time.Millisecond)) && m.Acked.Before(held) {
			m.Acked = held
			if m.Received.Before(held) {
				m.Received = held
			}
		}
		enc.Encode(&m)
	}
	if err := enc.Flush(); err != nil {
		t.Fatal(err)
	}
	write := func(file string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(results.ProbeFile, buf.Bytes())
	logCSV, err := os.ReadFile(src.Log)
	if err != nil {
		t.Fatal(err)
	}
	write(results.LogFile, logCSV)
	learnt := held.Add(-5 * time.Millisecond).Format(time.RFC3339Nano)
	write(results.ClientLog, []byte(
		learnt+" DEBUG producer BROKER [thrd:main]: orders [1]: leader 2 epoch 0 -> leader 2 epoch 0\n"+
			learnt+" DEBUG producer BROKER [thrd:main]: orders [0]: leader 1 epoch 0 -> leader 2 epoch 1\n"))
	meta := *src.Meta
	meta.Probe.Client = map[string]string{"client": name + " 2.11.1", "retry.backoff.ms": "100", "request.timeout.ms": "10000"}
	if err := results.WriteMeta(dir, &meta); err != nil {
		t.Fatal(err)
	}
}

func TestClientsSideBySide(t *testing.T) {
	for _, tc := range []struct {
		name string
		lag  time.Duration
	}{
		{name: "librdkafka later by 300ms", lag: 300 * time.Millisecond},
		{name: "librdkafka later by 1.2s", lag: 1200 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trial := unpack(t, "sigkill.tar.gz")
			addClient(t, trial, "librdkafka", tc.lag)
			tr := analyze(t, trial)
			if len(tr.Clients) != 2 || tr.Clients[0].Name != FranzGo || tr.Clients[1].Name != "librdkafka" {
				t.Fatalf("clients %+v, want franz-go and librdkafka", tr.Clients)
			}
			fg, lk := tr.Clients[0], tr.Clients[1]
			if lk.Err != "" {
				t.Fatalf("librdkafka not analysed: %s", lk.Err)
			}
			if lk.Audit == nil || lk.Audit.Lost != 0 || lk.Audit.Acknowledged != fg.Audit.Acknowledged {
				t.Errorf("librdkafka audit %+v, want franz-go's acknowledged count %d and nothing lost", lk.Audit, fg.Audit.Acknowledged)
			}
			p0 := func(cr ClientResult) ClientPartition {
				for _, cp := range cr.Partitions {
					if cp.Partition == 0 {
						return cp
					}
				}
				t.Fatalf("%s: no partition 0", cr.Name)
				return ClientPartition{}
			}
			if d := p0(lk).Ack - p0(fg).Ack; d < tc.lag-2*time.Millisecond || d > tc.lag+2*time.Millisecond {
				t.Errorf("librdkafka's p0 ack stall is %v longer than franz-go's, want %v", d, tc.lag)
			}
			if p0(lk).Role != results.RoleLed {
				t.Errorf("librdkafka's p0 role %s, want %s", p0(lk).Role, results.RoleLed)
			}
			if got, want := p0(lk).Learnt, p0(fg).Learnt.Add(tc.lag-5*time.Millisecond); got.Sub(want).Abs() > 2*time.Millisecond {
				t.Errorf("librdkafka learnt the leader at %v, want about %v, from its own client.log", got, want)
			}
			var d0 *ClientDiff
			for i := range tr.ClientDiffs {
				if tr.ClientDiffs[i].Partition == 0 {
					d0 = &tr.ClientDiffs[i]
				}
			}
			if d0 == nil || d0.Longest != "librdkafka" || d0.Shortest != FranzGo || !strings.Contains(d0.Why, "learnt the new leader") {
				t.Errorf("p0 difference %+v, want librdkafka longest, explained by its client phase", d0)
			}
			var text bytes.Buffer
			if err := WriteText(&text, tr); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "clients side by side") || !strings.Contains(text.String(), "retry.backoff.ms=100") {
				t.Errorf("text has no clients section with the settings:\n%s", text.String())
			}
		})
	}
}

func TestClientsSummary(t *testing.T) {
	var trials []*Trial
	for _, lag := range []time.Duration{100 * time.Millisecond, 400 * time.Millisecond} {
		trial := unpack(t, "sigkill.tar.gz")
		addClient(t, trial, "librdkafka", lag)
		trials = append(trials, analyze(t, trial))
	}
	s := Summarize(trials)
	var led *ClientSummary
	for i := range s.Clients {
		if s.Clients[i].Client == "librdkafka" && s.Clients[i].Role == results.RoleLed {
			led = &s.Clients[i]
		}
	}
	if led == nil {
		t.Fatalf("no librdkafka leader row in %+v", s.Clients)
	}
	fg := trials[0].Clients[0].Partitions[0].Ack // franz-go's p0, the same in both trials
	if got := led.Ack.Max - led.Ack.Min; got < 299*time.Millisecond || got > 301*time.Millisecond {
		t.Errorf("librdkafka's leader ack range %v, want the lags' 300ms apart", led.Ack)
	}
	if led.Ack.Min < fg {
		t.Errorf("librdkafka's shortest leader stall %v is shorter than franz-go's %v", led.Ack.Min, fg)
	}
	var b bytes.Buffer
	if err := WriteSummaryText(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "clients side by side") {
		t.Errorf("summary has no clients:\n%s", b.String())
	}
}

// TestDiffClientsResolution checks that a difference below the probes'
// resolution is no measurable difference, and one at it or above is.
func TestDiffClientsResolution(t *testing.T) {
	const res = 20 * time.Millisecond
	learnt := time.Date(2026, 11, 30, 16, 42, 18, 0, time.UTC)
	for _, tc := range []struct {
		name       string
		fg, other  ClientPartition
		measurable bool
		why        string
		longest    string
	}{
		{name: "equal", fg: ClientPartition{Ack: time.Second}, other: ClientPartition{Ack: time.Second},
			why: "the same stall", longest: FranzGo},
		{name: "2ms apart", fg: ClientPartition{Ack: time.Second}, other: ClientPartition{Ack: time.Second + 2*time.Millisecond},
			why: "no measurable difference", longest: "java"},
		{name: "just below", fg: ClientPartition{Ack: time.Second}, other: ClientPartition{Ack: time.Second + res - 1},
			why: "no measurable difference", longest: "java"},
		{name: "at the resolution", fg: ClientPartition{Ack: time.Second}, other: ClientPartition{Ack: time.Second + res},
			measurable: true, why: "not in learning the leader", longest: "java"},
		{name: "learnt later", fg: ClientPartition{Ack: time.Second, Learnt: learnt},
			other:      ClientPartition{Ack: 2 * time.Second, Learnt: learnt.Add(900 * time.Millisecond)},
			measurable: true, why: "java learnt the new leader 0.90 s after franz-go", longest: "java"},
		{name: "open, barely longer", fg: ClientPartition{Ack: time.Second}, other: ClientPartition{Ack: time.Second + time.Millisecond, Open: true},
			measurable: true, why: "had no ack after the fault", longest: "java"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fg.Role, tc.other.Role = results.RoleFollowed, results.RoleFollowed
			ds := diffClients([]ClientResult{
				{Name: FranzGo, Partitions: []ClientPartition{tc.fg}},
				{Name: "java", Partitions: []ClientPartition{tc.other}},
			}, res)
			if len(ds) != 1 {
				t.Fatalf("%d diffs, want 1", len(ds))
			}
			d := ds[0]
			if d.Measurable != tc.measurable || !strings.Contains(d.Why, tc.why) || d.Longest != tc.longest || d.Resolution != res {
				t.Errorf("diff %+v, want measurable %v, longest %s, why containing %q, resolution %v", d, tc.measurable, tc.longest, tc.why, res)
			}
			var b bytes.Buffer
			tr := &Trial{Gaps: gaps.NewReport(gaps.Options{}), Clients: []ClientResult{{Name: FranzGo, Partitions: []ClientPartition{tc.fg}}, {Name: "java", Partitions: []ClientPartition{tc.other}}}, ClientDiffs: ds}
			if err := WriteText(&b, tr); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "longer than"); got != tc.measurable {
				t.Errorf("text says a difference: %v, want %v:\n%s", got, tc.measurable, b.String())
			}
		})
	}
}

// TestClientsMetaMissing: a client whose meta.json is missing is not judged
// by franz-go's settings, and is said to be; a client the trial's command
// named with no folder of its own is said to be missing.
func TestClientsMetaMissing(t *testing.T) {
	trial := unpack(t, "sigkill.tar.gz")
	addClient(t, trial, "librdkafka", 300*time.Millisecond)
	if err := os.Remove(filepath.Join(results.ClientDir(trial, "librdkafka"), results.MetaFile)); err != nil {
		t.Fatal(err)
	}
	trials, err := results.Find(trial)
	if err != nil {
		t.Fatal(err)
	}
	meta := *trials[0].Meta
	meta.Command = []string{"kbf", "run", "--fault", "sigkill", "--clients", "franz-go,librdkafka,java"}
	if err := results.WriteMeta(trial, &meta); err != nil {
		t.Fatal(err)
	}
	tr := analyze(t, trial)
	if len(tr.Clients) != 2 || !tr.Clients[1].MetaMissing || tr.Clients[1].Trial == nil {
		t.Fatalf("clients %+v, want librdkafka analysed with its meta missing", tr.Clients)
	}
	if c := tr.Clients[1].Trial.Meta.Probe.Client; len(c) != 0 {
		t.Errorf("librdkafka's settings %v: franz-go's taken for its", c)
	}
	for _, want := range []string{"client librdkafka: clients/librdkafka/meta.json is missing", "client java: named by --clients, but clients/java holds no probe.csv"} {
		if !strings.Contains(strings.Join(tr.Notes, "\n"), want) {
			t.Errorf("notes %q: none says %q", tr.Notes, want)
		}
	}
	fs := tr.Findings
	if len(fs) != 2 || !fs[1].SettingsUnknown || fs[1].Idempotent {
		t.Errorf("findings %+v, want librdkafka's settings unknown", fs)
	}
}

func TestFindingSettingsUnknown(t *testing.T) {
	for _, tc := range []struct {
		name   string
		f      Finding
		broken bool
		say    string
	}{
		{name: "duplicate, idempotent", f: Finding{Client: "librdkafka", Acks: "all", Idempotent: true, Duplicated: 1}, broken: true, say: "1 duplicated by an idempotent producer"},
		{name: "duplicate, settings unknown", f: Finding{Client: "librdkafka", Acks: "all", SettingsUnknown: true, Duplicated: 1}, say: "idempotence unknown"},
		{name: "loss under acks=all, settings unknown", f: Finding{Client: "librdkafka", Acks: "all", SettingsUnknown: true, Lost: 1}, broken: true, say: "1 lost under acks=all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.f.Broken() != tc.broken || !strings.Contains(tc.f.String(), tc.say) {
				t.Errorf("Broken %v, %q; want %v and %q", tc.f.Broken(), tc.f.String(), tc.broken, tc.say)
			}
		})
	}
}
