package platform

import "github.com/spf13/pflag"

// AddLogsFlags adds --logs and --logs-command to fs, where a cluster
// reached by its addresses keeps its nodes' logs (RemoteOptions.Logs,
// LogsCommand): when says which clusters they are for, run when the
// command runs, since what {since} is.
func AddLogsFlags(fs *pflag.FlagSet, logs, logsCommand *string, when, run, since string) {
	fs.StringVar(logs, "logs", "", when+": a directory with one folder per node, named by its node id, holding its log files")
	fs.StringVar(logsCommand, "logs-command", "", when+": a shell command that prints one node's log, run for each node"+run+" with {id} (its node id), {host} (the host a broker advertises) and {since} ("+since+", RFC 3339) replaced, e.g. 'kubectl logs -n kafka my-kafka-{id} --since-time={since}'")
}
