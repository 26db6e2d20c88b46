package gaps_test

import (
	"os"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// A partition's leader dies at 03:26:09.115; its acks stop until the
// controller fences it 8 s later. Messages are added as probe.csv lists
// them, by completion, not by sequence.
func Example() {
	t0 := time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	r := gaps.NewReport(gaps.Options{FaultAt: ms(115)})
	for _, m := range []results.Message{
		{Partition: 0, Seq: 0, Offset: 10, Sent: ms(0), Acked: ms(4), Received: ms(6)},
		{Partition: 0, Seq: 1, Offset: 11, Sent: ms(20), Acked: ms(24), Received: ms(27)},
		{Partition: 0, Seq: 2, Offset: 12, Sent: ms(40), Acked: ms(44), Received: ms(46)},
		{Partition: 0, Seq: 4, Offset: 14, Sent: ms(160), Acked: ms(8385), Received: ms(8390)},
		{Partition: 0, Seq: 3, Offset: 13, Sent: ms(140), Acked: ms(8384), Received: ms(8389)},
		{Partition: 0, Seq: 5, Offset: -1, Sent: ms(180), Err: "NOT_ENOUGH_REPLICAS"},
	} {
		r.Add(&m)
	}
	r.Close()
	gaps.WriteText(os.Stdout, r)
	// Output:
	// fault at 03:26:09.115, failed sends 1 (the first sent at 03:26:09.180)
	//   1 failed: NOT_ENOUGH_REPLICAS
	// p0 ack gap  8.34 s (03:26:09.044 ~ 03:26:17.384), longest elsewhere 0.02 s
	// p0 receive gap  8.34 s (03:26:09.046 ~ 03:26:17.389), longest elsewhere 0.02 s
	// p0 sent 6, acked 5, received 5, failed 1, never acked 0, acked but not received 0
}
