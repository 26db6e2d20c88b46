package timeline

import (
	"testing"

	"github.com/kbf-project/kbf/results"
)

func TestReadBackConfig(t *testing.T) {
	m := &results.Meta{Cluster: results.Cluster{Nodes: map[string]map[string]string{
		"c1": {"broker.session.timeout.ms": "4000"},
	}}}
	c, ok := ReadBackConfig(m, "c1")
	if !ok {
		t.Fatal("no configuration for c1")
	}
	v, where, ok := c.Lookup("broker.session.timeout.ms")
	if !ok || v != "4000" || where != "meta.json (read back from c1)" {
		t.Errorf("lookup: %q %q %v", v, where, ok)
	}
	if _, _, ok := c.Lookup("broker.heartbeat.interval.ms"); ok {
		t.Error("a setting not read back was found")
	}
	for _, tt := range []struct {
		name string
		m    *results.Meta
		node string
	}{{"no meta", nil, "c1"}, {"another node", m, "k1"}} {
		if _, ok := ReadBackConfig(tt.m, tt.node); ok {
			t.Errorf("%s: a configuration where there is none", tt.name)
		}
	}
}
