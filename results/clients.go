package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// A trial with more than one client keeps each external client's files in
// a directory of its own, so that the franz-go probe's files stay where
// every older kbf looks for them:
//
//	trial-01/probe.csv, log.csv, client.log      franz-go, in kbf's process
//	trial-01/clients/librdkafka/probe.csv         the librdkafka probe's records
//	trial-01/clients/librdkafka/client.log        its client's own log
//	trial-01/clients/librdkafka/client.json       which client ran, its settings
//	trial-01/clients/librdkafka/log.csv           the read-back of its records
//	trial-01/clients/librdkafka/meta.json         the trial's metadata with its probe's
const (
	ClientsDir     = "clients"     // clients/<name>/: one external client's files
	ClientInfoFile = "client.json" // an external probe's own account of itself
)

// ClientDir is the directory of the external client name in the trial
// directory dir.
func ClientDir(dir, name string) string { return filepath.Join(dir, ClientsDir, name) }

// ClientTrial locates one external client's files in a trial directory.
type ClientTrial struct {
	Name string // the client, as kbf run --clients names it
	Dir  string // the client's directory
	// Probe is the path of its probe CSV; Log of its read-back, "" when
	// it has none; ClientLog of its client's log, "" when none.
	Probe, Log, ClientLog string
	// Info is the path of its client.json, "" when none.
	Info string
	// Meta is its meta.json: the trial's, with the probe's own settings,
	// run id and start offsets; nil when kbf did not write one.
	Meta *Meta
}

// Trial returns the client's records as a trial of their own, in the
// parent trial's directory so that the node logs are read: the analysis
// reads the client's probe CSV, read-back, client log and group reader's
// files instead of the franz-go probe's.
func (c *ClientTrial) Trial(parent *Trial) Trial {
	meta := c.Meta
	if meta == nil && parent.Meta != nil {
		// The trial's times and partitions hold for every client; its
		// client settings are franz-go's, and must not be taken for this
		// client's: with its own meta.json missing, they are unknown.
		m := *parent.Meta
		m.Probe.Client = nil
		meta = &m
	}
	return Trial{Dir: parent.Dir, Probe: c.Probe, Log: c.Log, Meta: meta, ClientLogPath: c.ClientLog, GroupDir: c.Dir, external: true}
}

// clientTrials finds the external clients' directories of the trial
// directory dir, by name. A client directory without a probe CSV is
// skipped: that client never sent.
func clientTrials(dir string) ([]ClientTrial, error) {
	root := filepath.Join(dir, ClientsDir)
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot be read: %w", root, err)
	}
	var out []ClientTrial
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		cdir := filepath.Join(root, e.Name())
		c := ClientTrial{Name: e.Name(), Dir: cdir}
		for _, f := range []struct {
			name string
			to   *string
		}{{ProbeFile, &c.Probe}, {LogFile, &c.Log}, {ClientLog, &c.ClientLog}, {ClientInfoFile, &c.Info}} {
			p := filepath.Join(cdir, f.name)
			ok, err := present(p)
			if err != nil {
				return nil, err
			}
			if ok {
				*f.to = p
			}
		}
		if c.Probe == "" {
			continue
		}
		if ok, err := present(filepath.Join(cdir, MetaFile)); err != nil {
			return nil, err
		} else if ok {
			if c.Meta, err = ReadMeta(cdir); err != nil {
				return nil, err
			}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
