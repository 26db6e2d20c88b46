package htmlreport

// This file is the only one that reads analysis.Trial: it turns the analysis
// into the page model, and names, for each figure, where report.json holds
// it. When the report's types change, this is the file to follow them.

import (
	"fmt"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/analysis"
)

// pageData is what the page takes from an analysis.Trial, before the probe
// CSV is read.
type pageData struct {
	model      trialModel
	from, to   time.Time // the trial's span: the first and last time seen
	stalls     map[int32]interval
	partitions []int32
	// leaderless are, by partition, the times the replica view found no
	// leader (analysis.PartitionReplicas.Leaderless): the HW's line breaks
	// there. One never ended runs to the trial's end.
	leaderless map[int32][]interval
}

func fromReport(tr *analysis.Trial, client string) (*pageData, error) {
	g := tr.Gaps
	if g == nil || g.Sent == 0 || g.Start.IsZero() {
		return nil, analysis.ErrNoMessages
	}
	a := &pageData{from: g.Start, to: g.End, stalls: map[int32]interval{}, leaderless: map[int32][]interval{}}
	if rv := tr.Replicas; rv != nil {
		for _, p := range rv.Partitions {
			for _, l := range p.Leaderless {
				iv := interval{l.From, l.To}
				if iv.to.IsZero() {
					iv.to = g.End
				}
				a.leaderless[p.Partition] = append(a.leaderless[p.Partition], iv)
			}
		}
	}
	m := &a.model
	m.Name = tr.Dir
	if m.Name == "" {
		m.Name = "probe"
	}
	m.Origin, m.OriginIs = g.Start, "first send"
	if !tr.FaultAt.IsZero() {
		m.Origin, m.OriginIs = tr.FaultAt, "fault"
	}
	since := func(t time.Time) float64 { return round(t.Sub(m.Origin).Seconds(), 1e6) }
	m.Client = client
	if meta := tr.Meta; meta != nil {
		if m.Client == "" {
			m.Client = meta.Probe.Client["client"]
		}
		m.Heading = fmt.Sprintf("%s: topic %s, acks=%s", meta.Kind, meta.Probe.Topic, meta.Probe.Acks)
		if f := tr.FaultTitle(); f != "" {
			m.Heading = f + " UTC; " + m.Heading
		}
		m.Notes = append(m.Notes, meta.Notes...)
	}
	m.Notes = append(m.Notes, tr.Notes...)

	stalls := map[int32]int{}
	for i, st := range tr.Stalls {
		stalls[st.Partition] = i
	}
	for i, gp := range g.Partitions {
		p := gp.Partition
		a.partitions = append(a.partitions, p)
		l := lane{Partition: p}
		row := "p" + strconv.Itoa(int(p))
		gk := fmt.Sprintf("gaps.partitions.%d.", i)
		add := func(col, key string, v float64, unit string) {
			m.Figures = append(m.Figures, figure{Row: row, Col: col, Key: key, Value: v, Unit: unit})
		}
		if j, ok := stalls[p]; ok {
			st := tr.Stalls[j]
			l.Role = string(st.Role)
			m.Figures = append(m.Figures, figure{Row: row, Col: "role", Key: fmt.Sprintf("stalls.%d.role", j), Text: string(st.Role)})
		}
		if f := gp.Ack.Fault; f != nil {
			l.Stall = &span{Start: since(f.Start), End: since(f.End), Open: f.Open}
			add("ack stall", gk+"ack.fault.seconds", f.Duration().Seconds(), "s")
			a.stalls[p] = interval{f.Start, f.End}
		}
		if f := gp.Receive.Fault; f != nil {
			l.ReceiveStall = &span{Start: since(f.Start), End: since(f.End), Open: f.Open}
			add("receive stall", gk+"receive.fault.seconds", f.Duration().Seconds(), "s")
			iv, ok := a.stalls[p]
			if !ok || f.Start.Before(iv.from) {
				iv.from = f.Start
			}
			if !ok || f.End.After(iv.to) {
				iv.to = f.End
			}
			a.stalls[p] = iv
		}
		if j, ok := stalls[p]; ok {
			st := tr.Stalls[j]
			for k, ph := range st.Phases {
				l.Phases = append(l.Phases, phase{Name: ph.Name, Start: since(ph.Start), End: since(ph.End),
					Evidence: ph.Evidence, Source: ph.Source, Why: ph.Why, Setting: ph.Setting, Bound: boundOf(ph.Bound)})
				add(ph.Name, fmt.Sprintf("stalls.%d.phases.%d.seconds", j, k), ph.Duration.Seconds(), "s")
			}
			if !st.FirstAck.IsZero() {
				add("phases total", fmt.Sprintf("stalls.%d.total_seconds", j), st.Total.Seconds(), "s")
			}
		}
		if f := gp.Ack.Longest; f != nil {
			add("longest ack gap elsewhere", gk+"ack.longest.seconds", f.Duration().Seconds(), "s")
		}
		add("sent", gk+"sent", float64(gp.Sent), "")
		add("failed", gk+"failed", float64(gp.Failed), "")
		if in := tr.Integrity; in != nil {
			for k, ip := range in.Partitions {
				if ip.Partition != p {
					continue
				}
				ik := fmt.Sprintf("integrity.Partitions.%d.", k)
				add("lost", ik+"lost", float64(ip.Lost), "")
				add("duplicated", ik+"duplicated", float64(ip.Duplicated), "")
				add("reordered", ik+"reordered", float64(ip.Reordered), "")
			}
		}
		m.Lanes = append(m.Lanes, l)
	}
	groupFigures(tr, m, since)
	txnFigures(tr, m, since) // txn.go
	failbackFigures(tr, m)   // failback.go
	if in := tr.Integrity; in != nil {
		m.Verdict = fmt.Sprintf("%d acknowledged records: %d lost, %d duplicated, %d reordered",
			in.Acknowledged, in.Lost, in.Duplicated, in.Reordered)
	}

	if tl := tr.Timeline; tl != nil {
		topic := ""
		if tr.Meta != nil {
			topic = tr.Meta.Probe.Topic
		}
		for _, e := range tl.Events {
			// Partition events of other topics say nothing of the lanes.
			if e.Topic != "" && topic != "" && e.Topic != topic {
				continue
			}
			p := e.Partition
			if e.Topic == "" {
				p = -1
			}
			m.Events = append(m.Events, event{T: since(e.Time), Time: e.Time.UTC().Format("15:04:05.000"),
				Node: e.Node, Kind: e.Kind.String(), Partition: p, Text: e.Summary(), Source: e.Source})
		}
	}
	return a, nil
}

