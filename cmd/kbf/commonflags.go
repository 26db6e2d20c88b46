package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/clusters"
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/kafkasec"
)

// The flags several commands share as a group, each defined once: which
// of kbf's Docker clusters (clusterFlags) and how its clients are
// secured. A place a cluster lives has its own group (externalFlags,
// k8sFlags), and so do the reference clients (clients.Flags).

// clusterFlags bind the flags that say which cluster: the user's compose
// file, or the embedded one's size, and the nodes' settings. kbf up, down
// and status share them, and kbf run can.
type clusterFlags struct {
	file        string
	project     string
	config      []string
	brokers     int
	controllers int
	combined    bool
	shaped      bool // register added --brokers, --controllers and --config
	fs          *pflag.FlagSet

	// commandConfig is --command-config, read once into sec.
	commandConfig string
	// errOut takes --command-config's warnings.
	errOut  io.Writer
	sec     *kafkasec.Config
	secRead bool
}

// registerSecurity adds --command-config to fs: how every client kbf
// runs is secured, in Kafka's own client properties.
func (f *clusterFlags) registerSecurity(fs *pflag.FlagSet, errOut io.Writer) {
	f.errOut = errOut
	fs.StringVar(&f.commandConfig, "command-config", "", "a Kafka client properties file (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location, …) that secures every client kbf runs, as Kafka's own tools take it")
}

// security returns --command-config read and checked, nil without it. A
// file that cannot be used is a usage error, found before anything starts.
func (f *clusterFlags) security() (*kafkasec.Config, error) {
	if f.commandConfig == "" || f.secRead {
		return f.sec, nil
	}
	sec, err := kafkasec.Load(f.commandConfig)
	if err != nil {
		return nil, usageError{fmt.Errorf("--command-config: %w", err)}
	}
	if f.errOut != nil {
		for _, w := range sec.Warnings {
			fmt.Fprintf(f.errOut, "kbf: warning: --command-config %s\n", w)
		}
	}
	f.sec, f.secRead = sec, true
	return sec, nil
}

// register adds -f and --project-name to fs, and with shape --brokers,
// --controllers and --config.
func (f *clusterFlags) register(fs *pflag.FlagSet, shape bool) {
	f.fs, f.shaped = fs, shape
	fs.StringVarP(&f.file, "file", "f", "", "your own compose file (default: kbf's embedded cluster)")
	fs.StringVar(&f.project, "project-name", "", "the compose project of --file, as docker compose -p (default: the file's name:, else its directory)")
	if !shape {
		return
	}
	fs.StringArrayVar(&f.config, "config", nil, "a Kafka server property, KEY=VALUE on every node or NODE:KEY=VALUE on one (repeatable)")
	fs.IntVar(&f.brokers, "brokers", 3, "brokers of the embedded cluster")
	fs.IntVar(&f.controllers, "controllers", 1, "KRaft controllers of the embedded cluster: 1 or 3")
	fs.BoolVar(&f.combined, "combined", false, "every broker of the embedded cluster is a controller too (process.roles broker,controller), and no dedicated controller")
}

// existing is the spec of kbf's own cluster (or -f FILE's) as it runs:
// its topics are the probe's to make, none of the file's defaults.
func (f *clusterFlags) existing() (clusters.Spec, error) {
	opts, err := f.options()
	if err != nil {
		return clusters.Spec{}, err
	}
	opts.Topics = []compose.Topic{}
	return clusters.Spec{Docker: &opts}, nil
}

// options returns the compose options the flags describe, checked
// (compose.Shape) before anything reaches Docker.
func (f *clusterFlags) options() (compose.Options, error) {
	var o compose.Options
	sec, err := f.security()
	if err != nil {
		return o, err
	}
	o.Security = sec
	sh := compose.Shape{File: f.file, ProjectName: f.project, Sized: f.shaped, Config: f.config,
		Brokers: f.brokers, Controllers: f.controllers, Combined: f.combined}
	if f.shaped {
		sh.BrokersSet, sh.ControllersSet = f.fs.Changed("brokers"), f.fs.Changed("controllers")
	}
	return o, usage(sh.Apply(&o))
}

// withOffline lets Up build the offline image from the source tree, saying
// so on the error stream (compose.Options.WithOffline).
func withOffline(opts *compose.Options, g *globals) { opts.WithOffline(g.errOut) }
