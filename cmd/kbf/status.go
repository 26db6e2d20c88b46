package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/kbf-project/kbf/compose"
)

func init() { commands = append(commands, newStatusCmd) }

type statusOptions struct {
	g       *globals
	cluster clusterFlags
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
			if _, err := o.cluster.options(); err != nil {
				return err
			}
			return runF(cmd.Context(), o)
		},
	}
	o.cluster.register(cmd.Flags(), false)
	o.cluster.registerSecurity(cmd.Flags(), g.errOut)
	cmd.Flags().StringSliceVar(&o.topics, "topic", nil, "topics to show (default every topic that is not internal)")
	cmd.Flags().DurationVar(&o.timeout, "timeout", 30*time.Second, "how long to wait for the brokers' answers")
	return wrapHelp(cmd)
}

func runStatus(ctx context.Context, o *statusOptions) error {
	opts, err := o.cluster.options()
	if err != nil {
		return err
	}
	opts.Topics = []compose.Topic{}
	c, err := compose.New(opts)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	conts, err := c.Containers(ctx)
	if err != nil {
		return err
	}
	var down []compose.ContainerState
	brokersUp := false
	for _, st := range conts {
		if !st.Running {
			down = append(down, st)
		} else if _, ok := c.Brokers()[st.Service]; ok {
			brokersUp = true
		}
	}
	if len(down) == len(conts) {
		return errors.New("no kbf cluster is running: kbf up starts one")
	}
	if brokersUp {
		parts, err := c.Describe(ctx, o.topics...)
		if err != nil {
			return err
		}
		writeStatus(o.g.out, parts)
	}
	for _, st := range down {
		line := fmt.Sprintf("%s (%s) %s", st.Service, st.Name, st.Status)
		if st.Status == "exited" {
			line += fmt.Sprintf(", exit code %d at %s", st.ExitCode, st.Finished.Format(time.RFC3339Nano))
		}
		fmt.Fprintln(o.g.out, line)
	}
	return nil
}

// writeStatus prints one aligned line per partition under a header.
func writeStatus(w io.Writer, parts []compose.Partition) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tPARTITION\tLEADER\tEPOCH\tREPLICAS\tISR\tELR\tLAST-KNOWN-ELR\tHW")
	for _, p := range parts {
		leader := "none"
		if p.Leader >= 0 {
			leader = strconv.Itoa(int(p.Leader))
		}
		hw := "-"
		if p.HighWatermark >= 0 {
			hw = strconv.FormatInt(p.HighWatermark, 10)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Topic, p.Partition, leader, p.LeaderEpoch,
			ids(p.Replicas), ids(p.ISR), ids(p.ELR), ids(p.LastKnownELR), hw)
	}
	tw.Flush()
}

// ids formats node ids as 1,2,3; "-" for none.
func ids(s []int32) string {
	if len(s) == 0 {
		return "-"
	}
	parts := make([]string, len(s))
	for i, id := range s {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}
