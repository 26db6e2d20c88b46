package bench_test

import (
	"os"

	"github.com/kbf-project/kbf/bench"
)

// A trial's metrics as bench.txt gives them to benchstat: the units
// declared better=lower, the configuration, then a line per role.
func ExampleSet_WriteText() {
	kill := bench.Variant{Scenario: bench.Scenario{Name: "sigkill", Fault: "sigkill"}}
	set := &bench.Set{Env: bench.Env{{"client", "franz-go"}}, Cores: 2, Records: []bench.Record{{
		Trial: bench.Trial{Variant: kill, Rep: 1},
		M: &bench.Measurement{Valid: true, Roles: map[string]map[string]float64{
			bench.RoleLeader:   {"ack-stall-sec": 8.736, "detect-sec": 8.418, "after-detect-sec": 0.244, "lost-acked-records": 0},
			bench.RoleFollower: {"ack-stall-sec": 8.553, "detect-sec": 8.418, "after-detect-sec": 0.062, "lost-acked-records": 0},
		}},
	}}}
	set.WriteText(os.Stdout)
	// Output:
	// Unit ack-stall-sec better=lower
	// Unit receive-stall-sec better=lower
	// Unit detect-sec better=lower
	// Unit elect-sec better=lower
	// Unit client-sec better=lower
	// Unit first-ack-sec better=lower
	// Unit after-detect-sec better=lower
	// Unit from-heartbeat-sec better=lower
	// Unit lost-acked-records better=lower
	// client: franz-go
	// cores: 2
	// acks: all
	//
	// BenchmarkFailover/scenario=sigkill/role=leader 1 8.736 ack-stall-sec 8.418 detect-sec 0.244 after-detect-sec 0 lost-acked-records
	// BenchmarkFailover/scenario=sigkill/role=follower 1 8.553 ack-stall-sec 8.418 detect-sec 0.062 after-detect-sec 0 lost-acked-records
}
