//go:build k8s

package k8s_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/kbf-project/kbf/analysis"
	"github.com/kbf-project/kbf/platform/k8s"
	"github.com/kbf-project/kbf/results"
)

// watchDeployment runs deploy/kubernetes/kbf/kbf-watch.yaml in ns, whose Kafka
// is up and whose kbf image the Job's trial made: kbf watch in a pod, as
// the Deployment's ServiceAccount. The test SIGKILLs kafka-broker-2's JVM
// (kbf is not told), waits for the incident's digest, scrapes the pod's
// metrics as Prometheus would (the pod's address and the annotated port),
// deletes the pod (SIGTERM: kbf exits), and reads the incident back from
// the claim: it names broker 2, and every acknowledged record is accounted
// for.
func watchDeployment(ctx context.Context, t *testing.T, api k8s.API, cs kubernetes.Interface, ns, bin string) {
	t.Helper()
	deploy(ctx, t, cs, ns, "../../deploy/kubernetes/kbf/kbf-watch.yaml", func(obj runtime.Object) {
		if d, ok := obj.(*appsv1.Deployment); ok {
			c := &d.Spec.Template.Spec.Containers[0]
			c.Args = append(c.Args, "--settle", "10s")
		}
	})
	const selector = "app.kubernetes.io/component=watch"
	var pod *corev1.Pod
	for pod == nil {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err == nil && len(pods.Items) == 1 {
			pod = &pods.Items[0]
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the Deployment kbf-watch's pod: none made (last error %v)", err)
		case <-time.After(250 * time.Millisecond):
		}
	}
	pod = waitPod(ctx, t, cs, ns, pod.Name, "Ready", ready)
	port := pod.Annotations["prometheus.io/port"]
	metricsURL := "http://" + pod.Status.PodIP + ":" + port + pod.Annotations["prometheus.io/path"]
	logs := func() string {
		b, _ := cs.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{Container: "kbf"}).DoRaw(ctx)
		return string(b)
	}
	if !until(ctx, 2*time.Minute, func() bool { return strings.Contains(logs(), "watching ") }) {
		t.Fatalf("kbf watch in %s probing: not within 2m0s; its lines:\n%s", pod.Name, logs())
	}
	time.Sleep(15 * time.Second) // a baseline before the kill
	if strings.Contains(logs(), "opened") {
		t.Fatalf("an incident before any fault:\n%s", logs())
	}

	// The kill, from inside the broker's pod as a crash would come: every
	// JVM of its container (tini is its PID 1).
	const kill = `for p in /proc/[0-9]*; do [ "$(cat $p/comm 2>/dev/null)" = java ] && kill -KILL ${p#/proc/} && echo ${p#/proc/}; done`
	killed := time.Now()
	if out, stderr, err := api.Exec(ctx, "kafka-broker-2", "kafka", []string{"sh", "-c", kill}); strings.TrimSpace(out) == "" {
		t.Fatalf("kill kafka-broker-2's JVM: %v (%s)", err, stderr)
	}
	if !until(ctx, 4*time.Minute, func() bool { return strings.Contains(logs(), "incident 1 (") }) {
		t.Fatalf("the incident written: not within 4m0s of the kill; the watch's lines:\n%s", logs())
	}
	written := time.Since(killed)
	// The digest follows once the watch has analysed it, and its phases
	// are then in the metrics.
	var body string
	if !until(ctx, 2*time.Minute, func() bool {
		body = scrapeURL(ctx, metricsURL)
		return strings.Contains(body, "kbf_last_incident_phase_seconds{")
	}) {
		t.Fatalf("the incident's phases in %s: not within 2m0s; the scrape:\n%s\nthe watch's lines:\n%s", metricsURL, body, logs())
	}
	total := 0
	for _, m := range regexp.MustCompile(`(?m)^kbf_incidents_total\{cause="[a-z_]+"\} (\d+)$`).FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		total += n
	}
	if total != 1 {
		t.Errorf("kbf_incidents_total sums to %d at %s, want 1; the scrape:\n%s", total, metricsURL, body)
	}
	lines := logs()
	t.Logf("kbf watch in pod %s: the incident written %.1f s after the kill; its lines:\n%s", pod.Name, written.Seconds(), lines)

	// SIGTERM, as a rollout or a drain sends it: kbf exits.
	if err := cs.AppsV1().Deployments(ns).Delete(ctx, "kbf-watch", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete the Deployment: %v", err)
	}
	if !until(ctx, 3*time.Minute, func() bool {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		return err == nil && len(pods.Items) == 0
	}) {
		t.Fatalf("kbf watch's pod still there 3m0s after its Deployment was deleted")
	}

	dir := fromClaim(ctx, t, api, cs, ns, "kbf-watch", results.IncidentDir(1))
	found, err := results.Find(dir)
	if err != nil || len(found) != 1 {
		t.Fatalf("the incident on the claim: %v (%d trials)", err, len(found))
	}
	if found[0].Meta.Kind != results.KindIncident {
		t.Errorf("meta kind %q, want %q", found[0].Meta.Kind, results.KindIncident)
	}
	tr, err := analysis.Analyze(found[0], analysis.Options{})
	if err != nil {
		t.Fatalf("analyse the incident: %v", err)
	}
	if x := tr.External; x == nil || x.NodeID != 2 {
		t.Errorf("the incident names %+v, want node 2 (kafka-broker-2); signs %+v", x, found[0].Meta.Fault.Signs)
	}
	if tr.Integrity == nil || !tr.Integrity.OK() {
		t.Errorf("the incident's audit: log %q, integrity %+v; notes %v", found[0].Log, tr.Integrity, found[0].Meta.Notes)
	}
	rep := exec.CommandContext(ctx, bin, "report", dir)
	text, err := rep.CombinedOutput()
	t.Logf("kbf report on the watch's incident:\n%s", text)
	if code := rep.ProcessState.ExitCode(); err != nil && code != 6 {
		t.Errorf("kbf report on the watch's incident: %v", err)
	}
}

