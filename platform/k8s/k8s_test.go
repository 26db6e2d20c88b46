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
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

func env(kv ...string) []corev1.EnvVar {
	var e []corev1.EnvVar
	for i := 0; i < len(kv); i += 2 {
		e = append(e, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
	return e
}

func pod(name string, labels map[string]string, ip string, cs ...corev1.Container) corev1.Pod {
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", Labels: labels},
		Spec: corev1.PodSpec{Containers: cs}, Status: corev1.PodStatus{PodIP: ip}}
}

func TestNodesOf(t *testing.T) {
	kafka := func(roles string, more ...string) corev1.Container {
		return corev1.Container{Name: "kafka", Image: "kbf/kafka:4.3.1", Env: env(append([]string{"KAFKA_PROCESS_ROLES", roles}, more...)...)}
	}
	strimzi := func(broker, controller string) map[string]string {
		return map[string]string{LabelStrimziCluster: "c", LabelStrimziBroker: broker, LabelStrimziController: controller}
	}
	tests := []struct {
		name    string
		pods    []corev1.Pod
		want    []Node
		wantErr string
	}{
		{
			name: "plain statefulsets: ids from the names, roles from the environment",
			pods: []corev1.Pod{
				pod("kafka-controller-100", nil, "10.0.0.9", kafka("controller")),
				pod("kafka-broker-2", nil, "10.0.0.2", kafka("broker")),
				pod("kafka-broker-1", nil, "10.0.0.1", kafka("broker")),
				pod("web-0", nil, "10.0.0.5", corev1.Container{Name: "nginx"}),
			},
			want: []Node{
				{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true, Addr: "10.0.0.1:9092", Image: "kbf/kafka:4.3.1"},
				{Pod: "kafka-broker-2", Container: "kafka", ID: 2, Broker: true, Addr: "10.0.0.2:9092", Image: "kbf/kafka:4.3.1"},
				{Pod: "kafka-controller-100", Container: "kafka", ID: 100, Controller: true, Image: "kbf/kafka:4.3.1"},
			},
		},
		{
			name: "a literal KAFKA_NODE_ID wins over the name; a named client port",
			pods: []corev1.Pod{func() corev1.Pod {
				c := kafka("broker,controller", "KAFKA_NODE_ID", "7")
				c.Ports = []corev1.ContainerPort{{Name: "clients", ContainerPort: 29092}}
				return pod("kafka-0", nil, "10.0.0.3", corev1.Container{Name: "sidecar"}, c)
			}()},
			want: []Node{{Pod: "kafka-0", Container: "kafka", ID: 7, Broker: true, Controller: true, Addr: "10.0.0.3:29092", Image: "kbf/kafka:4.3.1"}},
		},
		{
			name: "a controller's own listener, as its environment spells it",
			pods: []corev1.Pod{
				pod("kafka-controller-100", nil, "10.0.0.9", kafka("controller", "KAFKA_LISTENERS", "CONTROLLER://:9093", "KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")),
				pod("kafka-broker-1", nil, "10.0.0.1", kafka("broker", "KAFKA_LISTENERS", "PLAINTEXT://:9092", "KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER")),
			},
			want: []Node{
				{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true, Addr: "10.0.0.1:9092", Image: "kbf/kafka:4.3.1"},
				{Pod: "kafka-controller-100", Container: "kafka", ID: 100, Controller: true, Image: "kbf/kafka:4.3.1", CtlPort: 9093},
			},
		},
		{
			name: "strimzi: roles from the labels, the entity operator skipped",
			pods: []corev1.Pod{
				pod("c-brokers-3", strimzi("true", "false"), "10.0.1.3", corev1.Container{Name: "kafka", Image: "strimzi/kafka"}),
				pod("c-controllers-0", strimzi("false", "true"), "10.0.1.4", corev1.Container{Name: "kafka", Image: "strimzi/kafka"}),
				pod("c-entity-operator-x", map[string]string{LabelStrimziCluster: "c"}, "10.0.1.5", corev1.Container{Name: "topic-operator"}),
			},
			want: []Node{
				{Pod: "c-controllers-0", Container: "kafka", ID: 0, Controller: true, Image: "strimzi/kafka"},
				{Pod: "c-brokers-3", Container: "kafka", ID: 3, Broker: true, Addr: "10.0.1.3:9092", Image: "strimzi/kafka"},
			},
		},
		{
			name: "a broker without an IP yet has no address",
			pods: []corev1.Pod{pod("kafka-broker-1", nil, "", kafka("broker"))},
			want: []Node{{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true, Image: "kbf/kafka:4.3.1"}},
		},
		{
			name:    "a name that ends with no id",
			pods:    []corev1.Pod{pod("kafka-broker", nil, "", kafka("broker"))},
			wantErr: "pod kafka-broker: its name ends with no node id",
		},
		{
			name:    "two pods with one id",
			pods:    []corev1.Pod{pod("a-1", nil, "", kafka("broker")), pod("b-1", nil, "", kafka("broker"))},
			wantErr: "pods a-1 and b-1 both say node id 1",
		},
		{
			name:    "no role",
			pods:    []corev1.Pod{pod("kafka-1", nil, "", kafka("observer"))},
			wantErr: "neither the broker nor the controller role",
		},
		{
			name:    "a KAFKA_NODE_ID that is no number",
			pods:    []corev1.Pod{pod("kafka-1", nil, "", kafka("broker", "KAFKA_NODE_ID", "one"))},
			wantErr: `KAFKA_NODE_ID "one" is no node id`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := nodesOf(tt.pods)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("node %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestKafkaPattern(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "a strimzi entry",
			in:   "2026-12-02T01:03:17,385 INFO [QuorumController id=3] Fencing broker 1 (org.apache.kafka.controller.ReplicationControlManager) [quorum-controller-3-event-handler]\n",
			want: "[2026-12-02 01:03:17,385] INFO [QuorumController id=3] Fencing broker 1 (org.apache.kafka.controller.ReplicationControlManager)\n",
		},
		{
			name: "a strimzi entry of several lines, then a stack trace",
			in: "2026-12-02T01:03:17,385 INFO KafkaConfig values:\n\tbroker.id = 1\n (kafka.server.KafkaConfig) [main]\n" +
				"2026-12-02T01:03:18,000 WARN oops (kafka.server.X) [t 1]\njava.io.IOException: (boom) [x]\n\tat a.b(C.java:1)\n",
			want: "[2026-12-02 01:03:17,385] INFO KafkaConfig values:\n\tbroker.id = 1\n (kafka.server.KafkaConfig)\n" +
				"[2026-12-02 01:03:18,000] WARN oops (kafka.server.X)\njava.io.IOException: (boom) [x]\n\tat a.b(C.java:1)\n",
		},
		{
			name: "kafka's pattern passes as it is, thread-like endings too",
			in:   "===> Launching ...\n[2026-12-02 01:03:17,385] INFO done (kafka.server.KafkaRaftServer) [not a thread]\n",
			want: "===> Launching ...\n[2026-12-02 01:03:17,385] INFO done (kafka.server.KafkaRaftServer) [not a thread]\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := KafkaPattern(strings.NewReader(tt.in), &b); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}

// fakeAPI is a namespace whose pods' statuses the test scripts: each Pod
// call takes the next status of the pod's script, the last one staying.
type fakeAPI struct {
	mu       sync.Mutex
	statuses map[string][]*corev1.Pod
	logs     map[string]string // by "pod/previous" or "pod/current"
	execs    []string
	execOut  string
	deleted  []string
	// streams are each pod's ExecStream sessions, in turn; past the last
	// one, ExecStream blocks until its context is done, and idle gets
	// the pod's name.
	streams map[string][]session
	idle    chan string
	// ephemeral are the ephemeral containers added, "pod: name".
	ephemeral []string
	addErr    error
	ephState  corev1.ContainerState // every ephemeral container's
	// scripts answer Exec's scripts by their first line.
	scripts map[string]session
	// files are the containers' files ExecStream's cat reads, by
	// "pod:path"; cats are the ones asked.
	files map[string]string
	cats  []string
}

// session is one ExecStream: its output, then its end.
type session struct {
	out, stderr string
	err         error
}

// exitError is a command's exit, as client-go's CodeExitError tells it.
type exitError int

func (e exitError) Error() string   { return fmt.Sprintf("command terminated with exit code %d", int(e)) }
func (e exitError) ExitStatus() int { return int(e) }

func (f *fakeAPI) Namespace() string { return "ns" }

func (f *fakeAPI) Pods(context.Context, string) ([]corev1.Pod, error) { return nil, nil }

func (f *fakeAPI) Pod(_ context.Context, name string) (*corev1.Pod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.statuses[name]
	if len(s) == 0 {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	p := s[0]
	if len(s) > 1 {
		f.statuses[name] = s[1:]
	}
	if p == nil {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	p = p.DeepCopy()
	for _, e := range f.ephemeral {
		if pod, c, _ := strings.Cut(e, ": "); pod == name {
			p.Status.EphemeralContainerStatuses = append(p.Status.EphemeralContainerStatuses, corev1.ContainerStatus{Name: c, State: f.ephState})
		}
	}
	return p, nil
}

func (f *fakeAPI) DeletePod(_ context.Context, name string, _ int64) error {
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakeAPI) Logs(_ context.Context, pod, _ string, previous, _ bool) (io.ReadCloser, error) {
	key := pod + "/current"
	if previous {
		key = pod + "/previous"
	}
	s, ok := f.logs[key]
	if !ok {
		return nil, apierrors.NewBadRequest(`previous terminated container "kafka" in pod "x" not found`)
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

// Exec records a signal sent to the JVM as "pod: SIG", any other command
// as "pod/container: script" and answers it from scripts, by its first
// line, else with execOut.
func (f *fakeAPI) Exec(_ context.Context, pod, container string, cmd []string) (string, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(cmd) != 3 {
		f.execs = append(f.execs, pod+"/"+container+": "+strings.Join(cmd, " "))
		return "", "", nil
	}
	if _, sig, ok := strings.Cut(cmd[2], "kill -"); ok && strings.HasPrefix(cmd[2], "self=") {
		f.execs = append(f.execs, pod+": "+strings.Fields(sig)[0])
		return f.execOut, "", nil
	}
	f.execs = append(f.execs, pod+"/"+container+": "+cmd[2])
	first, _, _ := strings.Cut(cmd[2], "\n")
	if r, ok := f.scripts[first]; ok {
		return r.out, r.stderr, r.err
	}
	return f.execOut, "", nil
}

func (f *fakeAPI) ExecStream(ctx context.Context, pod, _ string, cmd []string, stdout, stderr io.Writer) error {
	if cmd[0] == "cat" {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.cats = append(f.cats, pod+":"+cmd[1])
		c, ok := f.files[pod+":"+cmd[1]]
		if !ok {
			io.WriteString(stderr, "cat: "+cmd[1]+": No such file or directory")
			return exitError(1)
		}
		io.WriteString(stdout, c)
		return nil
	}
	f.mu.Lock()
	ss := f.streams[pod]
	if len(ss) > 0 {
		f.streams[pod] = ss[1:]
	}
	f.mu.Unlock()
	if len(ss) == 0 {
		if f.idle != nil {
			f.idle <- pod
		}
		<-ctx.Done()
		return ctx.Err()
	}
	io.WriteString(stdout, ss[0].out)
	io.WriteString(stderr, ss[0].stderr)
	return ss[0].err
}

func (f *fakeAPI) AddEphemeralContainer(_ context.Context, pod string, c corev1.EphemeralContainer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.addErr != nil {
		return f.addErr
	}
	f.ephemeral = append(f.ephemeral, pod+": "+c.Name)
	return nil
}

func status(uid string, restarts int32, running bool, term *corev1.ContainerStateTerminated) *corev1.Pod {
	cs := corev1.ContainerStatus{Name: "kafka", RestartCount: restarts}
	if running {
		cs.State.Running = &corev1.ContainerStateRunning{}
	} else {
		cs.State.Terminated = term
	}
	if running && term != nil {
		cs.LastTerminationState.Terminated = term
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kafka-broker-1", UID: typesUID(uid)},
		Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{cs}}}
}

func testCluster(api API) *Cluster {
	return newCluster(api, Options{Poll: time.Millisecond}, []Node{{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true}})
}

func TestInjectAndRestart(t *testing.T) {
	finished := metav1.NewTime(time.Now().Add(time.Hour).Truncate(time.Second))
	killed := &corev1.ContainerStateTerminated{ExitCode: 137, FinishedAt: finished}
	termed := &corev1.ContainerStateTerminated{ExitCode: 143, FinishedAt: finished}
	tests := []struct {
		name      string
		kind      results.FaultKind
		statuses  []*corev1.Pod
		wantExit  int
		wantExecs []string
		wantDel   bool
		wantRun   int32 // the restart count recovery sees; -1: no restart awaited
	}{
		{
			name: "sigkill: the container ends, the kubelet restarts it",
			kind: results.FaultSIGKILL,
			statuses: []*corev1.Pod{
				status("u1", 0, true, nil),     // before
				status("u1", 0, true, nil),     // still running
				status("u1", 0, false, killed), // ended
				status("u1", 1, true, killed),  // restarted
			},
			wantExit: 137, wantExecs: []string{"kafka-broker-1: KILL"}, wantRun: 1,
		},
		{
			name: "sigkill: restarted before kbf saw it end",
			kind: results.FaultSIGKILL,
			statuses: []*corev1.Pod{
				status("u1", 2, true, nil),
				status("u1", 3, true, killed),
			},
			wantExit: 137, wantExecs: []string{"kafka-broker-1: KILL"}, wantRun: 3,
		},
		{
			name: "sigterm: the pod deleted, made again with a new uid",
			kind: results.FaultSIGTERM,
			statuses: []*corev1.Pod{
				status("u1", 0, true, nil),
				status("u1", 0, false, termed),
				nil, // gone
				status("u2", 0, false, nil),
				status("u2", 0, true, nil),
			},
			wantExit: 143, wantDel: true, wantRun: 0,
		},
		{
			name:      "pause: stopped, then continued",
			kind:      results.FaultPause,
			statuses:  []*corev1.Pod{status("u1", 0, true, nil)},
			wantExecs: []string{"kafka-broker-1: STOP", "kafka-broker-1: CONT"},
			wantRun:   -1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{statuses: map[string][]*corev1.Pod{"kafka-broker-1": tt.statuses}, execOut: "42\n"}
			tg := testCluster(api)
			defer tg.Close()
			reconnects := 0
			tg.reconnect = func(context.Context) error { reconnects++; return nil }
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			f, err := tg.Inject(ctx, cluster.Fault{Broker: "kafka-broker-1", Kind: tt.kind, Grace: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if f.ExitCode != tt.wantExit {
				t.Errorf("exit code %d, want %d", f.ExitCode, tt.wantExit)
			}
			if tt.kind != results.FaultPause && !f.Finished.Equal(finished.Time) {
				t.Errorf("finished %v, want the kubelet's %v", f.Finished, finished.Time)
			}
			if tt.kind == results.FaultPause && f.Paused.IsZero() {
				t.Error("a pause with no Paused time")
			}
			if err := tg.Restart(ctx, "kafka-broker-1"); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(api.execs, ","); got != strings.Join(tt.wantExecs, ",") {
				t.Errorf("execs %q, want %q", got, tt.wantExecs)
			}
			if (len(api.deleted) > 0) != tt.wantDel {
				t.Errorf("deleted %v, want a deletion: %v", api.deleted, tt.wantDel)
			}
			rs := tg.Restarts()
			switch {
			case tt.wantRun < 0 && len(rs) != 0:
				t.Errorf("restarts %+v, want none", rs)
			case tt.wantRun >= 0 && len(rs) != 1:
				t.Fatalf("restarts %+v, want one", rs)
			case tt.wantRun >= 0 && (rs[0].RestartCount != tt.wantRun || rs[0].Took() < 0 || rs[0].Exited.IsZero()):
				t.Errorf("restart %+v, want restart count %d after an exit", rs[0], tt.wantRun)
			}
			// A pod made again has another IP: kbf's clients are made anew.
			if want := map[bool]int{true: 1}[tt.kind == results.FaultSIGTERM]; reconnects != want {
				t.Errorf("clients made anew %d times, want %d", reconnects, want)
			}
			// Undone: a second Restart finds it running.
			if err := tg.Restart(ctx, "kafka-broker-1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
				t.Errorf("second restart: %v, want ErrAlreadyRunning", err)
			}
		})
	}
}

func TestInjectRefusesPID1(t *testing.T) {
	api := &fakeAPI{statuses: map[string][]*corev1.Pod{"kafka-broker-1": {status("u1", 0, true, nil)}}}
	tg := testCluster(api)
	defer tg.Close()
	// No pid printed: nothing signalled, and kbf says so rather than wait.
	_, err := tg.Inject(context.Background(), cluster.Fault{Broker: "kafka-broker-1", Kind: results.FaultSIGKILL})
	if err == nil || !strings.Contains(err.Error(), "no java process in pod kafka-broker-1") {
		t.Fatalf("err %v, want no java process", err)
	}
}

func TestSupports(t *testing.T) {
	tests := []struct {
		kind results.FaultKind
		ok   bool
		want string
	}{
		{results.FaultSIGKILL, true, ""},
		{results.FaultSIGTERM, true, ""},
		{results.FaultPause, true, ""},
		{results.FaultControllerKill, true, ""},
		{results.FaultTwoBrokers, false, "the kubelet restarts a killed broker at once"},
		{results.FaultIsolate, true, ""},
		{results.FaultIsolateClients, true, ""},
		{results.FaultDiskFull, false, "does not make it on Kubernetes"},
		{results.FaultExternal, false, "--bootstrap alone"},
		{results.FaultCPUStarve, false, "on its own Docker cluster only"},
		{results.FaultPacketLoss, false, "on its own Docker cluster only"},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			err := (&Cluster{}).Supports(tt.kind, "")
			if tt.ok != (err == nil) || err != nil && (!errors.Is(err, cluster.ErrUnsupported) || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Supports(%s) = %v, want ok %v or an ErrUnsupported saying %q", tt.kind, err, tt.ok, tt.want)
			}
		})
	}
}

func TestCollectLogs(t *testing.T) {
	strimzi := "2026-12-02T01:00:00,000 INFO [QuorumController id=1] Fencing broker 2 (org.apache.kafka.controller.ReplicationControlManager) [qc]\n"
	api := &fakeAPI{logs: map[string]string{
		"kafka-broker-1/previous": "[2026-12-02 00:59:59,000] INFO killed one (kafka.server.KafkaRaftServer)\n",
		"kafka-broker-1/current":  strimzi + "2026-12-02T01:00:01,000 INFO started (kafka.server.KafkaRaftServer) [main]\n",
	}}
	tg := testCluster(api)
	defer tg.Close()
	tg.caught["kafka-broker-1"] = bytes.NewBufferString("[2026-12-02 00:59:58,000] INFO deleted one (kafka.Kafka)\n")
	dst := t.TempDir()
	if err := tg.CollectLogs(context.Background(), "kafka-broker-1", time.Time{}, dst); err != nil {
		t.Fatal(err)
	}
	server, _ := os.ReadFile(filepath.Join(dst, "server.log"))
	wantServer := "[2026-12-02 00:59:58,000] INFO deleted one (kafka.Kafka)\n" +
		"[2026-12-02 00:59:59,000] INFO killed one (kafka.server.KafkaRaftServer)\n" +
		"[2026-12-02 01:00:01,000] INFO started (kafka.server.KafkaRaftServer)\n"
	if string(server) != wantServer {
		t.Errorf("server.log\n%s\nwant\n%s", server, wantServer)
	}
	ctl, _ := os.ReadFile(filepath.Join(dst, results.ControllerLog))
	if want := "[2026-12-02 01:00:00,000] INFO [QuorumController id=1] Fencing broker 2 (org.apache.kafka.controller.ReplicationControlManager)\n"; string(ctl) != want {
		t.Errorf("controller.log %q, want %q", ctl, want)
	}
}

// TestForbidden: a permission the Role lacks is one line naming the verb
// and the resource, from the API server's refusal (a fake clientset's).
func TestForbidden(t *testing.T) {
	cs := fake.NewSimpleClientset()
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "system:serviceaccount:ns:kbf" cannot list resource "pods"`))
	})
	api := &clientAPI{cs: cs, ns: "ns"}
	_, err := New(context.Background(), api, Options{})
	var fe *ForbiddenError
	if !errors.As(err, &fe) || fe.Verb != "list" || fe.Resource != "pods" {
		t.Fatalf("err %v, want a ForbiddenError for list pods", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "may not list pods in namespace ns") {
		t.Errorf("message %q: want one line naming the verb and the resource", msg)
	}
	if !apierrors.IsForbidden(err) {
		t.Error("the API's error is not kept")
	}
}

// TestNoBroker: a namespace with no Kafka pod is one line saying what kbf
// looks for.
func TestNoBroker(t *testing.T) {
	web := pod("web-0", nil, "10.0.0.5", corev1.Container{Name: "nginx"})
	api := &clientAPI{cs: fake.NewSimpleClientset(&web), ns: "ns"}
	_, err := New(context.Background(), api, Options{Selector: "app=web"})
	if err == nil || !strings.Contains(err.Error(), "no Kafka broker among the pods of namespace ns with labels app=web") {
		t.Fatalf("err %v", err)
	}
}

func typesUID(s string) types.UID { return types.UID(s) }

func TestFinishTime(t *testing.T) {
	sec := time.Date(2026, 12, 2, 1, 13, 13, 0, time.UTC)
	ms := func(n int) time.Time { return sec.Add(time.Duration(n) * time.Millisecond) }
	tests := []struct {
		name              string
		kubelet, est, sig time.Time
		want              time.Time
	}{
		{"kbf's estimate within the kubelet's second", sec, ms(240), ms(-300), ms(240)},
		{"an estimate before the second is the second's start", sec, ms(-100), ms(-300), sec},
		{"an estimate past the second is its end", sec, ms(1800), ms(-300), ms(999)},
		{"never before the signal", sec, ms(100), ms(200), ms(200)},
		{"no kubelet time: the estimate", time.Time{}, ms(500), ms(0), ms(500)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := finishTime(tt.kubelet, tt.est, tt.sig); !got.Equal(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestLedBy(t *testing.T) {
	md := func(replicas ...int32) *kmsg.MetadataResponse {
		p := kmsg.NewMetadataResponseTopicPartition()
		p.Partition, p.Replicas = 0, replicas
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.Partitions = kmsg.StringPtr("orders"), []kmsg.MetadataResponseTopicPartition{p}
		r := kmsg.NewPtrMetadataResponse()
		r.Topics = []kmsg.MetadataResponseTopic{mt}
		return r
	}
	tg := newCluster(&fakeAPI{}, Options{}, []Node{{Pod: "b-1", ID: 1, Broker: true}, {Pod: "b-2", ID: 2, Broker: true}})
	defer tg.Close()
	tests := []struct {
		name string
		md   *kmsg.MetadataResponse
		lead string
		want string
	}{
		{"no topic yet: kbf makes it", kmsg.NewPtrMetadataResponse(), "b-1", ""},
		{"led by the faulted broker", md(1, 2), "b-1", ""},
		{"led by another", md(2, 1), "b-1", "topic orders exists with partition 0 preferred on b-2, not b-1: fault b-2"},
		{"led by a node with no pod", md(7, 1), "b-1", "preferred on node 7"},
		{"a lead that is no broker: Check's to refuse", md(2, 1), "zz", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tg.ledBy(tt.md, "orders", tt.lead)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}
