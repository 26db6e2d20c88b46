package k8s

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kbf-project/kbf/chaos"
	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

func TestNetRules(t *testing.T) {
	tests := []struct {
		name      string
		kind      results.FaultKind
		peers     []string
		wantIn    [][]string
		wantOut   [][]string
		wantError string
	}{
		{name: "isolate drops all but loopback", kind: results.FaultIsolate,
			wantIn:  [][]string{{"!", "-i", "lo", "-j", "DROP"}},
			wantOut: [][]string{{"!", "-o", "lo", "-j", "DROP"}}},
		{name: "isolate-controller drops the controllers", kind: results.FaultIsolateController, peers: []string{"10.0.0.9", "10.0.0.8"},
			wantIn:  [][]string{{"-s", "10.0.0.9", "-j", "DROP"}, {"-s", "10.0.0.8", "-j", "DROP"}},
			wantOut: [][]string{{"-d", "10.0.0.9", "-j", "DROP"}, {"-d", "10.0.0.8", "-j", "DROP"}}},
		{name: "isolate-replication drops the other brokers", kind: results.FaultIsolateReplication, peers: []string{"10.0.0.3"},
			wantIn:  [][]string{{"-s", "10.0.0.3", "-j", "DROP"}},
			wantOut: [][]string{{"-d", "10.0.0.3", "-j", "DROP"}}},
		{name: "isolate-replication with no other broker", kind: results.FaultIsolateReplication, wantError: "no other broker to cut it from"},
		{name: "isolate-controller with no controller", kind: results.FaultIsolateController, wantError: "no controller to cut it from"},
		{name: "isolate-clients keeps the nodes, drops the rest", kind: results.FaultIsolateClients, peers: []string{"10.0.0.2"},
			wantIn:  [][]string{{"-s", "10.0.0.2", "-j", "RETURN"}, {"!", "-i", "lo", "-j", "DROP"}},
			wantOut: [][]string{{"-d", "10.0.0.2", "-j", "RETURN"}, {"!", "-o", "lo", "-j", "DROP"}}},
		{name: "no network fault", kind: results.FaultSIGKILL, wantError: "is not a network fault"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, out, err := netRules(tt.kind, tt.peers)
			if tt.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantError) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantError)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(in, tt.wantIn) || !reflect.DeepEqual(out, tt.wantOut) {
				t.Errorf("got in %q out %q (%v), want in %q out %q", in, out, err, tt.wantIn, tt.wantOut)
			}
		})
	}
}

// TestCutScript runs the cut's script with sh and an iptables that logs
// its arguments: an old cut cleared, the chains filled and hooked last; a
// failing command named, and what was added removed again.
func TestCutScript(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	heal := []string{"-w -D INPUT -j KBF-CUT-IN", "-w -D OUTPUT -j KBF-CUT-OUT", "-w -F KBF-CUT-IN", "-w -F KBF-CUT-OUT",
		"-w -X KBF-CUT-IN", "-w -X KBF-CUT-OUT", "-w -n -L KBF-CUT-IN"}
	cut := []string{"-w -N KBF-CUT-IN", "-w -N KBF-CUT-OUT", "-w -A KBF-CUT-IN -s 10.0.0.9 -j DROP", "-w -A KBF-CUT-OUT -d 10.0.0.9 -j DROP",
		"-w -I INPUT 1 -j KBF-CUT-IN", "-w -I OUTPUT 1 -j KBF-CUT-OUT"}
	tests := []struct {
		name       string
		fail       string // the arguments the fake iptables fails on
		wantCalls  []string
		wantStderr string
	}{
		{name: "cut", wantCalls: append(append([]string{}, heal...), cut...)},
		{name: "the last hook fails", fail: "-w -I OUTPUT 1 -j KBF-CUT-OUT",
			wantCalls:  append(append(append([]string{}, heal...), cut...), heal...),
			wantStderr: "iptables -I OUTPUT 1 -j KBF-CUT-OUT failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			calls := filepath.Join(dir, "calls")
			fake := `#!/bin/sh
echo "$*" >>"$CALLS"
[ "$*" = "$FAIL" ] && exit 1
case "$*" in *"-L KBF-CUT-IN"*) exit 1 ;; esac
exit 0
`
			if err := os.WriteFile(filepath.Join(dir, "iptables"), []byte(fake), 0o755); err != nil {
				t.Fatal(err)
			}
			in, out, _ := netRules(results.FaultIsolateController, []string{"10.0.0.9"})
			cmd := exec.Command("sh", "-c", cutScript(in, out))
			cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "CALLS="+calls, "FAIL="+tt.fail)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			if (err != nil) != (tt.wantStderr != "") || !strings.Contains(stderr.String(), tt.wantStderr) {
				t.Errorf("exit %v, stderr %q; want failure %v saying %q", err, stderr.String(), tt.wantStderr != "", tt.wantStderr)
			}
			b, _ := os.ReadFile(calls)
			if got := strings.Split(strings.TrimSpace(string(b)), "\n"); !reflect.DeepEqual(got, tt.wantCalls) {
				t.Errorf("iptables calls\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.wantCalls, "\n"))
			}
		})
	}
}

func netCluster(api *fakeAPI) *Cluster {
	return newCluster(api, Options{Poll: 1}, []Node{
		{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true, Image: "kbf/kafka:4.3.1"},
		{Pod: "kafka-broker-2", Container: "kafka", ID: 2, Broker: true, Image: "kbf/kafka:4.3.1"},
		{Pod: "kafka-controller-100", Container: "kafka", ID: 100, Controller: true, Image: "kbf/kafka:4.3.1"},
	})
}

