package benchfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Configuration keys of a shard's bench.txt (kbf bench --shard I/N with N
// over 1), written at the top of the file before anything else, so that a
// shard with no valid trial, and so no result line, still says which it is:
//
//	shard: 2/3
//	plan: 5f0c2a9e61d4b7a3
//
// The plan is the hash of the benchmark's scenario file and trials, the
// same for every shard of one benchmark. A whole benchmark's file has
// neither line.
const (
	ConfigShard = "shard"
	ConfigPlan  = "plan"
)

// ParseShard reads I/N: the I-th of N slices, 1 <= I <= N.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 1 <= I <= N, e.g. 2/3", s)
	}
	return i, n, nil
}

// Origin is the slice of a benchmark a bench.txt holds.
type Origin struct {
	File string
	// I and N are its shard, I-th of N; zero for a whole benchmark.
	I, N int
	// Plan is the benchmark's plan, the same for all its shards.
	Plan string
}

// Sharded reports whether the file is one shard of several.
func (o Origin) Sharded() bool { return o.N > 0 }

func (o Origin) shard() string { return fmt.Sprintf("%d/%d", o.I, o.N) }

// ReadOrigin reads the shard and plan lines bench.txt opens with, stopping
// at its first result line.
func ReadOrigin(path string) (Origin, error) {
	f, err := os.Open(path)
	if err != nil {
		return Origin{}, err
	}
	defer f.Close()
	return readOrigin(f, path)
}

func readOrigin(r io.Reader, path string) (Origin, error) {
	o := Origin{File: path}
	sc := bufio.NewScanner(r)
	written := false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		written = written || strings.TrimSpace(text) != ""
		if strings.HasPrefix(text, "Benchmark") {
			break
		}
		key, val, ok := strings.Cut(text, ":")
		val = strings.TrimSpace(val)
		switch {
		case !ok:
		case key == ConfigShard:
			i, n, err := ParseShard(val)
			if err != nil {
				return o, &ParseError{path, line, err}
			}
			o.I, o.N = i, n
		case key == ConfigPlan:
			o.Plan = val
		}
	}
	if err := sc.Err(); err != nil {
		return o, fmt.Errorf("%s: %w", path, err)
	}
	if !written {
		return o, fmt.Errorf("%s: %w", path, ErrEmpty)
	}
	if o.Sharded() && o.Plan == "" {
		return o, fmt.Errorf("%s: shard %s without its plan line: not kbf bench's", path, o.shard())
	}
	return o, nil
}

// ErrEmpty is a bench.txt with nothing in it: kbf bench writes its units
// and configuration even when no trial was valid, so an empty file is one
// cut short or lost on its way (a CI artifact not uploaded), not a
// benchmark of no valid trial — an error, never "run more".
var ErrEmpty = errors.New("empty: kbf bench writes its units and configuration even when no trial is valid, so this file was cut short or lost on its way (an artifact not uploaded?)")

// ErrShards is a side's shards that do not make one benchmark: of two
// benchmarks, cut two ways, one given twice, or one missing.
var ErrShards = errors.New("shards that do not make one benchmark")

// CheckShards says, in one line, why the shards among origins do not make
// one whole benchmark: shards of different plans (other scenarios,
// settings or trials), cut into different numbers, one given twice
// (its trials would count twice), or one missing. Whole benchmarks'
// files beside them are not shards and pass.
func CheckShards(origins []Origin) error {
	var first *Origin
	have := map[int]string{}
	for i := range origins {
		o := &origins[i]
		if !o.Sharded() {
			continue
		}
		if first == nil {
			first = o
		}
		switch {
		case o.Plan != first.Plan:
			return fmt.Errorf("%w: %s (shard %s) and %s (shard %s) are of different benchmarks (other scenarios, settings or trials); give one benchmark's shards a side",
				ErrShards, first.File, first.shard(), o.File, o.shard())
		case o.N != first.N:
			return fmt.Errorf("%w: %s is shard %s and %s shard %s: one benchmark cut two ways, whose trials overlap",
				ErrShards, first.File, first.shard(), o.File, o.shard())
		case have[o.I] != "":
			return fmt.Errorf("%w: shard %s twice, %s and %s: its trials would count twice",
				ErrShards, o.shard(), have[o.I], o.File)
		}
		have[o.I] = o.File
	}
	if first == nil {
		return nil
	}
	var missing []string
	for i := 1; i <= first.N; i++ {
		if have[i] == "" {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.N))
		}
	}
	if len(missing) > 0 {
		got := make([]int, 0, len(have))
		for i := range have {
			got = append(got, i)
		}
		sort.Ints(got)
		return fmt.Errorf("%w: shard %s missing (given %d of %d, e.g. %s): the benchmark is not whole; give every shard's results",
			ErrShards, strings.Join(missing, ", "), len(have), first.N, have[got[0]])
	}
	return nil
}

// WriteOrigin writes the shard and plan lines a shard's bench.txt opens
// with; nothing for a whole benchmark (n 1). Call it before Units.
func WriteOrigin(w io.Writer, i, n int, plan string) error {
	if n <= 1 {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s: %d/%d\n%s: %s\n", ConfigShard, i, n, ConfigPlan, plan)
	return err
}
