package analysis

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

func settingNames(ss []Setting) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func reportText(t *testing.T, tr *Trial) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, tr); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A broker cut from the controller leads on until it is fenced: the
// report must find partition 0's stall after the fence, not some short
// gap at the cut, and call out the consumer that stayed on the zombie.
func TestIsolateControllerFacts(t *testing.T) {
	tr := analyze(t, unpack(t, isolateControllerArchive))
	fence, ok := tr.Timeline.Fenced(1, tr.FaultAt)
	if !ok {
		t.Fatal("no fence of broker 1 in the timeline")
	}
	st := stallOf(t, tr, 0)
	checkPhases(t, tr, st)
	start := tr.FaultAt.Add(st.Began)
	if st.Role != results.RoleLed || start.Before(fence.Time) {
		t.Errorf("p0 (%s) stall starts %v, before the fence at %v: the broker led on until then", st.Role, start, fence.Time)
	}
	if st.Start.Why == "" || st.Start.Source != fence.Source {
		t.Errorf("p0 start: why %q, source %q; want the fence's line %s", st.Start.Why, st.Start.Source, fence.Source)
	}
	var client *Phase
	for i := range st.Phases {
		if st.Phases[i].Name == PhaseClient {
			client = &st.Phases[i]
		}
	}
	if client == nil || !slices.Contains(settingNames(client.Settings), "produce_request_timeout") {
		t.Errorf("p0 client phase %+v: want produce_request_timeout as what it waited out", client)
	}
	if st.Consumer.Why == "" || !slices.Contains(settingNames(st.Consumer.Settings), "metadata_max_age") {
		t.Errorf("p0 consumer note %q, settings %v: the consumer never received again and must be called out", st.Consumer.Why, st.Consumer.Settings)
	}
	// The partitions it only followed barely stall: well under the
	// session timeout.
	for _, p := range []int32{1, 2} {
		if s := stallOf(t, tr, p); s.Role != results.RoleFollowed || s.Total > 3*time.Second || s.Consumer.Why != "" {
			t.Errorf("p%d (%s): stalled %v, consumer note %q; want a short stall and none", p, s.Role, s.Total, s.Consumer.Why)
		}
	}
	if tr.Replicas == nil || len(tr.Replicas.Partitions) != 3 {
		t.Fatalf("replica view %+v, want three partitions", tr.Replicas)
	}
	p0 := tr.Replicas.Partitions[0]
	if p0.Stale == 0 {
		t.Errorf("p0: no stale state answers; the cut broker answered with its old metadata")
	}
	if p0.HW == nil || p0.HW.Stopped.Before(fence.Time.Add(-time.Second)) || p0.HW.Moved.IsZero() {
		t.Errorf("p0 HW stop %+v: want it held from about the fence (%v) until the producer moved", p0.HW, fence.Time)
	}
}

// A cut broker did not end: the wording says so.
func TestNetworkWording(t *testing.T) {
	for _, archive := range []string{isolateArchive, isolateControllerArchive} {
		t.Run(archive, func(t *testing.T) {
			text := reportText(t, analyze(t, unpack(t, archive)))
			if strings.Contains(text, "the process ended") {
				t.Errorf("says the process ended for a broker that was cut:\n%s", text)
			}
		})
	}
}

// A broker cut from the clients only is healthy to the cluster: nothing
// is elected, the led partition stalls to the heal, the others do not.
func TestIsolateClientsFacts(t *testing.T) {
	tr := analyze(t, unpack(t, isolateClientsArchive))
	if len(tr.Stalls) != 3 {
		t.Fatalf("%d stalls, want one per partition", len(tr.Stalls))
	}
	for i := range tr.Stalls {
		st := &tr.Stalls[i]
		if len(st.Phases) != 0 || st.Note == "" {
			t.Errorf("p%d: phases %v, note %q; want no phase (nothing detected or elected) and a note", st.Partition, phaseNames(st), st.Note)
		}
		led := st.Partition == 0
		if led != (st.Role == results.RoleLed) {
			t.Errorf("p%d: role %s", st.Partition, st.Role)
		}
		g := ackGap(t, tr, st.Partition)
		if led && !g.Open {
			t.Errorf("p0 acked again during the cut (%v ~ %v): the cut should last to the probe's end", g.Start, g.End)
		}
		if !led && g.Duration() > time.Second {
			t.Errorf("p%d stalled %v: a follower cut from clients only still replicates", st.Partition, g.Duration())
		}
	}
}

// The sigkill trial with a replica view: the dead leader's partition shows
// the HW held until the new leader answered, and the sampling is a
// self-check line.
func TestSigkillReplicaView(t *testing.T) {
	tr := analyze(t, unpack(t, sigkillReplicasArchive))
	if tr.Replicas == nil || tr.Replicas.Sampling == nil {
		t.Fatalf("replica view %+v: want one with its sampling", tr.Replicas)
	}
	fence, ok := tr.Timeline.Fenced(1, tr.FaultAt)
	if !ok {
		t.Fatal("no fence")
	}
	for _, p := range tr.Replicas.Partitions {
		if p.HW == nil || p.HW.Moved.Before(fence.Time) {
			t.Errorf("p%d HW stop %+v: want it held until after the fence at %v", p.Partition, p.HW, fence.Time)
		}
		if p.Partition == 0 && (p.TakeOver == nil || p.TakeOver.Broker != 2) {
			t.Errorf("p0 take-over %+v, want broker 2", p.TakeOver)
		}
	}
	if text := reportText(t, tr); !strings.Contains(text, "replica view self-check:") {
		t.Errorf("no replica sampling self-check line:\n%.600s", text)
	}
}
