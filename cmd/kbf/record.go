package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// recorder owns one trial directory while a probe writes into it.
type recorder struct {
	dir  string
	meta *results.Meta
	csv  *os.File
	clog *os.File
}

// newRecorder creates dir and its probe files; meta is written once the
// probe is made (setMeta).
func newRecorder(dir string) (*recorder, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results directory: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, results.ProbeFile)); err == nil {
		return nil, usagef("%s already holds results; choose another --out", dir)
	}
	r := &recorder{dir: dir}
	var err error
	if r.csv, err = os.Create(filepath.Join(dir, results.ProbeFile)); err != nil {
		return nil, err
	}
	if r.clog, err = os.Create(filepath.Join(dir, results.ClientLog)); err != nil {
		r.csv.Close()
		return nil, err
	}
	return r, nil
}

func (r *recorder) setMeta(m *results.Meta) error {
	r.meta = m
	return r.save()
}

func (r *recorder) output() probe.Output {
	return probe.Output{Messages: r.csv, ClientLog: r.clog}
}

func (r *recorder) save() error { return results.WriteMeta(r.dir, r.meta) }

// discard closes and removes what newRecorder made, for a probe that never
// started: an empty trial directory would only puzzle kbf report later.
func (r *recorder) discard() {
	r.close()
	os.Remove(filepath.Join(r.dir, results.ProbeFile))
	os.Remove(filepath.Join(r.dir, results.ClientLog))
	os.Remove(filepath.Join(r.dir, results.MetaFile))
	os.Remove(r.dir) // only if empty
}

func (r *recorder) close() error {
	err1 := r.csv.Close()
	err2 := r.clog.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

// newMeta starts a trial's metadata from the probe that will run.
func newMeta(kind string, p *probe.Probe) *results.Meta {
	cfg := p.Config()
	return &results.Meta{
		Kind:       kind,
		KBFVersion: version,
		Command:    append([]string{"kbf"}, os.Args[1:]...),
		Started:    time.Now().UTC(),
		Cluster:    results.Cluster{Bootstrap: cfg.Bootstrap},
		Probe: results.Probe{
			Topic:        cfg.Topic,
			Partitions:   cfg.Partitions,
			Interval:     cfg.Interval,
			Acks:         cfg.Acks,
			StartOffsets: p.StartOffsets(),
			Client:       cfg.Effective(),
			RunID:        cfg.RunID,
		},
	}
}

// defaultOut names a new results directory for a run of the given kind.
func defaultOut(kind string) string {
	return filepath.Join("kbf-runs", time.Now().UTC().Format("20060102-150405")+"-"+kind)
}

// progress prints the probe's progress every second until ctx is done: on a
// terminal as one line rewritten in place, elsewhere every five seconds.
func progress(ctx context.Context, w io.Writer, phase func() string, p *probe.Probe, start time.Time) {
	tty := isTerminal(w)
	every := 5 * time.Second
	if tty {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			if tty {
				fmt.Fprint(w, "\r\033[K")
			}
			return
		case <-t.C:
		}
		now := time.Now()
		var b strings.Builder
		fmt.Fprintf(&b, "%-9s %5.1fs", phase(), now.Sub(start).Seconds())
		for _, s := range p.Progress() {
			age := "-"
			if !s.LastAck.IsZero() {
				age = fmt.Sprintf("%.2fs", now.Sub(s.LastAck).Seconds())
			}
			fmt.Fprintf(&b, "  p%d ack age %s", s.Partition, age)
			if s.Failed > 0 {
				fmt.Fprintf(&b, " (%d failed)", s.Failed)
			}
		}
		if tty {
			fmt.Fprintf(w, "\r\033[K%s", b.String())
		} else {
			fmt.Fprintln(w, b.String())
		}
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// longestSendGap is the longest gap between two sends to one partition.
func longestSendGap(stats []probe.PartitionStats) time.Duration {
	var d time.Duration
	for _, s := range stats {
		d = max(d, s.LongestSendGap)
	}
	return d
}
