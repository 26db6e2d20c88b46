package htmlreport

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/analysis"
)

// failbackFigures adds a failback's (kbf run --failback) to the table:
// each partition's longest ack gap over the broker's return, and the
// failback's row, the p50 and p99 ack latency of the baseline and of the
// minute after the election. The lanes already show the return: the probe
// ran through it.
func failbackFigures(tr *analysis.Trial, m *trialModel) {
	v := tr.Failback
	if v == nil {
		return
	}
	for i, p := range v.Partitions {
		m.Figures = append(m.Figures, figure{Row: "p" + strconv.Itoa(int(p.Partition)), Col: "failback stall",
			Key: fmt.Sprintf("failback.partitions.%d.stall_sec", i), Value: p.Stall.Seconds(), Unit: "s"})
	}
	add := func(col, key string, d time.Duration) {
		m.Figures = append(m.Figures, figure{Row: "failback", Col: col, Key: "failback." + key, Value: d.Seconds(), Unit: "s"})
	}
	add("baseline p50 ack", "baseline.p50_sec", v.Baseline.P50)
	add("baseline p99 ack", "baseline.p99_sec", v.Baseline.P99)
	add("after p50 ack", "after.p50_sec", v.After.P50)
	add("after p99 ack", "after.p99_sec", v.After.P99)
}
