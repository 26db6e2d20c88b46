package results

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestEncodePending(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 3, 26, 9, 0, time.UTC)
	pending := map[int64]*Message{}
	for _, seq := range []int64{7, 2, 5} {
		pending[seq] = &Message{Partition: 1, Seq: seq, Offset: -1, Sent: t0}
	}
	var b bytes.Buffer
	e := NewEncoder(&b)
	e.EncodePending(pending)
	if err := e.Flush(); err != nil {
		t.Fatal(err)
	}
	if len(pending) != 0 {
		t.Errorf("%d messages left pending", len(pending))
	}
	var seqs []string
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
		seqs = append(seqs, strings.Split(line, ",")[1])
	}
	if got := strings.Join(seqs, " "); got != "2 5 7" {
		t.Errorf("written in the order %s, want 2 5 7", got)
	}
}
