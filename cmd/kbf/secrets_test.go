package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/results"
)

// TestReportOldSecrets reads a trial whose meta.json an older kbf wrote
// with secrets in it (a controller's JAAS line, a client's password) and
// checks neither kbf report's JSON and text nor its page shows them.
func TestReportOldSecrets(t *testing.T) {
	const pw, user = "old-pw-71f", "old-user-pw-0ae"
	dir := filepath.Join(t.TempDir(), results.TrialDir(1))
	writeTrial(t, dir)
	path := filepath.Join(dir, results.MetaFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["cluster"].(map[string]any)["nodes"] = map[string]any{"c1": map[string]any{
		"listener.name.host.plain.sasl.jaas.config": `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="` + pw + `" user_probe="` + user + `";`,
		"password.encoder.secret":                   pw}}
	raw["probe"].(map[string]any)["client"] = map[string]any{"client": "franz-go", "ssl.key.password": pw}
	raw["command"] = []string{"kbf", "run", "--config", "ssl.keystore.password=" + pw}
	if b, err = json.Marshal(raw); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "text"} {
		var out bytes.Buffer
		if err := reportPath(context.Background(), &out, dir, reportOptions{format: format, html: true, explain: format == "text"}); err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join(dir, htmlreport.FileName))
		if err != nil {
			t.Fatal(err)
		}
		for what, got := range map[string][]byte{"kbf report -o " + format: out.Bytes(), htmlreport.FileName: page} {
			for _, p := range []string{pw, user} {
				if bytes.Contains(got, []byte(p)) {
					t.Errorf("%s holds %s", what, p)
				}
			}
		}
		if format == "json" && !bytes.Contains(out.Bytes(), []byte(`username=\"admin\"`)) {
			t.Errorf("kbf report -o json lost the user name:\n%.2000s", out.String())
		}
	}
}
