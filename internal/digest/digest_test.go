package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestJSON(t *testing.T) {
	type plan struct {
		F string
		S int
	}
	got, err := JSON(plan{"a", 1})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(`{"F":"a","S":1}`))
	if want := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("JSON = %s, want %s, the SHA-256 of the encoding", got, want)
	}
	other, err := JSON(plan{"a", 2})
	if err != nil {
		t.Fatal(err)
	}
	if other == got {
		t.Fatalf("two values, one digest %s", got)
	}
	if _, err := JSON(func() {}); err == nil {
		t.Fatal("a func marshalled: want an error")
	}
}
