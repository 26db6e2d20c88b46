// Command scaletrial writes a synthetic trial of any size (testtrial.Scale)
// into a directory, for measuring kbf report on more rows than a recorded
// trial holds:
//
//	go run ./internal/testsupport/testtrial/scaletrial -partitions 1000 -rows 5000000 -duration 10m DIR
//
// It writes DIR/trial-01 and prints its path.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kbf-project/kbf/internal/testsupport/testtrial"
)

func main() {
	var s testtrial.Scale
	flag.IntVar(&s.Partitions, "partitions", 1000, "probed partitions")
	flag.IntVar(&s.Rows, "rows", 5_000_000, "rows of probe.csv in all")
	flag.DurationVar(&s.Duration, "duration", 10*time.Minute, "from the first send to the last")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: scaletrial [flags] DIR")
		os.Exit(2)
	}
	dir, err := s.Write(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaletrial:", err)
		os.Exit(1)
	}
	fmt.Println(dir)
}
