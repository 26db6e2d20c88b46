package compose

import (
	"context"
	"sync"
	"time"
)

// LocalImages says whether Docker has an image here, asking Docker once
// per image: a benchmark's scenarios name a Kafka version each, and
// thousands of trials need one answer for each version. The zero value is
// ready to use.
type LocalImages struct {
	mu    sync.Mutex
	known map[string]bool
}

// Has reports whether Docker has img here; when Docker cannot be asked
// (within 10 s) it says no, and the cluster then pulls the public image.
func (l *LocalImages) Has(ctx context.Context, img string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if v, ok := l.known[img]; ok {
		return v
	}
	cli, err := NewDockerClient()
	if err != nil {
		return false
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = cli.ImageInspect(ctx, img)
	if l.known == nil {
		l.known = map[string]bool{}
	}
	l.known[img] = err == nil
	return err == nil
}
