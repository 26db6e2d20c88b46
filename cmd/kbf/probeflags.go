package main

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/probe"
)

// probeFlags binds the flags of a probe's configuration, shared by kbf probe
// and kbf run.
type probeFlags struct {
	cfg        probe.Config
	partitions []int32
}

// register adds the flags to fs; bootstrap adds --bootstrap, for a probe of
// a cluster kbf did not start (kbf run takes the addresses from its own).
func (f *probeFlags) register(fs *pflag.FlagSet, bootstrap bool) {
	f.cfg = probe.Defaults()
	c := &f.cfg
	if bootstrap {
		fs.StringSliceVar(&c.Bootstrap, "bootstrap", c.Bootstrap, "Kafka bootstrap addresses (default kbf up's brokers, 127.0.0.1:19092-19094)")
		fs.Lookup("bootstrap").DefValue = "[]" // said in the usage, in fewer columns
	}
	fs.StringVar(&c.Topic, "topic", c.Topic, "topic to probe")
	fs.Int32SliceVar(&f.partitions, "partitions", nil, "partitions to probe, e.g. 0,2")
	fs.Lookup("partitions").DefValue = "all" // not pflag's "[]"
	fs.DurationVar(&c.Interval, "interval", c.Interval, "time between two records of one partition")
	fs.StringVar(&c.Acks, "acks", c.Acks, "producer acks: all (every ISR member has the record) or 1 (the leader has it)")
	fs.DurationVar(&c.Linger, "linger", c.Linger, "producer linger")
	fs.DurationVar(&c.RetryBackoff, "retry-backoff", c.RetryBackoff, "first backoff between retries of a failed request")
	fs.DurationVar(&c.RetryBackoffMax, "retry-backoff-max", c.RetryBackoffMax, "largest backoff between retries")
	fs.DurationVar(&c.MetadataMinAge, "metadata-min-age", c.MetadataMinAge, "least time between two metadata refreshes")
	fs.DurationVar(&c.DeliveryTimeout, "delivery-timeout", c.DeliveryTimeout, "how long a record may wait for its ack before it fails")
	fs.DurationVar(&c.ProduceTimeout, "produce-timeout", c.ProduceTimeout, "produce request timeout: how long a leader may wait for the ISR")
	fs.DurationVar(&c.RequestTimeoutOverhead, "request-timeout-overhead", c.RequestTimeoutOverhead, "how long past a request's own timeout to wait before giving up on a silent broker")
	fs.DurationVar(&c.FetchMaxWait, "fetch-max-wait", c.FetchMaxWait, "how long a broker may hold a fetch with no new data")
	fs.DurationVar(&c.Drain, "drain", c.Drain, "once sending stops, how long to wait for outstanding acks and reads")
	fs.Var(notFlag{&c.NoKIP951}, "kip951", "KIP-951 leader discovery: --kip951=false caps Produce at v9 and Fetch at v15, below the answers that name a partition's new leader")
	fs.Lookup("kip951").NoOptDefVal = "true"
}

// notFlag is a boolean flag stored inverted: --kip951=false sets
// probe.Config.NoKIP951, whose zero value keeps the feature on.
type notFlag struct{ p *bool }

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

// config returns the probe configuration the flags set; the experiment's
// options check it (experiment.Options.Validate, ProbeOptions.Validate).
func (f *probeFlags) config() probe.Config {
	c := f.cfg
	c.Partitions = f.partitions
	return c
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
