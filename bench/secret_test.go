package bench

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"github.com/kbf-project/kbf/analysis"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretRunner fails its first trial with an error that quotes a secret,
// and runs the others as fakeRunner does.
type secretRunner struct {
	fakeRunner
	err error
}

func (r *secretRunner) Trial(ctx context.Context, s Scenario, dir string) (*analysis.Trial, error) {
	if len(r.calls) == 0 {
		r.calls = append(r.calls, "failed")
		return nil, r.err
	}
	return r.fakeRunner.Trial(ctx, s, dir)
}

// TestBenchSecrets plants secrets in every setting a scenario file may
// hold and in a trial's error, and greps every file the benchmark writes.
func TestBenchSecrets(t *testing.T) {
	planted := []string{"jaas-pw-1", "key-pw-2", "client-pw-3", "onready-pw-4", "error-pw-5"}
	f := twoScenarios(2)
	f.Scenarios[0].Config = []string{
		`b1:listener.name.host.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="` + planted[0] + `" user_admin="` + planted[0] + `";`,
		"ssl.key.password=" + planted[1], "broker.session.timeout.ms=9000"}
	f.Scenarios[0].ClientSettings = map[string]map[string]string{"java": {"sasl.jaas.config": `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="` + planted[2] + `";`, "retry.backoff.ms": "50"}}
	f.Scenarios[1].OnReady = "curl -s --data password=" + planted[3] + " http://chaos/kill"
	dir := t.TempDir()
	r := &secretRunner{fakeRunner: fakeRunner{t: t, base: dir}, err: errors.New("kbf run: --config ssl.truststore.password=" + planted[4] + ": refused")}
	if _, err := (&Bench{File: f, Dir: dir, Runner: r}).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, p := range planted {
			if bytes.Contains(b, []byte(p)) {
				t.Errorf("%s holds %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{StateFile, TextFile, JSONFile, MarkdownFile} {
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("no %s: %v", want, err)
		}
	}
	st, _ := os.ReadFile(filepath.Join(dir, StateFile))
	for _, keep := range []string{"broker.session.timeout.ms=9000", `username=\"alice\"`, `"retry.backoff.ms": "50"`, "refused"} {
		if !bytes.Contains(st, []byte(keep)) {
			t.Errorf("%s lost %s", StateFile, keep)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if !strings.Contains(string(md), "ssl.truststore.password=[hidden]") {
		t.Errorf("summary.md does not say why the failed trial did not count, masked:\n%s", md)
	}
	t.Logf("%d files grepped", n)

	// The file is not changed: the runner gets the secrets.
	if !strings.Contains(f.Scenarios[0].Config[1], planted[1]) {
		t.Errorf("Masked changed the file itself: %q", f.Scenarios[0].Config[1])
	}
}

// TestPlanHashWithoutSecrets checks a file that holds no secret hashes as
// before masking was added: a benchmark begun by an older kbf resumes.
func TestPlanHashWithoutSecrets(t *testing.T) {
	f := twoScenarios(2)
	f.Scenarios[0].Config = []string{"broker.session.timeout.ms=9000"}
	f.Scenarios[0].Sweep = &Sweep{Key: "b1:replica.lag.time.max.ms", Values: []string{"10000", "30000"}}
	b, err := json.Marshal(struct {
		F *File
		S string
	}{f, Shard{}.String()})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	got, err := planHash(f, Shard{})
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(h[:]); got != want {
		t.Errorf("planHash = %s, want %s, the hash of the file as it is", got, want)
	}
}
