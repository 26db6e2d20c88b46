package clients

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMaskInfo(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		hidden   []string // what must be gone
		kept     []string
	}{
		{name: "a setting the probe did not know to leave out",
			in:     `{"client": "java", "run_id": "r1", "producer": {"acks": "all", "sasl.oauthbearer.assertion.private.key.passphrase": "pp-4e1"}, "consumer": {"my.app.secret": "cs-9a0"}}`,
			hidden: []string{"pp-4e1", "cs-9a0"},
			kept:   []string{`"run_id": "r1"`, `"acks": "all"`, `"client": "java"`, `"sasl.oauthbearer.assertion.private.key.passphrase": "[hidden]"`}},
		{name: "no secret: untouched",
			in:   `{"client":"librdkafka","producer":{"acks":"all"},"consumer":{}}`,
			kept: []string{`{"client":"librdkafka","producer":{"acks":"all"},"consumer":{}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, InfoFile), []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := MaskInfo(dir); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, InfoFile))
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range tc.hidden {
				if bytes.Contains(b, []byte(h)) {
					t.Errorf("client.json still holds %s:\n%s", h, b)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(string(b), k) {
					t.Errorf("client.json lost %s:\n%s", k, b)
				}
			}
			if _, err := ReadInfo(dir); err != nil {
				t.Errorf("ReadInfo after MaskInfo: %v", err)
			}
		})
	}
}
