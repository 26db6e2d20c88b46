package render

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/kbf-project/kbf/analysis"
)

// writeClients draws the clients side by side; nothing for a trial with
// one client.
func writeClients(b *bytes.Buffer, tr *analysis.Trial) {
	if len(tr.Clients) < 2 {
		return
	}
	b.WriteString("\nclients side by side (the same partitions, the same fault):\n")
	fmt.Fprintf(b, "  %-10s %-10s %-9s %9s %9s %9s\n", "partition", "client", "role", "ack", "receive", "client")
	rows := map[int32][]string{}
	var parts []int32
	for _, cr := range tr.Clients {
		if cr.Err != "" {
			continue
		}
		for _, cp := range cr.Partitions {
			if _, ok := rows[cp.Partition]; !ok {
				parts = append(parts, cp.Partition)
			}
			ack := secs(cp.Ack)
			if cp.Open {
				ack = ">" + ack
			}
			client := "-"
			if !cp.Learnt.IsZero() {
				client = secs(cp.Client)
			}
			rows[cp.Partition] = append(rows[cp.Partition], fmt.Sprintf("  %-10s %-10s %-9s %9s %9s %9s",
				fmt.Sprintf("p%d", cp.Partition), cr.Name, cp.Role, ack, secs(cp.Receive), client))
		}
	}
	slices.Sort(parts)
	for _, p := range parts {
		for _, r := range rows[p] {
			b.WriteString(r + "\n")
		}
	}
	for _, d := range tr.ClientDiffs {
		if d.Measurable {
			fmt.Fprintf(b, "  p%d: %s stalled %s longer than %s: %s\n", d.Partition, d.Longest, secs(d.Diff), d.Shortest, d.Why)
		}
	}
	for _, cr := range tr.Clients {
		switch {
		case cr.Err != "":
			fmt.Fprintf(b, "  %s: not analysed: %s\n", cr.Name, cr.Err)
			continue
		case cr.Audit == nil:
			fmt.Fprintf(b, "  %s: not read back, no audit", cr.Name)
		default:
			a := cr.Audit
			fmt.Fprintf(b, "  %s: %d acknowledged, %d lost, %d duplicated, %d reordered", cr.Name, a.Acknowledged, a.Lost, a.Duplicated, a.Reordered)
		}
		if len(cr.Settings) > 0 {
			kv := make([]string, len(cr.Settings))
			for i, s := range cr.Settings {
				kv[i] = s.Name + "=" + s.Value
			}
			fmt.Fprintf(b, "; %s", strings.Join(kv, " "))
		}
		b.WriteString("\n")
	}
	for _, cr := range tr.Clients {
		if cr.Err == "" && cr.Group != nil {
			b.WriteString(clientGroupLine(cr.Name, cr.Group) + "\n")
		}
	}
}

// clientGroupLine is one client's group reader in one line: its longest
// processing stall and its commit stall, beside the other clients'.
func clientGroupLine(name string, g *analysis.ClientGroup) string {
	s := fmt.Sprintf("  %s group reader (%s, commit %s): ", name, g.Protocol, g.Commit)
	if g.Found {
		d := secs(g.Processing)
		if g.ProcessingOpen {
			d = ">" + d
		}
		s += fmt.Sprintf("processing stall %s on p%d", d, g.Partition)
	} else {
		s += "nothing processed"
	}
	if g.HasCommitStall {
		d := secs(g.CommitStall)
		if g.CommitOpen {
			d = ">" + d
		}
		s += ", commit stall " + d
	} else {
		s += ", no commit"
	}
	s += fmt.Sprintf(", %d of %d commits failed, %d rebalance", g.Failed, g.Commits, g.Rebalances)
	if g.Rebalances != 1 {
		s += "s"
	}
	return s
}

// writeClientSummary draws the clients' ranges; nothing for runs of one
// client.
func writeClientSummary(b *bytes.Buffer, s *analysis.Summary) {
	if len(s.Clients) == 0 {
		return
	}
	b.WriteString("  clients side by side:\n")
	for _, c := range s.Clients {
		fmt.Fprintf(b, "    %-10s %-8s ack gap %-13s client phase %-13s lost %d\n", c.Client, c.Role, c.Ack, c.Phase, c.Lost)
	}
}
