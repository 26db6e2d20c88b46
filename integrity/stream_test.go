package integrity

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// auditCase is a made-up probe file and read-back with every kind of
// finding: lost, duplicated (adjacent, late and a batch), reordered, failed but
// present, mismatched and unrecorded records, in varied orders.
type auditCase struct {
	msgs []results.Message
	log  []results.LogRecord
}

func randomCase(seed uint64) auditCase {
	rng := rand.New(rand.NewPCG(seed, seed>>7|1))
	t0 := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	errs := []string{"NOT_ENOUGH_REPLICAS", "REQUEST_TIMED_OUT", "NOT_LEADER_OR_FOLLOWER"}
	var c auditCase
	for p := range int32(1 + rng.IntN(3)) {
		n := int64(rng.IntN(60))
		var seqs []int64 // the log's sequence numbers in offset order
		for s := range n {
			switch r := rng.IntN(40); {
			case r == 0: // lost
			case r == 1: // written twice, side by side
				seqs = append(seqs, s, s)
			case r == 2 && s > 0: // a copy of an earlier one later on
				seqs = append(seqs, s, int64(rng.IntN(int(s))))
			case r == 3 && s >= 2: // a batch of three written again
				seqs = append(seqs, s, s-2, s-1, s)
			case r == 4 && len(seqs) > 0: // swapped with the one before
				seqs = append(seqs, s)
				k := len(seqs)
				seqs[k-1], seqs[k-2] = seqs[k-2], seqs[k-1]
			default:
				seqs = append(seqs, s)
			}
		}
		if rng.IntN(4) == 0 { // another writer's records, or the probe's unlisted
			seqs = append(seqs, n, n+1)
		}
		base := int64(rng.IntN(1000))
		offsetOf := map[int64]int64{}
		for i, s := range seqs {
			if _, ok := offsetOf[s]; !ok {
				offsetOf[s] = base + int64(i)
			}
			c.log = append(c.log, results.LogRecord{Partition: p, Offset: base + int64(i), Seq: s})
		}
		for s := range n {
			if rng.IntN(30) == 0 { // the probe never wrote its row
				continue
			}
			m := results.Message{Partition: p, Seq: s, Offset: -1, Sent: t0.Add(time.Duration(s) * time.Millisecond)}
			switch r := rng.IntN(20); {
			case r == 0:
				m.Err = errs[rng.IntN(len(errs))]
			case r == 1: // never acked
			default:
				m.Acked = m.Sent.Add(3 * time.Millisecond)
				m.Offset = offsetOf[s]
				switch rng.IntN(25) {
				case 0:
					m.Offset = -1
				case 1:
					m.Offset += 7
				}
			}
			c.msgs = append(c.msgs, m)
		}
	}
	// Completion order, nearly sequence order; the log by partition, in
	// offset order or now and then in any order.
	for i := range c.msgs {
		if j := i + rng.IntN(4); j < len(c.msgs) && rng.IntN(3) == 0 {
			c.msgs[i], c.msgs[j] = c.msgs[j], c.msgs[i]
		}
	}
	if rng.IntN(5) == 0 {
		rng.Shuffle(len(c.log), func(i, j int) { c.log[i], c.log[j] = c.log[j], c.log[i] })
	}
	return c
}

func (c auditCase) reference() *Report {
	a := newRef()
	for i := range c.msgs {
		a.AddMessage(&c.msgs[i])
	}
	for _, r := range c.log {
		a.AddLog(r)
	}
	return a.Close()
}

// streamed audits the case as kbf report does: the log, LogDone, then
// each message weighed as it comes.
func (c auditCase) streamed() *Report {
	a := New()
	for _, r := range c.log {
		a.AddLog(r)
	}
	a.LogDone()
	for i := range c.msgs {
		a.AddMessage(&c.msgs[i])
	}
	return a.Close()
}

// kept audits the case with every message kept until Close.
func (c auditCase) kept() *Report {
	a := New()
	for i := range c.msgs {
		a.AddMessage(&c.msgs[i])
	}
	for _, r := range c.log {
		a.AddLog(r)
	}
	return a.Close()
}

// TestAgreesWithReference: the audit, weighing messages as they come or
// at Close, reports what the audit that kept and sorted everything did.
func TestAgreesWithReference(t *testing.T) {
	for seed := range uint64(3000) {
		checkAgainstReference(t, seed)
		if t.Failed() {
			break
		}
	}
}

func checkAgainstReference(t *testing.T, seed uint64) {
	t.Helper()
	c := randomCase(seed)
	want := c.reference()
	for _, mode := range []struct {
		name  string
		audit func() *Report
	}{{"streamed", c.streamed}, {"kept", c.kept}} {
		if got := mode.audit(); !reflect.DeepEqual(got, want) {
			t.Errorf("seed %d, %s:\n%+v\nwant\n%+v", seed, mode.name, got, want)
		}
	}
}

// FuzzAgreesWithReference is TestAgreesWithReference on the fuzzer's
// seeds.
func FuzzAgreesWithReference(f *testing.F) {
	f.Add(uint64(1))
	f.Fuzz(func(t *testing.T, seed uint64) { checkAgainstReference(t, seed) })
}
