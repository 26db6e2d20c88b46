//go:build k8s

package k8s_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kbf-project/kbf/internal/testsupport/testkafka"
	"github.com/kbf-project/kbf/platform/k8s"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"

	testnode "github.com/kbf-project/kbf/testnode"
)

// manifests decodes the objects of the files glob names (deploy/kubernetes/*.yaml
// when it is empty).
func manifests(t *testing.T, glob string) []runtime.Object {
	t.Helper()
	if glob == "" {
		glob = "../../deploy/kubernetes/*.yaml"
	}
	files, _ := filepath.Glob(glob)
	if len(files) == 0 {
		t.Fatalf("no manifests at %s", glob)
	}
	var objs []runtime.Object
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufioReader(b))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			objs = append(objs, obj)
		}
	}
	return objs
}

// deploy creates the manifests' objects in ns, as kubectl -n ns apply -f
// deploy/kubernetes/ does: the node's cluster DNS resolves the controller's
// name and its default StorageClass binds the claims.
func deploy(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, glob string, edit func(runtime.Object)) {
	t.Helper()
	for _, obj := range manifests(t, glob) {
		if edit != nil {
			edit(obj)
		}
		var err error
		switch o := obj.(type) {
		case *corev1.ConfigMap:
			_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.Service:
			_, err = cs.CoreV1().Services(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.ServiceAccount:
			_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.Role:
			_, err = cs.RbacV1().Roles(ns).Create(ctx, o, metav1.CreateOptions{})
		case *rbacv1.RoleBinding:
			_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, o, metav1.CreateOptions{})
		case *appsv1.StatefulSet:
			_, err = cs.AppsV1().StatefulSets(ns).Create(ctx, o, metav1.CreateOptions{})
		case *corev1.PersistentVolumeClaim:
			_, err = cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, o, metav1.CreateOptions{})
		case *batchv1.Job:
			_, err = cs.BatchV1().Jobs(ns).Create(ctx, o, metav1.CreateOptions{})
		case *appsv1.Deployment:
			_, err = cs.AppsV1().Deployments(ns).Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("the manifests hold a %T the test does not create", obj)
		}
		if err != nil {
			t.Fatalf("create %T: %v", obj, err)
		}
	}
}

