// Package grouprec writes a probe's group reader's files: the records it
// processed (results.GroupFile) and its commits and assignment changes
// (results.GroupEventsFile). kbf's franz-go probe and the librdkafka
// reference probe share it, so that both stop recording events at the same
// moment and keep their first write error the same way.
package grouprec

import (
	"io"
	"sync"

	"github.com/kbf-project/kbf/internal/firsterr"
	"github.com/kbf-project/kbf/results"
)

// Recorder writes the group reader's rows. It is safe for concurrent use:
// the clients' callbacks record from their own goroutines.
type Recorder struct {
	mu     sync.Mutex
	recs   *results.GroupEncoder
	evs    *results.GroupEventEncoder
	halted bool // stopped: the leave's revoke and late commits are not recorded
	werr   firsterr.Keeper
}

// New returns a Recorder writing records to recs and events to evs.
func New(recs, evs io.Writer) *Recorder {
	return &Recorder{recs: results.NewGroupEncoder(recs), evs: results.NewGroupEventEncoder(evs)}
}

// Record writes a record the reader processed.
func (r *Recorder) Record(rec *results.GroupRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs.Encode(rec)
}

// Event writes a commit or an assignment change, unless Halt came first.
func (r *Recorder) Event(ev *results.GroupEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.halted {
		r.evs.Encode(ev)
	}
}

// Halt ends the recording of events, before the reader stops: its
// leave's revoke and the commits still in flight are no part of the trial.
// Records are still written.
func (r *Recorder) Halt() {
	r.mu.Lock()
	r.halted = true
	r.mu.Unlock()
}

// Flush writes the buffered rows, both files even when one fails, and
// returns the first write error of this or an earlier flush.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.werr.Flush("write the group reader's files", r.recs.Flush, r.evs.Flush)
}
