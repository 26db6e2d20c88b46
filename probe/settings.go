package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one of the probe's client settings: the flag of its name that
// kbf probe, run and bench take, and the key of that name in a bench
// scenario's client: map. Settings is the one list of them.
type Setting struct {
	Name, Usage string
	// Recorded is the setting's name in meta.json and the report
	// (Config.Effective), when the report may name its flag.
	Recorded string
	// Value is the setting over c's field: a flag's value, and the parser
	// of a scenario's setting, since both are the same.
	Value func(c *Config) Value
	// Needs is the setting without which this one changes nothing; nil
	// for one that stands alone.
	Needs *Partner
}

// Value is a setting's value over a Config's field, parsed and printed as
// the flag library's own types of the same name are (it is a pflag.Value).
type Value interface {
	String() string
	Set(string) error
	Type() string
}

// Partner is a setting another needs beside it: given without it, the
// other would be ignored in silence, so it is refused instead.
type Partner struct {
	// Says is the partner as a flag, "--producer transactional".
	Says string
	// On reports whether c has it.
	On func(c *Config) bool
}

// transactional is --txn-records' and --txn-interval's partner.
var transactional = &Partner{Says: "--producer transactional", On: func(c *Config) bool { return c.Transactional() }}

// Partnerless refuses a setting of c that given says was set, without the
// setting it needs (Setting.Needs); named as a flag (prefix "--") or as a
// scenario's client: key (prefix "client ").
func Partnerless(c *Config, given func(name string) bool, prefix string) error {
	for _, s := range Settings {
		if s.Needs != nil && given(s.Name) && !s.Needs.On(c) {
			return fmt.Errorf("%s%s needs %s: without it, it would change nothing", prefix, s.Name, s.Needs.Says)
		}
	}
	return nil
}

// Settings are the probe's client settings, in the order of their flags.
var Settings = []Setting{
	{Name: "topic", Usage: "topic to probe",
		Value: func(c *Config) Value { return (*stringValue)(&c.Topic) }},
	{Name: "partitions", Usage: "partitions to probe, e.g. 0,2",
		Value: func(c *Config) Value { return &partitionsValue{p: &c.Partitions} }},
	{Name: "interval", Recorded: "interval", Usage: "time between two records of one partition",
		Value: func(c *Config) Value { return (*durationValue)(&c.Interval) }},
	{Name: "acks", Recorded: "acks", Usage: "producer acks: all (every ISR member has the record) or 1 (the leader has it)",
		Value: func(c *Config) Value { return (*stringValue)(&c.Acks) }},
	{Name: "linger", Recorded: "linger", Usage: "producer linger",
		Value: func(c *Config) Value { return (*durationValue)(&c.Linger) }},
	{Name: "retry-backoff", Recorded: "retry_backoff", Usage: "first backoff between retries of a failed request",
		Value: func(c *Config) Value { return (*durationValue)(&c.RetryBackoff) }},
	{Name: "retry-backoff-max", Recorded: "retry_backoff_max", Usage: "largest backoff between retries",
		Value: func(c *Config) Value { return (*durationValue)(&c.RetryBackoffMax) }},
	{Name: "metadata-min-age", Recorded: "metadata_min_age", Usage: "least time between two metadata refreshes",
		Value: func(c *Config) Value { return (*durationValue)(&c.MetadataMinAge) }},
	{Name: "delivery-timeout", Recorded: "record_delivery_timeout", Usage: "how long a record may wait for its ack before it fails",
		Value: func(c *Config) Value { return (*durationValue)(&c.DeliveryTimeout) }},
	{Name: "produce-timeout", Recorded: "produce_request_timeout", Usage: "produce request timeout: how long a leader may wait for the ISR",
		Value: func(c *Config) Value { return (*durationValue)(&c.ProduceTimeout) }},
	{Name: "request-timeout-overhead", Recorded: "request_timeout_overhead", Usage: "how long past a request's own timeout to wait before giving up on a silent broker",
		Value: func(c *Config) Value { return (*durationValue)(&c.RequestTimeoutOverhead) }},
	{Name: "fetch-max-wait", Recorded: "fetch_max_wait", Usage: "how long a broker may hold a fetch with no new data",
		Value: func(c *Config) Value { return (*durationValue)(&c.FetchMaxWait) }},
	{Name: "drain", Recorded: "drain", Usage: "once sending stops, how long to wait for outstanding acks and reads",
		Value: func(c *Config) Value { return (*durationValue)(&c.Drain) }},
	{Name: "kip951", Recorded: "kip951", Usage: "KIP-951 leader discovery: --kip951=false caps Produce at v9 and Fetch at v15, below the answers that name a partition's new leader",
		Value: func(c *Config) Value { return notFlag{&c.NoKIP951} }},
	{Name: "consumer", Usage: "how the probe reads: assign (its own reader, which assigns itself the partitions) or group (a consumer group reader beside it, on the same records)",
		Value: func(c *Config) Value { return (*stringValue)(&c.Consumer) }},
	{Name: "group-protocol", Usage: "the group reader's protocol: classic (default) or consumer (KIP-848); only with --consumer group",
		Value: func(c *Config) Value { return (*stringValue)(&c.GroupProtocol) }},
	{Name: "commit", Usage: "how the group reader commits: sync (default: after every poll, before the next), async (after every poll, not waiting) or interval (autocommit every second); only with --consumer group",
		Value: func(c *Config) Value { return (*stringValue)(&c.Commit) }},
	{Name: "producer", Usage: "how the probe writes: idempotent (default) or transactional (in transactions, read back at read_committed)",
		Value: func(c *Config) Value { return (*stringValue)(&c.Producer) }},
	{Name: "txn-records", Usage: "with --producer transactional: a transaction is committed once it holds this many records (or --txn-interval after it began)",
		Value: func(c *Config) Value { return (*intValue)(&c.TxnRecords) }, Needs: transactional},
	{Name: "txn-interval", Usage: "with --producer transactional: a transaction is committed this long after it began (or at --txn-records records)",
		Value: func(c *Config) Value { return (*durationValue)(&c.TxnInterval) }, Needs: transactional},
}

