package tune

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/kbf-project/kbf/bench"
)

// Flags are kbf tune's own flags: the grid asked for (Grid reads them),
// where it goes, and whether only its cost is wanted.
type Flags struct {
	Sessions []time.Duration
	Pauses   []time.Duration
	Starves  []time.Duration
	// Losses are --tolerate-loss, SHARE:LENGTH each (ParseLoss).
	Losses []string
	// Client are the client settings' lists (--metadata-min-age 100ms,1s
	// …), one per setting kbf tune grids, empty where not given.
	Client []ClientList
	// Deaths are --death, read by ParseDeaths.
	Deaths   []string
	Trials   int
	Out      string
	Estimate bool
}

// AddFlags adds --session, --tolerate-pause, --tolerate-starve,
// --tolerate-loss, --death, --trials and --estimate to fs, and the client
// settings' lists: --metadata-min-age, --retry-backoff,
// --retry-backoff-max, --produce-timeout and --request-timeout-overhead,
// kbf run's flags of those names taking several values each. Called after
// the probe's flags are on fs (probe.Config.AddFlags), it takes those five
// over. --out is the command's (it shares the flag with others), bound to
// f.Out by the caller.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	fs.DurationSliceVar(&f.Sessions, "session", nil, "the broker.session.timeout.ms to try (comma-separated or repeated), e.g. 9s,6s,4s,3s,2s")
	fs.DurationSliceVar(&f.Pauses, "tolerate-pause", nil, "the hiccups the cluster must tolerate: a pause of the broker this long (comma-separated or repeated), e.g. 2s")
	fs.DurationSliceVar(&f.Starves, "tolerate-starve", nil, "a hiccup to tolerate: the broker's container starved to --starve-cpus of a CPU (default 0.05) this long (comma-separated or repeated), e.g. 2s")
	fs.StringSliceVar(&f.Losses, "tolerate-loss", nil, "a hiccup to tolerate: SHARE:LENGTH of the broker's packets dropped each way (comma-separated or repeated), e.g. 30%:2s; needs root")
	fs.StringSliceVar(&f.Deaths, "death", []string{"sigkill"}, "the deaths whose stall is the cost, per setting: sigkill, and beside it pause (the broker frozen for good, its connections open: the clients' timeouts bound the stall) or isolate (its every link cut; root), e.g. sigkill,pause")
	f.addClientFlags(fs) // client.go
	bench.AddTrialsFlag(fs, &f.Trials, "trials of each scenario (at least 6 for a recommendation)")
	fs.BoolVar(&f.Estimate, "estimate", false, "say what the tune would cost and stop")
}

// Grid is the grid the flags ask for, each hiccup's broker starved to
// starveCPUs and the trials' faulted broker; an error for a
// --tolerate-loss or a --death that does not read.
func (f *Flags) Grid(starveCPUs float64, broker string) (*Grid, error) {
	deaths, err := ParseDeaths(f.Deaths)
	if err != nil {
		return nil, err
	}
	g := &Grid{Sessions: f.Sessions, Pauses: f.Pauses, Starves: f.Starves, StarveCPUs: starveCPUs,
		Trials: f.Trials, Broker: broker, Deaths: deaths, Clients: f.Client}
	for _, l := range f.Losses {
		loss, err := ParseLoss(l)
		if err != nil {
			return nil, err
		}
		g.Losses = append(g.Losses, loss)
	}
	return g, nil
}
