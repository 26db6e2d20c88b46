package probe

import (
	"crypto/rand"
	"encoding/hex"
)

// NewRunID returns a random run ID, which marks a run's records in their
// values (results.Value).
func NewRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
