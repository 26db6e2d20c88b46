//go:build k8s

package testnode

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// AdminConfig is the admin kubeconfig of the node node.sh brought up
// ($KBF_K8S_DIR/admin.kubeconfig), or $KBF_KUBECONFIG, for the Kubernetes
// tests; with neither, t fails saying to bring the node up.
func AdminConfig(t testing.TB) *rest.Config {
	t.Helper()
	path := os.Getenv("KBF_KUBECONFIG")
	if path == "" {
		dir := os.Getenv("KBF_K8S_DIR")
		if dir == "" {
			dir = "/var/lib/kbf-k8s"
		}
		path = filepath.Join(dir, "admin.kubeconfig")
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no kubeconfig at %s: bring the test node up first (make k8s-up), or set KBF_KUBECONFIG", path)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatalf("kubeconfig %s: %v", path, err)
	}
	return cfg
}
