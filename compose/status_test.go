package compose_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/kbf-project/kbf/compose"
)

func TestWriteStatus(t *testing.T) {
	parts := []compose.Partition{
		{Topic: "orders", Partition: 0, Leader: 2, LeaderEpoch: 1, Replicas: []int32{1, 2, 3}, ISR: []int32{2, 3},
			ELR: []int32{1}, HighWatermark: 1042},
		{Topic: "orders", Partition: 1, Leader: 2, LeaderEpoch: 0, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1},
			HighWatermark: 998},
		{Topic: "single", Partition: 0, Leader: -1, LeaderEpoch: 3, Replicas: []int32{1}, LastKnownELR: []int32{1},
			HighWatermark: -1, Err: kerr.LeaderNotAvailable},
	}
	var b bytes.Buffer
	compose.WriteStatus(&b, compose.Status{BrokersUp: true, Partitions: parts})
	want := "" +
		"TOPIC   PARTITION  LEADER  EPOCH  REPLICAS  ISR    ELR  LAST-KNOWN-ELR  HW\n" +
		"orders  0          2       1      1,2,3     2,3    1    -               1042\n" +
		"orders  1          2       0      2,3,1     2,3,1  -    -               998\n" +
		"single  0          none    3      1         -      -    1               -\n"
	if b.String() != want {
		t.Errorf("WriteStatus:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestWriteStatusDown: the containers that do not run follow the
// partitions, an exited one with its exit code; with no broker up, no
// table at all.
func TestWriteStatusDown(t *testing.T) {
	at := time.Date(2026, 11, 30, 3, 26, 0, 0, time.UTC)
	var b bytes.Buffer
	compose.WriteStatus(&b, compose.Status{Down: []compose.ContainerState{
		{Service: "k1", Name: "kbf-k1-1", Status: "exited", ExitCode: 137, Finished: at},
		{Service: "c1", Name: "kbf-c1-1", Status: "paused"},
	}})
	want := "k1 (kbf-k1-1) exited, exit code 137 at 2026-11-30T03:26:00Z\nc1 (kbf-c1-1) paused\n"
	if b.String() != want {
		t.Errorf("WriteStatus:\n%s\nwant:\n%s", b.String(), want)
	}
}
