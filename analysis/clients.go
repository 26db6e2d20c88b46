package analysis

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// FranzGo is the in-process probe's client as kbf run --clients names it:
// the trial's own probe.csv.
const FranzGo = "franz-go"

// ClientResult is one client's view of the fault, in a trial where several
// clients probed the same partitions at the same time (kbf run --clients):
// the franz-go probe's from the trial's own analysis, each external
// client's from an analysis of its own files against the same node logs.
type ClientResult struct {
	Name       string
	Partitions []ClientPartition
	// Audit is nil when the client's records were not read back.
	Audit *ClientAudit
	// Settings are the client's settings that shape a stall, by its own
	// names: retries, metadata, timeouts, leader discovery.
	Settings []Setting
	// Err says why the client's records could not be analysed.
	Err string
	// MetaMissing is set when the client's own meta.json is missing: its
	// settings are unknown, and none of another client's stands in.
	MetaMissing bool
	// Trial is the client's whole analysis; nil for franz-go (the trial
	// itself) and when Err is set.
	Trial *Trial
	// Group is the client's group reader in brief (kbf run --consumer
	// group); nil without one.
	Group *ClientGroup
}

// ClientGroup is one client's group reader in brief, for the clients'
// comparison: its worst processing stall and its commit stall.
type ClientGroup struct {
	Protocol, Commit string
	// Processing is the longest processing gap at the fault over the
	// partitions (the longest anywhere when none had one at the fault),
	// on Partition; Open when no record was processed after it. Zero
	// with Found unset when it processed nothing.
	Processing     time.Duration
	Partition      int32
	ProcessingOpen bool
	Found          bool
	// CommitStall is the commit stall's length (GroupView.CommitStall);
	// CommitOpen when no commit succeeded after it; HasCommitStall unset
	// without a commit.
	CommitStall    time.Duration
	CommitOpen     bool
	HasCommitStall bool
	Commits        int
	Failed         int
	Rebalances     int
}

// clientGroup is the group view v in brief; nil without one.
func clientGroup(v *GroupView) *ClientGroup {
	if v == nil {
		return nil
	}
	g := &ClientGroup{Protocol: v.Settings.Protocol, Commit: v.Settings.Commit,
		Commits: v.Commits, Failed: v.Failed, Rebalances: v.Rebalances()}
	if w, ok := v.Worst(); ok {
		gp := w.Stalls.Fault
		if gp == nil {
			gp = w.Stalls.Longest
		}
		g.Processing, g.Partition, g.ProcessingOpen, g.Found = gp.Duration(), w.Partition, gp.Open, true
	}
	if s := v.CommitStall; s != nil {
		g.CommitStall, g.CommitOpen, g.HasCommitStall = s.Duration(), s.Open, true
	}
	return g
}

// ClientAudit is a client's integrity check in brief.
type ClientAudit struct {
	Acknowledged int
	Lost         int
	Duplicated   int
	Reordered    int
}

// ClientPartition is one client's stall on one partition.
type ClientPartition struct {
	Partition int32
	Role      results.Role
	// Ack and Receive are the fault gaps; zero when the partition had none.
	Ack     time.Duration
	Receive time.Duration
	// Open is set when no ack came after the fault.
	Open bool
	// Learnt is when the client's log shows it learnt the new leader (the
	// end of its client phase), Client how long that phase lasted and
	// Learning what it waited for, with the line that shows it; zero when
	// its log shows no such line.
	Learnt   time.Time
	Client   time.Duration
	Learning Explanation
}

// ClientDiff is the largest difference between the clients' ack stalls on
// one partition, and what explains it.
type ClientDiff struct {
	Partition int32
	Role      results.Role
	Longest   string
	Shortest  string
	Diff      time.Duration
	// Resolution is the smallest difference the probes can tell
	// (resolution); Measurable is set when Diff is at least that, and only
	// then is the difference one to report.
	Resolution time.Duration
	Measurable bool
	// Why says which phase the difference lies in, from the clients' logs,
	// or that there is no measurable difference.
	Why string
}

