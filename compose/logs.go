package compose

import (
	"context"
	"fmt"
	"io"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/kbf-project/kbf/nodelog"
)

// CollectOutput reads a node's whole standard output and error from its
// container, running or stopped, and splits it into log files in dstDir
// (nodelog.SplitLog): the logs of a node that logs only to standard output
// (LogsToStdout). The whole output, not only the trial's: the
// configuration a node logs when it starts is part of the evidence.
func (c *Cluster) CollectOutput(ctx context.Context, service, dstDir string) error {
	name := c.ContainerName(service)
	rc, err := c.docker.ContainerLogs(ctx, name, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return fmt.Errorf("collect %s output: %w", service, err)
	}
	defer rc.Close()
	pr, pw := io.Pipe()
	go func() {
		// Without a terminal the engine multiplexes the two streams.
		_, err := stdcopy.StdCopy(pw, pw, rc)
		pw.CloseWithError(err)
	}()
	_, err = nodelog.SplitLog(pr, dstDir)
	pr.Close()
	if err != nil {
		return fmt.Errorf("collect %s output: %w", service, err)
	}
	return nil
}
