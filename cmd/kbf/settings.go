package main

import (
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report/render"
)

// settingFlags maps the probe client's settings, as meta.json and the
// report name them (probe.Config.Effective), to the flags of kbf run and
// kbf probe that set them (probe.Settings' recorded names). The analysis
// names a setting and knows no flags; the command line is this package's.
var settingFlags = func() map[string]string {
	m := map[string]string{}
	for _, s := range probe.Settings {
		if s.Recorded != "" {
			m[s.Recorded] = "--" + s.Name
		}
	}
	return m
}()

// flagName returns the flag that sets a client setting, "" for none.
func flagName(setting string) string { return settingFlags[setting] }

// textReport is how kbf prints a report: with the flags that shorten a
// stall named.
var textReport = render.TextOptions{Flag: flagName}
