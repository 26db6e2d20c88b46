package analysis

import (
	"strings"
	"testing"

	"github.com/kbf-project/kbf/verdict"
)

// probe1000Archive is kbf probe --interval 100ms --duration 20s on a topic
// of 1,000 partitions on this 2-core machine, kept to its partitions 0–19:
// the probe kept its sends, the cluster took 91 % of the CPUs, and 55 %
// of the records were never acknowledged.
const probe1000Archive = "probe-1000.tar.gz"

// TestAcksBehindRecorded: the recorded run whose acks fell behind its
// sends is not valid, and its verdict names the host's CPUs, taken by the
// cluster, as the floor.
func TestAcksBehindRecorded(t *testing.T) {
	tr := analyze(t, unpack(t, probe1000Archive))
	v := tr.Verdict
	if v == nil || v.Status != verdict.Invalid {
		t.Fatalf("verdict %v, want invalid", v)
	}
	var acks *verdict.Reason
	for i := range v.Reasons {
		if v.Reasons[i].Kind == verdict.AcksBehind {
			acks = &v.Reasons[i]
		}
	}
	if acks == nil {
		t.Fatalf("verdict %v, want %s", v, verdict.AcksBehind)
	}
	for _, w := range []string{"1816 of the 3300 records sent after the probe's start-up were never acknowledged",
		"the floor is the host's CPUs, taken mostly by the cluster (k1 the most at 31%)"} {
		if !strings.Contains(acks.Detail, w) {
			t.Errorf("%q does not say %q", acks.Detail, w)
		}
	}
	if !tr.Condensed() {
		t.Errorf("20 partitions not condensed")
	}
	if d := tr.Digest(); len(d.Spreads) != 1 || d.Spreads[0].Partitions != 20 || len(d.Rows) != 20 {
		t.Errorf("digest: %d spreads, %d rows; want one spread of 20 and a row each", len(d.Spreads), len(d.Rows))
	}
}
