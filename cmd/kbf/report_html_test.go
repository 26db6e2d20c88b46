package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/kbf-project/kbf/htmlreport"
	"github.com/kbf-project/kbf/results"
)

var pageKind = regexp.MustCompile(`<script type="application/json" id="kbf-data">\{"kind":"(\w+)"`)

func TestReportHTML(t *testing.T) {
	run := t.TempDir()
	for _, trial := range []string{results.TrialDir(1), results.TrialDir(2)} {
		writeTrial(t, filepath.Join(run, trial))
	}
	one := filepath.Join(run, results.TrialDir(1))
	bare := filepath.Join(t.TempDir(), "p.csv")
	csv, err := os.ReadFile(filepath.Join(one, results.ProbeFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bare, csv, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, page, kind string
	}{
		{"a trial: its page in its directory", one, filepath.Join(one, htmlreport.FileName), "trial"},
		{"a run: one page in the run's directory", run, filepath.Join(run, htmlreport.FileName), "run"},
		{"a bare probe CSV: the page beside it", bare, filepath.Join(filepath.Dir(bare), "p.html"), "trial"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var with, without bytes.Buffer
			if err := reportPath(context.Background(), &without, tc.path, reportOptions{format: "text"}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tc.page); err == nil {
				t.Fatalf("%s written without --html", tc.page)
			}
			if err := reportPath(context.Background(), &with, tc.path, reportOptions{format: "text", html: true}); err != nil {
				t.Fatal(err)
			}
			if with.String() != without.String() {
				t.Errorf("--html changed what report prints:\n%s\n---\n%s", with.String(), without.String())
			}
			doc, err := os.ReadFile(tc.page)
			if err != nil {
				t.Fatal(err)
			}
			m := pageKind.FindSubmatch(doc)
			if m == nil || string(m[1]) != tc.kind {
				t.Errorf("%s: not a %s page:\n%.300s", tc.page, tc.kind, doc)
			}
			os.Remove(tc.page)
		})
	}
}
