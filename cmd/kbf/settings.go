package main

import (
	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/report/render"
)

// textReport is how kbf prints a report: with the flags that shorten a
// stall named (probe.FlagFor).
var textReport = render.TextOptions{Flag: probe.FlagFor}