// stallSettings are the settings that shape a client's stall, by each
// client's own names, in the order the report prints them.
var stallSettings = map[string][]string{
	FranzGo:      {"retry_backoff", "retry_backoff_max", "metadata_min_age", "produce_request_timeout", "request_timeout_overhead", "kip951"},
	"librdkafka": {"retry.backoff.ms", "retry.backoff.max.ms", "topic.metadata.refresh.fast.interval.ms", "request.timeout.ms", "socket.timeout.ms"},
	"java":       {"retry.backoff.ms", "retry.backoff.max.ms", "metadata.max.age.ms", "request.timeout.ms", "delivery.timeout.ms"},
}

// clientAnalyses are the clients stage's result: every client that probed
// the trial, franz-go first, when more than one did, and how far their
// stalls differ; nothing when franz-go probed alone.
type clientAnalyses struct {
	results []ClientResult
	diffs   []ClientDiff
	// notes say what of the clients' files is damaged or missing, for
	// the trial's notes and verdict.
	notes notes
}

// clientsOf analyses each external client of the trial t beside fg, the
// franz-go probe's analysis, and compares them. A client whose files
// cannot be read is reported so, not the trial.
func clientsOf(ctx context.Context, t results.Trial, fg *probeAnalysis) (clientAnalyses, error) {
	if len(t.Clients) == 0 {
		return clientAnalyses{}, nil
	}
	fgr := clientResult(FranzGo, fg.ev.meta, fg.integrity, fg.gaps, fg.phases.stalls)
	fgr.Group = clientGroup(fg.group)
	cs := clientAnalyses{results: []ClientResult{fgr}}
	for i := range t.Clients {
		cr, ns, err := clientOf(ctx, t, &t.Clients[i], fg.ev.F)
		if err != nil {
			return clientAnalyses{}, err
		}
		cs.results = append(cs.results, cr)
		cs.notes = append(cs.notes, ns...)
	}
	cs.notes = append(cs.notes, missingClients(t)...)
	cs.diffs = diffClients(cs.results, resolution(fg.ev.meta, cs.results))
	return cs, nil
}

// clientOf analyses the external client c of the trial t against the
// fault at F: its result, and what of its files is damaged. Its error is
// ctx's only: a client whose files cannot be read is a result that says
// so.
func clientOf(ctx context.Context, t results.Trial, c *results.ClientTrial, F time.Time) (ClientResult, notes, error) {
	ct, err := analyzeClient(ctx, c.Trial(&t), F)
	if ctx.Err() != nil {
		return ClientResult{}, nil, ctx.Err()
	}
	if err != nil {
		return ClientResult{Name: c.Name, Err: err.Error()},
			notes{{text: fmt.Sprintf("client %s's records could not be read (%v): it is left out of the comparison", c.Name, err), damaged: true}}, nil
	}
	// What is wrong with a client's own files is wrong with the trial:
	// its verdict says so.
	var ns notes
	for _, n := range ct.Notes {
		if ct.Verdict != nil && damagedNote(ct.Verdict, n) {
			ns = append(ns, note{text: fmt.Sprintf("client %s: %s", c.Name, n), damaged: true})
		}
	}
	cr := clientResult(c.Name, ct.Meta, ct.Integrity, ct.Gaps, ct.Stalls)
	cr.Trial = ct
	cr.Group = clientGroup(ct.Group)
	if c.Meta == nil {
		cr.MetaMissing = true
		ns = append(ns, note{text: fmt.Sprintf("client %s: %s is missing, so its settings are unknown: its duplicates and reorders are not judged", c.Name, path.Join(results.ClientsDir, c.Name, results.MetaFile)), damaged: true})
	}
	return cr, ns, nil
}

// analyzeClient is an external client's analysis of its own trial t, its
// fault dated F as the franz-go probe's is: its probe's stages and its
// verdict. Its findings are the trial's (findingsOf).
func analyzeClient(ctx context.Context, t results.Trial, F time.Time) (*Trial, error) {
	p, err := analyzeProbe(ctx, t, Options{FaultAt: F})
	if err != nil {
		return nil, err
	}
	return p.trial(verdictOf(t.Meta, p.gaps, p.ev.F, p.notes), clientAnalyses{}, nil), nil
}

// missingClients say which clients the trial t's command named with
// --clients that left no records.
func missingClients(t results.Trial) notes {
	var ns notes
	for _, name := range namedClients(t.Meta) {
		if name != FranzGo && !slices.ContainsFunc(t.Clients, func(c results.ClientTrial) bool { return c.Name == name }) {
			ns = append(ns, note{text: fmt.Sprintf("client %s: named by --clients, but %s holds no %s: its records are missing from the comparison", name, path.Join(results.ClientsDir, name), results.ProbeFile), damaged: true})
		}
	}
	return ns
}

