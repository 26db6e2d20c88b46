package benchfile_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/kbf-project/kbf/benchfile"
)

// A trial's leader line as kbf bench writes it, the units first.
func ExampleWriter() {
	w := benchfile.NewWriter(os.Stdout)
	w.Units(benchfile.Metrics[:2])
	w.Write(benchfile.Line{
		Config:  [][2]string{{"kafka-version", "4.3.1"}, {benchfile.ConfigAcks, "all"}, {benchfile.ConfigProbeInterval, "20ms"}},
		Variant: "scenario=sigkill", Role: benchfile.RoleLeader,
		Values: map[string]float64{"ack-stall-sec": 8.7364, "lost-acked-records": 0},
	})
	// Output:
	// Unit ack-stall-sec better=lower
	// Unit receive-stall-sec better=lower
	// kafka-version: 4.3.1
	// acks: all
	// probe-interval: 20ms
	//
	// BenchmarkFailover/scenario=sigkill/role=leader 1 8.736 ack-stall-sec 0 lost-acked-records
}

// Reading converts a duration in other units of time to seconds, and
// stops at a value that cannot be a measurement, with its line.
func ExampleReader() {
	in := `probe-interval: 20ms

BenchmarkFailover/scenario=sigkill/role=follower 1 4.5 first-ack-ms
BenchmarkFailover/scenario=sigkill/role=follower 1 NaN first-ack-sec
`
	r := benchfile.NewReader(strings.NewReader(in), "bench.txt")
	for r.Scan() {
		res := r.Result()
		for _, v := range res.Values {
			fmt.Println(res.Role, v.Metric.Name, v.Value, "s; probe interval", res.ProbeInterval)
		}
	}
	fmt.Println(r.Err())
	// Output:
	// follower first_ack 0.0045 s; probe interval 20ms
	// bench.txt:4: Failover/scenario=sigkill/role=follower: first-ack-sec NaN: not a measurement: a duration
}