// stopPods stops the pods of namespace ns, which is being deleted (so that
// no controller makes them again), without the manifests' two minutes of
// grace: a broker's controlled shutdown waits for a controller that is
// stopping too. It returns once the kubelet has stopped every one of them.
func stopPods(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string) {
	t.Helper()
	grace := int64(1)
	if err := cs.CoreV1().Pods(ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &grace}, metav1.ListOptions{}); err != nil {
		t.Errorf("delete the pods of namespace %s: %v", ns, err)
		return
	}
	for {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err == nil && len(pods.Items) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Errorf("the pods of namespace %s did not stop within a minute (last error %v)", ns, err)
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func waitPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name, what string, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	for {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && ok(p) {
			return p
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pod %s/%s: gave up waiting for %s (last error %v)", ns, name, what, err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// kubeconfigAs writes a kubeconfig for the service account sa of ns, with
// a token the API server issues: kbf then runs with the Role's permissions
// and no more.
func kubeconfigAs(ctx context.Context, t *testing.T, admin *rest.Config, cs kubernetes.Interface, ns, sa string) string {
	t.Helper()
	if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, sa, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		if _, err := cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tok, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token for %s: %v", sa, err)
	}
	ca := admin.CAData
	if len(ca) == 0 && admin.CAFile != "" {
		if ca, err = os.ReadFile(admin.CAFile); err != nil {
			t.Fatal(err)
		}
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["node"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: ca}
	kc.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	kc.Contexts["kbf"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: sa, Namespace: ns}
	kc.CurrentContext = "kbf"
	path := filepath.Join(t.TempDir(), sa+".kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSigkillOnKubernetes deploys the plain manifests on the test node and
// runs one SIGKILL trial with kbf run --target k8s, as the manifests'
// ServiceAccount: the broker is killed from inside its pod, the kubelet
// restarts it, and the trial is analysed with a stall and no acked record
// lost. A service account with no Role is refused in one line first; a
// SIGTERM trial (the pod deleted and made again), a pause (the JVM
// stopped and continued) and an isolate (iptables in an ephemeral
// container) come after. Each trial records every node's CPU
// time as the cluster's.
func TestSigkillOnKubernetes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	admin := testnode.AdminConfig(t)
	cs, err := kubernetes.NewForConfig(admin)
	if err != nil {
		t.Fatal(err)
	}
	ns := fmt.Sprintf("kbf-target-%d", time.Now().UnixNano()%1e6)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if os.Getenv("KBF_K8S_KEEP") != "" {
			t.Logf("namespace %s kept (KBF_K8S_KEEP)", ns)
			return
		}
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete namespace %s: %v", ns, err)
			return
		}
		stopPods(ctx, t, cs, ns)
	})
	// The controller manager makes the namespace's default service account,
	// which admission needs before it takes a pod.
	for {
		if _, err := cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{}); err == nil || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	start := time.Now()
	deploy(ctx, t, cs, ns, "", nil)
	for _, name := range []string{"kafka-controller-100", "kafka-broker-1", "kafka-broker-2", "kafka-broker-3"} {
		waitPod(ctx, t, cs, ns, name, "Ready", ready)
	}
	t.Logf("the manifests' 4 pods Ready %v after their creation", time.Since(start).Round(100*time.Millisecond))

	// kbf's image (jobTrial) packs this binary: one compile serves the
	// host's trials and the pod's.
	bin := testkafka.BuildKBF(ctx, t)
	kbf := func(kubeconfig string, args ...string) (string, int) {
		cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--target", "k8s", "--namespace", ns, "--kubeconfig", kubeconfig}, args...)...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("kbf: %v", err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}

	// No Role bound: one line naming the verb and the resource.
	out, code := kbf(kubeconfigAs(ctx, t, admin, cs, ns, "nobody"), "--kill", "sigkill", "--broker", "kafka-broker-2")
	if code != 1 || !strings.Contains(out, "may not list pods in namespace "+ns) || strings.Count(strings.TrimSpace(out), "\n") > 0 {
		t.Errorf("kbf without a Role: exit %d, output %q; want exit 1 and one line naming list pods", code, out)
	}

	dir := filepath.Join(t.TempDir(), "runs")
	out, code = kbf(kubeconfigAs(ctx, t, admin, cs, ns, "kbf"), "--kill", "sigkill", "--broker", "kafka-broker-2",
		"--duration", "40s", "--out", dir, "--quiet",
		// A shared machine's load breaks a strict baseline's steadiness: the test
		// asks for a cluster that answers, not for a benchmark's baseline.
		"--baseline", "2s", "--baseline-gap", "3s", "--baseline-timeout", "3m")
	t.Logf("kbf run --target k8s (exit %d):\n%s", code, out)
	// 6: the trial ran but was judged not valid, which a shared machine's
	// load makes it; 3 would be acked records lost.
	if code != 0 && code != 6 {
		t.Fatalf("kbf run exit %d, want 0 (or 6, a suspect trial)", code)
	}
	if !strings.Contains(out, "the kubelet restarted kafka-broker-2") {
		t.Errorf("kbf did not say the kubelet restarted the broker")
	}

	p, err := cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := p.Status.ContainerStatuses[0]
	if st.RestartCount != 1 || st.LastTerminationState.Terminated == nil || st.LastTerminationState.Terminated.ExitCode != 137 {
		t.Errorf("kafka-broker-2: restart count %d, last state %+v; want 1, killed (137)", st.RestartCount, st.LastTerminationState)
	}

	rep := readTrial(t, dir)
	if f := rep.Meta.Fault; f == nil || f.Kind != results.FaultSIGKILL || f.ExitCode != 137 || f.NodeID != 2 || f.Finished.IsZero() {
		t.Errorf("the fault recorded %+v, want a sigkill of node 2 ended with 137", f)
	}
	// The manifests' brokers log to their standard output: the version is
	// their start-up line's.
	if v := rep.Meta.Cluster.KafkaVersion; v != "4.3.1" {
		t.Errorf("the trial records Kafka %q, want 4.3.1", v)
	}
	rep.checkAudit(t)
	checkCPU(t, rep.Meta.Host, rep.Meta.Fault, rep.Verdict, "kafka-controller-100", "kafka-broker-1", "kafka-broker-2", "kafka-broker-3")
	rep.checkLedStall(t, "sigkill")
	rep.checkRestartExplained(t, 2)
	for _, name := range []string{"server.log", "state-change.log"} {
		if st, err := os.Stat(filepath.Join(dir, "trial-01", "logs", "kafka-broker-2", name)); err != nil || st.Size() == 0 {
			t.Errorf("the killed broker's %s was not collected: %v", name, err)
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "trial-01", "logs", "kafka-controller-100", results.ControllerLog)); err != nil || st.Size() == 0 {
		t.Errorf("the controller's %s was not collected: %v", results.ControllerLog, err)
	}

	// sigterm: the pod deleted, as a rolling update does, and made again by
	// its StatefulSet with its volume; the deleted pod's output is kept.
	uid := p.UID
	dir = filepath.Join(t.TempDir(), "sigterm")
	out, code = kbf(kubeconfigAs(ctx, t, admin, cs, ns, "kbf"), "--kill", "sigterm", "--broker", "kafka-broker-2",
		"--grace", "60s", "--duration", "30s", "--out", dir, "--quiet", "--baseline", "2s", "--baseline-gap", "3s", "--baseline-timeout", "3m")
	t.Logf("kbf run --target k8s --kill sigterm (exit %d):\n%s", code, out)
	if code != 0 && code != 6 {
		t.Fatalf("kbf run exit %d, want 0 (or 6, a suspect trial)", code)
	}
	if !strings.Contains(out, "its controller made again kafka-broker-2") {
		t.Errorf("kbf did not say the pod was made again")
	}
	if p, err := cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{}); err != nil || p.UID == uid {
		t.Errorf("kafka-broker-2 was not made again: %v", err)
	}
	rep = readTrial(t, dir)
	if f := rep.Meta.Fault; f == nil || f.Kind != results.FaultSIGTERM || f.ExitCode != 143 || f.Escalated {
		t.Errorf("the fault recorded %+v, want a sigterm ended with 143 within its grace", f)
	}
	rep.checkAudit(t)
	checkCPU(t, rep.Meta.Host, rep.Meta.Fault, rep.Verdict, "kafka-controller-100", "kafka-broker-1", "kafka-broker-2", "kafka-broker-3")
	server, err := os.ReadFile(filepath.Join(dir, "trial-01", "logs", "kafka-broker-2", "server.log"))
	if err != nil || !strings.Contains(string(server), "Terminating process due to signal SIGTERM") {
		t.Errorf("the deleted pod's output, with its SIGTERM, was not kept: %v", err)
	}

	// pause: the JVM stopped (SIGSTOP) for the trial and continued by
	// recovery; the kubelet sees nothing, so the container is the same.
	p, err = cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	uid, restarts := p.UID, p.Status.ContainerStatuses[0].RestartCount
	dir = filepath.Join(t.TempDir(), "pause")
	// A pause and an isolate probe to the cap, partition 0 stalled: what
	// is outstanding then is waited for 2 s, not the probe's 10, which
	// would only lengthen that stall.
	out, code = kbf(kubeconfigAs(ctx, t, admin, cs, ns, "kbf"), "--kill", "pause", "--broker", "kafka-broker-2",
		"--duration", "30s", "--drain", "2s", "--out", dir, "--quiet", "--baseline", "2s", "--baseline-gap", "3s", "--baseline-timeout", "3m")
	t.Logf("kbf run --target k8s --kill pause (exit %d):\n%s", code, out)
	if code != 0 && code != 6 {
		t.Fatalf("kbf run exit %d, want 0 (or 6, a suspect trial)", code)
	}
	rep = readTrial(t, dir)
	if f := rep.Meta.Fault; f == nil || f.Kind != results.FaultPause || f.NodeID != 2 || f.Paused.IsZero() || !f.Finished.IsZero() {
		t.Errorf("the fault recorded %+v, want a pause of node 2 with no finish", f)
	}
	rep.checkAudit(t)
	rep.checkLedStall(t, "pause")
	checkCPU(t, rep.Meta.Host, nil, rep.Verdict, "kafka-controller-100", "kafka-broker-1", "kafka-broker-2", "kafka-broker-3")
	p, err = cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.UID != uid || p.Status.ContainerStatuses[0].RestartCount != restarts {
		t.Errorf("kafka-broker-2 was restarted or made again by a pause (restart count %d, was %d)", p.Status.ContainerStatuses[0].RestartCount, restarts)
	}
	api, err := k8s.NewAPI(admin, ns)
	if err != nil {
		t.Fatal(err)
	}
	// The JVM's state, the third field of its stat: T while stopped.
	states, _, err := api.Exec(ctx, "kafka-broker-2", "kafka", []string{"sh", "-c",
		`for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = java ] && cut -d' ' -f3 $p/stat; done; true`})
	if err != nil || strings.TrimSpace(states) == "" || strings.Contains(states, "T") {
		t.Errorf("kafka-broker-2's JVM after the pause's recovery: states %q, %v; want running, not stopped", states, err)
	}

	// isolate: the broker's links cut by iptables in an ephemeral container
	// of its pod (the broker's own image, which has iptables, unless
	// KBF_K8S_NET_IMAGE names another the node has), healed at recovery,
	// which the ISRs coming back full prove; the container is left stopped.
	dir = filepath.Join(t.TempDir(), "isolate")
	args := []string{"--kill", "isolate", "--broker", "kafka-broker-2",
		"--duration", "30s", "--drain", "2s", "--out", dir, "--quiet", "--baseline", "2s", "--baseline-gap", "3s", "--baseline-timeout", "3m"}
	if img := os.Getenv("KBF_K8S_NET_IMAGE"); img != "" {
		args = append(args, "--net-image", img)
	}
	out, code = kbf(kubeconfigAs(ctx, t, admin, cs, ns, "kbf"), args...)
	t.Logf("kbf run --target k8s --kill isolate (exit %d):\n%s", code, out)
	if code != 0 && code != 6 {
		t.Fatalf("kbf run exit %d, want 0 (or 6, a suspect trial)", code)
	}
	rep = readTrial(t, dir)
	if f := rep.Meta.Fault; f == nil || f.Kind != results.FaultIsolate || f.NodeID != 2 || f.Cut.IsZero() {
		t.Errorf("the fault recorded %+v, want an isolate of node 2 with its cut's time", f)
	}
	rep.checkAudit(t)
	rep.checkLedStall(t, "isolate")
	p, err = cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.UID != uid || p.Status.ContainerStatuses[0].RestartCount != restarts {
		t.Errorf("kafka-broker-2 was restarted or made again by an isolate (restart count %d, was %d)", p.Status.ContainerStatuses[0].RestartCount, restarts)
	}
	var eph []string
	for _, e := range p.Status.EphemeralContainerStatuses {
		eph = append(eph, fmt.Sprintf("%s terminated=%v", e.Name, e.State.Terminated != nil))
		if !strings.HasPrefix(e.Name, k8s.NetContainerPrefix) || e.State.Terminated == nil {
			t.Errorf("ephemeral container %s: %+v, want kbf's, stopped by heal", e.Name, e.State)
		}
	}
	if len(eph) != 1 {
		t.Errorf("ephemeral containers %q, want the cut's one", eph)
	}
	isolateReplication(ctx, t, cs, ns, func(args ...string) (string, int) {
		return kbf(kubeconfigAs(ctx, t, admin, cs, ns, "kbf"), args...)
	})

	jobTrial(ctx, t, api, cs, ns, bin)
	watchDeployment(ctx, t, api, cs, ns, bin)
}

// jobTrial runs deploy/kubernetes/kbf/kbf-job.yaml in ns, whose Kafka is up: a
// SIGKILL trial made by kbf in a pod, as the Job's ServiceAccount, with
// kbf's own image (deploy/kbf-image.sh, imported into the node here). Its
// results are read back from the Job's claim as a user does (a pod that
// mounts it, tar through exec) and reported by kbf report.
func jobTrial(ctx context.Context, t *testing.T, api k8s.API, cs kubernetes.Interface, ns, bin string) {
	t.Helper()
	img := exec.CommandContext(ctx, "../../deploy/kbf-image.sh", filepath.Join(t.TempDir(), "kbf-image.tar"))
	img.Env = append(os.Environ(), "KBF_BIN="+bin)
	if out, err := img.CombinedOutput(); err != nil || !strings.Contains(string(out), "imported into the test node") {
		t.Fatalf("make kbf-image: %v\n%s", err, out)
	}
	start := time.Now()
	// The baseline the host's trials take here too: a shared machine's load
	// breaks a strict baseline's steadiness.
	deploy(ctx, t, cs, ns, "../../deploy/kubernetes/kbf/kbf-job.yaml", func(obj runtime.Object) {
		if j, ok := obj.(*batchv1.Job); ok {
			c := &j.Spec.Template.Spec.Containers[0]
			c.Args = append(c.Args, "--duration", "40s", "--baseline", "2s", "--baseline-gap", "3s", "--baseline-timeout", "3m")
		}
	})
	var job *batchv1.Job
	for {
		var err error
		job, err = cs.BatchV1().Jobs(ns).Get(ctx, "kbf-sigkill", metav1.GetOptions{})
		if err == nil && (job.Status.Succeeded > 0 || job.Status.Failed > 0) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the Job kbf-sigkill did not end (last error %v)", err)
		case <-time.After(time.Second):
		}
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=kbf-sigkill"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("the Job's pod: %v (%d pods)", err, len(pods.Items))
	}
	jobPod := pods.Items[0]
	var exit int32 = -1
	if st := jobPod.Status.ContainerStatuses; len(st) == 1 && st[0].State.Terminated != nil {
		exit = st[0].State.Terminated.ExitCode
	}
	out, _ := cs.CoreV1().Pods(ns).GetLogs(jobPod.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
	t.Logf("the Job's kbf run (exit %d, %v after the Job's creation):\n%s", exit, time.Since(start).Round(time.Second), out)
	if exit != 0 && exit != 6 {
		t.Fatalf("the Job's kbf run exit %d, want 0 (or 6, a suspect trial)", exit)
	}

	// The results, read as docs/kubernetes.md says: a pod that mounts the
	// claim, and tar through exec (kubectl cp does the same).
	dir := fromClaim(ctx, t, api, cs, ns, "kbf-results", jobPod.Name)
	rep := readTrial(t, dir)
	if f := rep.Meta.Fault; f == nil || f.Kind != results.FaultSIGKILL || f.ExitCode != 137 || f.NodeID != 2 {
		t.Errorf("the Job's trial recorded the fault %+v, want a sigkill of node 2 ended with 137", f)
	}
	rep.checkAudit(t)
	rep.checkLedStall(t, "sigkill from the Job")
	report := exec.CommandContext(ctx, bin, "report", dir)
	text, err := report.CombinedOutput()
	t.Logf("kbf report on the Job's results:\n%s", text)
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 6 {
			t.Errorf("kbf report on the Job's results: %v", err)
		}
	}
}