// minResolution is the finest difference the report's figures show: they
// are in hundredths of a second, so a smaller one would read "0.00 s
// longer".
const minResolution = 10 * time.Millisecond

// resolution is the smallest difference between two clients' stalls that
// the probes can measure: each sends one record per partition every
// interval, so a stall's end is known only to within the interval of the
// client whose records mark it; the coarsest client's interval (franz-go's
// in m, the others' in crs) bounds the comparison, and never less than
// minResolution.
func resolution(m *results.Meta, crs []ClientResult) time.Duration {
	res := minResolution
	if m != nil {
		res = max(res, m.Probe.Interval)
	}
	for _, cr := range crs {
		if cr.Trial != nil && cr.Trial.Meta != nil {
			res = max(res, cr.Trial.Meta.Probe.Interval)
		}
	}
	return res
}

// damagedNote reports whether note n is one the verdict v holds as
// damaged evidence.
func damagedNote(v *verdict.Verdict, n string) bool {
	for _, r := range v.Reasons {
		if r.Kind == verdict.EvidenceDamaged && r.Detail == n {
			return true
		}
	}
	return false
}

// clientResult is the client name's view of the fault, from its
// metadata m, its audit in, its gaps g and its stalls.
func clientResult(name string, m *results.Meta, in *integrity.Report, g *gaps.Report, stalls []Stall) ClientResult {
	cr := ClientResult{Name: name, Settings: clientSettings(name, m)}
	if in != nil {
		cr.Audit = &ClientAudit{Acknowledged: in.Acknowledged, Lost: in.Lost, Duplicated: in.Duplicated, Reordered: in.Reordered}
	}
	if g != nil {
		cr.Partitions = clientPartitions(name, g, stalls)
	}
	return cr
}

// clientSettings are the settings that shape the client name's stall, as
// its metadata m records them.
func clientSettings(name string, m *results.Meta) []Setting {
	if m == nil {
		return nil
	}
	var out []Setting
	for _, k := range stallSettings[name] {
		if v, ok := m.Probe.Client[k]; ok {
			out = append(out, Setting{Name: k, Value: v, Source: SourceClientConfig, Where: results.MetaFile})
		}
	}
	return out
}

// clientPartitions are the client name's stall on each partition of its
// gaps g, with its client phase from its stalls.
func clientPartitions(name string, g *gaps.Report, stalls []Stall) []ClientPartition {
	byPartition := map[int32]*Stall{}
	for i := range stalls {
		byPartition[stalls[i].Partition] = &stalls[i]
	}
	var out []ClientPartition
	for _, gp := range g.Partitions {
		cp := ClientPartition{Partition: gp.Partition, Role: results.RoleNone}
		if g := gp.Ack.Fault; g != nil {
			cp.Ack, cp.Open = g.Duration(), g.Open
		}
		if g := gp.Receive.Fault; g != nil {
			cp.Receive = g.Duration()
		}
		if st := byPartition[gp.Partition]; st != nil {
			cp.Role = st.Role
			for _, ph := range st.Phases {
				if ph.Name == PhaseClient {
					cp.Learnt, cp.Client, cp.Learning = ph.End, ph.Duration, clientLearning(name, ph)
				}
			}
		}
		out = append(out, cp)
	}
	return out
}

// clientLearning is what the client name waited for in its client phase
// ph. The phase's explanation weighs franz-go's own log lines and
// settings; another client's is its log line and the settings listed
// beside it.
func clientLearning(name string, ph Phase) Explanation {
	x := ph.Explanation
	if name != FranzGo {
		x.Why = fmt.Sprintf("its log first names the new leader at %s: %s [%s]",
			ph.End.UTC().Format("15:04:05.000"), ph.Evidence, path.Join(results.ClientsDir, name, ph.Source))
	}
	return x
}

