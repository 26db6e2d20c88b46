package compose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
)

// CPUTimes returns the CPU time each running node's container has used
// since it started, by service, as the engine's cgroup accounting says. A
// node whose container does not run is left out: its counter is gone.
//
// The nodes are asked at once: the engine answers a one-shot stats request
// at its next collection, about a second away, so asking one after another
// took a second a node — a four-node reading every four seconds instead of
// every second, and as long again at the end of every trial.
func (c *Cluster) CPUTimes(ctx context.Context) (map[string]time.Duration, error) {
	if c.cli == nil {
		return nil, errors.New("cpu times: no engine client")
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		out  = map[string]time.Duration{}
		errs []error
	)
	for _, svc := range c.Services() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, ok, err := c.cpuTime(ctx, svc)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("%s: %w", svc, err))
			case ok:
				out[svc] = d
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// cpuTime is one node's counter; ok is false when its container does not
// run (or does not exist), which has none.
func (c *Cluster) cpuTime(ctx context.Context, svc string) (d time.Duration, ok bool, err error) {
	st, err := c.cli.ContainerStatsOneShot(ctx, c.ContainerName(svc))
	if err != nil {
		if isNotFound(err) {
			return 0, false, nil
		}
		return 0, false, err
	}
	defer st.Body.Close()
	var s container.StatsResponse
	if err := json.NewDecoder(st.Body).Decode(&s); err != nil {
		return 0, false, fmt.Errorf("stats: %w", err)
	}
	if s.CPUStats.CPUUsage.TotalUsage == 0 {
		return 0, false, nil // not running: no accounting
	}
	return time.Duration(s.CPUStats.CPUUsage.TotalUsage), true, nil
}
