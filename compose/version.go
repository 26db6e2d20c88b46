package compose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

// LibDir holds the Kafka distribution's jars inside the image.
const LibDir = "/opt/kafka/libs"

// KafkaVersion returns the version of Kafka the running image holds, read
// from the name of its kafka-clients jar (kafka-clients-4.3.1.jar) in a
// running node's container. Kafka's protocol does not carry the version.
func (c *Cluster) KafkaVersion(ctx context.Context) (string, error) {
	var name string
	for _, svc := range c.proj.order {
		ci, err := c.inspect(ctx, svc)
		if err != nil {
			return "", err
		}
		if ci != nil && ci.State != nil && ci.State.Running {
			name = c.ContainerName(svc)
			break
		}
	}
	if name == "" {
		return "", errors.New("kafka version: no container is running")
	}
	out, err := c.exec(ctx, name, "ls", LibDir)
	if err != nil {
		return "", fmt.Errorf("kafka version: %w", err)
	}
	v := versionFromLibs(out)
	if v == "" {
		return "", fmt.Errorf("kafka version: no kafka-clients jar in %s of %s", LibDir, name)
	}
	return v, nil
}

var clientsJar = regexp.MustCompile(`^kafka-clients-([0-9][0-9A-Za-z.\-]*)\.jar$`)

// versionFromLibs finds the kafka-clients jar in a directory listing.
func versionFromLibs(listing string) string {
	for _, f := range strings.Fields(listing) {
		if m := clientsJar.FindStringSubmatch(f); m != nil &&
			!strings.HasSuffix(m[1], "-test") && !strings.HasSuffix(m[1], "-sources") && !strings.HasSuffix(m[1], "-javadoc") {
			return m[1]
		}
	}
	return ""
}

// Exec runs cmd in the running container of service and returns its
// standard output; a non-zero exit is an error holding its standard error.
func (c *Cluster) Exec(ctx context.Context, service string, cmd ...string) (string, error) {
	return c.exec(ctx, c.ContainerName(service), cmd...)
}

// exec runs cmd in a running container and returns its standard output.
func (c *Cluster) exec(ctx context.Context, name string, cmd ...string) (string, error) {
	ex, err := c.docker.ContainerExecCreate(ctx, name, container.ExecOptions{
		Cmd: cmd, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return "", fmt.Errorf("exec in %s: %w", name, err)
	}
	hj, err := c.docker.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return "", fmt.Errorf("exec in %s: %w", name, err)
	}
	defer hj.Close()
	var out, errOut bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &errOut, hj.Reader); err != nil {
		return "", fmt.Errorf("exec in %s: read output: %w", name, err)
	}
	st, err := c.docker.ContainerExecInspect(ctx, ex.ID)
	if err != nil {
		return "", fmt.Errorf("exec in %s: %w", name, err)
	}
	if st.ExitCode != 0 {
		return "", fmt.Errorf("%s in %s: exit code %d: %s", strings.Join(cmd, " "), name, st.ExitCode,
			strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// ConfigFile is where both images render a node's server.properties from
// its KAFKA_* environment when it starts.
const ConfigFile = "/opt/kafka/config/server.properties"

// NodeConfigs returns the configuration of every node, by service name, as
// the cluster reports it. A broker's is its effective configuration
// (DescribeConfigs): every key, defaults included. A controller-only
// node's listener is not reachable from the host in the compose files kbf
// runs, so its configuration is the server.properties it was started
// with, read from its container: only the keys set there; a key absent is
// unknown, not a default. Nodes that could not be read are left out and
// named in the error; the map holds the others.
func (c *Cluster) NodeConfigs(ctx context.Context) (map[string]map[string]string, error) {
	out := make(map[string]map[string]string)
	var errs []error
	byID, err := c.admin.BrokerConfigs(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for id, cfg := range byID {
		if svc, ok := c.proj.byID[id]; ok {
			out[svc] = cfg
		}
	}
	for _, svc := range c.proj.order {
		if c.proj.nodes[svc].broker {
			continue
		}
		text, err := c.exec(ctx, c.ContainerName(svc), "cat", ConfigFile)
		if err != nil {
			errs = append(errs, fmt.Errorf("configuration of %s: %w", svc, err))
			continue
		}
		out[svc] = parseProperties(text)
	}
	return out, errors.Join(errs...)
}

// parseProperties reads the key=value lines of a Java properties file as
// Kafka's docker wrapper writes it (no continuation lines or escapes).
func parseProperties(text string) map[string]string {
	m := make(map[string]string)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}
