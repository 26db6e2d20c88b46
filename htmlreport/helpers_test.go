package htmlreport

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/results"
)

// The recorded trials are the report package's: kbf run against a real
// three-broker cluster, a SIGKILL and a SIGTERM of k1, each archive holding
// one directory, trial-01.
// The paths are made absolute before any test changes directory.
var recordedArchives = func() map[string]string {
	m := map[string]string{}
	for _, name := range []string{"sigkill", "sigterm"} {
		p, err := filepath.Abs(filepath.Join("..", "report", "testdata", name+".tar.gz"))
		if err != nil {
			panic(err)
		}
		m[name] = p
	}
	return m
}()

const recordedTrial = "trial-01"

// maxUnpacked bounds what untar writes per file.
const maxUnpacked = 64 << 20

// untar unpacks the gzipped tar r into dst: directories and regular files
// only, and no name that would land outside dst.
func untar(r io.Reader, dst string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(hdr.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("%q: outside the destination", hdr.Name)
		}
		path := filepath.Join(dst, name)
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if hdr.Size > maxUnpacked {
				return fmt.Errorf("%q: %d bytes, more than a test trial holds", hdr.Name, hdr.Size)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return err
			}
			_, err = io.CopyN(f, tr, hdr.Size)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return fmt.Errorf("%q: %w", hdr.Name, err)
			}
		default:
			return fmt.Errorf("%q: entry type %q: only directories and regular files", hdr.Name, hdr.Typeflag)
		}
	}
}

// unpackTrial unpacks the named recorded trial into a new temporary
// directory, makes that the working directory (so that the trial's name is
// the relative trial-01, as in report.json) and analyses it as kbf report
// does.
func unpackTrial(t *testing.T, name string) (results.Trial, *report.Trial) {
	t.Helper()
	f, err := os.Open(recordedArchives[name])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	if err := untar(f, dir); err != nil {
		t.Fatalf("unpack %s: %v", name, err)
	}
	t.Chdir(dir)
	trials, err := results.Find(recordedTrial)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := report.Analyze(trials[0], report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Check(); err != nil {
		t.Fatal(err)
	}
	return trials[0], tr
}

// trialPage opens the trial's probe CSV for a TrialPage; the file is closed
// when the test ends.
func trialPage(t *testing.T, trial results.Trial, tr *report.Trial) TrialPage {
	t.Helper()
	f, err := os.Open(trial.Probe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return TrialPage{Report: tr, Probe: f, ProbeName: trial.Probe}
}

// reportJSON is the trial's report.json as kbf writes it, decoded.
func reportJSON(t *testing.T, tr *report.Trial) any {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteJSON(&b, tr); err != nil {
		t.Fatal(err)
	}
	v, err := decodeJSON(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return v
}
