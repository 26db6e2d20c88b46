// Command kbf-probe-librdkafka is kbf's reference probe for librdkafka,
// through confluent-kafka-go (which bundles librdkafka, statically linked,
// so this module builds with cgo and stays out of kbf's pure-Go build).
//
// For each partition it produces one record every --interval, on an
// absolute schedule, and reads the same partitions back in the same process
// from the offsets where their logs ended when it started. It writes kbf's
// probe format to DIR/probe.csv, librdkafka's own debug log to
// DIR/client.log and what it ran with to DIR/client.json; ../README.md is
// the contract the three probes share.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"

	"github.com/kbf-project/kbf/results"
)

// options is the probe's command line, the one every reference probe takes.
type options struct {
	bootstrap    string
	topic        string
	partitions   []int32 // empty: every partition of the topic
	interval     time.Duration
	acks         string
	duration     time.Duration // 0: until signalled
	out          string
	runID        string
	startOffsets map[int32]int64 // empty: the logs' ends at start
	drain        time.Duration
	set          map[string]string // librdkafka settings that override the probe's
	// security are the librdkafka settings of --command-config (kbf's
	// kafkasec.Config.Librdkafka): the security protocol, SASL, TLS.
	security map[string]string
	// group is the group reader's, run beside the probe's own reader when
	// --consumer group; nil runs none.
	group *groupOptions
}

// groupOptions are the group reader's flags, kbf's names (results'
// ConsumerGroup, GroupProtocol* and Commit* values), taken by librdkafka's
// settings in groupSettings.
type groupOptions struct {
	id                 string
	protocol           string // classic or consumer: librdkafka's group.protocol
	commit             string // sync, async or interval
	autoCommitInterval time.Duration
}

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	o, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "kbf-probe-librdkafka: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	if err := probe(ctx, o); err != nil {
		fmt.Fprintf(stderr, "kbf-probe-librdkafka: %v\n", err)
		return 1
	}
	return 0
}

func parseArgs(args []string, stderr io.Writer) (*options, error) {
	o := &options{set: map[string]string{}}
	fs := flag.NewFlagSet("kbf-probe-librdkafka", flag.ContinueOnError)
	// A wrong flag gets one line, from run; the list of flags is for -help.
	fs.SetOutput(io.Discard)
	var partitions, starts string
	fs.StringVar(&o.bootstrap, "bootstrap", "127.0.0.1:19092,127.0.0.1:19093,127.0.0.1:19094", "Kafka bootstrap addresses, comma-separated")
	fs.StringVar(&o.topic, "topic", "orders", "topic to probe")
	fs.StringVar(&partitions, "partitions", "", "partitions to probe, e.g. 0,2 (default: all)")
	o.interval, o.drain = 20*time.Millisecond, 5*time.Second
	fs.Var((*duration)(&o.interval), "interval", "time between two records of one partition")
	fs.StringVar(&o.acks, "acks", "all", "producer acks: all or 1")
	fs.Var((*duration)(&o.duration), "duration", "how long to send; 0 sends until SIGTERM or SIGINT")
	fs.StringVar(&o.out, "out", "", "directory for probe.csv, client.log and client.json (required)")
	fs.StringVar(&o.runID, "run-id", "", "run ID carried in every record's value (default: random)")
	fs.StringVar(&starts, "start-offsets", "", "where to start reading, p:o,... (default: each log's end at start)")
	fs.Var((*duration)(&o.drain), "drain", "once sending stops, how long to wait for outstanding acks and reads")
	fs.Func("set", "a librdkafka setting name=value, over the probe's (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return fmt.Errorf("want name=value, got %q", s)
		}
		o.set[k] = v
		return nil
	})
	var commandConfig, consumer string
	g := groupOptions{protocol: results.GroupProtocolClassic, commit: results.CommitSync, autoCommitInterval: time.Second}
	fs.StringVar(&consumer, "consumer", results.ConsumerAssign, "assign (the probe's reader alone) or group (a group reader beside it)")
	fs.StringVar(&g.id, "group", "", "the group reader's group.id (default: kbf-probe-<run id>)")
	fs.StringVar(&g.protocol, "group-protocol", g.protocol, "the group reader's group.protocol: classic or consumer")
	fs.StringVar(&g.commit, "commit", g.commit, "how the group reader commits: sync, async or interval (enable.auto.commit)")
	fs.Var((*duration)(&g.autoCommitInterval), "auto-commit-interval", "auto.commit.interval.ms under --commit interval")
	fs.StringVar(&commandConfig, "command-config", "", "a properties file of librdkafka security settings (security.protocol, sasl.*, ssl.*), applied under --set")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if o.partitions, err = parsePartitions(partitions); err != nil {
		return nil, fmt.Errorf("--partitions: %w", err)
	}
	if o.startOffsets, err = parseStartOffsets(starts); err != nil {
		return nil, fmt.Errorf("--start-offsets: %w", err)
	}
	if commandConfig != "" {
		if o.security, err = readProperties(commandConfig); err != nil {
			return nil, fmt.Errorf("--command-config: %w", err)
		}
	}
	switch {
	case o.out == "":
		return nil, errors.New("--out is required: the directory to write probe.csv, client.log and client.json to")
	case strings.TrimSpace(o.bootstrap) == "":
		return nil, errors.New("--bootstrap is empty: give host:port,...")
	case o.topic == "":
		return nil, errors.New("--topic is empty")
	case o.interval <= 0:
		return nil, fmt.Errorf("--interval %v: must be positive", o.interval)
	case o.acks != "all" && o.acks != "1":
		return nil, fmt.Errorf("--acks %q: want all or 1", o.acks)
	case o.duration < 0:
		return nil, fmt.Errorf("--duration %v: must not be negative", o.duration)
	case o.drain < 0:
		return nil, fmt.Errorf("--drain %v: must not be negative", o.drain)
	case strings.ContainsAny(o.runID, " \t\n"):
		return nil, fmt.Errorf("--run-id %q: must not contain spaces", o.runID)
	}
	for p := range o.startOffsets {
		if len(o.partitions) > 0 && !contains(o.partitions, p) {
			return nil, fmt.Errorf("--start-offsets names partition %d, which --partitions does not", p)
		}
	}
	if o.group, err = groupFlags(consumer, &g, fs); err != nil {
		return nil, err
	}
	return o, nil
}

