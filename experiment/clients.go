package experiment

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/kbf-project/kbf/clients"
	"github.com/kbf-project/kbf/results"
)

// ExternalClient is a running reference probe (clients.Process): what a
// trial asks of it.
type ExternalClient interface {
	// Ready waits until the probe is about to send its first record.
	Ready(ctx context.Context) (*clients.Info, error)
	// Stop stops it sending, waits for it to write everything, and says
	// how it ended.
	Stop(ctx context.Context) error
}

// StartClient starts an external client's probe; the default is
// clients.Start.
type StartClient func(ctx context.Context, spec clients.Spec) (ExternalClient, error)

func defaultStartClient(ctx context.Context, spec clients.Spec) (ExternalClient, error) {
	p, err := clients.Start(ctx, spec)
	if err != nil {
		return nil, err // a nil *clients.Process must not become a non-nil ExternalClient
	}
	return p, nil
}

// external is one external client of a trial.
type external struct {
	name clients.Name
	dir  string
	c    ExternalClient
	// group is its group reader's settings as its meta.json records them;
	// nil without one. Its balancer is the franz-go reader's: each
	// reference probe asks for the same (cooperative-sticky, or the
	// broker's uniform assignor under KIP-848).
	group *results.GroupSettings

	mu    sync.Mutex
	ready bool
	err   error // Ready's error: the probe ended before its first send
	info  *clients.Info
	// tail is the last look at its probe.csv, and when it was taken.
	tail     *Unhealthy
	tailTime time.Time
}

// clientTailEvery is how often a client's probe.csv is read while the
// baseline waits: it is flushed once a second, so reading more often
// learns nothing.
const clientTailEvery = 500 * time.Millisecond

// clientFlushLag is how far a reference probe's probe.csv may lag its
// sends: it writes whole rows at least once a second.
const clientFlushLag = 2 * time.Second

// startClients starts every external client of Opt.Clients on the franz-go
// probe's partitions at its interval, each writing into its own directory,
// and starts waiting for each to be ready. franz-go itself is the trial's
// own probe.
func (t *trial) startClients(ctx context.Context) error {
	cfg := t.p.Config()
	start := t.r.StartClient
	if start == nil {
		start = defaultStartClient
	}
	for _, name := range t.o.Clients {
		if name == clients.FranzGo {
			continue
		}
		dir := results.ClientDir(t.dir, string(name))
		spec := clients.Spec{
			Client: name, Bootstrap: cfg.Bootstrap, Topic: cfg.Topic, Partitions: slices.Clone(cfg.Partitions),
			Interval: cfg.Interval, Acks: cfg.Acks, Dir: dir,
			// The run id carries the client's name, so each client's
			// records are its own in the partitions and in its audit.
			RunID:    cfg.RunID + "-" + string(name),
			Settings: t.o.ClientSettings[name],
			Security: cfg.Security,
		}
		group := cfg.GroupSettings()
		if group != nil {
			// A group of the client's own, so the three readers are not
			// members of one group and each is measured alone.
			group.ID += "-" + string(name)
			spec.Group = &clients.GroupSpec{ID: group.ID, Protocol: group.Protocol,
				Commit: group.Commit, AutoCommitInterval: group.AutoCommitInterval}
		}
		c, err := start(ctx, spec)
		if err != nil {
			t.stopClients(ctx)
			return fmt.Errorf("start the %s probe: %w", name, err)
		}
		e := &external{name: name, dir: dir, c: c, group: group}
		t.clients = append(t.clients, e)
		go func() {
			info, err := c.Ready(ctx)
			e.mu.Lock()
			e.ready, e.info, e.err = err == nil, info, err
			e.mu.Unlock()
		}()
	}
	if len(t.clients) > 0 {
		t.r.say("clients: franz-go in kbf, %s as their own processes", clientNames(t.clients))
	}
	return nil
}

func clientNames(es []*external) string {
	s := ""
	for i, e := range es {
		if i > 0 {
			s += ", "
		}
		s += string(e.name)
	}
	return s
}

// clientsSteady applies the baseline to the external clients at now: each
// must be ready and its probe.csv must show every partition acking and
// reading steadily for the period, its rows at most clientFlushLag behind.
// It returns the first client that is not, or nil.
func (t *trial) clientsSteady(now time.Time, period, bound time.Duration) *Unhealthy {
	parts := t.p.Config().Partitions
	first := int32(0)
	if len(parts) > 0 {
		first = parts[0]
	}
	for _, e := range t.clients {
		e.mu.Lock()
		ready, err := e.ready, e.err
		if ready && now.Sub(e.tailTime) >= clientTailEvery {
			e.tail, e.tailTime = tailSteady(filepath.Join(e.dir, results.ProbeFile), now, period, bound, parts), now
		}
		tail := e.tail
		e.mu.Unlock()
		switch {
		case err != nil:
			return &Unhealthy{Partition: first, Why: fmt.Sprintf("%s probe: %v", e.name, err)}
		case !ready:
			return &Unhealthy{Partition: first, Why: fmt.Sprintf("%s probe not ready yet (no %s)", e.name, clients.InfoFile)}
		case tail != nil:
			return &Unhealthy{Partition: tail.Partition, Why: string(e.name) + ": " + tail.Why}
		}
	}
	return nil
}

