// Package watchrun runs kbf watch: package watch's Watcher on the cluster
// the command names, opened through package platform and tried again
// until it answers, with its metrics served, the brokers' view asked of
// a cluster that gives none of its own, and each incident it writes
// analysed as kbf run's trials are (report.JustRecorded). It is all that
// ties package watch, which records and analyses nothing, to the
// platforms and the analysis, as bench/trialrun ties kbf bench to the
// trial protocol.
package watchrun

import (
	"context"
	"fmt"
	"net"
	"strings"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/experiment"
	"github.com/kbf-project/kbf/platform"
	"github.com/kbf-project/kbf/report"
	"github.com/kbf-project/kbf/report/render"
	"github.com/kbf-project/kbf/watch"
)

// Watch is a watch as the command sets it up.
type Watch struct {
	Opt watch.Options
	// Open opens the watched cluster; an error Final says waiting cannot
	// mend (a flag kbf cannot use) is returned at once, any other tried
	// again every Opt.Retry (watch.Open).
	Open  func(context.Context) (cluster.Cluster, error)
	Final func(error) bool
	// Metrics is --metrics-addr's listener, taken before the cluster is
	// reached; nil: no metrics served. Run closes it.
	Metrics net.Listener
	// Term shows progress, and each incident's digest once analysed.
	Term *experiment.Term
	// Text is how each incident's report.txt is written.
	Text render.TextOptions
}

// Run watches until ctx ends (watch.Watcher.Run); nil when ctx ended
// before the cluster answered.
func (w *Watch) Run(ctx context.Context) error {
	if w.Metrics != nil {
		defer w.Metrics.Close()
	}
	t, err := watch.Open(ctx, w.Open, w.Opt.Retry, w.Final, w.Term.Say)
	if err != nil || t == nil {
		return err
	}
	defer watch.CloseWithin(watch.CloseTimeout, func() { _ = t.Close() })
	m := watch.NewMetrics()
	if w.Metrics != nil {
		defer watch.ServeMetrics(w.Metrics, m)()
		w.Term.Say("metrics at http://" + w.Metrics.Addr().String() + "/metrics")
	}
	wr := &watch.Watcher{Opt: w.Opt, Target: t, Metrics: m, Reporter: w.Term, Recorded: w.recorded(m)}
	if t.Observer() == nil {
		// The cluster's view asked of its brokers, as --bootstrap's is:
		// a broker fenced or gone is seen, not only leaders and ISRs.
		if r, err := platform.Open(ctx, platform.Spec{Remote: &platform.RemoteOptions{Bootstrap: t.Bootstrap(), Security: w.Opt.Probe.Security}}); err == nil {
			defer watch.CloseWithin(watch.CloseTimeout, func() { _ = r.Close() })
			wr.Observer = r.Observer()
		} else if ctx.Err() == nil {
			w.Term.Say(fmt.Sprintf("the brokers' view not asked (%v): leaders and ISRs only", err))
		}
	}
	return wr.Run(ctx)
}

// recorded analyses each incident the watch writes, as kbf run its
// trials, says its digest and sets the metrics' last phases.
func (w *Watch) recorded(m *watch.Metrics) watch.Recorded {
	return func(ctx context.Context, dir string, _ *watch.Incident) error {
		tr, err := report.JustRecorded(ctx, dir, w.Text)
		if err != nil {
			return err
		}
		phases, beyond := tr.LongestPhases()
		m.LastPhases(phases, beyond)
		var b strings.Builder
		if err := w.Text.WriteDigest(&b, tr); err == nil {
			w.Term.Say(b.String())
		}
		return nil
	}
}
