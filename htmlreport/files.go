package htmlreport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/results"
)

// FileName is the page's name in a trial's or a run's directory.
const FileName = results.ReportHTML

// WriteFile writes the page of the trials found at one path (results.Find)
// and analysed (analysis.Analyze, in the same order) to dst, atomically: a
// trial's page for one trial, a run's page for several. It opens each
// trial's probe CSV itself. It stops with ctx's error once ctx is done (a
// long run's page reads every probe CSV again), leaving dst as it was.
func WriteFile(ctx context.Context, dst string, trials []results.Trial, analysed []*analysis.Trial) error {
	if len(trials) != len(analysed) {
		return fmt.Errorf("write %s: %d trials, %d analyses", dst, len(trials), len(analysed))
	}
	var pages []TrialPage
	for i, t := range trials {
		f, err := os.Open(t.Probe)
		if err != nil {
			return fmt.Errorf("write %s: %w", dst, err)
		}
		defer f.Close()
		page := TrialPage{Report: analysed[i], Probe: results.ContextReader(ctx, f), ProbeName: t.Probe}
		if t.Dir != "" {
			rv, err := ReadReplicas(t.Path(results.ReplicasFile), analysed[i])
			if err != nil {
				return fmt.Errorf("write %s: %w", dst, err)
			}
			page.Replicas = rv
			gf, err := os.Open(t.Path(results.GroupEventsFile))
			switch {
			case err == nil:
				defer gf.Close()
				page.GroupEvents, page.GroupEventsName = results.ContextReader(ctx, gf), t.Path(results.GroupEventsFile)
			case !errors.Is(err, fs.ErrNotExist):
				return fmt.Errorf("write %s: %w", dst, err)
			}
		}
		pages = append(pages, page)
	}
	err := results.WriteFileAtomic(dst, func(w io.Writer) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if len(pages) == 1 {
			return WriteTrial(w, pages[0])
		}
		return WriteRun(w, RunPage{Trials: pages})
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return nil
}

// Dest is where `kbf report --html PATH` writes the page of the trials found
// at path: report.html in the trial's directory, or in the run's for
// several trials; beside a bare probe CSV, the CSV's name with .html.
func Dest(path string, trials []results.Trial) string {
	if len(trials) == 1 {
		t := trials[0]
		if t.Dir == "" {
			return strings.TrimSuffix(t.Probe, filepath.Ext(t.Probe)) + ".html"
		}
		return t.Path(FileName)
	}
	return filepath.Join(path, FileName)
}

// ReadReplicas reads what tr's page draws of its replica view
// (results.ReplicasFile), in the page's form: each broker's answers; the
// state rows are not drawn. A trial drawn as a heat map (tr.Condensed)
// draws no chart a partition, so its file is not read, only found: at 2,000
// partitions it held 3.6 million rows. A trial without the file has no
// replica view: nil, and no error.
func ReadReplicas(path string, tr *analysis.Trial) (*ReplicaView, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rv := &ReplicaView{}
	if tr != nil && tr.Condensed() {
		return rv, nil
	}
	d := results.NewReplicaDecoder(f, path)
	for {
		var s results.ReplicaSample
		err := d.Decode(&s)
		if errors.Is(err, io.EOF) {
			return rv, nil
		}
		if err != nil {
			return nil, err
		}
		if s.IsState() || s.Err != "" {
			continue
		}
		rv.Samples = append(rv.Samples, ReplicaSample{Time: s.Time, Partition: s.Partition, Broker: s.Broker, LEO: s.LEO, HW: s.HW})
	}
}