// tailSteady reads a growing probe.csv and applies the baseline rule to
// its rows: for every partition, acks and reads with no gap over bound for
// the last period of what the file shows, the last no more than
// bound + clientFlushLag before now. A row cut short by the writer ends
// the reading, not the check.
func tailSteady(path string, now time.Time, period, bound time.Duration, parts []int32) *Unhealthy {
	type series struct{ last, since time.Time }
	acks, reads := map[int32]*series{}, map[int32]*series{}
	f, err := os.Open(path)
	if err != nil {
		return &Unhealthy{Partition: firstOf(parts), Why: "no " + results.ProbeFile + " yet"}
	}
	defer f.Close()
	dec := results.NewDecoder(f, path)
	add := func(m map[int32]*series, p int32, at time.Time) {
		if at.IsZero() {
			return
		}
		s := m[p]
		switch {
		case s == nil:
			m[p] = &series{last: at, since: at}
		case at.Sub(s.last) > bound:
			s.last, s.since = at, at
		case at.After(s.last):
			s.last = at
		}
	}
	var msg results.Message
	for {
		if err := dec.Decode(&msg); err != nil {
			break // io.EOF, or a row still being written
		}
		if msg.Failed() {
			continue
		}
		add(acks, msg.Partition, msg.Acked)
		add(reads, msg.Partition, msg.Received)
	}
	s := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	for _, p := range parts {
		for _, c := range []struct {
			what string
			s    *series
		}{{"ack", acks[p]}, {"read", reads[p]}} {
			switch {
			case c.s == nil:
				return &Unhealthy{Partition: p, Why: "no " + c.what + " yet"}
			case now.Sub(c.s.last) > bound+clientFlushLag:
				return &Unhealthy{Partition: p, Why: fmt.Sprintf("no %s for %s", c.what, s(now.Sub(c.s.last)))}
			case c.s.last.Sub(c.s.since) < period:
				return &Unhealthy{Partition: p, Why: fmt.Sprintf("%ss steady for %s of %s", c.what, s(c.s.last.Sub(c.s.since)), s(period))}
			}
		}
	}
	return nil
}

func firstOf(parts []int32) int32 {
	if len(parts) == 0 {
		return 0
	}
	return parts[0]
}

// clientStopTimeout bounds stopping the external clients: their drain
// plus the time a JVM takes to go.
const clientStopTimeout = clients.DefaultDrain + 20*time.Second

// stopClients stops every external client, all at once, and notes how
// each ended. It runs whatever the caller's context says: a probe must
// not outlive its trial.
func (t *trial) stopClients(ctx context.Context) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), clientStopTimeout)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(t.clients))
	for i, e := range t.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = e.c.Stop(sctx)
		}()
	}
	wg.Wait()
	for i, e := range t.clients {
		if errs[i] != nil && t.meta != nil {
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("the %s probe ended badly: %v", e.name, errs[i]))
		}
	}
}

// clientInfo reads what the external client says of itself once it has
// stopped: its run id, start offsets and settings.
func (e *external) clientInfo() (*clients.Info, error) {
	if info, err := clients.ReadInfo(e.dir); err == nil {
		return info, nil
	} else if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s probe wrote no %s", e.name, clients.InfoFile)
	} else {
		return nil, err
	}
}

// readBackClients reads each external client's records back into its own
// log.csv, from the start offsets its client.json records.
func (t *trial) readBackClients(ctx context.Context, rb ReadBack) {
	for _, e := range t.clients {
		info, err := e.clientInfo()
		if err != nil {
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("no read-back of %s: %v", e.name, err))
			continue
		}
		cfg := t.p.Config()
		cfg.RunID = info.RunID
		if err := writeReadBack(ctx, rb, cfg, info.StartOffsets, filepath.Join(e.dir, results.LogFile)); err != nil {
			t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("read-back of %s failed: %v", e.name, err))
		}
	}
}

// saveClients writes each external client's meta.json: the trial's, with
// the probe as the client recorded it (its run id, start offsets and
// settings), so its records are analysed as their own.
func (t *trial) saveClients() error {
	var errs []error
	for _, e := range t.clients {
		info, err := e.clientInfo()
		if err != nil {
			continue // its read-back note says so
		}
		if err := clients.MaskInfo(e.dir); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.name, err))
		}
		m := *t.meta
		m.Probe = info.Probe()
		m.Probe.Group = e.group
		m.Probe.Leaders, m.Probe.Replicas = t.meta.Probe.Leaders, t.meta.Probe.Replicas
		// The clients probe the same topic: read back, it was the same.
		m.Probe.TopicID, m.Probe.ReadBackTopicID = t.meta.Probe.TopicID, t.meta.Probe.ReadBackTopicID
		m.Probe.ReadBackTopicGone = t.meta.Probe.ReadBackTopicGone
		m.Notes = nil
		if err := results.WriteMeta(e.dir, &m); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.name, err))
		}
	}
	return errors.Join(errs...)
}
