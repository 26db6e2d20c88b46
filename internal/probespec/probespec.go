// Package probespec checks the settings every probe shares, kbf's own
// (probe.Config) and the reference clients' (clients.Spec): where it
// sends, what and how often, and which acks it asks for. It reads
// nothing and produces the first setting that cannot work.
package probespec

import (
	"errors"
	"fmt"
	"time"
)

// Sending is where and how a probe sends.
type Sending struct {
	Bootstrap []string
	Topic     string
	Interval  time.Duration
	Acks      string // "all" or "1"
}

// Check reports the first of s's settings that cannot work; nil when all
// can.
func (s Sending) Check() error {
	switch {
	case len(s.Bootstrap) == 0:
		return errors.New("no bootstrap address")
	case s.Topic == "":
		return errors.New("no topic")
	case s.Interval <= 0:
		return fmt.Errorf("interval %v: must be positive", s.Interval)
	case s.Acks != "all" && s.Acks != "1":
		return fmt.Errorf("acks %q: want all or 1", s.Acks)
	}
	return nil
}