// trialReport is what the tests read of a trial's report.json.
type trialReport struct {
	Meta struct {
		Fault   *results.Fault `json:"fault"`
		Host    *results.Host  `json:"host"`
		Cluster struct {
			KafkaVersion string `json:"kafka_version"`
		} `json:"cluster"`
	} `json:"meta"`
	Verdict   *verdict.Verdict `json:"verdict"`
	Integrity struct {
		Acknowledged int `json:"acknowledged"`
		Lost         int `json:"lost"`
		Duplicated   int `json:"duplicated"`
		Reordered    int `json:"reordered"`
	} `json:"integrity"`
	Stalls []struct {
		Partition   int32  `json:"partition"`
		Role        string `json:"role"`
		NewLeader   int32  `json:"new_leader"`
		NotTheFault bool   `json:"not_the_fault"`
		Phases      []struct {
			Name string `json:"name"`
		} `json:"phases"`
	} `json:"stalls"`
	Digest struct {
		Rows []struct {
			Partition  int32   `json:"partition"`
			Role       string  `json:"role"`
			AckSeconds float64 `json:"ack_seconds"`
		} `json:"rows"`
	} `json:"digest"`
}

// readTrial reads the report of the one trial kbf run wrote under dir.
func readTrial(t *testing.T, dir string) *trialReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "trial-01", "report.json"))
	if err != nil {
		t.Fatalf("the trial's report: %v", err)
	}
	var rep trialReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// checkRestartExplained checks the explanation of a broker the kubelet
