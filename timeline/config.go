package timeline

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/kbf-project/kbf/results"
)

// NodeConfig returns the configuration a node logged when it last started:
// the "KafkaConfig values:" block of its server.log in the trial directory
// dir, one "name = value" per line. It returns nil when the log or the block
// is absent (a rotated-away start).
func NodeConfig(dir, node string) map[string]string {
	f, err := os.Open(filepath.Join(dir, results.NodeLogsDir, node, ServerLog))
	if err != nil {
		return nil
	}
	defer f.Close()
	var cfg, block map[string]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, "KafkaConfig values:"):
			block = map[string]string{}
		case block != nil && strings.HasPrefix(line, "\t"):
			if k, v, ok := strings.Cut(strings.TrimSpace(line), " = "); ok {
				block[k] = v
			}
		case block != nil:
			if len(block) > 0 {
				cfg = block
			}
			block = nil
		}
	}
	if len(block) > 0 {
		cfg = block
	}
	return cfg
}
