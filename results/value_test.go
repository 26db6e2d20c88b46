package results

import (
	"testing"
	"time"
)

func TestValueRoundTrip(t *testing.T) {
	now := time.Unix(1764473169, 115000123).UTC()
	b := AppendValue(nil, Value{RunID: "abc123", Partition: 2, Seq: 99, Sent: now})
	if got, want := string(b), "kbf1 abc123 2 99 1764473169115000123"; got != want {
		t.Fatalf("encoded %q, want %q", got, want)
	}
	v, ok := ParseValue(b)
	if !ok || v.RunID != "abc123" || v.Partition != 2 || v.Seq != 99 || !v.Sent.Equal(now) {
		t.Fatalf("round trip: %+v %v", v, ok)
	}
	for _, bad := range []string{"", "kbf1", "kbf2 a 1 2 3", "kbf1 a x 2 3", "kbf1 a 1 2", "kbf1 a 1 2 3 4"} {
		if _, ok := ParseValue([]byte(bad)); ok {
			t.Errorf("ParseValue(%q) accepted", bad)
		}
	}
}
