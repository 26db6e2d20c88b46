package kafkaadmin

import "testing"

// TestTopicID: a topic's ID is written as Kafka writes it (Uuid.toString:
// URL-safe base64 without padding), and the zero ID, which a broker
// answers when it does not say, as none.
func TestTopicID(t *testing.T) {
	id := [16]byte{0xfb, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}
	if got, want := TopicID(id), "-_8BAgMEBQYHCAkKCwwNDg"; got != want {
		t.Errorf("TopicID = %q, want %q", got, want)
	}
	if got := TopicID([16]byte{}); got != "" {
		t.Errorf("zero ID = %q, want none", got)
	}
}