func withIP(p *corev1.Pod, ip string) *corev1.Pod {
	p.Status.PodIP = ip
	return p
}

// TestNetworkFault cuts a broker's links through a fake API: the
// ephemeral container added and checked, the rules made in it, heal
// removing them and ending it; and each refusal in one line, before any
// rule.
func TestNetworkFault(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	checkLine, _, _ := strings.Cut(netCheck, "\n")
	tests := []struct {
		name     string
		kind     results.FaultKind
		ephState corev1.ContainerState
		scripts  map[string]session
		addErr   error
		wantErr  string
		wantCut  string // in the cut's script
	}{
		{name: "isolate", kind: results.FaultIsolate, ephState: running, wantCut: "-A KBF-CUT-IN ! -i lo -j DROP"},
		{name: "isolate-controller: the controller's pod IP", kind: results.FaultIsolateController, ephState: running, wantCut: "-A KBF-CUT-OUT -d 10.0.0.100 -j DROP"},
		{name: "isolate-clients: the other nodes kept", kind: results.FaultIsolateClients, ephState: running, wantCut: "-A KBF-CUT-IN -s 10.0.0.2 -j RETURN"},
		{name: "an image the node does not have", kind: results.FaultIsolate,
			ephState: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ErrImageNeverPull", Message: "not present with pull policy of Never"}},
			wantErr:  "the node cannot run image kbf/kafka:4.3.1 in an ephemeral container (ErrImageNeverPull not present with pull policy of Never): name an image the node has, with iptables, with --net-image"},
		{name: "an image with no iptables", kind: results.FaultIsolate, ephState: running, scripts: map[string]session{checkLine: {err: exitError(3)}},
			wantErr: "image kbf/kafka:4.3.1 has no iptables: name one that has with --net-image"},
		{name: "no NET_ADMIN", kind: results.FaultIsolate, ephState: running,
			scripts: map[string]session{checkLine: {stderr: "iptables: Permission denied (you must be root)", err: exitError(4)}},
			wantErr: "iptables in the ephemeral container kbf-net-"},
		{name: "no permission for ephemeral containers", kind: results.FaultIsolate, ephState: running,
			addErr:  &ForbiddenError{Verb: "update", Resource: "pods/ephemeralcontainers", Namespace: "ns", Err: errors.New("forbidden")},
			wantErr: "kbf may not update pods/ephemeralcontainers in namespace ns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := &fakeAPI{statuses: map[string][]*corev1.Pod{
				"kafka-broker-1":       {withIP(status("u1", 0, true, nil), "10.0.0.1")},
				"kafka-broker-2":       {withIP(status("u2", 0, true, nil), "10.0.0.2")},
				"kafka-controller-100": {withIP(status("u3", 0, true, nil), "10.0.0.100")},
			}, ephState: tt.ephState, scripts: tt.scripts, addErr: tt.addErr}
			tg := netCluster(api)
			defer tg.Close()
			ctx := context.Background()
			if err := tg.PrepareNet(ctx, "kafka-broker-1"); tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("PrepareNet: %v, want one line saying %q", err, tt.wantErr)
				}
				for _, e := range api.execs {
					if strings.Contains(e, "-N "+chaos.CutChain) {
						t.Errorf("a rule was made after a refusal: %s", e)
					}
				}
				if len(api.execs) > 0 && !strings.HasSuffix(api.execs[len(api.execs)-1], ": touch "+netDone) {
					t.Errorf("the ephemeral container was not ended after the refusal: execs %q", api.execs)
				}
				return
			} else if err != nil {
				t.Fatal(err)
			}
			f, err := tg.Inject(ctx, cluster.Fault{Broker: "kafka-broker-1", Kind: tt.kind, Controllers: []string{"kafka-controller-100"}})
			if err != nil || f.Cut.IsZero() || f.SignalSent.IsZero() {
				t.Fatalf("Inject: %+v, %v; want a cut", f, err)
			}
			if len(api.ephemeral) != 1 || !strings.HasPrefix(api.ephemeral[0], "kafka-broker-1: "+NetContainerPrefix) {
				t.Errorf("ephemeral containers %q, want one kbf-net- in kafka-broker-1", api.ephemeral)
			}
			name := strings.TrimPrefix(api.ephemeral[0], "kafka-broker-1: ")
			if err := tg.Restart(ctx, "kafka-broker-1"); err != nil {
				t.Fatalf("Restart: %v", err)
			}
			if err := tg.Restart(ctx, "kafka-broker-1"); !errors.Is(err, cluster.ErrAlreadyRunning) {
				t.Errorf("second restart: %v, want ErrAlreadyRunning", err)
			}
			// The check, an old cut cleared, the cut, the heal: all in the
			// ephemeral container.
			if len(api.execs) != 4 {
				t.Fatalf("execs %q, want 4", api.execs)
			}
			for i, want := range []string{checkLine, "iptables -w -D INPUT", "iptables -w -D INPUT", "iptables -w -D INPUT"} {
				if !strings.HasPrefix(api.execs[i], "kafka-broker-1/"+name+": "+want) {
					t.Errorf("exec %d: %q, want in %s: %q…", i, api.execs[i], name, want)
				}
			}
			if !strings.Contains(api.execs[2], tt.wantCut) {
				t.Errorf("the cut's script has no %q:\n%s", tt.wantCut, api.execs[2])
			}
			if !strings.HasSuffix(api.execs[3], "touch "+netDone) {
				t.Errorf("heal does not end the ephemeral container:\n%s", api.execs[3])
			}
		})
	}
}
