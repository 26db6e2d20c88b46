package compose

import (
	"context"
	"testing"
)

// TestLocalImagesAsksOnce: an image Docker cannot be asked about is not
// here, and an answer is kept: the second question of an image asks
// Docker nothing.
func TestLocalImagesAsksOnce(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/no-docker.sock")
	var l LocalImages
	if l.Has(context.Background(), "kbf/kafka:4.0.2") {
		t.Fatal("no Docker to ask, yet the image is here")
	}
	if v, ok := l.known["kbf/kafka:4.0.2"]; !ok || v {
		t.Fatalf("the answer not kept: %v", l.known)
	}
	l.known["mine/kafka:dev"] = true
	if !l.Has(context.Background(), "mine/kafka:dev") {
		t.Fatal("a kept answer asked again")
	}
}