// restarted a second after it was killed: whether it came back before the
// controller fenced it (its followed partitions resume then) or after (they
// resume when the ISR shrinks), a follower's stall of seconds is the
// fault's, split into phases, and the restarted broker's own line as leader
// at its old epoch is never taken for the election.
func (rep *trialReport) checkRestartExplained(t *testing.T, killed int32) {
	t.Helper()
	ack := map[int32]float64{}
	for _, r := range rep.Digest.Rows {
		ack[r.Partition] = r.AckSeconds
	}
	for _, st := range rep.Stalls {
		var names []string
		for _, ph := range st.Phases {
			names = append(names, ph.Name)
		}
		switch {
		case st.Role == string(results.RoleFollowed) && ack[st.Partition] >= 2 && (st.NotTheFault || len(names) == 0):
			t.Errorf("p%d, followed, stalled %.2f s yet is called not the fault's (phases %q)", st.Partition, ack[st.Partition], names)
		case st.Role == string(results.RoleLed) && st.NewLeader == killed:
			t.Errorf("p%d: the new leader is the killed broker %d itself (phases %q)", st.Partition, killed, names)
		}
	}
}

// checkAudit checks that records were acked and none lost, duplicated or
// reordered.
func (rep *trialReport) checkAudit(t *testing.T) {
	t.Helper()
	if in := rep.Integrity; in.Acknowledged == 0 || in.Lost != 0 || in.Duplicated != 0 || in.Reordered != 0 {
		t.Errorf("integrity %+v: want records acked and none lost, duplicated or reordered", in)
	}
}

