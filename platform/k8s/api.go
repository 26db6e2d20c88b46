package k8s

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/kbf-project/kbf/internal/regfile"
)

// API is the part of the Kubernetes API the target uses, in one
// namespace: the typed clientset behind it (NewAPI), a fake clientset in
// tests. Each method's error for a refused permission is a
// *ForbiddenError naming the verb and the resource.
type API interface {
	Pods(ctx context.Context, selector string) ([]corev1.Pod, error)
	Pod(ctx context.Context, name string) (*corev1.Pod, error)
	// DeletePod deletes a pod with a grace period in seconds.
	DeletePod(ctx context.Context, name string, grace int64) error
	// Logs streams a container's standard output: the running one's, or
	// the one before it (previous), the killed container's last words;
	// follow keeps the stream open until the container ends.
	Logs(ctx context.Context, pod, container string, previous, follow bool) (io.ReadCloser, error)
	// Exec runs cmd in a container and returns its standard output and
	// error.
	Exec(ctx context.Context, pod, container string, cmd []string) (stdout, stderr string, err error)
	// ExecStream runs cmd in a container, its output written as it comes,
	// until it ends or ctx is done. Its standard input stays open while
	// the stream lasts, so that cmd can tell kbf has gone when it closes.
	ExecStream(ctx context.Context, pod, container string, cmd []string, stdout, stderr io.Writer) error
	// AddEphemeralContainer adds c to the pod's ephemeral containers.
	AddEphemeralContainer(ctx context.Context, pod string, c corev1.EphemeralContainer) error
	Namespace() string
}

// ForbiddenError is a call the API server refused for lack of a
// permission: the verb and the resource the Role must grant.
type ForbiddenError struct {
	Verb, Resource, Namespace string
	Err                       error
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("kubernetes: kbf may not %s %s in namespace %s: grant it to kbf's identity (the Role in deploy/kubernetes/rbac.yaml holds what kbf needs)",
		e.Verb, e.Resource, e.Namespace)
}

func (e *ForbiddenError) Unwrap() error { return e.Err }

// clientAPI is API over client-go's typed clientset; exec goes through
// the SPDY executor, which needs the REST configuration too.
type clientAPI struct {
	cs  kubernetes.Interface
	cfg *rest.Config
	ns  string
	// timeout bounds each call that is not a stream (callTimeout).
	timeout time.Duration
	// exec runs cmd, with stdin as its input when not nil.
	exec func(ctx context.Context, pod, container string, cmd []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// LoadConfig reads the kubeconfig at path, or, when path is empty, the one
// kubectl would ($KUBECONFIG, ~/.kube/config), or the pod's own service
// account when kbf runs in the cluster. It returns the namespace the
// kubeconfig's context names, "" when none.
func LoadConfig(path string) (*rest.Config, string, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if path != "" {
		rules.ExplicitPath = path
	}
	// client-go reads a named pipe until a writer comes and /dev/zero until
	// memory runs out: refuse either in one line, as kbf does every file.
	for _, p := range append([]string{path}, filepath.SplitList(os.Getenv(clientcmd.RecommendedConfigPathEnvVar))...) {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil {
			if err := regfile.Check(p, st); err != nil {
				return nil, "", fmt.Errorf("kubeconfig: %w", err)
			}
		}
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{})
	cfg, err := cc.ClientConfig()
	if err != nil {
		if path == "" {
			if in, ierr := rest.InClusterConfig(); ierr == nil {
				return in, "", nil
			}
		}
		return nil, "", fmt.Errorf("kubeconfig: %w", err)
	}
	ns, _, _ := cc.Namespace()
	return cfg, ns, nil
}

// CallTimeout bounds each API call that is not a stream (a pod's list,
// get or delete): client-go sets no deadline of its own, so an API server
// that accepts a connection and never answers, or a credential plugin that
// never returns, would leave kbf waiting minutes with no word.
const CallTimeout = 30 * time.Second

// NewAPI is the API of namespace ns on the cluster cfg reaches.
func NewAPI(cfg *rest.Config, ns string) (API, error) {
	return newAPI(cfg, ns, CallTimeout)
}

func newAPI(cfg *rest.Config, ns string, timeout time.Duration) (*clientAPI, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	a := &clientAPI{cs: cs, cfg: cfg, ns: ns, timeout: timeout}
	a.exec = a.spdyExec
	return a, nil
}

// UnansweredError is an API call that had no answer within its time.
type UnansweredError struct {
	Server  string
	Timeout time.Duration
}

func (e *UnansweredError) Error() string {
	return fmt.Sprintf("kubernetes: the API server %s did not answer within %v: check that the kubeconfig's server is the cluster's and reachable from here, and that its credential plugin (users[].exec), if any, returns (kubectl get pods tries both)",
		e.Server, e.Timeout)
}

func (e *UnansweredError) Unwrap() error { return context.DeadlineExceeded }

// call runs f within a's timeout. It waits for f in a goroutine of its
// own: an exec credential plugin runs before the request and heeds no
// context, so only leaving it behind ends the wait.
func call[T any](ctx context.Context, a *clientAPI, f func(context.Context) (T, error)) (T, error) {
	if a.timeout <= 0 {
		return f(ctx)
	}
	cctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f(cctx)
		done <- result{v, err}
	}()
	var zero T
	select {
	case r := <-done:
		if r.err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return zero, &UnansweredError{Server: a.cfg.Host, Timeout: a.timeout}
		}
		return r.v, r.err
	case <-cctx.Done():
		if err := ctx.Err(); err != nil {
			return zero, err
		}
		return zero, &UnansweredError{Server: a.cfg.Host, Timeout: a.timeout}
	}
}

