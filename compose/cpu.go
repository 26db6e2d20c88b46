package compose

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/docker/docker/api/types/container"
)

// CPUTimes returns the CPU time each running node's container has used
// since it started, by service, as the engine's cgroup accounting says. A
// node whose container does not run is left out: its counter is gone.
func (c *Cluster) CPUTimes(ctx context.Context) (map[string]time.Duration, error) {
	if c.cli == nil {
		return nil, errors.New("cpu times: no engine client")
	}
	out := map[string]time.Duration{}
	var errs []error
	for _, svc := range c.Services() {
		st, err := c.cli.ContainerStatsOneShot(ctx, c.ContainerName(svc))
		if err != nil {
			if isNotFound(err) {
				continue
			}
			errs = append(errs, fmt.Errorf("%s: %w", svc, err))
			continue
		}
		var s container.StatsResponse
		err = json.NewDecoder(st.Body).Decode(&s)
		st.Body.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: stats: %w", svc, err))
			continue
		}
		if s.CPUStats.CPUUsage.TotalUsage == 0 {
			continue // not running: no accounting
		}
		out[svc] = time.Duration(s.CPUStats.CPUUsage.TotalUsage)
	}
	return out, errors.Join(errs...)
}
