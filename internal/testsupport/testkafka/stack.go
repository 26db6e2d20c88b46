//go:build integration

package testkafka

import (
	"context"
	"os"
	"testing"
	"time"

	tccompose "github.com/testcontainers/testcontainers-go/modules/compose"
)

// Image is the Kafka image an integration test runs: $KBF_IMAGE, else def.
func Image(def string) string {
	if img := os.Getenv("KBF_IMAGE"); img != "" {
		return img
	}
	return def
}

// Stack is a compose file an integration test brings up as it is, with
// Docker Compose itself (through testcontainers-go), not kbf's own code.
// The stacks publish host ports below 32768, outside Linux's ephemeral
// range (32768–60999): a port in that range may be the local end of any
// connection open at the moment, and Docker's proxy then cannot bind it
// ("address already in use", seen once for 39192).
type Stack struct {
	File string
	// Project is Compose's project name: each test's own, never kbf's.
	Project string
	// Env is the file's variables (KBF_IMAGE, a directory it mounts).
	Env map[string]string
	// OnFail, when set, runs before the stack is removed from a test that
	// failed: to log a node's last lines, say.
	OnFail func(ctx context.Context, t *testing.T, stack *tccompose.DockerCompose)
}

// Start brings the stack up, waiting for its services, and removes it
// with its volumes when the test ends. Ryuk, testcontainers' reaper, is
// turned off: its image would need a registry.
func (s Stack) Start(ctx context.Context, t *testing.T) *tccompose.DockerCompose {
	t.Helper()
	t.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	stack, err := tccompose.NewDockerComposeWith(tccompose.WithStackFiles(s.File), tccompose.StackIdentifier(s.Project))
	if err != nil {
		t.Fatalf("compose stack %s: %v", s.File, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if t.Failed() && s.OnFail != nil {
			s.OnFail(ctx, t, stack)
		}
		if err := stack.Down(ctx, tccompose.RemoveOrphans(true), tccompose.RemoveVolumes(true)); err != nil {
			t.Errorf("compose down %s: %v", s.File, err)
		}
	})
	if err := stack.WithEnv(s.Env).Up(ctx, tccompose.Wait(true)); err != nil {
		t.Fatalf("compose up %s: %v", s.File, err)
	}
	return stack
}