// LookupSetting returns the setting of that name.
func LookupSetting(name string) (Setting, bool) {
	i := slices.IndexFunc(Settings, func(s Setting) bool { return s.Name == name })
	if i < 0 {
		return Setting{}, false
	}
	return Settings[i], true
}

// The values of the probe's settings, parsed and printed as pflag's own
// types of the same name are, over a Config's fields.
type (
	stringValue   string
	durationValue time.Duration
	// intValue is an int, as pflag's own.
	intValue int
	// partitionsValue is a comma-separated list of partitions; a flag
	// given again adds to it.
	partitionsValue struct {
		p   *[]int32
		set bool
	}
	// notFlag is a boolean stored inverted: --kip951=false sets
	// Config.NoKIP951, whose zero value keeps the feature on.
	notFlag struct{ p *bool }
)

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }
func (*stringValue) Type() string         { return "string" }

func (v *intValue) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return err
	}
	*v = intValue(n)
	return nil
}
func (v *intValue) String() string { return strconv.Itoa(int(*v)) }
func (*intValue) Type() string     { return "int" }

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*v = durationValue(d)
	return nil
}
func (v *durationValue) String() string { return time.Duration(*v).String() }
func (*durationValue) Type() string     { return "duration" }

func (v *partitionsValue) Set(s string) error {
	var ps []int32
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(f, 0, 32)
		if err != nil {
			return err
		}
		ps = append(ps, int32(n))
	}
	if v.set {
		ps = append(*v.p, ps...)
	}
	*v.p, v.set = ps, true
	return nil
}

func (v *partitionsValue) String() string {
	if len(*v.p) == 0 {
		return "all"
	}
	s := make([]string, len(*v.p))
	for i, p := range *v.p {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ",")
}

func (*partitionsValue) Type() string { return "int32Slice" }

func (f notFlag) String() string {
	if f.p == nil {
		return "true"
	}
	return strconv.FormatBool(!*f.p)
}

func (f notFlag) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%q: want true or false", v)
	}
	*f.p = !b
	return nil
}

func (notFlag) Type() string { return "bool" }

// settingFlags maps the settings as meta.json and the report name them
// (Setting.Recorded) to the flags that set them.
var settingFlags = func() map[string]string {
	m := map[string]string{}
	for _, s := range Settings {
		if s.Recorded != "" {
			m[s.Recorded] = "--" + s.Name
		}
	}
	return m
}()

// FlagFor returns the flag of kbf run and kbf probe that sets a client
// setting, as meta.json and the report name it (Config.Effective); "" for
// none. The analysis names a setting and knows no flags.
func FlagFor(setting string) string { return settingFlags[setting] }
