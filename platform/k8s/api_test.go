package k8s

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kbf-project/kbf/internal/regfile"
)

// kubeconfig writes a kubeconfig for server whose user is user (YAML).
func kubeconfig(t *testing.T, server, user string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: u
  user:
%s
contexts:
- name: x
  context: {cluster: c, user: u, namespace: ns}
current-context: x
`, server, user)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCallUnanswered: an API server that accepts and never answers, or a
// credential plugin that never returns, ends a call within its timeout
// with the server named, instead of client-go's wait without a deadline.
func TestCallUnanswered(t *testing.T) {
	release := make(chan struct{})
	silent := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer silent.Close()
	defer close(release)
	answers := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"kafka-0"}}]}`)
	}))
	defer answers.Close()
	plugin := `    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: sleep
      args: ["3"]
      interactiveMode: Never`
	for _, tc := range []struct {
		name, server, user string
		wantPods           int
	}{
		{name: "an API server that never answers", server: silent.URL, user: "    token: t"},
		{name: "a credential plugin that never returns", server: answers.URL, user: plugin},
		{name: "an API server that answers", server: answers.URL, user: "    token: t", wantPods: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, ns, err := LoadConfig(kubeconfig(t, tc.server, tc.user))
			if err != nil {
				t.Fatal(err)
			}
			a, err := newAPI(cfg, ns, 300*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			pods, err := a.Pods(context.Background(), "")
			if tc.wantPods > 0 {
				if err != nil || len(pods) != tc.wantPods {
					t.Fatalf("Pods = %d, %v; want %d", len(pods), err, tc.wantPods)
				}
				return
			}
			var ue *UnansweredError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.server) {
				t.Fatalf("err = %v, want an UnansweredError naming %s", err, tc.server)
			}
			// Generous: the bound is 300ms; client-go alone waits minutes.
			if d := time.Since(start); d > 2500*time.Millisecond {
				t.Errorf("Pods returned after %v", d)
			}
		})
	}
}

func TestLoadConfigNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tc := range []struct{ name, path, env string }{
		{name: "--kubeconfig a named pipe", path: fifo},
		{name: "--kubeconfig /dev/zero", path: "/dev/zero"},
		{name: "$KUBECONFIG a named pipe", env: fifo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.env)
			done := make(chan error, 1)
			go func() {
				_, _, err := LoadConfig(tc.path)
				done <- err
			}()
			select {
			case err := <-done:
				if !errors.Is(err, regfile.ErrNotRegular) {
					t.Fatalf("err = %v, want ErrNotRegular", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("LoadConfig blocked")
			}
		})
	}
}