func (a *clientAPI) Namespace() string { return a.ns }

// forbidden maps the API server's refusal to a *ForbiddenError; other
// errors pass as they are.
func (a *clientAPI) forbidden(err error, verb, resource string) error {
	if apierrors.IsForbidden(err) {
		return &ForbiddenError{Verb: verb, Resource: resource, Namespace: a.ns, Err: err}
	}
	return err
}

func (a *clientAPI) Pods(ctx context.Context, selector string) ([]corev1.Pod, error) {
	l, err := call(ctx, a, func(ctx context.Context) (*corev1.PodList, error) {
		return a.cs.CoreV1().Pods(a.ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	})
	if err != nil {
		return nil, a.forbidden(err, "list", "pods")
	}
	return l.Items, nil
}

func (a *clientAPI) Pod(ctx context.Context, name string) (*corev1.Pod, error) {
	p, err := call(ctx, a, func(ctx context.Context) (*corev1.Pod, error) {
		return a.cs.CoreV1().Pods(a.ns).Get(ctx, name, metav1.GetOptions{})
	})
	return p, a.forbidden(err, "get", "pods")
}

func (a *clientAPI) DeletePod(ctx context.Context, name string, grace int64) error {
	_, err := call(ctx, a, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, a.cs.CoreV1().Pods(a.ns).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	})
	return a.forbidden(err, "delete", "pods")
}

func (a *clientAPI) AddEphemeralContainer(ctx context.Context, pod string, c corev1.EphemeralContainer) error {
	p, err := a.cs.CoreV1().Pods(a.ns).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return a.forbidden(err, "get", "pods")
	}
	p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, c)
	_, err = a.cs.CoreV1().Pods(a.ns).UpdateEphemeralContainers(ctx, pod, p, metav1.UpdateOptions{})
	switch {
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "PodSecurity"):
		return fmt.Errorf("namespace %s's pod security admission refuses an ephemeral container run as root with NET_ADMIN: %w", a.ns, err)
	case apierrors.IsNotFound(err) && !strings.Contains(err.Error(), pod):
		return fmt.Errorf("the cluster serves no ephemeral containers (Kubernetes 1.25 and later do): %w", err)
	}
	return a.forbidden(err, "update", "pods/ephemeralcontainers")
}

func (a *clientAPI) Logs(ctx context.Context, pod, container string, previous, follow bool) (io.ReadCloser, error) {
	rc, err := a.cs.CoreV1().Pods(a.ns).GetLogs(pod, &corev1.PodLogOptions{Container: container, Previous: previous, Follow: follow}).Stream(ctx)
	return rc, a.forbidden(err, "get", "pods/log")
}

func (a *clientAPI) Exec(ctx context.Context, pod, container string, cmd []string) (string, string, error) {
	var stdout, stderr bytes.Buffer
	err := a.exec(ctx, pod, container, cmd, nil, &stdout, &stderr)
	return stdout.String(), stderr.String(), a.forbidden(err, "create", "pods/exec")
}

func (a *clientAPI) ExecStream(ctx context.Context, pod, container string, cmd []string, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Nothing is written: the input ends with the stream.
	in, w := io.Pipe()
	go func() {
		<-ctx.Done()
		w.Close()
	}()
	return a.forbidden(a.exec(ctx, pod, container, cmd, in, stdout, stderr), "create", "pods/exec")
}

func (a *clientAPI) spdyExec(ctx context.Context, pod, container string, cmd []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if a.cfg == nil {
		return errors.New("exec: no REST configuration")
	}
	req := a.cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(a.ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: container, Command: cmd, Stdin: stdin != nil, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(a.cfg, "POST", req.URL())
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr})
}
