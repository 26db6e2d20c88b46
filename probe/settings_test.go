package probe

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestFlagFor: every mapped setting is one the probe records, and every
// flag it names is one kbf run and kbf probe take.
func TestFlagFor(t *testing.T) {
	fs := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	f := &Config{}
	f.AddFlags(fs, true)
	c := Defaults()
	effective := c.Effective()
	if len(settingFlags) == 0 {
		t.Fatal("no setting maps to a flag")
	}
	for setting := range settingFlags {
		t.Run(setting, func(t *testing.T) {
			if _, ok := effective[setting]; !ok {
				t.Errorf("%s is not a setting the probe records in meta.json", setting)
			}
			flag := FlagFor(setting)
			if fs.Lookup(strings.TrimPrefix(flag, "--")) == nil {
				t.Errorf("%s maps to %s, which is not a probe flag", setting, flag)
			}
		})
	}
	for _, tc := range []struct{ setting, want string }{
		{"metadata_min_age", "--metadata-min-age"},
		{"record_delivery_timeout", "--delivery-timeout"},
		{"broker.session.timeout.ms", ""},
		{"", ""},
	} {
		if got := FlagFor(tc.setting); got != tc.want {
			t.Errorf("FlagFor(%q) = %q, want %q", tc.setting, got, tc.want)
		}
	}
}
