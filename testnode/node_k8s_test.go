//go:build k8s

package testnode_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"

	testnode "github.com/kbf-project/kbf/testnode"
)

// kafkaImage is kbf's offline image, imported into the node's containerd by node.sh: the node
// pulls nothing, so the pod says imagePullPolicy Never.
const kafkaImage = "kbf/kafka:4.3.1"

// kafkaPod is one KRaft node that is both broker and controller. The pod shares its process
// namespace so that the JVM is not the pod's PID 1: a SIGKILL sent from inside the pod reaches
// it, as docker kill reaches it from outside on Docker.
func kafkaPod(name string) *corev1.Pod {
	env := map[string]string{
		"CLUSTER_ID":                                     "a2JmLWNsdXN0ZXItMDAwMQ",
		"KAFKA_NODE_ID":                                  "1",
		"KAFKA_PROCESS_ROLES":                            "broker,controller",
		"KAFKA_LISTENERS":                                "PLAINTEXT://:9092,CONTROLLER://:9093",
		"KAFKA_ADVERTISED_LISTENERS":                     "PLAINTEXT://$(POD_IP):9092",
		"KAFKA_CONTROLLER_LISTENER_NAMES":                "CONTROLLER",
		"KAFKA_LISTENER_SECURITY_PROTOCOL_MAP":           "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
		"KAFKA_CONTROLLER_QUORUM_VOTERS":                 "1@localhost:9093",
		"KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR":         "1",
		"KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR": "1",
		"KAFKA_TRANSACTION_STATE_LOG_MIN_ISR":            "1",
		"KAFKA_LOG_DIRS":                                 "/var/lib/kafka/data",
		"KAFKA_HEAP_OPTS":                                "-Xmx256m -Xms256m",
	}
	// POD_IP first: $(POD_IP) expands only variables defined before it.
	vars := []corev1.EnvVar{{Name: "POD_IP", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.podIP"}}}}
	for k, v := range env {
		vars = append(vars, corev1.EnvVar{Name: k, Value: v})
	}
	share, grace := true, int64(5)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "kbf-smoke"}},
		Spec: corev1.PodSpec{
			ShareProcessNamespace:         &share,
			TerminationGracePeriodSeconds: &grace,
			RestartPolicy:                 corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{
				Name:            "kafka",
				Image:           kafkaImage,
				ImagePullPolicy: corev1.PullNever,
				Env:             vars,
				Ports:           []corev1.ContainerPort{{Name: "kafka", ContainerPort: 9092}},
				ReadinessProbe: &corev1.Probe{
					ProbeHandler:  corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(9092)}},
					PeriodSeconds: 1, FailureThreshold: 1,
				},
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/kafka/data"}},
			}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}
}

// waitPod polls the pod until ok says it is done, and fails with the last state seen.
func waitPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, ns, name, what string, ok func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	for {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			last = p
			if ok(p) {
				return p
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("pod %s/%s: gave up waiting for %s (last error %v; status %+v)", ns, name, what, err, status(last))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func status(p *corev1.Pod) any {
	if p == nil {
		return nil
	}
	return p.Status
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func logs(ctx context.Context, cs kubernetes.Interface, ns, name string, previous bool) (string, error) {
	b, err := cs.CoreV1().Pods(ns).GetLogs(name, &corev1.PodLogOptions{Container: "kafka", Previous: previous}).DoRaw(ctx)
	return string(b), err
}

// TestNodeRunsKafka is the node's smoke test: a real broker+controller in a pod, Ready by a TCP
// probe and answering Kafka requests, its logs read and its JVM SIGKILLed through the API, and
// the kubelet restarting it.
func TestNodeRunsKafka(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := testnode.AdminConfig(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}

	ns := fmt.Sprintf("kbf-smoke-%d", time.Now().UnixNano()%1e6)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace %s: %v", ns, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete namespace %s: %v", ns, err)
		}
	})

	// The controller manager makes the namespace's default service account, which admission
	// needs before it takes a pod.
	const name = "kafka-0"
	start := time.Now()
	for {
		_, err = cs.CoreV1().Pods(ns).Create(ctx, kafkaPod(name), metav1.CreateOptions{})
		if err == nil || !apierrors.IsForbidden(err) || ctx.Err() != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("create pod: %v", err)
	}
	p := waitPod(ctx, t, cs, ns, name, "Ready", ready)
	t.Logf("pod Ready %v after its creation, at %s", time.Since(start).Round(10*time.Millisecond), p.Status.PodIP)

	// The broker answers from the host at the pod's address, over the node's bridge.
	cl, err := kgo.NewClient(kgo.SeedBrokers(p.Status.PodIP + ":9092"))
	if err != nil {
		t.Fatal(err)
	}
	pingCtx, pingCancel := context.WithTimeout(ctx, 30*time.Second)
	err = cl.Ping(pingCtx)
	pingCancel()
	cl.Close()
	if err != nil {
		t.Fatalf("kafka at %s:9092: %v", p.Status.PodIP, err)
	}

	out, err := logs(ctx, cs, ns, name, false)
	if err != nil {
		t.Fatalf("logs: %v", err)
	}
	if !strings.Contains(out, "Kafka Server started") {
		t.Fatalf("the broker's log has no %q; it ends:\n%s", "Kafka Server started", tail(out, 20))
	}

	// SIGKILL the JVM from a shell exec'd in the broker's container.
	killed := time.Now()
	var stdout, stderr bytes.Buffer
	const kill = `for p in /proc/[0-9]*; do if [ "$(cat $p/comm 2>/dev/null)" = java ]; then kill -KILL ${p#/proc/} && echo killed ${p#/proc/}; fi; done`
	if err := execIn(ctx, cfg, cs, ns, name, []string{"bash", "-c", kill}, &stdout, &stderr); err != nil {
		t.Fatalf("exec kill: %v (stderr %q)", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "killed") {
		t.Fatalf("exec found no java process to kill: stdout %q stderr %q", stdout.String(), stderr.String())
	}
	p = waitPod(ctx, t, cs, ns, name, "the kubelet's restart", func(p *corev1.Pod) bool {
		return len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 1 && ready(p)
	})
	cst := p.Status.ContainerStatuses[0]
	if cst.RestartCount != 1 {
		t.Errorf("restartCount %d, want 1", cst.RestartCount)
	}
	if term := cst.LastTerminationState.Terminated; term == nil || term.ExitCode != 137 {
		t.Errorf("last state %+v, want terminated with exit 137 (SIGKILL)", cst.LastTerminationState)
	}
	restart := "unknown"
	if term, run := cst.LastTerminationState.Terminated, cst.State.Running; term != nil && run != nil {
		restart = run.StartedAt.Sub(term.FinishedAt.Time).String()
	}
	t.Logf("restarted and Ready again %v after the kill (the kubelet started the new container %s after the old one's exit)",
		time.Since(killed).Round(10*time.Millisecond), restart)

	if prev, err := logs(ctx, cs, ns, name, true); err != nil || !strings.Contains(prev, "Kafka Server started") {
		t.Errorf("the killed container's log through the API: err %v, %d bytes without %q", err, len(prev), "Kafka Server started")
	}

	if err := cs.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete pod: %v", err)
	}
	deleted := time.Now()
	for {
		_, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("pod %s/%s still there after delete: %v", ns, name, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("pod gone %v after its deletion", time.Since(deleted).Round(10*time.Millisecond))
}

func execIn(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, ns, pod string, cmd []string, stdout, stderr *bytes.Buffer) error {
	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(ns).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "kafka", Command: cmd, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	ex, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		return err
	}
	return ex.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: stdout, Stderr: stderr})
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
