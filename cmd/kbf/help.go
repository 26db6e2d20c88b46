package main

import "github.com/spf13/cobra"

// helpWidth is the width help is wrapped to: a terminal's 80 columns.
const helpWidth = 80

// wrappedUsage is cobra's usage template for a command without
// subcommands, with the flags' descriptions wrapped to helpWidth.
const wrappedUsage = `Usage:
  {{.UseLine}}{{if .HasAvailableLocalFlags}}

Flags:
{{.LocalFlags.FlagUsagesWrapped 80 | trimTrailingWhitespaces}}{{end}}
`

// wrapHelp makes cmd's flag help wrap at helpWidth columns.
func wrapHelp(cmd *cobra.Command) *cobra.Command {
	cmd.SetUsageTemplate(wrappedUsage)
	return cmd
}

// What the help means by Kafka's terms, in Kafka's own words, for the
// commands that use them.
const (
	helpISR = `The ISR (in-sync replicas) of a partition are its leader and the followers
that have caught up with it; with acks=all the leader acknowledges a record
only once every ISR member has it, and a partition accepts acks=all writes
only while its ISR holds at least min.insync.replicas members.`
	helpPreferred = `The preferred leader is a partition's first replica; a preferred leader
election hands leadership back to it.`
	helpAcks = `acks is how many replicas must have a record before the leader acknowledges
it: 1 the leader alone, all every member of the ISR.`
	helpEpochHW = `The leader epoch counts a partition's leaders: every new leader takes the
next number, and a replica refuses requests from an older one. The high
watermark is the offset up to which every ISR member has the data, and so
the first offset a consumer cannot yet read. The ELR (eligible leader
replicas, KIP-966) are replicas no longer in the ISR that the controller
knows hold the data up to the high watermark, so one may still be elected.`
)

// exitPlain is the exit status paragraph of a command that finds nothing:
// the cluster commands and the probe.
var exitPlain = exitHelp(exitOK, exitError, exitUsage, exitCanceled)
