package experiment

// A hiccup: a fault of a given length, undone while the probe still runs
// (Options.ReturnAfter). A GC-like pause of 2 s, a network cut of 2 s, the
// broker starved to a sliver of a CPU or losing a share of its packets
// for 2 s, is one trial: whether the controller fenced the broker meanwhile, and
// what the clients saw, is the trial's answer.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
)

// returns reports whether kind can be undone after Options.ReturnAfter:
// a fault kbf undoes while probing, or two-brokers, whose second broker
// comes back then.
func returns(kind results.FaultKind) bool {
	return kind.Undoable() || kind == results.FaultTwoBrokers
}

// validateReturn checks ReturnAfter against the time left after the
// fault and against the fault: only one kbf can undo while probing.
func (o *Options) validateReturn(left time.Duration) error {
	switch {
	case o.ReturnAfter < 0 || (o.ReturnAfter > 0 && o.ReturnAfter >= left):
		return invalid("return_after", o.ReturnAfter, "must be within the %v left after fault_after", left)
	case o.ReturnAfter > 0 && !returns(o.Kill):
		return invalid("return_after", o.ReturnAfter, "fault %s cannot be undone while probing: only a pause, a cut, a starved CPU or a packet loss can (%s), or two-brokers' second broker", o.Kill, undoableFaults())
	}
	return nil
}

// undoableFaults lists the faults kbf can undo while probing, for a
// message: "pause, isolate, …".
func undoableFaults() string {
	var names []string
	for _, k := range results.FaultKinds() {
		if k.Undoable() {
			names = append(names, string(k))
		}
	}
	return strings.Join(names, ", ")
}

// hiccup undoes a single-node fault ReturnAfter after it took effect,
// with the probe running, and records when in the fault
// (results.Fault.Returned). It returns false when it did not (no
// ReturnAfter, Ctrl-C, a failed undo, which is noted: recovery undoes the
// fault then).
func (t *trial) hiccup(ctx context.Context) bool {
	f := t.meta.Fault
	if t.o.ReturnAfter <= 0 || f == nil || !t.o.Kill.Undoable() || t.o.Kill.MultiStep() {
		return false
	}
	if err := sleepUntil(ctx, hiccupFrom(f, t.faultAt).Add(t.o.ReturnAfter)); err != nil {
		return false
	}
	t.setPhase("return")
	if err := t.r.Target.Restart(ctx, t.o.Broker); err != nil {
		t.meta.Notes = append(t.meta.Notes, fmt.Sprintf("%s not undone after --return-after %v: %v", t.o.Kill, t.o.ReturnAfter, err))
		t.r.say("%s of %s not undone: %v; recovery undoes it", t.o.Kill, t.o.Broker, err)
		return false
	}
	f.Returned = time.Now().UTC()
	if err := t.rec.Save(); err != nil {
		t.meta.Notes = append(t.meta.Notes, "the return not saved: "+err.Error())
	}
	t.r.say("%s of %s undone %.2fs after it took effect (--return-after %v)", t.o.Kill, t.o.Broker, f.Returned.Sub(hiccupFrom(f, t.faultAt)).Seconds(), t.o.ReturnAfter)
	t.setPhase("probing")
	return true
}

// hiccupFrom is when the fault took effect, from which its length is
// counted: the engine's freeze or the rules' effect, else when it was
// asked for.
func hiccupFrom(f *results.Fault, asked time.Time) time.Time {
	if at := f.At(); !at.IsZero() {
		return at
	}
	return asked
}

// HiccupFault are the settings of the hiccups besides a pause.
type HiccupFault struct {
	// CPUs is the sliver of a CPU cpu-starve holds the broker to.
	CPUs float64
	// Loss is the share of packets packet-loss drops each way, 0 to 1.
	Loss float64
}

// DefaultStarveCPUs is cpu-starve's sliver when none is given: a
// twentieth of a CPU, too little for a broker to keep up its heartbeats
// and requests, and enough that it does not stop.
const DefaultStarveCPUs = 0.05

// validateHiccup checks the hiccups' settings against the fault.
func (o *Options) validateHiccup() error {
	h := o.Hiccup
	switch {
	case o.Kill == results.FaultCPUStarve && (h.CPUs < results.MinCPUs || h.CPUs > results.MaxCPUs):
		return invalid("starve_cpus", h.CPUs, "want %g to %g of a CPU, such as %g", results.MinCPUs, results.MaxCPUs, DefaultStarveCPUs)
	case o.Kill != results.FaultCPUStarve && h.CPUs != 0:
		return invalid("starve_cpus", h.CPUs, "only cpu-starve holds the broker's CPU, not %s", o.Kill)
	case o.Kill == results.FaultPacketLoss && (h.Loss <= 0 || h.Loss >= 1):
		return invalid("loss", results.LossText(h.Loss), "packet-loss needs a share between 0 and 100 %%, such as 30%%")
	case o.Kill != results.FaultPacketLoss && h.Loss != 0:
		return invalid("loss", results.LossText(h.Loss), "only packet-loss drops packets, not %s", o.Kill)
	}
	return nil
}

// HiccupSaid is what kbf says of a cpu-starve or a packet-loss once made.
func HiccupSaid(f *results.Fault) string {
	if f.Kind == results.FaultCPUStarve {
		return fmt.Sprintf("%s starved to %g CPU; its process runs on", f.Broker, f.CPUs)
	}
	return fmt.Sprintf("%s drops %s of its packets each way; its links stay up", f.Broker, results.LossText(f.Loss))
}
