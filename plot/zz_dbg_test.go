package plot

import (
	"bytes"
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	tr, csv := generatedTrial(t, 12, 24_000)
	var out bytes.Buffer
	if err := WriteSVG(&out, tr, csv, Options{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/plots/many.svg", out.Bytes(), 0o644)
}
