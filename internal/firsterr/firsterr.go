// Package firsterr keeps the first of many write errors. A probe goes on
// sending after a write of its files fails, so that the trial still ends
// in order, and reports the first failure when it stops: kbf's franz-go
// probe and the librdkafka reference probe share this rule.
package firsterr

import (
	"fmt"
	"sync"
)

// Keeper holds the first non-nil error it is given. The zero value is
// ready, and a Keeper is safe for concurrent use; it must not be copied
// after first use.
type Keeper struct {
	mu  sync.Mutex
	err error
}

// Keep records err unless an error came first; nil is ignored.
func (k *Keeper) Keep(err error) {
	if err == nil {
		return
	}
	k.mu.Lock()
	if k.err == nil {
		k.err = err
	}
	k.mu.Unlock()
}

// Err is the first error kept; nil when none was.
func (k *Keeper) Err() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

// Flush calls every one of flushes, even after one fails, keeps the first
// failure as "what: err", and returns the first error kept, this call's or
// an earlier one's. The caller holds whatever lock the writers need.
func (k *Keeper) Flush(what string, flushes ...func() error) error {
	for _, flush := range flushes {
		if err := flush(); err != nil {
			k.Keep(fmt.Errorf("%s: %w", what, err))
		}
	}
	return k.Err()
}

// Files are a probe's buffered files, in the order a flush writes them.
type Files struct {
	// Rows writes the messages' rows, holding Lock (the probe's own lock,
	// held for nothing else); a failure is kept as "What: err".
	Lock sync.Locker
	What string
	Rows func() error
	// Readers writes the readers' rows (the group reader's, the
	// transactions'), which lock their own; a failure is kept as it is.
	Readers func() error
	// Log writes the client log, which locks its own.
	Log func() error
}

// FlushFiles writes f's files in order, each even after one fails, and
// keeps the first failure. The caller must not hold f.Lock.
func (k *Keeper) FlushFiles(f Files) {
	f.Lock.Lock()
	k.Flush(f.What, f.Rows)
	f.Lock.Unlock()
	k.Keep(f.Readers())
	k.Flush("write client log", f.Log)
}
