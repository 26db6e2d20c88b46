package main

import "github.com/kbf-project/kbf/report/render"

// settingFlags maps the probe client's settings, as meta.json and the
// report name them (probe.Config.Effective), to the flags of kbf run and
// kbf probe that set them. The analysis names a setting and knows no
// flags; the command line is this package's.
var settingFlags = map[string]string{
	"linger":                   "--linger",
	"retry_backoff":            "--retry-backoff",
	"retry_backoff_max":        "--retry-backoff-max",
	"metadata_min_age":         "--metadata-min-age",
	"record_delivery_timeout":  "--delivery-timeout",
	"produce_request_timeout":  "--produce-timeout",
	"request_timeout_overhead": "--request-timeout-overhead",
	"fetch_max_wait":           "--fetch-max-wait",
	"interval":                 "--interval",
	"drain":                    "--drain",
	"acks":                     "--acks",
	"kip951":                   "--kip951",
}

// flagName returns the flag that sets a client setting, "" for none.
func flagName(setting string) string { return settingFlags[setting] }

// textReport is how kbf prints a report: with the flags that shorten a
// stall named.
var textReport = render.TextOptions{Flag: flagName}
