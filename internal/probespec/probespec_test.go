package probespec

import (
	"testing"
	"time"
)

func TestCheck(t *testing.T) {
	ok := Sending{Bootstrap: []string{"k1:9092"}, Topic: "orders", Interval: 20 * time.Millisecond, Acks: "all"}
	tests := []struct {
		name string
		edit func(*Sending)
		want string // "" for no error
	}{
		{"valid", func(*Sending) {}, ""},
		{"acks 1", func(s *Sending) { s.Acks = "1" }, ""},
		{"no bootstrap", func(s *Sending) { s.Bootstrap = nil }, "no bootstrap address"},
		{"no topic", func(s *Sending) { s.Topic = "" }, "no topic"},
		{"zero interval", func(s *Sending) { s.Interval = 0 }, "interval 0s: must be positive"},
		{"negative interval", func(s *Sending) { s.Interval = -time.Second }, "interval -1s: must be positive"},
		{"acks 0", func(s *Sending) { s.Acks = "0" }, `acks "0": want all or 1`},
		{"first wins", func(s *Sending) { s.Topic, s.Acks = "", "x" }, "no topic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ok
			tt.edit(&s)
			err := s.Check()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Check() = %v, want nil", err)
			case tt.want != "" && (err == nil || err.Error() != tt.want):
				t.Fatalf("Check() = %v, want %q", err, tt.want)
			}
		})
	}
}
