package compose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Status is the cluster as kbf status shows it: its partitions as the
// brokers report them (none when no broker runs), and the containers that
// do not run.
type Status struct {
	// BrokersUp says a broker runs: Partitions are what the brokers
	// answered.
	BrokersUp  bool
	Partitions []Partition
	Down       []ContainerState
}

// Status asks Docker for the cluster's containers and, when a broker
// runs, the brokers for the partitions of topics (every topic that is not
// internal when none). A cluster none of whose containers runs is an
// error.
func (c *Cluster) Status(ctx context.Context, topics ...string) (Status, error) {
	conts, err := c.Containers(ctx)
	if err != nil {
		return Status{}, err
	}
	var s Status
	for _, st := range conts {
		if !st.Running {
			s.Down = append(s.Down, st)
		} else if _, ok := c.Brokers()[st.Service]; ok {
			s.BrokersUp = true
		}
	}
	if len(s.Down) == len(conts) {
		return Status{}, errors.New("no kbf cluster is running: kbf up starts one")
	}
	if s.BrokersUp {
		if s.Partitions, err = c.Describe(ctx, topics...); err != nil {
			return Status{}, err
		}
	}
	return s, nil
}

// WriteStatus prints one aligned line per partition under a header, when
// a broker answered, then a line per container that does not run.
func WriteStatus(w io.Writer, s Status) {
	if s.BrokersUp {
		writePartitions(w, s.Partitions)
	}
	for _, st := range s.Down {
		line := fmt.Sprintf("%s (%s) %s", st.Service, st.Name, st.Status)
		if st.Status == "exited" {
			line += fmt.Sprintf(", exit code %d at %s", st.ExitCode, st.Finished.Format(time.RFC3339Nano))
		}
		fmt.Fprintln(w, line)
	}
}

func writePartitions(w io.Writer, parts []Partition) {
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
