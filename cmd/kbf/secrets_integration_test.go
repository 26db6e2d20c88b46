//go:build integration

// TestIntegrationSecrets plants known secrets wherever kbf reads settings
// (testdata/secrets.yaml: the PLAIN listener's JAAS line with its users'
// passwords, also in the controller's server.properties; a PASSWORD-typed
// KAFKA_ variable; a Java system property; a variable whose name says
// TOKEN; and the client properties file) and greps every file kbf writes
// for them: a SIGKILL trial by -f, its HTML page, a --fault external trial
// by --bootstrap with its logs by --logs-command, and a benchmark with
// command_config:. Project kbfsecret, ports 29692–29694:
//
//	KBF_IMAGE=kbf/kafka:4.3.1 go test -tags integration ./cmd/kbf/ -run IntegrationSecrets -v -timeout 20m

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/results"
)

// The secrets testdata/secrets.yaml and the client properties plant.
var planted = []string{
	"planted-admin-6c1f", "planted-probe-93ad", "planted-encoder-52be", "planted-opts-0d77", "planted-token-e41a",
	"planted-truststore-7a90", "planted-app-secret-1b3c",
}

func TestIntegrationSecrets(t *testing.T) {
	if os.Getenv("KBF_IMAGE") == "" {
		t.Setenv("KBF_IMAGE", "kbf/kafka:4.3.1")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 18*time.Minute)
	defer cancel()
	file, err := filepath.Abs(filepath.Join("testdata", "secrets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(props, []byte("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"+
		`sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="probe" password="planted-probe-93ad";`+"\n"+
		"ssl.truststore.password=planted-truststore-7a90\nmy.app.secret=planted-app-secret-1b3c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testkafka.Stack{File: file, Project: "kbfsecret", Env: map[string]string{"KBF_IMAGE": os.Getenv("KBF_IMAGE")}}.Start(ctx, t)

	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	kbf := func(args ...string) {
		t.Helper()
		// Exit 3 is the audit's, 6 no valid trial on a loaded machine:
		// either way the files were written.
		from, fromOut := stderr.Len(), stdout.Len()
		code := run(ctx, args, &stdout, &stderr)
		t.Logf("kbf %s: exit %d", args[0], code)
		if code != exitOK {
			t.Logf("its standard error:\n%s", stderr.String()[from:])
			for _, l := range strings.Split(stdout.String()[fromOut:], "\n") {
				if strings.Contains(strings.ToLower(l), "verdict") {
					t.Logf("%s", l)
				}
			}
		}
		if code != exitOK && code != exitNoValid && code != exitFindings {
			t.Fatalf("kbf %v: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, stdout.String(), stderr.String())
		}
	}
	trial := []string{"--command-config", props, "--interval", "50ms", "--baseline-gap", "1500ms", "--baseline-timeout", "3m",
		"--duration", "25s", "--fault-after", "8s"}

	// A trial by -f, as a new user runs one, and its page.
	docker := filepath.Join(out, "docker")
	kbf(append([]string{"run", "-f", file, "--project-name", "kbfsecret", "--broker", "b1", "--fault", "sigkill", "--out", docker}, trial...)...)
	kbf("report", "--html", docker)

	// The same cluster by its addresses, faulted by the test through
	// --on-ready, its logs by --logs-command.
	external := filepath.Join(out, "external")
	kbf(append([]string{"run", "--bootstrap", "localhost:29692,localhost:29693,localhost:29694", "--fault", "external",
		"--on-ready", "docker kill kbfsecret-b2-1 >/dev/null; sleep 6; docker start kbfsecret-b2-1 >/dev/null",
		"--logs-command", "docker logs $(docker ps -aq --filter label=com.docker.compose.project=kbfsecret --filter label=kbf.test.node={id}) 2>&1",
		"--out", external}, trial...)...)
	kbf("report", "--html", external)

	// A benchmark of one trial with command_config:.
	benchFile := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(benchFile, fmt.Appendf(nil, `trials: 1
scenarios:
  - name: sasl
    fault: sigkill
    broker: b1
    compose: %s
    project_name: kbfsecret
    command_config: %s
    duration: 25s
    fault_after: 8s
    interval: 50ms
`, file, props), 0o644); err != nil {
		t.Fatal(err)
	}
	benchDir := filepath.Join(out, "bench")
	kbf("bench", benchFile, "--out", benchDir)

	// What was planted is where kbf reads it: the controller's recorded
	// configuration holds its listener's JAAS line, the principal kept.
	b, err := os.ReadFile(filepath.Join(docker, results.MetaFile))
	if err != nil {
		trials, _ := results.Find(docker)
		if len(trials) == 0 {
			t.Fatal(err)
		}
		b, err = os.ReadFile(filepath.Join(trials[0].Dir, results.MetaFile))
		if err != nil {
			t.Fatal(err)
		}
	}
	var m results.Meta
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	jaas := m.Cluster.Nodes["c1"]["listener.name.host.plain.sasl.jaas.config"]
	if !strings.Contains(jaas, `username="admin"`) || !strings.Contains(jaas, "user_probe="+results.Hidden) {
		t.Errorf("c1's recorded JAAS line %q: want the user name kept and the passwords hidden", jaas)
	}
	if s := m.Probe.Security; s == nil || s.Protocol != "SASL_PLAINTEXT" || s.Mechanism != "PLAIN" || s.Principal != "probe" {
		t.Errorf("meta.json's security %+v, want SASL_PLAINTEXT, PLAIN as probe", s)
	}

	// Every file, every secret: none found.
	files, found := 0, 0
	kinds := map[string]int{}
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		kinds[filepath.Base(path)]++
		for _, p := range planted {
			if n := bytes.Count(b, []byte(p)); n > 0 {
				found += n
				t.Errorf("%s holds %s (%d times)", path, p, n)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range planted {
		if bytes.Contains(stdout.Bytes(), []byte(p)) || bytes.Contains(stderr.Bytes(), []byte(p)) {
			t.Errorf("kbf's output holds %s", p)
		}
	}
	t.Logf("%d files grepped for %d planted secrets: %d found; by name: %v", files, len(planted), found, kinds)
	for _, want := range []string{results.MetaFile, results.ReportJSON, results.ReportFile, results.ReportHTML, "bench.json", "summary.md", results.ServerLog} {
		if kinds[want] == 0 {
			t.Errorf("no %s among the files grepped", want)
		}
	}
}
