// Package digest names a value by its content, to tell whether a
// configuration changed since it was recorded: a bench plan against its
// state file, a container against the one kbf made. It reads a value and
// produces the hex SHA-256 of its JSON encoding.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// JSON returns the hex SHA-256 of v's JSON encoding (encoding/json's, so
// a struct's fields in their order and a map's keys sorted); an error when
// v does not marshal.
func JSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
