package main

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/probe"
)

// probeSetting is one of the probe's client settings: the flag of its name
// that kbf probe, run and bench take, and the key of that name in a bench
// scenario's client: map. probeSettings is the one list of them.
type probeSetting struct {
	name, usage string
	// recorded is the setting's name in meta.json and the report
	// (probe.Config.Effective), when the report may name its flag.
	recorded string
	// value is the setting over c's field: a flag's value, and the parser
	// of a scenario's setting, since both are the same.
	value func(c *probe.Config) pflag.Value
	// needs is the setting without which this one changes nothing; nil
	// for one that stands alone.
	needs *partner
}

// partner is a setting another needs beside it: given without it, the
// other would be ignored in silence, so it is refused instead.
type partner struct {
	// says is the partner as a flag, "--producer transactional".
	says string
	// on reports whether c has it.
	on func(c *probe.Config) bool
}

// transactional is --txn-records' and --txn-interval's partner.
var transactional = &partner{says: "--producer transactional", on: func(c *probe.Config) bool { return c.Transactional() }}

// partnerless refuses a setting of c that given says was set, without
// the setting it needs (probeSetting.needs); named as a flag (-- before
// it) or as a scenario's client: key.
func partnerless(c *probe.Config, given func(name string) bool, prefix string) error {
	for _, s := range probeSettings {
		if s.needs != nil && given(s.name) && !s.needs.on(c) {
			return usagef("%s%s needs %s: without it, it would change nothing", prefix, s.name, s.needs.says)
		}
	}
	return nil
}

var probeSettings = []probeSetting{
	{name: "topic", usage: "topic to probe",
		value: func(c *probe.Config) pflag.Value { return (*stringValue)(&c.Topic) }},
	{name: "partitions", usage: "partitions to probe, e.g. 0,2",
		value: func(c *probe.Config) pflag.Value { return &partitionsValue{p: &c.Partitions} }},
	{name: "interval", recorded: "interval", usage: "time between two records of one partition",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.Interval) }},
	{name: "acks", recorded: "acks", usage: "producer acks: all (every ISR member has the record) or 1 (the leader has it)",
		value: func(c *probe.Config) pflag.Value { return (*stringValue)(&c.Acks) }},
	{name: "linger", recorded: "linger", usage: "producer linger",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.Linger) }},
	{name: "retry-backoff", recorded: "retry_backoff", usage: "first backoff between retries of a failed request",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.RetryBackoff) }},
	{name: "retry-backoff-max", recorded: "retry_backoff_max", usage: "largest backoff between retries",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.RetryBackoffMax) }},
	{name: "metadata-min-age", recorded: "metadata_min_age", usage: "least time between two metadata refreshes",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.MetadataMinAge) }},
	{name: "delivery-timeout", recorded: "record_delivery_timeout", usage: "how long a record may wait for its ack before it fails",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.DeliveryTimeout) }},
	{name: "produce-timeout", recorded: "produce_request_timeout", usage: "produce request timeout: how long a leader may wait for the ISR",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.ProduceTimeout) }},
	{name: "request-timeout-overhead", recorded: "request_timeout_overhead", usage: "how long past a request's own timeout to wait before giving up on a silent broker",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.RequestTimeoutOverhead) }},
	{name: "fetch-max-wait", recorded: "fetch_max_wait", usage: "how long a broker may hold a fetch with no new data",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.FetchMaxWait) }},
	{name: "drain", recorded: "drain", usage: "once sending stops, how long to wait for outstanding acks and reads",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.Drain) }},
	{name: "kip951", recorded: "kip951", usage: "KIP-951 leader discovery: --kip951=false caps Produce at v9 and Fetch at v15, below the answers that name a partition's new leader",
		value: func(c *probe.Config) pflag.Value { return notFlag{&c.NoKIP951} }},
	{name: "consumer", usage: "how the probe reads: assign (its own reader, which assigns itself the partitions) or group (a consumer group reader beside it, on the same records)",
		value: func(c *probe.Config) pflag.Value { return (*stringValue)(&c.Consumer) }},
	{name: "group-protocol", usage: "the group reader's protocol: classic (default) or consumer (KIP-848); only with --consumer group",
		value: func(c *probe.Config) pflag.Value { return (*stringValue)(&c.GroupProtocol) }},
	{name: "commit", usage: "how the group reader commits: sync (default: after every poll, before the next), async (after every poll, not waiting) or interval (autocommit every second); only with --consumer group",
		value: func(c *probe.Config) pflag.Value { return (*stringValue)(&c.Commit) }},
	{name: "producer", usage: "how the probe writes: idempotent (default) or transactional (in transactions, read back at read_committed)",
		value: func(c *probe.Config) pflag.Value { return (*stringValue)(&c.Producer) }},
	{name: "txn-records", usage: "with --producer transactional: a transaction is committed once it holds this many records (or --txn-interval after it began)",
		value: func(c *probe.Config) pflag.Value { return (*intValue)(&c.TxnRecords) }, needs: transactional},
	{name: "txn-interval", usage: "with --producer transactional: a transaction is committed this long after it began (or at --txn-records records)",
		value: func(c *probe.Config) pflag.Value { return (*durationValue)(&c.TxnInterval) }, needs: transactional},
}

