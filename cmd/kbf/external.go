package main

import (
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// externalFlags are the flags of a trial on a cluster kbf reaches by its
// addresses, faulted by something else (--fault external).
type externalFlags struct {
	bootstrap []string
	// bootstrapSet is whether --bootstrap was given, so that an empty one
	// is refused rather than read as none.
	bootstrapSet bool
	logs         string
	logsCommand  string
	readyFile    string
	onReady      string
	// dir is where onReady and logsCommand run: a bench scenario file's
	// directory; empty for kbf run, kbf's own.
	dir    string
	margin time.Duration
}

func (e *externalFlags) register(f *pflag.FlagSet) {
	f.StringSliceVar(&e.bootstrap, "bootstrap", nil, "a cluster kbf did not start, reached at these addresses (no Docker); its only fault is --fault external")
	registerLogs(f, &e.logs, &e.logsCommand, "--fault external", "", "the trial's start")
	f.StringVar(&e.readyFile, "ready-file", "", "--fault external: a file kbf creates once the baseline is healthy, for a script to inject then")
	f.StringVar(&e.onReady, "on-ready", "", "--fault external: a shell command kbf runs once the baseline is healthy, in a process group of its own: not waited for; a failure (its exit status) is reported, and what of it still runs when the trial ends is ended")
	f.DurationVar(&e.margin, "heal-margin", 0, "--fault external: how long every partition must be steady, its ISR full, to count as healed (default --baseline)")
}

// validate refuses, before contacting anything, what only a remote cluster
// or only an external fault can take, and node logs kbf could not read.
func (e *externalFlags) validate(kill results.FaultKind) error {
	if e.bootstrapSet && len(e.bootstrap) == 0 {
		return usagef("--bootstrap: empty; give host:port[,host:port…]")
	}
	if len(e.bootstrap) > 0 {
		if err := probe.CheckBootstrap(e.bootstrap); err != nil {
			return usageError{err}
		}
		if err := clusters.Supports(clusters.Spec{Remote: &clusters.RemoteOptions{}}, kill, ""); err != nil {
			return usageError{err}
		}
	}
	switch {
	case kill != results.FaultExternal && (e.logs != "" || e.logsCommand != "" || e.readyFile != "" || e.onReady != "" || e.margin != 0):
		return usagef("--logs, --logs-command, --ready-file, --on-ready and --heal-margin are --fault external's")
	case e.margin < 0:
		return usagef("--heal-margin %v: must not be negative", e.margin)
	case e.logs != "" && e.logsCommand != "":
		return usagef("--logs and --logs-command: give one")
	case e.logsCommand != "":
		if err := clusters.CheckLogsCommand(e.logsCommand); err != nil {
			return usagef("--logs-command: %v", err)
		}
	case e.logs != "":
		if st, err := os.Stat(e.logs); err != nil || !st.IsDir() {
			return usagef("--logs %s: not a directory: give one with a folder per node, named by its node id", e.logs)
		}
	}
	return nil
}

func (e *externalFlags) options() experiment.External {
	return experiment.External{ReadyFile: e.readyFile, OnReady: e.onReady, Dir: e.dir, Margin: e.margin}
}

// remote is the spec of the cluster at --bootstrap, its node logs where
// --logs or --logs-command says: contacted when opened, to read its nodes
// and check kbf reaches every broker.
func (e *externalFlags) remote(sec *kafkasec.Config) clusters.Spec {
	return clusters.Spec{Remote: &clusters.RemoteOptions{Bootstrap: e.bootstrap, Logs: e.logs, LogsCommand: e.logsCommand, Dir: e.dir, Security: sec}}
}
