package tctest

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/kbf-project/kbf/compose"
)

// The user's file of the integration test, as kbf reads it: no Docker.
func TestShopFile(t *testing.T) {
	c, err := compose.New(compose.Options{File: filepath.Join("testdata", "shop.yaml"), ProjectName: "kbftc", Env: map[string]string{}})
	if err != nil {
		t.Fatalf("compose.New: %v", err)
	}
	defer c.Close()
	if got, want := c.Services(), []string{"kraft", "kafka-1", "kafka-2", "kafka-3"}; !slices.Equal(got, want) {
		t.Errorf("Services() = %v, want %v", got, want)
	}
	if got, want := c.Bootstrap(), []string{"localhost:29092", "localhost:29093", "localhost:29094"}; !slices.Equal(got, want) {
		t.Errorf("Bootstrap() = %v, want %v", got, want)
	}
	if got := c.ContainerName("kafka-2"); got != "kbftc-kafka-2-1" {
		t.Errorf("ContainerName(kafka-2) = %q, want Docker Compose's kbftc-kafka-2-1", got)
	}
	for _, svc := range c.Services() {
		if !c.LogsToStdout(svc) {
			t.Errorf("%s: LogsToStdout false; the file sets no log4j configuration", svc)
		}
	}
}
