package probe

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestKIP951Off(t *testing.T) {
	for _, tc := range []struct {
		name     string
		off      bool
		wantFlag string
	}{
		{name: "default on", wantFlag: "true"},
		{name: "off", off: true, wantFlag: "false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.NoKIP951 = tc.off
			def := Defaults()
			if got := c.Effective()["kip951"]; got != tc.wantFlag {
				t.Errorf("kip951 in meta.json %q, want %q", got, tc.wantFlag)
			}
			// One option more when off: the capped versions.
			if got, want := len(c.clientOpts())-len(def.clientOpts()), map[bool]int{false: 0, true: 1}[tc.off]; got != want {
				t.Errorf("%d extra client options, want %d", got, want)
			}
		})
	}
	vs := noKIP951Versions()
	for _, k := range []struct {
		key  kmsg.Key
		want int16
	}{{kmsg.Produce, 9}, {kmsg.Fetch, 15}} {
		if got, ok := vs.LookupMaxKeyVersion(k.key.Int16()); !ok || got != k.want {
			t.Errorf("%s max version %d (%v), want %d: the last without KIP-951's leader hints", k.key.Name(), got, ok, k.want)
		}
	}
	if got, _ := vs.LookupMaxKeyVersion(kmsg.Metadata.Int16()); got < 12 {
		t.Errorf("metadata max version %d, want franz-go's own, untouched", got)
	}
}
