package compose

import (
	"fmt"
	"slices"
	"strconv"
)

// The limits the failover settings are held to before the first trial,
// each with where it comes from. Kafka's own refusals come from
// KafkaConfig.validateValues (kafka.server, Kafka 4.x): a node given
// these does not start, and a trial would wait for it in vain. Kafka
// refuses nothing of the broker's heartbeat and session: their types are
// INT with no validator (KRaftConfigs), so a heartbeat interval as long as
// the session fences a healthy broker between two heartbeats, and kbf
// refuses that itself.
var limits = []limit{
	{
		small: "broker.heartbeat.interval.ms", large: "broker.session.timeout.ms", factor: 2,
		why: "a broker must heartbeat at least twice a session, or one late heartbeat fences it " +
			"(the broker gives a heartbeat request half the session, BrokerServer's heartbeat channel, KAFKA-14392)",
	},
	{
		small: "replica.fetch.wait.max.ms", large: "replica.socket.timeout.ms", factor: 1,
		why: "Kafka refuses it (KafkaConfig: replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms)",
	},
	{
		small: "replica.fetch.wait.max.ms", large: "replica.lag.time.max.ms", factor: 1,
		why: "Kafka refuses it (KafkaConfig: replica.fetch.wait.max.ms should always be less than or equal to replica.lag.time.max.ms)",
	},
}

// limitDefaults are Kafka 4.3's defaults of the properties limits name:
// what a node not given one has.
var limitDefaults = map[string]int64{
	"broker.heartbeat.interval.ms": 2000,
	"broker.session.timeout.ms":    9000,
	"replica.fetch.wait.max.ms":    500,
	"replica.socket.timeout.ms":    30000,
	"replica.lag.time.max.ms":      30000,
}

// positive are the timing properties kbf's failover trials shape, each a
// number of milliseconds Kafka takes as it is: zero or less is a busy
// loop or a fence at once, not a setting.
var positive = []string{
	"broker.heartbeat.interval.ms", "broker.session.timeout.ms",
	"replica.lag.time.max.ms", "replica.socket.timeout.ms",
	"controller.quorum.fetch.timeout.ms", "controller.quorum.election.timeout.ms",
	"controller.quorum.election.backoff.max.ms", "controller.quorum.request.timeout.ms",
}

// limit is one rule: small × factor ≤ large, across the nodes (the
// controller reads the session timeout, each broker its heartbeat).
type limit struct {
	small, large string
	factor       int64
	why          string
}

// CheckLimits refuses, in one line, settings that break a limit above:
// a value that is not a number, a timing at zero or below, or two
// settings at odds on any pair of nodes. A setting on one node (NODE:KEY)
// is weighed against every other node's, the defaults where none is set.
func CheckLimits(settings []Setting) error {
	vals, err := limitValues(settings)
	if err != nil {
		return err
	}
	for _, l := range limits {
		sv, lv := vals[l.small], vals[l.large]
		hi, lo := slices.MaxFunc(sv, byValue), slices.MinFunc(lv, byValue)
		if hi.v*l.factor > lo.v {
			rel := "at most"
			if l.factor == 2 {
				rel = "at most half"
			}
			return fmt.Errorf("--config %s with %s: %s must be %s %s: %s", hi, lo, l.small, rel, l.large, l.why)
		}
	}
	return nil
}

// limitValue is one value a property has on some node, and where it was
// set ("" for Kafka's default).
type limitValue struct {
	v   int64
	set Setting // Key alone for Kafka's default
}

func (lv limitValue) String() string {
	if lv.set.Value == "" {
		return fmt.Sprintf("%s=%d (Kafka's default)", lv.set.Key, lv.v)
	}
	return lv.set.String()
}

func byValue(a, b limitValue) int { return int(a.v - b.v) }

// limitValues are the values each property limits name has on some node:
// the setting for every node, else Kafka's default, then each node's own.
// Every value of limits and positive is checked to be a positive number.
func limitValues(settings []Setting) (map[string][]limitValue, error) {
	all := map[string]limitValue{}
	for k, v := range limitDefaults {
		all[k] = limitValue{v: v, set: Setting{Key: k}}
	}
	nodes := map[string][]limitValue{}
	for _, s := range settings {
		_, limited := limitDefaults[s.Key]
		if !limited && !slices.Contains(positive, s.Key) {
			continue
		}
		bits := 32 // Kafka's INT, but replica.lag.time.max.ms, a LONG
		if s.Key == "replica.lag.time.max.ms" {
			bits = 64
		}
		n, err := strconv.ParseInt(s.Value, 10, bits)
		if err != nil {
			return nil, fmt.Errorf("--config %s: %s is a whole number of milliseconds, as Kafka reads it", s, s.Key)
		}
		if n <= 0 {
			return nil, fmt.Errorf("--config %s: %s must be positive", s, s.Key)
		}
		if s.Node == "" {
			all[s.Key] = limitValue{v: n, set: s}
		} else {
			nodes[s.Key] = append(nodes[s.Key], limitValue{v: n, set: s})
		}
	}
	out := map[string][]limitValue{}
	for k, v := range all {
		out[k] = append([]limitValue{v}, nodes[k]...)
	}
	return out, nil
}
