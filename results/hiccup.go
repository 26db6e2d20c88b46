package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The bounds of a cpu-starve's sliver (Fault.CPUs): the engine's least
// CPU quota (1 ms of every 100 ms) to one whole CPU.
const (
	MinCPUs = 0.01
	MaxCPUs = 1.0
)

// ParseLoss reads a packet-loss's share (Fault.Loss) as kbf run --loss
// and a scenario's loss take it, a percentage with or without its sign
// ("30%", "30"), into a share strictly between 0 and 1.
func ParseLoss(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || math.IsNaN(v) || v <= 0 || v >= 100 {
		return 0, fmt.Errorf("loss %q: want a percentage between 0 and 100, such as 30%%", s)
	}
	return v / 100, nil
}

// LossText spells a share as a percentage: "30%".
func LossText(p float64) string {
	return strconv.FormatFloat(p*100, 'f', -1, 64) + "%"
}