// checkLedStall logs each partition's ack stall and checks that
// partition 0, which the faulted broker led, stalled.
func (rep *trialReport) checkLedStall(t *testing.T, fault string) {
	t.Helper()
	var led float64
	for _, r := range rep.Digest.Rows {
		t.Logf("%s: p%d %s: ack stall %.2f s", fault, r.Partition, r.Role, r.AckSeconds)
		if r.Partition == 0 {
			led = r.AckSeconds
		}
	}
	if led <= 0 {
		t.Errorf("%s: partition 0, led by the faulted broker, shows no ack stall", fault)
	}
}

// checkCPU checks that the trial recorded each node's CPU time as the
// cluster's, the faulted broker's after its fault too (a killed one's new
// container is a new cgroup), so that the host's load does not count the
// nodes' own work as other processes'.
func checkCPU(t *testing.T, h *results.Host, f *results.Fault, v *verdict.Verdict, pods ...string) {
	t.Helper()
	if h == nil || h.Cluster <= 0 {
		t.Errorf("the host's load records no CPU time of the cluster: %+v", h)
		return
	}
	used, after := map[string]time.Duration{}, time.Duration(0)
	for _, s := range h.Samples {
		for n, d := range s.Nodes {
			used[n] += d
			if f != nil && n == f.Broker && s.At.After(f.SignalSent) {
				after += d
			}
		}
	}
	for _, p := range pods {
		if used[p] <= 0 {
			t.Errorf("no CPU time recorded for %s (recorded %v)", p, used)
		}
	}
	if f != nil && after <= 0 {
		t.Errorf("no CPU time recorded for %s after its fault", f.Broker)
	}
	t.Logf("%s; nodes' CPU %v; verdict %v", verdict.Describe(h), used, v)
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// isolateReplication cuts kafka-broker-2 from the other brokers only, by
// iptables in a second ephemeral container of its pod: it still reaches
// the controller and its clients, so nobody fences it, and acks=all waits
// until the leaders drop it from their ISRs after replica.lag.time.max.ms
// (30 s by default). The report splits some stall at that shrink (the lag
// phase), and the cut is healed without restarting the pod.
func isolateReplication(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns string, kbf func(args ...string) (string, int)) {
	t.Helper()
	before, err := cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "isolate-replication")
	args := []string{"--kill", "isolate-replication", "--broker", "kafka-broker-2",
		"--duration", "60s", "--drain", "2s", "--out", dir, "--quiet", "--baseline", "2s", "--baseline-gap", "3s", "--baseline-timeout", "3m"}
	if img := os.Getenv("KBF_K8S_NET_IMAGE"); img != "" {
		args = append(args, "--net-image", img)
	}
	out, code := kbf(args...)
	t.Logf("kbf run --target k8s --kill isolate-replication (exit %d):\n%s", code, out)
	if code != 0 && code != 6 {
		t.Fatalf("kbf run exit %d, want 0 (or 6, a suspect trial)", code)
	}
	rep := readTrial(t, dir)
	if f := rep.Meta.Fault; f == nil || f.Kind != results.FaultIsolateReplication || f.NodeID != 2 || f.Cut.IsZero() {
		t.Errorf("the fault recorded %+v, want an isolate-replication of node 2 with its cut's time", f)
	}
	rep.checkAudit(t)
	lag := false
	for _, st := range rep.Stalls {
		for _, ph := range st.Phases {
			lag = lag || ph.Name == "lag" // report.PhaseLag
		}
	}
	if !lag {
		t.Errorf("no stall split at a leader's ISR shrink (phase lag): stalls %+v", rep.Stalls)
	}
	p, err := cs.CoreV1().Pods(ns).Get(ctx, "kafka-broker-2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.UID != before.UID || p.Status.ContainerStatuses[0].RestartCount != before.Status.ContainerStatuses[0].RestartCount {
		t.Errorf("kafka-broker-2 was restarted or made again by a cut between brokers")
	}
}
