package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newUpCmd) }

type upOptions struct {
	g       *globals
	cluster compose.Flags
	image   string
	// probed is --topic's, its flags bound into it; singleTopic the
	// single-replica topic's name ("" for none).
	probed      compose.Topic
	singleTopic string
	timeout     time.Duration
}

// topics returns the topics the flags describe.
func (o *upOptions) topics() []compose.Topic {
	ts := []compose.Topic{o.probed}
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
			if o.singleTopic == o.probed.Name {
				return usagef("--single-topic %q: must differ from --topic", o.singleTopic)
			}
			opts, err := o.cluster.Options()
			if err != nil {
				return usage(err)
			}
			opts.Topics = o.topics()
			if err := compose.Check(opts); err != nil {
				return usageError{err}
			}
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	o.cluster.AddFlags(f, true)
	o.cluster.AddSecurityFlags(f, g.errOut)
	compose.AddImageFlag(f, &o.image)
	f.StringVar(&o.probed.Name, "topic", def[0].Name, "the probed topic, spread over every broker")
	f.Int32Var(&o.probed.Partitions, "partitions", def[0].Partitions, "partitions of --topic")
	f.Int16Var(&o.probed.ReplicationFactor, "replication-factor", def[0].ReplicationFactor, "replication factor of --topic")
	f.IntVar(&o.probed.MinInsync, "min-insync", def[0].MinInsync, "min.insync.replicas of --topic (0 keeps the broker default, 1)")
	f.StringVar(&o.singleTopic, "single-topic", def[1].Name, `a one-partition, one-replica topic on broker 1 ("" for none)`)
	f.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long to wait for the cluster to be whole")
	return wrapHelp(cmd)
}

func runUp(ctx context.Context, o *upOptions) error {
	opts, err := o.cluster.Options()
	if err != nil {
		return usage(err)
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
