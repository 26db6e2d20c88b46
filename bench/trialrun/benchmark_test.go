package trialrun

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kbf-project/kbf/bench"
)

// TestBenchmark: the benchmark runs the file's trials into its directory
// on a runner of the options; trials side by side are named in the
// environment lines, and warned of on a machine without the cores.
func TestBenchmark(t *testing.T) {
	for _, parallel := range []int{0, 1, 2, 4} {
		t.Run(fmt.Sprint("parallel ", parallel), func(t *testing.T) {
			var log bytes.Buffer
			o := base()
			o.Parallel, o.Log = parallel, &log
			f := &bench.File{Trials: 1}
			b, closing := o.Benchmark(f, bench.All, "out", &bytes.Buffer{})
			defer closing()
			if b.File != f || b.Shard != bench.All || b.Dir != "out" || b.Parallel != parallel || b.Cores != runtime.NumCPU() {
				t.Errorf("bench %+v", b)
			}
			if r, ok := b.Runner.(*Runner); !ok || r.opt.Parallel != parallel {
				t.Errorf("runner %#v: want a trialrun.Runner of the options", b.Runner)
			}
			named := slices.Contains(b.Env, [2]string{"parallel", fmt.Sprint(parallel)})
			if named != (parallel > 1) {
				t.Errorf("env %v: parallel named %v, want %v", b.Env, named, parallel > 1)
			}
			warned := strings.Contains(log.String(), "the clusters share them")
			if want := parallel > 1 && runtime.NumCPU() < 2*parallel; warned != want {
				t.Errorf("warned %v, want %v: %q", warned, want, log.String())
			}
		})
	}
}
