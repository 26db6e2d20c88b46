package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newUpCmd) }

type upOptions struct {
	g       *globals
	cluster compose.Flags
	up      compose.UpFlags
}

func newUpCmd(g *globals) *cobra.Command { return newUpCmdF(g, runUp) }

func newUpCmdF(g *globals, runF func(context.Context, *upOptions) error) *cobra.Command {
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
			if err := o.up.Check(cmd.Flags().Changed("image")); err != nil {
				return usage(err)
			}
			opts, err := o.cluster.Options()
			if err != nil {
				return usage(err)
			}
			opts.Topics = o.up.Topics()
			if err := compose.Check(opts); err != nil {
				return usageError{err}
			}
			return runF(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	o.cluster.AddFlags(f, true)
	o.cluster.AddSecurityFlags(f, g.errOut)
	o.up.AddFlags(f)
	return wrapHelp(cmd)
}

func runUp(ctx context.Context, o *upOptions) error {
	opts, err := o.cluster.Options()
	if err != nil {
		return usage(err)
	}
	opts.Image, opts.Topics = o.up.Image, o.up.Topics()
	opts.Progress = func(p compose.Phase) { fmt.Fprintln(o.g.out, p.Line()) }
	opts.WithOffline(o.g.errOut)
	c, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(o.g.out, "kbf up: image %s, brokers %v\n", c.Image(), c.Bootstrap())
	ctx, cancel := context.WithTimeout(ctx, o.up.Timeout)
	defer cancel()
	rep, err := c.Up(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.g.out, "%-20s %8s\n", "up", compose.Seconds(rep.Took))
	return nil
}
