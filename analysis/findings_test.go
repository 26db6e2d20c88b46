package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/results"
)

func TestFindingBroken(t *testing.T) {
	for _, tc := range []struct {
		name   string
		f      Finding
		broken bool
		// allowed: the finding says a count is allowed by the settings.
		allowed bool
	}{
		{name: "clean", f: Finding{Acks: "all", Idempotent: true}},
		{name: "lost under acks=all", f: Finding{Acks: "all", Idempotent: true, Lost: 1}, broken: true},
		{name: "lost under acks=all, not idempotent", f: Finding{Acks: "all", Lost: 2}, broken: true},
		{name: "lost under acks=1", f: Finding{Acks: "1", Lost: 3}, allowed: true},
		{name: "duplicated, idempotent", f: Finding{Acks: "all", Idempotent: true, Duplicated: 1}, broken: true},
		{name: "reordered, idempotent", f: Finding{Acks: "all", Idempotent: true, Reordered: 1}, broken: true},
		{name: "duplicated, not idempotent", f: Finding{Acks: "all", Duplicated: 1}, allowed: true},
		{name: "reordered, not idempotent", f: Finding{Acks: "all", Reordered: 4}, allowed: true},
		{name: "lost under acks=all and duplicated, not idempotent", f: Finding{Acks: "all", Lost: 1, Duplicated: 1}, broken: true, allowed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Client = "c"
			if got := tc.f.Broken(); got != tc.broken {
				t.Errorf("Broken() = %v, want %v", got, tc.broken)
			}
			if got := (Findings{{Client: "clean", Acks: "all"}, tc.f}).Fail(); got != tc.broken {
				t.Errorf("Fail() = %v, want %v", got, tc.broken)
			}
			s := tc.f.String()
			if strings.Contains(s, "FINDING") != tc.broken || strings.Contains(s, "not a finding") != tc.allowed {
				t.Errorf("String() = %q: want FINDING %v, not a finding %v", s, tc.broken, tc.allowed)
			}
			if why := (Findings{tc.f}).Why(); (why != "") != tc.broken || (tc.broken && !strings.HasPrefix(why, "c: ")) {
				t.Errorf("Why() = %q", why)
			}
		})
	}
}

func TestPromises(t *testing.T) {
	for _, tc := range []struct {
		name     string
		client   string
		probe    results.Probe
		wantAcks string
		wantIdem bool
	}{
		{"franz-go as recorded", FranzGo, results.Probe{Acks: "all", Client: map[string]string{"idempotent": "true"}}, "all", true},
		{"franz-go acks=1", FranzGo, results.Probe{Acks: "1", Client: map[string]string{"idempotent": "false"}}, "1", false},
		{"franz-go without the setting", FranzGo, results.Probe{Acks: "all"}, "all", true},
		{"franz-go without the setting, acks=1", FranzGo, results.Probe{Acks: "1"}, "1", false},
		{"no acks recorded: kbf's default", FranzGo, results.Probe{}, "all", true},
		{"librdkafka as recorded", "librdkafka", results.Probe{Acks: "all", Client: map[string]string{"enable.idempotence": "false"}}, "all", false},
		{"librdkafka idempotent", "librdkafka", results.Probe{Acks: "all", Client: map[string]string{"enable.idempotence": "true"}}, "all", true},
		{"librdkafka without the setting", "librdkafka", results.Probe{Acks: "all"}, "all", false},
		{"java as recorded", "java", results.Probe{Acks: "all", Client: map[string]string{"enable.idempotence": "true"}}, "all", true},
		{"java without the setting, acks=1", "java", results.Probe{Acks: "1"}, "1", false},
		{"a client kbf does not know", "other", results.Probe{Acks: "all"}, "all", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			acks, idem := promises(tc.client, tc.probe)
			if acks != tc.wantAcks || idem != tc.wantIdem {
				t.Errorf("promises = acks %q idempotent %v, want %q %v", acks, idem, tc.wantAcks, tc.wantIdem)
			}
		})
	}
}

// TestDigestFindings checks that the digest of a trial of several clients
// shows each client's audit, and says which client found what and whether
// it fails the trial.
func TestDigestFindings(t *testing.T) {
	for _, tc := range []struct {
		name       string
		idempotent string // librdkafka's enable.idempotence
		fail       bool
		want       string
	}{
		{name: "a duplicate from a producer not idempotent", idempotent: "false",
			want: "librdkafka: 4503 acknowledged, 0 lost, 1 duplicated, 0 reordered (acks=all, not idempotent); not a finding"},
		{name: "a duplicate from an idempotent producer", idempotent: "true", fail: true,
			want: "librdkafka: 4503 acknowledged, 0 lost, 1 duplicated, 0 reordered (acks=all, idempotent): FINDING, 1 duplicated by an idempotent producer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trial := unpack(t, "sigkill.tar.gz")
			addClient(t, trial, "librdkafka", 0)
			dir := results.ClientDir(trial, "librdkafka")
			m, err := results.ReadMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			m.Probe.Client["enable.idempotence"] = tc.idempotent
			if err := results.WriteMeta(dir, m); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(filepath.Join(dir, results.LogFile), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			// p1's seq 100 written again at the partition's end.
			if _, err := f.WriteString("1,1501,100\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			tr := analyze(t, trial)
			if got := tr.Findings.Fail(); got != tc.fail {
				t.Errorf("Fail() = %v, want %v: %v", got, tc.fail, tr.Findings)
			}
			var b bytes.Buffer
			if err := (TextOptions{}).WriteDigest(&b, tr); err != nil {
				t.Fatal(err)
			}
			d := b.String()
			var full bytes.Buffer
			if err := WriteText(&full, tr); err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"audit, per client", "franz-go: 4503 acknowledged, 0 lost, 0 duplicated, 0 reordered (acks=all, idempotent)\n", tc.want} {
				if !strings.Contains(d, s) {
					t.Errorf("digest does not say %q:\n%s", s, d)
				}
				if !strings.Contains(full.String(), s) {
					t.Errorf("full report does not say %q", s)
				}
			}
		})
	}
}
