package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform"
)

// The flags several commands share as a group, declared by the options
// they set: which of kbf's Docker clusters (compose.Shape) and how its
// clients are secured (kafkasec.Flags); clusterFlags binds them and reads
// them once. A place a cluster lives has its own group (trialrun.External,
// trialrun.K8s), and so do the reference clients (clients.Flags).

// clusterFlags bind the flags that say which cluster: the user's compose
// file, or the embedded one's size, and the nodes' settings. kbf up, down
// and status share them, and kbf run can.
type clusterFlags struct {
	compose.Shape
	fs *pflag.FlagSet

	// secFlags is --command-config, read once into sec.
	secFlags kafkasec.Flags
	// errOut takes --command-config's warnings.
	errOut  io.Writer
	sec     *kafkasec.Config
	secRead bool
}

// registerSecurity adds --command-config to fs: how every client kbf
// runs is secured, in Kafka's own client properties.
func (f *clusterFlags) registerSecurity(fs *pflag.FlagSet, errOut io.Writer) {
	f.errOut = errOut
	f.secFlags.AddFlags(fs)
}

// security returns --command-config read and checked, nil without it. A
// file that cannot be used is a usage error, found before anything starts.
func (f *clusterFlags) security() (*kafkasec.Config, error) {
	if f.secFlags.Path == "" || f.secRead {
		return f.sec, nil
	}
	sec, err := f.secFlags.Load()
	if err != nil {
		return nil, usageError{err}
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
// --controllers and --config (compose.Shape.AddFlags).
func (f *clusterFlags) register(fs *pflag.FlagSet, shape bool) {
	f.fs = fs
	f.AddFlags(fs, shape)
}

// existing is the spec of kbf's own cluster (or -f FILE's) as it runs:
// its topics are the probe's to make, none of the file's defaults.
func (f *clusterFlags) existing() (platform.Spec, error) {
	opts, err := f.options()
	if err != nil {
		return platform.Spec{}, err
	}
	opts.Topics = []compose.Topic{}
	return platform.Spec{Docker: &opts}, nil
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
	sh := f.Shape
	if f.Sized {
		sh.BrokersSet, sh.ControllersSet = f.fs.Changed("brokers"), f.fs.Changed("controllers")
	}
	return o, usage(sh.Apply(&o))
}

// withOffline lets Up build the offline image from the source tree, saying
// so on the error stream (compose.Options.WithOffline).
func withOffline(opts *compose.Options, g *globals) { opts.WithOffline(g.errOut) }
