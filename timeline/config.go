package timeline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kbf-project/kbf/results"
)

// ErrNoConfig is reported when a node's server.log holds no "KafkaConfig
// values:" block (a start rotated away, a log cut short).
var ErrNoConfig = errors.New("no logged configuration")

// NodeConfig is the configuration a node logged when it last started.
type NodeConfig struct {
	Node   string
	File   string // as a source names it: "c1/server.log"
	Values map[string]ConfigValue
	// StartFile is true when Values are the properties the node was
	// started with, not its logged effective configuration: a key they do
	// not set took Kafka's default.
	StartFile bool
}

// ConfigValue is one "name = value" line of a logged configuration.
type ConfigValue struct {
	Value string
	Line  int // in File
}

// Lookup returns the value of name and where it was logged, "c1/server.log:87".
func (c *NodeConfig) Lookup(name string) (value, source string, ok bool) {
	if c == nil {
		return "", "", false
	}
	v, ok := c.Values[name]
	if !ok {
		return "", "", false
	}
	if v.Line == 0 {
		return v.Value, c.File, true // not a log: a file with no lines to name
	}
	return v.Value, c.File + ":" + strconv.Itoa(v.Line), true
}

// ReadBackConfig is a node's configuration as the run read it back from the
// cluster and recorded it in meta.json (results.Cluster.Nodes), for a node
// whose log holds none: its values have no line, and name meta.json as their
// source.
func ReadBackConfig(m *results.Meta, node string) (*NodeConfig, bool) {
	if m == nil || m.Cluster.Nodes[node] == nil {
		return nil, false
	}
	// A broker's read-back is its whole effective configuration; a
	// controller's, the server.properties it was started with.
	c := &NodeConfig{Node: node, File: results.MetaFile + " (read back from " + node + ")", Values: map[string]ConfigValue{}, StartFile: true}
	for k, v := range m.Cluster.Nodes[node] {
		c.Values[k] = ConfigValue{Value: v}
	}
	return c, true
}

// ReadNodeConfig returns the configuration node logged when it last
// started: the last "KafkaConfig values:" block of its server.log in the
// trial directory dir, one "name = value" per line. A log that is absent or
// unreadable, or holds no block, is an error (wrapping ErrNoConfig for the
// last): the caller must say the values are unknown, not assume defaults.
func ReadNodeConfig(dir, node string) (*NodeConfig, error) {
	return ReadNodeConfigContext(context.Background(), dir, node)
}

// ReadNodeConfigContext is ReadNodeConfig, stopping with ctx's error once
// ctx is done.
func ReadNodeConfigContext(ctx context.Context, dir, node string) (*NodeConfig, error) {
	name := node + "/" + results.ServerLog
	f, err := os.Open(filepath.Join(dir, results.NodeLogsDir, node, results.ServerLog))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	var cfg, block map[string]ConfigValue
	sc := bufio.NewScanner(results.ContextReader(ctx, f))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.Contains(line, "KafkaConfig values:"):
			block = map[string]ConfigValue{}
		case block != nil && strings.HasPrefix(line, "\t"):
			if k, v, ok := strings.Cut(strings.TrimSpace(line), " = "); ok {
				block[k] = ConfigValue{Value: v, Line: n}
			}
		case block != nil:
			if len(block) > 0 {
				cfg = block
			}
			block = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, n+1, err)
	}
	if len(block) > 0 {
		cfg = block
	}
	if cfg == nil {
		return nil, fmt.Errorf("%s: %w", name, ErrNoConfig)
	}
	return &NodeConfig{Node: node, File: name, Values: cfg}, nil
}

// NodeConfigValues returns the values ReadNodeConfig reads, by name; nil
// when they cannot be read.
func NodeConfigValues(dir, node string) map[string]string {
	c, err := ReadNodeConfig(dir, node)
	if err != nil {
		return nil
	}
	m := make(map[string]string, len(c.Values))
	for k, v := range c.Values {
		m[k] = v.Value
	}
	return m
}