// summaryFigures are a run's ranges across its trials, as analysis.Summarize
// puts them and `kbf report -o json` writes them under "summary".
func summaryFigures(trials []*analysis.Trial) []figure {
	s := analysis.Summarize(trials)
	var out []figure
	add := func(row, key string, r analysis.Range) {
		if r.N == 0 {
			return
		}
		out = append(out,
			figure{Row: row, Col: "least", Key: "summary." + key + ".min_seconds", Value: r.Min.Seconds(), Unit: "s"},
			figure{Row: row, Col: "greatest", Key: "summary." + key + ".max_seconds", Value: r.Max.Seconds(), Unit: "s"},
			figure{Row: row, Col: "of", Key: "summary." + key + ".n", Value: float64(r.N)})
	}
	add("detection (fault → fence or shutdown granted)", "detect", s.Detect)
	add("election + client (→ producer on new leader)", "elect_and_client", s.ElectAndClient)
	add("ack gap, partitions the broker led", "leader_ack_gap", s.LeaderGap)
	add("ack gap, partitions the broker followed", "follower_ack_gap", s.FollowerGap)
	add("ack gap, every partition", "ack_gap", s.AnyGap)
	add("receive gap, every partition", "receive_gap", s.ReceiveGap)
	for _, name := range []string{analysis.PhaseDetect, analysis.PhaseElect, analysis.PhaseClient, analysis.PhaseReturn, analysis.PhaseFirstAck} {
		if r := s.Phases[name]; r != nil {
			add("phase "+name, "phases."+name, *r)
		}
	}
	for _, c := range []struct {
		row, key string
		n        int
	}{{"failed sends", "failed_sends", s.FailedSends}, {"acknowledged records lost", "lost", s.Lost},
		{"duplicated", "duplicated", s.Duplicated}, {"reordered", "reordered", s.Reordered}} {
		out = append(out, figure{Row: c.row, Col: "total", Key: "summary." + c.key, Value: float64(c.n)})
	}
	return out
}

// groupFigures adds the group reader's (kbf run --consumer group): each
// partition's processing stall at the fault, in its lane and the table,
// and the group's row; its lane, whose commits are read with the page.
func groupFigures(tr *analysis.Trial, m *trialModel, since func(time.Time) float64) {
	g := tr.Group
	if g == nil {
		return
	}
	lanes := map[int32]*lane{}
	for i := range m.Lanes {
		lanes[m.Lanes[i].Partition] = &m.Lanes[i]
	}
	for i, p := range g.Partitions {
		f := p.Stalls.Fault
		if f == nil {
			continue
		}
		if l := lanes[p.Partition]; l != nil {
			l.GroupStall = &span{Start: since(f.Start), End: since(f.End), Open: f.Open}
		}
		m.Figures = append(m.Figures, figure{Row: "p" + strconv.Itoa(int(p.Partition)), Col: "group stall",
			Key: fmt.Sprintf("group.partitions.%d.stall_sec", i), Value: f.Duration().Seconds(), Unit: "s"})
	}
	add := func(col, key string, v float64, unit string) {
		m.Figures = append(m.Figures, figure{Row: "group", Col: col, Key: key, Value: v, Unit: unit})
	}
	lane := &groupLane{Heading: fmt.Sprintf("group reader (%s protocol, commit %s): each commit's latency at the time it ended; markers: assignment changes",
		g.Settings.Protocol, g.Settings.Commit)}
	if c := g.CommitStall; c != nil {
		lane.CommitStall = &span{Start: since(c.Start), End: since(c.End), Open: c.Open}
		add("commit stall", "group.commit_stall.sec", c.Duration().Seconds(), "s")
	}
	add("commits", "group.commits", float64(g.Commits), "")
	add("failed commits", "group.failed_commits", float64(g.Failed), "")
	add("rebalances", "group.rebalances", float64(g.Rebalances()), "")
	m.Group = lane
}

// boundOf is a phase's bound for the page; nil when none is stated.
func boundOf(b analysis.Bound) *phaseBound {
	if !b.Stated {
		return nil
	}
	return &phaseBound{Low: b.Low.Seconds(), High: b.High.Seconds(), Excess: b.Excess.Seconds(), Basis: b.Basis}
}
