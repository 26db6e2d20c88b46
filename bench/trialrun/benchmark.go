package trialrun

import (
	"fmt"
	"io"
	"runtime"

	"github.com/kbf-project/kbf/bench"
)

// Benchmark is the benchmark of kbf bench and kbf tune: f's trials (those
// of shard) run into dir by a Runner of o, whose progress lines go to
// progress; closing takes down what the runner brought up. With
// o.Parallel over 1 the trials run side by side, the environment lines
// say so, and a machine with fewer than two cores a cluster is warned of
// on o.Log: its trials would measure each other.
func (o Options) Benchmark(f *bench.File, shard bench.Shard, dir string, progress io.Writer) (b *bench.Bench, closing func()) {
	runner := New(o)
	env := bench.ClientEnv()
	if o.Parallel > 1 {
		env = append(env, [2]string{"parallel", fmt.Sprint(o.Parallel)})
		if cores := runtime.NumCPU(); cores < 2*o.Parallel {
			fmt.Fprintf(o.Log, "kbf bench: --parallel %d on %d cores: the clusters share them and their trials measure each other; a trial on an overloaded host does not count\n", o.Parallel, cores)
		}
	}
	b = &bench.Bench{
		File:     f,
		Shard:    shard,
		Dir:      dir,
		Runner:   runner,
		Env:      env,
		Progress: progress,
		Cores:    runtime.NumCPU(),
		Parallel: o.Parallel,
	}
	return b, runner.Close
}