// groupFlags checks the group reader's flags: nil without --consumer
// group, and an error for a group flag given without it.
func groupFlags(consumer string, g *groupOptions, fs *flag.FlagSet) (*groupOptions, error) {
	switch consumer {
	case results.ConsumerAssign:
		var err error
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "group", "group-protocol", "commit", "auto-commit-interval":
				if err == nil {
					err = fmt.Errorf("--%s: only with --consumer %s", f.Name, results.ConsumerGroup)
				}
			}
		})
		return nil, err
	case results.ConsumerGroup:
	default:
		return nil, fmt.Errorf("--consumer %q: want %s or %s", consumer, results.ConsumerAssign, results.ConsumerGroup)
	}
	switch {
	case g.protocol != results.GroupProtocolClassic && g.protocol != results.GroupProtocolConsumer:
		return nil, fmt.Errorf("--group-protocol %q: want %s or %s", g.protocol, results.GroupProtocolClassic, results.GroupProtocolConsumer)
	case g.commit != results.CommitSync && g.commit != results.CommitAsync && g.commit != results.CommitInterval:
		return nil, fmt.Errorf("--commit %q: want %s, %s or %s", g.commit, results.CommitSync, results.CommitAsync, results.CommitInterval)
	case g.autoCommitInterval <= 0:
		return nil, fmt.Errorf("--auto-commit-interval %v: must be positive", g.autoCommitInterval)
	case strings.ContainsAny(g.id, " \t\n"):
		return nil, fmt.Errorf("--group %q: must not contain spaces", g.id)
	}
	return g, nil
}

// duration is a flag's time.Duration whose error says what it wants.
type duration time.Duration

func (d *duration) String() string { return time.Duration(*d).String() }

func (d *duration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration such as 20ms, 1.5s or 1m30s")
	}
	*d = duration(v)
	return nil
}

// parsePartitions reads "0,2".
func parsePartitions(s string) ([]int32, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int32
	for f := range strings.SplitSeq(s, ",") {
		p, err := strconv.ParseInt(strings.TrimSpace(f), 10, 32)
		if err != nil || p < 0 {
			return nil, fmt.Errorf("%q is not a partition number", f)
		}
		if contains(out, int32(p)) {
			return nil, fmt.Errorf("partition %d given twice", p)
		}
		out = append(out, int32(p))
	}
	return out, nil
}

// parseStartOffsets reads "0:1042,1:998".
func parseStartOffsets(s string) (map[int32]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	out := map[int32]int64{}
	for f := range strings.SplitSeq(s, ",") {
		ps, os, ok := strings.Cut(strings.TrimSpace(f), ":")
		p, err1 := strconv.ParseInt(ps, 10, 32)
		o, err2 := strconv.ParseInt(os, 10, 64)
		if !ok || err1 != nil || err2 != nil || p < 0 || o < 0 {
			return nil, fmt.Errorf("%q: want partition:offset, e.g. 0:1042", f)
		}
		if _, dup := out[int32(p)]; dup {
			return nil, fmt.Errorf("partition %d given twice", p)
		}
		out[int32(p)] = o
	}
	return out, nil
}

// readProperties reads a properties file as kbf writes it
// (kafkasec.WriteProperties): one key=value a line, the key's '=', ':',
// white space and backslashes escaped, anything beyond printable ASCII
// as \uXXXX. kbf's kafkasec is not imported for it: it would bring
// franz-go and the Java key stores' readers into this probe.
func readProperties(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if t := strings.TrimSpace(line); t == "" || t[0] == '#' || t[0] == '!' {
			continue
		}
		key, rest, err := unescape(line, true)
		if err == nil && rest == "" {
			err = errors.New("no '=' after the key")
		}
		var value string
		if err == nil {
			value, _, err = unescape(rest[1:], false)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n+1, err)
		}
		m[key] = value
	}
	return m, nil
}

// unescape reads s up to, in a key, its first unescaped '='; it returns
// what it read and the rest from that '='.
func unescape(s string, key bool) (string, string, error) {
	var units []uint16
	var b strings.Builder
	flush := func() {
		if len(units) > 0 {
			b.WriteString(string(utf16.Decode(units)))
			units = nil
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if key && c == '=' {
			flush()
			return b.String(), s[i:], nil
		}
		if c != '\\' {
			flush()
			b.WriteByte(c)
			continue
		}
		if i++; i == len(s) {
			return "", "", errors.New("a '\\' ends the line")
		}
		switch c = s[i]; c {
		case 'u':
			if i+5 > len(s) {
				return "", "", errors.New("a \\u escape is cut short")
			}
			u, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", "", fmt.Errorf("\\u%s: not four hex digits", s[i+1:i+5])
			}
			units = append(units, uint16(u))
			i += 4
			continue
		case 't':
			c = '\t'
		case 'n':
			c = '\n'
		case 'r':
			c = '\r'
		case 'f':
			c = '\f'
		}
		flush()
		b.WriteByte(c)
	}
	flush()
	return b.String(), "", nil
}

func contains(s []int32, p int32) bool {
	for _, q := range s {
		if q == p {
			return true
		}
	}
	return false
}
