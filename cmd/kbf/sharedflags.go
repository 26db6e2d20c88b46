package main

import (
	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/tune"
)

// The flags several commands take, each defined here once: its name, type
// and default in one place, and what it applies to in each command given
// by the command.

// registerLogs defines --logs and --logs-command, where a cluster reached
// by its addresses keeps its nodes' logs: when says which clusters they
// are for, run when the command runs, since what {since} is.
func registerLogs(f *pflag.FlagSet, logs, logsCommand *string, when, run, since string) {
	f.StringVar(logs, "logs", "", when+": a directory with one folder per node, named by its node id, holding its log files")
	f.StringVar(logsCommand, "logs-command", "", when+": a shell command that prints one node's log, run for each node"+run+" with {id} (its node id), {host} (the host a broker advertises) and {since} ("+since+", RFC 3339) replaced, e.g. 'kubectl logs -n kafka my-kafka-{id} --since-time={since}'")
}

// registerClusters defines --clusters, how many of kbf's clusters a
// benchmark keeps up at once (kbf bench, kbf tune).
func registerClusters(f *pflag.FlagSet, p *int, usage string) {
	f.IntVar(p, "clusters", 2, usage)
}

// registerTrials defines --trials, the trials of each scenario (kbf
// bench, kbf tune): by default the fewest that give a 95% interval of a
// median.
func registerTrials(f *pflag.FlagSet, p *int, usage string) {
	f.IntVar(p, "trials", tune.MinTrials, usage)
}

// registerOut defines --out, where a command writes what it makes (kbf
// run, bench, tune): usage says what and its default.
func registerOut(f *pflag.FlagSet, p *string, usage string) {
	f.StringVar(p, "out", "", usage)
}
