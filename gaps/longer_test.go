package gaps

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

// longerOf feeds acks (ms after t0, in the order given) to a Longer, each
// message received 5 ms after its ack, and returns partition 0's ack gaps
// as "start~end" in ms, open ones marked.
func longerOf(acks []int, bound time.Duration, end int) string {
	t0 := at("03:26:00.000")
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	var endT time.Time
	if end >= 0 {
		endT = ms(end)
	}
	l := NewLonger(bound, endT)
	for i, a := range acks {
		l.Add(&results.Message{Partition: 0, Seq: int64(i), Sent: ms(a - 2), Acked: ms(a), Received: ms(a + 5)})
	}
	l.Close()
	if len(l.Partitions) == 0 {
		return "no partition"
	}
	var out []string
	for _, g := range l.Partitions[0].Ack {
		s := fmt.Sprintf("%d~%d", g.Start.Sub(t0).Milliseconds(), g.End.Sub(t0).Milliseconds())
		if g.Open {
			s += " open"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func TestLonger(t *testing.T) {
	const bound = 200 * time.Millisecond
	for _, c := range []struct {
		name string
		acks []int
		end  int // -1: the latest time seen
		want string
	}{
		{"steady: none", []int{0, 100, 200, 300}, -1, ""},
		{"one stall", []int{0, 100, 900, 1000}, -1, "100~900"},
		{"exactly the bound is steady", []int{0, 200, 400}, -1, ""},
		{"two stalls in order", []int{0, 500, 600, 1600}, -1, "0~500, 600~1600"},
		{"a late time splits a stall", []int{0, 1000, 500}, -1, "0~500, 500~1000"},
		{"a late time leaves a piece under the bound", []int{0, 1000, 900}, -1, "0~900"},
		{"a late time splits a stall into steady pieces", []int{0, 300, 150}, -1, ""},
		{"a late time before the first", []int{1000, 1100, 200}, -1, "200~1000"},
		{"a repeated time", []int{0, 1000, 1000, 0}, -1, "0~1000"},
		{"a late time in a steady gap", []int{0, 100, 1000, 50}, -1, "100~1000"},
		{"the last gap to the end", []int{0, 100}, 1000, "100~1000 open"},
		{"the last gap to the end, under the bound", []int{0, 100}, 250, ""},
		// Receives run 5 ms after each ack, so the run's latest time is
		// 5 ms after the last ack: no gap to the end.
		{"no end: the latest time seen", []int{0, 100, 900}, -1, "100~900"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := longerOf(c.acks, bound, c.end); got != c.want {
				t.Errorf("gaps %q, want %q", got, c.want)
			}
		})
	}
}

// Whatever the order the times come in, Longer keeps exactly the gaps over
// the bound between the sorted times.
func TestLongerAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const bound = 50
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(60)
		ts := make([]int64, n)
		for i := range ts {
			ts[i] = rng.Int64N(2000)
		}
		sorted := slices.Clone(ts)
		slices.Sort(sorted)
		var want []span
		for i := 1; i < len(sorted); i++ {
			if sorted[i]-sorted[i-1] > bound {
				want = append(want, span{start: sorted[i-1], end: sorted[i]})
			}
		}
		var lt longTracker
		for _, x := range ts {
			lt.add(x, bound)
		}
		if !slices.Equal(lt.spans, want) {
			t.Fatalf("times %v: kept %v, want %v", ts, lt.spans, want)
		}
	}
}

func TestLongerPartitions(t *testing.T) {
	t0 := at("03:26:00.000")
	l := NewLonger(100*time.Millisecond, time.Time{})
	for _, p := range []int32{2, 0, 1} {
		for _, d := range []time.Duration{0, 500 * time.Millisecond} {
			l.Add(&results.Message{Partition: p, Sent: t0.Add(d), Acked: t0.Add(d)})
		}
	}
	l.Close()
	l.Close()
	var got []int32
	for _, p := range l.Partitions {
		got = append(got, p.Partition)
		if len(p.Ack) != 1 || len(p.Receive) != 0 {
			t.Errorf("p%d: ack gaps %v, receive gaps %v; want one ack gap and no receive", p.Partition, p.Ack, p.Receive)
		}
	}
	if !slices.Equal(got, []int32{0, 1, 2}) {
		t.Errorf("partitions %v, want 0 1 2 once each", got)
	}
}
