package bench

import (
	"strings"
	"testing"
)

// FuzzParse feeds Parse arbitrary files: it must refuse with an error,
// never panic, and a file it accepts must plan every variant's trials.
func FuzzParse(f *testing.F) {
	f.Add(Example)
	f.Add("trials: 2\nscenarios: [{name: a, fault: sigkill, sweep: {key: k, values: [1, 2, 3]}}]\n")
	f.Add("trials: -1\n")
	f.Add("scenarios: {}\n")
	f.Fuzz(func(t *testing.T, in string) {
		file, err := Parse(strings.NewReader(in), "fuzz.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if file.Trials > 1000 {
			return // a plan that large is valid, and only slow to build
		}
		plan := file.Plan()
		if len(plan) != file.Trials*len(file.Variants()) {
			t.Errorf("%d trials planned for %d × %d", len(plan), file.Trials, len(file.Variants()))
		}
		seen := map[string]bool{}
		for _, tr := range plan {
			if seen[tr.ID()] {
				t.Errorf("trial %s planned twice", tr.ID())
			}
			seen[tr.ID()] = true
		}
	})
}
