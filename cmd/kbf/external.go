package main

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/target/remote"
)

// externalFlags are the flags of a trial on a cluster kbf reaches by its
// addresses, faulted by something else (--fault external).
type externalFlags struct {
	bootstrap []string
	logs      string
	readyFile string
	onReady   string
	margin    time.Duration
}

func (e *externalFlags) register(f *pflag.FlagSet) {
	f.StringSliceVar(&e.bootstrap, "bootstrap", nil, "a cluster kbf did not start, reached at these addresses (no Docker); its only fault is --fault external")
	f.StringVar(&e.logs, "logs", "", "--fault external: a directory with one folder per node, named by its node id, holding its log files")
	f.StringVar(&e.readyFile, "ready-file", "", "--fault external: a file kbf creates once the baseline is healthy, for a script to inject then")
	f.StringVar(&e.onReady, "on-ready", "", "--fault external: a shell command kbf runs once the baseline is healthy (not waited for)")
	f.DurationVar(&e.margin, "heal-margin", 0, "--fault external: how long every partition must be steady, its ISR full, to count as healed (default --baseline)")
}

// validate refuses, before contacting anything, what only a remote cluster
// or only an external fault can take.
func (e *externalFlags) validate(kill results.FaultKind) error {
	switch {
	case len(e.bootstrap) > 0:
		if err := (&remote.Target{}).Supports(kill, ""); err != nil {
			return usageError{err}
		}
	case kill != results.FaultExternal && (e.logs != "" || e.readyFile != "" || e.onReady != ""):
		return usagef("--logs, --ready-file and --on-ready are --fault external's")
	case e.margin < 0:
		return usagef("--heal-margin %v: must not be negative", e.margin)
	}
	return nil
}

func (e *externalFlags) options() experiment.External {
	return experiment.External{ReadyFile: e.readyFile, OnReady: e.onReady, Margin: e.margin}
}

// newRemote is the target of the cluster at --bootstrap: contacted now, to
// read its nodes and check kbf reaches every broker.
func (e *externalFlags) newRemote(ctx context.Context, sec *kafkasec.Config) (*remote.Target, error) {
	return remote.New(ctx, remote.Options{Bootstrap: e.bootstrap, Logs: e.logs, Security: sec})
}
