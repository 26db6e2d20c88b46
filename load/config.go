// Package load is real traffic beside the probe (kbf run --load RATE): a
// producer and a consumer of their own, on a topic of their own made like
// the probe's, sending records of a fixed size at a fixed rate through the
// fault. It is counted apart from the probe's figures: what it did, per
// second — records sent, acknowledged, failed and read back, and the
// first error — is written to the load CSV (results.LoadFile).
package load

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/results"
)

// Config is one load's configuration.
type Config struct {
	Bootstrap []string
	// Topic is the load's own topic, made like Like (the probe's topic:
	// its partitions, replication factor and min.insync.replicas) when it
	// does not exist.
	Topic, Like string
	// Rate is the records offered per second, Size each record's value in
	// bytes; Offered is the rate as the user wrote it.
	Rate    float64
	Size    int
	Offered string
	// Security secures the load's clients as the probe's are.
	Security *kafkasec.Config
}

// The bounds of a load: beyond them it is a typo or more than one process
// can offer.
const (
	DefaultSize = 1024
	MaxSize     = 1 << 20   // a record of at most 1 MiB (Kafka's default message.max.bytes)
	MaxRate     = 1_000_000 // records/s
	MaxBytes    = 1 << 30   // bytes/s
	sizeSuffix  = "B, KB, KiB, MB or MiB"
)

// BufferMemory is what the load's producer may hold unacknowledged, the
// Java producer's buffer.memory default: past it a record is not sent but
// failed at once, so the load neither blocks its schedule nor grows kbf's
// memory, whatever the stall.
const BufferMemory = 32 << 20

// TopicSuffix names a load's default topic: the probe's topic's name and
// this ("orders-load").
const TopicSuffix = "-load"

// ParseSize parses a record size: bytes ("1024") or with a unit ("1KiB",
// "4KB", "1MiB"; KB is 1000 bytes, KiB 1024).
func ParseSize(s string) (int, error) {
	n, err := parseBytes(s)
	if err != nil {
		return 0, err
	}
	if n < 1 || n > MaxSize {
		return 0, fmt.Errorf("%s: want 1 byte to 1 MiB", s)
	}
	return int(n), nil
}

// ParseRate parses a load's rate into records per second, records of size
// bytes: records ("5000/s", "5000") or bytes per second ("2MB/s",
// "512KiB/s").
func ParseRate(s string, size int) (float64, error) {
	v := strings.TrimSpace(s)
	v = strings.TrimSuffix(v, "/s")
	if v == "" {
		return 0, fmt.Errorf("load %q: want records/s (5000/s) or bytes/s (2MB/s)", s)
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil {
		if !(n > 0) || n > MaxRate || math.IsInf(n, 0) {
			return 0, fmt.Errorf("load %s: want more than 0 and at most %d records/s", s, MaxRate)
		}
		return n, nil
	}
	b, err := parseBytes(v)
	if err != nil {
		return 0, fmt.Errorf("load %q: want records/s (5000/s) or bytes/s (2MB/s)", s)
	}
	if b <= 0 || b > MaxBytes {
		return 0, fmt.Errorf("load %s: want more than 0 and at most 1 GiB/s", s)
	}
	r := b / float64(size)
	if r > MaxRate {
		return 0, fmt.Errorf("load %s: %.0f records/s of %d bytes, more than %d", s, r, size, MaxRate)
	}
	return r, nil
}

// parseBytes parses a number of bytes with an optional unit.
func parseBytes(s string) (float64, error) {
	v := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1e3}, {"MB", 1e6}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, fmt.Errorf("%q: want a number of bytes, or one with %s", s, sizeSuffix)
	}
	return n * mult, nil
}

// Validate reports the first setting that cannot work.
func (c *Config) Validate() error {
	switch {
	case len(c.Bootstrap) == 0:
		return errors.New("load: no bootstrap address")
	case c.Topic == "":
		return errors.New("load: no topic")
	case c.Topic == c.Like:
		return fmt.Errorf("load topic %s is the probe's: the load needs a topic of its own", c.Topic)
	case !(c.Rate > 0) || c.Rate > MaxRate:
		return fmt.Errorf("load rate %v: want more than 0 and at most %d records/s", c.Rate, MaxRate)
	case c.Size < 1 || c.Size > MaxSize:
		return fmt.Errorf("load record size %d: want 1 byte to 1 MiB", c.Size)
	}
	return nil
}

// settings is what meta.json records of c, its topic's shape filled in
// by New.
func (c *Config) settings(partitions, replication int) results.LoadSettings {
	return results.LoadSettings{Topic: c.Topic, Partitions: partitions, Replication: replication,
		Rate: c.Rate, Size: c.Size, Acks: "all", Offered: c.Offered}
}
