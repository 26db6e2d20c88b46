package tune

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/bench"
	"github.com/kbf-project/kbf/results"
)

// Hiccup is one hiccup the grid asks the cluster to tolerate, each a
// fault kbf run undoes after For with the probe still running
// (--return-after): a pause of the broker (GC-like), its container
// starved to CPUs of a CPU, or Loss of its packets dropped each way.
type Hiccup struct {
	Kind results.FaultKind // pause, cpu-starve or packet-loss
	For  time.Duration
	CPUs float64 // cpu-starve's sliver of a CPU
	Loss float64 // packet-loss's share, 0 to 1
}

// DefaultStarveCPUs is a starve's sliver when the grid gives none (kbf
// run --fault cpu-starve's default).
const DefaultStarveCPUs = 0.05

// String names the hiccup in the answer's table: "pause 2s", "starve 2s
// (0.05 CPU)", "loss 2s (30%)".
func (h Hiccup) String() string {
	switch h.Kind {
	case results.FaultCPUStarve:
		return fmt.Sprintf("starve %v (%g CPU)", h.For, h.CPUs)
	case results.FaultPacketLoss:
		return fmt.Sprintf("loss %v (%s)", h.For, results.LossText(h.Loss))
	}
	return fmt.Sprintf("pause %v", h.For)
}

// short names the hiccup's trials in what to add: "pause-2s",
// "starve-2s", "loss-30%-2s".
func (h Hiccup) short() string {
	switch h.Kind {
	case results.FaultCPUStarve:
		return fmt.Sprintf("starve-%v", h.For)
	case results.FaultPacketLoss:
		return fmt.Sprintf("loss-%s-%v", results.LossText(h.Loss), h.For)
	}
	return fmt.Sprintf("pause-%v", h.For)
}

// slug is the hiccup's part of its scenarios' names: pause-2000ms,
// starve-2000ms, loss-30pct-2000ms.
func (h Hiccup) slug() string {
	ms := h.For.Milliseconds()
	switch h.Kind {
	case results.FaultCPUStarve:
		return fmt.Sprintf("starve-%dms", ms)
	case results.FaultPacketLoss:
		return fmt.Sprintf("loss-%spct-%dms", strconv.FormatFloat(h.Loss*100, 'f', -1, 64), ms)
	}
	return fmt.Sprintf("pause-%dms", ms)
}

// scenario is the hiccup's scenario at point p: the fault undone after
// For, probing long enough after it for the controller to fence the
// broker a session after its last heartbeat, and to see it.
func (h Hiccup) scenario(p Point, g *Grid) bench.Scenario {
	s := bench.Scenario{Name: HiccupName(p, h), Fault: string(h.Kind), Broker: g.Broker,
		Duration: faultAfter + max(h.For, p.Session) + hiccupAfter, FaultAfter: faultAfter, ReturnAfter: h.For,
		Config: p.Config(), Client: clientMap(g.Client, p.Client)}
	switch h.Kind {
	case results.FaultCPUStarve:
		s.StarveCPUs = h.CPUs
	case results.FaultPacketLoss:
		s.Loss = results.LossText(h.Loss)
	}
	return s
}

// HiccupName names a point's hiccup scenario: session-4000-pause-2000ms,
// the same for every point of the session (Grid.File).
func HiccupName(p Point, h Hiccup) string { return p.sessionName() + "-" + h.slug() }

// Loss is a packet loss to tolerate: Share of the broker's packets
// dropped each way, for For.
type Loss struct {
	Share float64
	For   time.Duration
}

// ParseLoss reads kbf tune --tolerate-loss: SHARE:LENGTH, such as
// 30%:2s.
func ParseLoss(s string) (Loss, error) {
	share, length, ok := strings.Cut(s, ":")
	if !ok {
		return Loss{}, fmt.Errorf("tolerate-loss %q: want SHARE:LENGTH, such as 30%%:2s", s)
	}
	p, err := results.ParseLoss(share)
	if err != nil {
		return Loss{}, fmt.Errorf("tolerate-loss %q: %w", s, err)
	}
	d, err := time.ParseDuration(strings.TrimSpace(length))
	if err != nil {
		return Loss{}, fmt.Errorf("tolerate-loss %q: length %q: want a duration such as 2s", s, length)
	}
	return Loss{Share: p, For: d}, nil
}

// Hiccups are the grid's hiccups in the order of its flags: the pauses,
// the starves, the losses.
func (g *Grid) Hiccups() []Hiccup {
	var out []Hiccup
	for _, d := range g.Pauses {
		out = append(out, Hiccup{Kind: results.FaultPause, For: d})
	}
	cpus := g.StarveCPUs
	if cpus == 0 {
		cpus = DefaultStarveCPUs
	}
	for _, d := range g.Starves {
		out = append(out, Hiccup{Kind: results.FaultCPUStarve, For: d, CPUs: cpus})
	}
	for _, l := range g.Losses {
		out = append(out, Hiccup{Kind: results.FaultPacketLoss, For: l.For, Loss: l.Share})
	}
	return out
}

// validateHiccups says in one line what is wrong with the grid's hiccups.
func (g *Grid) validateHiccups() error {
	hs := g.Hiccups()
	switch {
	case len(hs) == 0:
		return fmt.Errorf("no hiccup to tolerate: give --tolerate-pause, --tolerate-starve or --tolerate-loss, e.g. --tolerate-pause 2s")
	case len(hs) > MaxHiccups:
		return fmt.Errorf("%d hiccups: at most %d (each costs %d trials per session timeout)", len(hs), MaxHiccups, g.Trials)
	case g.StarveCPUs != 0 && (g.StarveCPUs < results.MinCPUs || g.StarveCPUs > results.MaxCPUs):
		return fmt.Errorf("--starve-cpus %g: want %g to %g of a CPU", g.StarveCPUs, results.MinCPUs, results.MaxCPUs)
	}
	seen := map[string]bool{}
	for _, h := range hs {
		switch {
		case h.For <= 0 || h.For%time.Millisecond != 0:
			return fmt.Errorf("%s: want a positive length in whole milliseconds", h)
		case h.Kind == results.FaultPacketLoss && (h.Loss <= 0 || h.Loss >= 1):
			return fmt.Errorf("%s: want a share between 0 and 100%%", h)
		case seen[h.slug()]:
			return fmt.Errorf("%s given twice", h)
		}
		seen[h.slug()] = true
	}
	return nil
}
