package analysis

import (
	"testing"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
)

// TestEmptyReadBack: a read-back of no row while the probe read records is
// damaged evidence, except after a power loss, whose trial measures just
// that emptying (the audit beside the flush settings answers it).
func TestEmptyReadBack(t *testing.T) {
	read := &gaps.Report{Partitions: []gaps.Partition{{Partition: 0, Received: 900}}}
	empty := &integrity.Report{}
	for _, tc := range []struct {
		name    string
		in      *integrity.Report
		g       *gaps.Report
		f       *results.Fault
		damaged bool
	}{
		{"sigkill", empty, read, &results.Fault{Kind: results.FaultSIGKILL}, true},
		{"no fault recorded", empty, read, nil, true},
		{"power loss", empty, read, &results.Fault{Kind: results.FaultPowerLoss}, false},
		{"records read back", &integrity.Report{Counts: integrity.Counts{Logged: 10}}, read, &results.Fault{Kind: results.FaultSIGKILL}, false},
		{"the probe read nothing", empty, &gaps.Report{}, &results.Fault{Kind: results.FaultSIGKILL}, false},
		{"no audit", nil, read, &results.Fault{Kind: results.FaultSIGKILL}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := emptyReadBack(tc.in, tc.g, tc.f)
			if got := len(ns) == 1 && ns[0].damaged; got != tc.damaged {
				t.Errorf("damaged %v (%+v), want %v", got, ns, tc.damaged)
			}
		})
	}
}
