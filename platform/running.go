package platform

import "github.com/kbf-project/kbf/compose"

// Running is the spec of kbf's own Docker cluster (or -f FILE's) as it
// runs, for a command that probes it without shaping it (kbf probe, kbf
// watch): its topics are the probe's to make, none of the file's
// defaults. An error is the flags' (compose.Flags.Options).
func Running(f *compose.Flags) (Spec, error) {
	opts, err := f.Options()
	if err != nil {
		return Spec{}, err
	}
	opts.Topics = []compose.Topic{}
	return Spec{Docker: &opts}, nil
}
