package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/kafkasec"
)

func init() { commands = append(commands, newUpCmd) }

type upOptions struct {
	g                 *globals
	cluster           clusterFlags
	image             string
	topic             string
	partitions        int32
	replicationFactor int16
	minInsync         int
	singleTopic       string
	timeout           time.Duration
}

// topics returns the topics the flags describe.
func (o *upOptions) topics() []compose.Topic {
	ts := []compose.Topic{{
		Name: o.topic, Partitions: o.partitions,
		ReplicationFactor: o.replicationFactor, MinInsync: o.minInsync,
	}}
	if o.singleTopic != "" {
		single := compose.DefaultTopics()[1]
		single.Name = o.singleTopic
		single.Brokers = nil // one replica: on the first broker, whatever its id
		ts = append(ts, single)
	}
	return ts
}

func newUpCmd(g *globals) *cobra.Command { return newUpCmdF(g, runUp) }

func newUpCmdF(g *globals, runF func(context.Context, *upOptions) error) *cobra.Command {
	def := compose.DefaultTopics()
	o := &upOptions{g: g}
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Bring the Kafka cluster up in Docker and wait until it is whole",
		Long: `up creates (or reuses, or repairs) the cluster of compose/compose.yaml — a
KRaft controller c1 and brokers k1, k2, k3 — through the Docker engine, waits
until every broker is registered and unfenced, creates the topics, and waits
until every ISR is full and every partition is led by its preferred leader.
It prints how long each phase took.

The image is --image, else $KBF_IMAGE, else ` + compose.DefaultImage + `; the brokers'
ports on 127.0.0.1 are $KBF_K1_PORT, $KBF_K2_PORT, $KBF_K3_PORT (19092-19094).

--brokers and --controllers resize that cluster (brokers k1..kN on ports
19092 on, controllers c1..c3). --config sets a Kafka server property on
every node (--config broker.session.timeout.ms=4000) or on one
(--config c1:broker.session.timeout.ms=4000); the nodes whose settings
change are recreated.

-f FILE uses your own compose file instead, as docker compose -f does: kbf
finds the brokers and controllers from each service's KAFKA_NODE_ID,
KAFKA_PROCESS_ROLES and advertised listeners, and reaches each broker on the
advertised listener it publishes to the host. A stack already started with
docker compose is used as it is.

` + helpISR + "\n\n" + helpAcks + "\n\n" + helpPreferred + "\n\n" + exitPlain,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("image") && o.image == "" {
				return usagef("--image: must not be empty")
			}
			if o.timeout <= 0 {
				return usagef("--timeout %v: must be positive", o.timeout)
			}
			if o.singleTopic == o.topic {
				return usagef("--single-topic %q: must differ from --topic", o.singleTopic)
			}
			opts, err := o.cluster.options()
			if err != nil {
				return err
			}
			opts.Topics = o.topics()
			if err := compose.Check(opts); err != nil {
				return usageError{err}
			}
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	o.cluster.register(f, true)
	o.cluster.registerSecurity(f, g.errOut)
	registerImage(f, &o.image)
	f.StringVar(&o.topic, "topic", def[0].Name, "the probed topic, spread over every broker")
	f.Int32Var(&o.partitions, "partitions", def[0].Partitions, "partitions of --topic")
	f.Int16Var(&o.replicationFactor, "replication-factor", def[0].ReplicationFactor, "replication factor of --topic")
	f.IntVar(&o.minInsync, "min-insync", def[0].MinInsync, "min.insync.replicas of --topic (0 keeps the broker default, 1)")
	f.StringVar(&o.singleTopic, "single-topic", def[1].Name, `a one-partition, one-replica topic on broker 1 ("" for none)`)
	f.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long to wait for the cluster to be whole")
	return wrapHelp(cmd)
}

func runUp(ctx context.Context, o *upOptions) error {
	opts, err := o.cluster.options()
	if err != nil {
		return err
	}
	opts.Image, opts.Topics = o.image, o.topics()
	opts.Progress = func(p compose.Phase) { fmt.Fprintln(o.g.out, p.Line()) }
	withOffline(&opts, o.g)
	c, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(o.g.out, "kbf up: image %s, brokers %v\n", c.Image(), c.Bootstrap())
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	rep, err := c.Up(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.g.out, "%-20s %8s\n", "up", compose.Seconds(rep.Took))
	return nil
}

