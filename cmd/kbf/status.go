package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newStatusCmd) }

type statusOptions struct {
	g       *globals
	cluster compose.Flags
	topics  []string
	timeout time.Duration
}

func newStatusCmd(g *globals) *cobra.Command { return newStatusCmdF(g, runStatus) }

func newStatusCmdF(g *globals, runF func(context.Context, *statusOptions) error) *cobra.Command {
	o := &statusOptions{g: g}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show each partition's leader, ISR, ELR and high watermark",
		Long: `status prints one line per partition of the cluster's topics (or of --topic):
its leader and leader epoch, replicas, ISR, eligible leader replicas (ELR,
KIP-966) and last-known ELR, and high watermark, as the brokers report them;
then any container that is not running.

` + helpISR + "\n\n" + helpAcks + "\n\n" + helpEpochHW + "\n\n" + exitPlain,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.timeout <= 0 {
				return usagef("--timeout %v: must be positive", o.timeout)
			}
			for _, t := range o.topics {
				if t == "" {
					return usagef("--topic: a topic name must not be empty")
				}
			}
			if _, err := o.cluster.Options(); err != nil {
				return usage(err)
			}
			return runF(cmd.Context(), o)
		},
	}
	o.cluster.AddFlags(cmd.Flags(), false)
	o.cluster.AddSecurityFlags(cmd.Flags(), g.errOut)
	cmd.Flags().StringSliceVar(&o.topics, "topic", nil, "topics to show (default every topic that is not internal)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Second, "how long to wait for the brokers' answers")
	return wrapHelp(cmd)
}

func runStatus(ctx context.Context, o *statusOptions) error {
	opts, err := o.cluster.Options()
	if err != nil {
		return usage(err)
	}
	opts.Topics = []compose.Topic{}
	c, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	st, err := c.Status(ctx, o.topics...)
	if err != nil {
		return err
	}
	compose.WriteStatus(o.g.out, st)
	return nil
}