// diffClients finds, per partition, the clients with the longest and the
// shortest ack stall and says where the difference lies: the client phase
// (one client learnt the new leader later) or after it (its first ack
// came later once it knew). A difference below res, the probes'
// resolution, is no measurable difference.
func diffClients(crs []ClientResult, res time.Duration) []ClientDiff {
	type seen struct {
		client string
		cp     ClientPartition
	}
	by := map[int32][]seen{}
	var parts []int32
	for _, cr := range crs {
		for _, cp := range cr.Partitions {
			if _, ok := by[cp.Partition]; !ok {
				parts = append(parts, cp.Partition)
			}
			by[cp.Partition] = append(by[cp.Partition], seen{cr.Name, cp})
		}
	}
	slices.Sort(parts)
	var out []ClientDiff
	for _, p := range parts {
		ss := by[p]
		if len(ss) < 2 {
			continue
		}
		lo, hi := ss[0], ss[0]
		for _, s := range ss[1:] {
			if s.cp.Ack < lo.cp.Ack {
				lo = s
			}
			if s.cp.Ack > hi.cp.Ack {
				hi = s
			}
		}
		d := ClientDiff{Partition: p, Role: hi.cp.Role, Longest: hi.client, Shortest: lo.client, Diff: hi.cp.Ack - lo.cp.Ack, Resolution: res}
		// A stall that never ended differs in kind from one that did,
		// however close their lengths.
		d.Measurable = d.Diff >= res || hi.cp.Open && !lo.cp.Open
		switch {
		case d.Diff == 0 && !d.Measurable:
			d.Why = "the same stall"
		case hi.cp.Open && d.Measurable:
			d.Why = fmt.Sprintf("%s had no ack after the fault before the probe stopped", hi.client)
		case !d.Measurable:
			d.Why = fmt.Sprintf("no measurable difference: the stalls differ by less than the probes' resolution, %s", secs(res))
		case !hi.cp.Learnt.IsZero() && !lo.cp.Learnt.IsZero() && hi.cp.Learnt.Sub(lo.cp.Learnt) > d.Diff/2:
			d.Why = fmt.Sprintf("%s learnt the new leader %s after %s", hi.client, secs(hi.cp.Learnt.Sub(lo.cp.Learnt)), lo.client)
			if hi.cp.Learning.Why != "" {
				d.Why += ": " + hi.cp.Learning.Why
			}
		case hi.cp.Role == results.RoleLed && hi.cp.Learnt.IsZero():
			d.Why = fmt.Sprintf("%s's log shows no line naming the new leader, so its client phase cannot be told from its first ack", hi.client)
		default:
			d.Why = fmt.Sprintf("not in learning the leader: %s's first ack came later once the partition could take writes (its retry backoff and request scheduling)", hi.client)
		}
		out = append(out, d)
	}
	return out
}

// ClientSummary is one client's stalls across a run's valid trials, for
// the partitions of one role.
type ClientSummary struct {
	Client string
	Role   results.Role
	Ack    Range
	// Phase is the client phase: the new leader's election → the client
	// learnt it, from the client's own log.
	Phase Range
	Lost  int
}

// addClients adds the trial's clients to the summary, by client and role
// in the order first seen.
func (s *Summary) addClients(tr *Trial) {
	for _, cr := range tr.Clients {
		for _, cp := range cr.Partitions {
			if cp.Ack == 0 || cp.Role == results.RoleNone {
				continue
			}
			i := slices.IndexFunc(s.Clients, func(c ClientSummary) bool { return c.Client == cr.Name && c.Role == cp.Role })
			if i < 0 {
				s.Clients = append(s.Clients, ClientSummary{Client: cr.Name, Role: cp.Role})
				i = len(s.Clients) - 1
			}
			s.Clients[i].Ack.add(cp.Ack)
			if !cp.Learnt.IsZero() {
				s.Clients[i].Phase.add(cp.Client)
			}
		}
		if cr.Audit != nil {
			for i := range s.Clients {
				if s.Clients[i].Client == cr.Name {
					s.Clients[i].Lost += cr.Audit.Lost
					break
				}
			}
		}
	}
}

// namedClients are the clients the trial's command named with --clients,
// in its order; none when the command is not recorded or names none.
func namedClients(m *results.Meta) []string {
	if m == nil {
		return nil
	}
	var list string
	for i, a := range m.Command {
		if v, ok := strings.CutPrefix(a, "--clients="); ok {
			list = v
		} else if a == "--clients" && i+1 < len(m.Command) {
			list = m.Command[i+1]
		}
	}
	var out []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}
