package testkafka

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BuildKBF builds the kbf command into the test's directory, static and
// stripped as deploy/kbf-image.sh builds the image's: the tests that run kbf
// as a process (compose's, the remote cluster's, Kubernetes') and the
// image then share one compile of kbf's packages, not one each way.
func BuildKBF(ctx context.Context, t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "kbf")
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "github.com/kbf-project/kbf/cmd/kbf")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build kbf: %v\n%s", err, out)
	}
	return bin
}
