package analysis

import (
	"strings"
	"testing"

	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

func TestPowerLoss(t *testing.T) {
	logged := func(msgs string) *nodeConfigs {
		c := &nodeConfigs{logged: map[string]nodeConfig{}}
		for _, b := range []string{"k1", "k2", "k3"} {
			c.logged[b] = nodeConfig{cfg: &timeline.NodeConfig{Node: b, File: b + "/server.log", Values: map[string]timeline.ConfigValue{
				flushMessages: {Value: msgs, Line: 120}, flushMs: {Value: "null", Line: 121}, "min.insync.replicas": {Value: "2", Line: 140},
			}}}
		}
		return c
	}
	unknown := &nodeConfigs{logged: map[string]nodeConfig{}}
	for _, b := range []string{"k1", "k2", "k3"} {
		unknown.logged[b] = nodeConfig{err: timeline.ErrNoConfig}
	}
	in := &integrity.Report{Partitions: []integrity.Partition{{Partition: 0, Counts: integrity.Counts{Lost: 7}}, {Partition: 1}}}
	in.Acknowledged, in.Lost = 100, 7
	for _, tc := range []struct {
		name    string
		lost    []string
		configs *nodeConfigs
		broken  bool
		want    string // in the finding's line
	}{
		{name: "every broker, the default flush", lost: []string{"k1", "k2", "k3"}, configs: logged("9223372036854775807"),
			want: "not a finding: every broker (k1, k2, k3) lost power at once, and k1's log.flush.interval.messages=9223372036854775807"},
		{name: "every broker, every record fsynced", lost: []string{"k1", "k2", "k3"}, configs: logged("1"), broken: true,
			want: "FINDING, 7 lost under acks=all"},
		{name: "one broker", lost: []string{"k1"}, configs: logged("9223372036854775807"), broken: true,
			want: "power lost on k1 alone, the other brokers keeping theirs"},
		{name: "settings unknown", lost: []string{"k1", "k2", "k3"}, configs: unknown, broken: true,
			want: "log.flush.interval.messages=unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &results.Meta{
				Cluster: results.Cluster{Brokers: map[string]int32{"k1": 1, "k2": 2, "k3": 3}},
				Fault:   &results.Fault{Broker: "k1", Kind: results.FaultPowerLoss, Disk: &results.DiskFault{Brokers: tc.lost}},
			}
			pl := powerLossOf(t.TempDir(), m, tc.configs, in)
			if pl == nil || len(pl.Lost) != 2 || pl.Lost[0].Lost != 7 {
				t.Fatalf("power loss %+v", pl)
			}
			fs := powerLossFindings(Findings{{Client: FranzGo, Acks: "all", Idempotent: true, Acknowledged: 100, Lost: 7}}, pl)
			if got := fs.Fail(); got != tc.broken {
				t.Errorf("Fail() = %v, want %v: %s", got, tc.broken, fs[0])
			}
			if s := fs[0].String(); !strings.Contains(s, tc.want) || !strings.Contains(s, "acknowledged records lost by partition: p0 7, p1 0") {
				t.Errorf("finding %q, want %q and the partitions' losses", s, tc.want)
			}
			if s := fs[0].String(); strings.Count(s, "k1's log.flush.interval.messages=") != 1 {
				t.Errorf("finding %q names k1's flush setting more than once", s)
			}
		})
	}
	if pl := powerLossOf("", &results.Meta{Fault: &results.Fault{Kind: results.FaultSIGKILL}}, nil, in); pl != nil {
		t.Errorf("a sigkill judged as a power loss: %+v", pl)
	}
}
