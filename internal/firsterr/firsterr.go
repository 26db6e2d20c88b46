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