// lookupProbeSetting returns the setting of that name.
func lookupProbeSetting(name string) (probeSetting, bool) {
	i := slices.IndexFunc(probeSettings, func(s probeSetting) bool { return s.name == name })
	if i < 0 {
		return probeSetting{}, false
	}
	return probeSettings[i], true
}

// probeFlags binds the flags of a probe's configuration, shared by kbf probe,
// kbf run and kbf bench.
type probeFlags struct {
	cfg probe.Config
}

// register adds the flags to fs, one for each of probeSettings, over the
// probe's defaults; bootstrap adds --bootstrap, for a probe of a cluster
// kbf did not start (kbf run takes the addresses from its own).
func (f *probeFlags) register(fs *pflag.FlagSet, bootstrap bool) {
	f.cfg = probe.Defaults()
	c := &f.cfg
	if bootstrap {
		fs.StringSliceVar(&c.Bootstrap, "bootstrap", c.Bootstrap, "Kafka bootstrap addresses (default kbf up's brokers, 127.0.0.1:19092-19094)")
		fs.Lookup("bootstrap").DefValue = "[]" // said in the usage, in fewer columns
	}
	for _, s := range probeSettings {
		v := s.value(c)
		fl := fs.VarPF(v, s.name, "", s.usage)
		if v.Type() == "bool" {
			fl.NoOptDefVal = "true" // --kip951 alone is --kip951=true
		}
		if fl.DefValue == "0s" {
			fl.DefValue = "0" // left out of the usage, as pflag's own durations' "0s" is
		}
	}
}

// config returns the probe configuration the flags set; the experiment's
// options check it (experiment.Options.Validate, ProbeOptions.Validate).
func (f *probeFlags) config() probe.Config { return f.cfg }

// The values of the probe's settings, parsed and printed as pflag's own
// types of the same name are, over a probe.Config's fields.
type (
	stringValue   string
	durationValue time.Duration
	// partitionsValue is a comma-separated list of partitions; a flag
	// given again adds to it.
	partitionsValue struct {
		p   *[]int32
		set bool
	}
	// notFlag is a boolean stored inverted: --kip951=false sets
	// probe.Config.NoKIP951, whose zero value keeps the feature on.
	notFlag struct{ p *bool }
)

func (v *stringValue) Set(s string) error { *v = stringValue(s); return nil }
func (v *stringValue) String() string     { return string(*v) }
func (*stringValue) Type() string         { return "string" }

// intValue is an int, as pflag's own.
type intValue int

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

// checkBootstrap checks --bootstrap, when given (set), against --file (a
// cluster is named one way) and for its form.
func (c *clusterFlags) checkBootstrap(set bool, addrs []string) error {
	switch {
	case !set:
		return nil
	case c.file != "":
		return usagef("--bootstrap and --file: give one (the file says where its brokers are)")
	}
	return checkBootstrap(addrs)
}

// checkBootstrap refuses, as a usage error, a --bootstrap address that is
// not host:port with a port from 1 to 65535, before anything dials it.
func checkBootstrap(addrs []string) error {
	if len(addrs) == 0 {
		return usagef("--bootstrap: empty; give host:port[,host:port…]")
	}
	for _, a := range addrs {
		host, port, err := net.SplitHostPort(strings.TrimSpace(a))
		if err != nil {
			return usagef("--bootstrap %q: want host:port ([v6-address]:port for an IPv6 address)", a)
		}
		if host == "" || strings.ContainsAny(host, " /\t") {
			return usagef("--bootstrap %q: no host; want host:port", a)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return usagef("--bootstrap %q: port %q: want a number from 1 to 65535", a, port)
		}
	}
	return nil
}