// clusterFlags bind the flags that say which cluster: the user's compose
// file, or the embedded one's size, and the nodes' settings. kbf up, down
// and status share them, and kbf run can.
type clusterFlags struct {
	file        string
	project     string
	config      []string
	brokers     int
	controllers int
	combined    bool
	shaped      bool // register added --brokers, --controllers and --config
	fs          *pflag.FlagSet

	// commandConfig is --command-config, read once into sec.
	commandConfig string
	// errOut takes --command-config's warnings.
	errOut  io.Writer
	sec     *kafkasec.Config
	secRead bool
}

// registerSecurity adds --command-config to fs: how every client kbf
// runs is secured, in Kafka's own client properties.
func (f *clusterFlags) registerSecurity(fs *pflag.FlagSet, errOut io.Writer) {
	f.errOut = errOut
	fs.StringVar(&f.commandConfig, "command-config", "", "a Kafka client properties file (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location, …) that secures every client kbf runs, as Kafka's own tools take it")
}

// security returns --command-config read and checked, nil without it. A
// file that cannot be used is a usage error, found before anything starts.
func (f *clusterFlags) security() (*kafkasec.Config, error) {
	if f.commandConfig == "" || f.secRead {
		return f.sec, nil
	}
	sec, err := kafkasec.Load(f.commandConfig)
	if err != nil {
		return nil, usageError{fmt.Errorf("--command-config: %w", err)}
	}
	if f.errOut != nil {
		for _, w := range sec.Warnings {
			fmt.Fprintf(f.errOut, "kbf: warning: --command-config %s\n", w)
		}
	}
	f.sec, f.secRead = sec, true
	return sec, nil
}

// register adds -f and --project-name to fs, and with shape --brokers,
// --controllers and --config.
func (f *clusterFlags) register(fs *pflag.FlagSet, shape bool) {
	f.fs, f.shaped = fs, shape
	fs.StringVarP(&f.file, "file", "f", "", "your own compose file (default: kbf's embedded cluster)")
	fs.StringVar(&f.project, "project-name", "", "the compose project of --file, as docker compose -p (default: the file's name:, else its directory)")
	if !shape {
		return
	}
	fs.StringArrayVar(&f.config, "config", nil, "a Kafka server property, KEY=VALUE on every node or NODE:KEY=VALUE on one (repeatable)")
	fs.IntVar(&f.brokers, "brokers", 3, "brokers of the embedded cluster")
	fs.IntVar(&f.controllers, "controllers", 1, "KRaft controllers of the embedded cluster: 1 or 3")
	fs.BoolVar(&f.combined, "combined", false, "every broker of the embedded cluster is a controller too (process.roles broker,controller), and no dedicated controller")
}

// options returns the compose options the flags describe.
// existing is the spec of kbf's own cluster (or -f FILE's) as it runs:
// its topics are the probe's to make, none of the file's defaults.
func (f *clusterFlags) existing() (clusters.Spec, error) {
	opts, err := f.options()
	if err != nil {
		return clusters.Spec{}, err
	}
	opts.Topics = []compose.Topic{}
	return clusters.Spec{Docker: &opts}, nil
}

func (f *clusterFlags) options() (compose.Options, error) {
	var o compose.Options
	sec, err := f.security()
	if err != nil {
		return o, err
	}
	o.Security = sec
	sh := compose.Shape{File: f.file, ProjectName: f.project, Sized: f.shaped, Config: f.config,
		Brokers: f.brokers, Controllers: f.controllers, Combined: f.combined}
	if f.shaped {
		sh.BrokersSet, sh.ControllersSet = f.fs.Changed("brokers"), f.fs.Changed("controllers")
	}
	return o, usage(sh.Apply(&o))
}

// withOffline lets Up build the offline image from the source tree, saying
// so on the error stream (compose.Options.WithOffline).
func withOffline(opts *compose.Options, g *globals) { opts.WithOffline(g.errOut) }
