package k8s

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// versionLine matches the line every Kafka process logs as it starts
// (AppInfoParser): "Kafka version: 4.3.1".
var versionLine = regexp.MustCompile(`Kafka version: ([0-9]+\.[0-9]+[0-9A-Za-z.\-]*)`)

// versionTag matches an image tag that says a Kafka release: the release
// itself (apache/kafka:4.3.1, kbf/kafka:4.3.1), or Strimzi's
// "OPERATOR-kafka-RELEASE" (quay.io/strimzi/kafka:0.45.0-kafka-3.9.0).
var versionTag = regexp.MustCompile(`^(?:.*-kafka-)?([0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.]+)?)$`)

// maxVersionScan bounds how much of a broker's output is read for its
// version line, which comes within its first lines.
const maxVersionScan = 8 << 20

// KafkaVersion is the Kafka release the brokers run: the "Kafka version"
// line a broker's current container logged as it started, read through
// the API, else the release the brokers' image tag names. A broker that
// logs to files only, with an image tag that is no release, leaves it
// unknown.
func (t *Cluster) KafkaVersion(ctx context.Context) (string, error) {
	bs := t.brokerNodes()
	if len(bs) == 0 {
		return "", errors.New("kafka version: no broker")
	}
	n := bs[0]
	v, lerr := t.loggedVersion(ctx, n)
	if v != "" {
		return v, nil
	}
	if v := tagVersion(n.Image); v != "" {
		return v, nil
	}
	why := "no \"Kafka version\" line in its output"
	if lerr != nil {
		why = lerr.Error()
	}
	return "", fmt.Errorf("kafka version: %s of pod %s (%s), and image %s's tag names no release", why, n.Pod, n.Container, n.Image)
}

// loggedVersion reads the node's output until its version line.
func (t *Cluster) loggedVersion(ctx context.Context, n Node) (string, error) {
	rc, err := t.api.Logs(ctx, n.Pod, n.Container, false, false)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	read := 0
	for sc.Scan() && read < maxVersionScan {
		read += len(sc.Bytes()) + 1
		if m := versionLine.FindStringSubmatch(sc.Text()); m != nil {
			return m[1], nil
		}
	}
	return "", sc.Err()
}

// tagVersion is the Kafka release an image reference's tag names, "" when
// it names none.
func tagVersion(image string) string {
	image, _, _ = strings.Cut(image, "@") // a digest
	i := strings.LastIndexByte(image, ':')
	if i < 0 || strings.Contains(image[i:], "/") { // no tag, or a registry's port
		return ""
	}
	if m := versionTag.FindStringSubmatch(image[i+1:]); m != nil {
		return m[1]
	}
	return ""
}