// fromClaim copies path of the claim claim to a local directory, as
// docs/kubernetes.md says a user does: a pod that mounts the claim, and tar
// through exec (kubectl cp does the same). It returns the local path.
func fromClaim(ctx context.Context, t *testing.T, api k8s.API, cs kubernetes.Interface, ns, claim, path string) string {
	t.Helper()
	reader := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "read-" + claim},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{
				Name: "read", Image: "kbf/kafka:4.3.1", ImagePullPolicy: corev1.PullNever,
				Command:      []string{"sleep", "600"},
				VolumeMounts: []corev1.VolumeMount{{Name: "claim", MountPath: "/claim", ReadOnly: true}},
			}},
			Volumes: []corev1.Volume{{Name: "claim", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: true}}}},
		},
	}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, reader, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the reader pod of claim %s: %v", claim, err)
	}
	waitPod(ctx, t, cs, ns, reader.Name, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	var tarball, stderr bytes.Buffer
	if err := api.ExecStream(ctx, reader.Name, "read", []string{"tar", "-C", "/claim", "-cf", "-", path}, &tarball, &stderr); err != nil {
		t.Fatalf("tar %s of claim %s: %v (%s)", path, claim, err, stderr.String())
	}
	local := t.TempDir()
	untar := exec.CommandContext(ctx, "tar", "-C", local, "-xf", "-")
	untar.Stdin = &tarball
	if out, err := untar.CombinedOutput(); err != nil {
		t.Fatalf("untar %s of claim %s: %v\n%s", path, claim, err, out)
	}
	return filepath.Join(local, path)
}

// until polls ok every second until it holds (true) or d has passed.
func until(ctx context.Context, d time.Duration, ok func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for {
		if ok() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(time.Second):
		}
	}
}

// scrapeURL is the body at url, or "" when it cannot be read.
func scrapeURL(ctx context.Context, url string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return ""
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
