package report

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/internal/testtrial"
	"github.com/kbf-project/kbf/results"
)

// recordedTrials returns every trial recorded under a testdata directory of
// the module: the directories holding a meta.json and the archives of
// them, unpacked into a temporary directory.
func recordedTrials(t *testing.T) map[string]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]string{} // the trial's directory → its name
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		if !strings.Contains(path, string(filepath.Separator)+"testdata"+string(filepath.Separator)) || d.IsDir() {
			return nil
		}
		switch {
		case d.Name() == results.MetaFile:
			name, _ := filepath.Rel(root, filepath.Dir(path))
			dirs[filepath.Dir(path)] = name
		case strings.HasSuffix(d.Name(), ".tar.gz"):
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			dst := t.TempDir()
			if err := testtrial.Untar(f, dst); err != nil {
				return err
			}
			found, err := results.Find(dst)
			if err != nil {
				return err
			}
			name, _ := filepath.Rel(root, path)
			for _, tr := range found {
				dirs[tr.Dir] = name + ":" + filepath.Base(tr.Dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestCheckRecordedTrials runs the check of explanations against their
// evidence over every recorded trial: the analysis must never have needed
// to drop an explanation, since a dropped one is a bug of its own.
func TestCheckRecordedTrials(t *testing.T) {
	dirs := recordedTrials(t)
	if len(dirs) < 10 {
		t.Fatalf("found %d recorded trials, want the ten or more under testdata", len(dirs))
	}
	checked, wrong := 0, 0
	for dir, name := range dirs {
		trials, err := results.Find(dir)
		if err != nil {
			// A recorded timeline without its probe CSV has no stall to
			// explain.
			t.Logf("%s: %v", name, err)
			continue
		}
		for _, rt := range trials {
			tr, err := Analyze(rt, Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checked++
			var vs []Violation
			for _, st := range tr.Stalls {
				vs = append(vs, st.Violations...)
			}
			vs = append(vs, tr.CheckExplanations()...)
			for _, n := range tr.Notes {
				if strings.Contains(n, "failed the check") {
					vs = append(vs, Violation{Partition: -1, What: n})
				}
			}
			if len(vs) > 0 {
				wrong++
				for _, v := range vs {
					t.Errorf("%s: %s", name, v)
				}
			}
		}
	}
	t.Logf("checked %d recorded trials, %d wrong", checked, wrong)
	if checked < 9 {
		t.Errorf("checked %d recorded trials, want the nine with a probe CSV", checked)
	}
}

