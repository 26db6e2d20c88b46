package probe

import (
	"fmt"
	"time"
)

// The bounds franz-go's kgo holds a client's settings to (kgo's
// cfg.validate, v1.22): a setting past one makes kgo.NewClient fail when
// the probe starts, after the cluster is up and the baseline begun, so the
// probe refuses it before the first trial instead, in one line.
const (
	minMetadataMinAge = 10 * time.Millisecond
	// kgoMetadataMaxAge is kgo's metadata max age, which the probe leaves
	// at its default; the min age may not exceed it.
	kgoMetadataMaxAge         = 5 * time.Minute
	minRequestTimeoutOverhead = 100 * time.Millisecond
	maxRequestTimeoutOverhead = 15 * time.Minute
	minProduceTimeout         = 100 * time.Millisecond
	minDeliveryTimeout        = time.Second
	maxLinger                 = time.Minute
	minFetchMaxWait           = 10 * time.Millisecond
)

// validateClientLimits reports the first setting kgo would refuse.
func (c *Config) validateClientLimits() error {
	for _, b := range []struct {
		name     string
		v        time.Duration
		min, max time.Duration // zero: none
	}{
		{"metadata min age", c.MetadataMinAge, minMetadataMinAge, kgoMetadataMaxAge},
		{"request timeout overhead", c.RequestTimeoutOverhead, minRequestTimeoutOverhead, maxRequestTimeoutOverhead},
		{"produce timeout", c.ProduceTimeout, minProduceTimeout, 0},
		{"delivery timeout", c.DeliveryTimeout, minDeliveryTimeout, 0},
		{"linger", c.Linger, 0, maxLinger},
		{"fetch max wait", c.FetchMaxWait, minFetchMaxWait, 0},
	} {
		switch {
		case b.min > 0 && b.v < b.min:
			return fmt.Errorf("%s %v: franz-go takes at least %v", b.name, b.v, b.min)
		case b.max > 0 && b.v > b.max:
			return fmt.Errorf("%s %v: franz-go takes at most %v", b.name, b.v, b.max)
		}
	}
	return nil
}
