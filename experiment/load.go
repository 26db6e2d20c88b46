package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kbf-project/kbf/load"
	"github.com/kbf-project/kbf/results"
)

// loadConfig is o's load with what the trial gives it: the probe's
// addresses, security and topic.
func (o *Options) loadConfig(bootstrap []string) load.Config {
	c := *o.Load
	c.Bootstrap = bootstrap
	c.Like = o.Probe.Topic
	if c.Topic == "" {
		c.Topic = o.Probe.Topic + load.TopicSuffix
	}
	c.Security = o.Probe.Security
	return c
}

// validateLoad checks the load's settings, when there is one.
func (o *Options) validateLoad() error {
	if o.Load == nil {
		return nil
	}
	c := o.loadConfig([]string{"the target's"})
	switch {
	case c.Topic == c.Like:
		return invalid("load_topic", c.Topic, "is the probe's topic: the load needs a topic of its own")
	case !(c.Rate > 0) || c.Rate > load.MaxRate:
		return invalid("load", c.Offered, "want more than 0 and at most %d records/s", load.MaxRate)
	case c.Size < 1 || c.Size > load.MaxSize:
		return invalid("load_size", c.Size, "want 1 byte to 1 MiB")
	}
	if err := c.Validate(); err != nil {
		return invalidProbe{err}
	}
	return nil
}

// newLoad makes the trial's load, when it has one, and its file: before
// the probe sends, so the baseline is measured under it.
func (t *trial) newLoad(ctx context.Context) error {
	if t.o.Load == nil {
		return nil
	}
	newLoad := t.r.NewLoad
	if newLoad == nil {
		newLoad = defaultNewLoad
	}
	f, err := os.Create(filepath.Join(t.dir, results.LoadFile))
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	l, err := newLoad(ctx, t.o.loadConfig(t.r.Target.Bootstrap()), f)
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	st := l.Settings()
	t.meta.Load = &st
	t.load, t.loadFile = l, f
	cfg := t.o.loadConfig(nil)
	t.r.say("load: %s (%.0f records/s of %d bytes) on %s, %d partitions, replication %d", cfg.Offered, st.Rate, st.Size, st.Topic, st.Partitions, st.Replication)
	return t.rec.Save()
}

// closeLoad releases a load that never ran.
func (t *trial) closeLoad() {
	if t.load == nil {
		return
	}
	t.load.Close()
	t.loadFile.Close()
	os.Remove(t.loadFile.Name())
}

// runLoad runs the load until ctx ends; the returned func waits for it
// and says what it did. Its error is load.csv's: a trial whose load
// could not be written is not whole.
func (t *trial) runLoad(ctx context.Context) func() error {
	if t.load == nil {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	var tot load.Totals
	go func() {
		var err error
		tot, err = t.load.Run(ctx)
		done <- err
	}()
	return func() error {
		err := <-done
		err = errors.Join(err, t.loadFile.Close())
		t.r.say("load: %d records sent, %d acknowledged, %d failed, %d read", tot.Sent, tot.Acked, tot.Failed, tot.Received)
		if err != nil {
			return fmt.Errorf("load: %w", err)
		}
		return nil
	}
}
