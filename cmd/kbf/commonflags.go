package main

import (
	"github.com/kbf-project/kbf/compose"
	"github.com/kbf-project/kbf/platform"
)

// The flags several commands share as a group are declared by the options
// they set: which of kbf's Docker clusters and how its clients are
// secured (compose.Flags). A place a cluster lives has its own group
// (trialrun.External, trialrun.K8s), and so do the reference clients
// (clients.Flags).

// existingSpec is the spec of kbf's own cluster (or -f FILE's) as it
// runs: its topics are the probe's to make, none of the file's defaults.
func existingSpec(f *compose.Flags) (platform.Spec, error) {
	opts, err := f.Options()
	if err != nil {
		return platform.Spec{}, err
	}
	opts.Topics = []compose.Topic{}
	return platform.Spec{Docker: &opts}, nil
}
