package analysis

import (
	"context"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/integrity"
	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/verdict"
)

// The analysis is a pipeline of stages, each taking values and returning
// values, none changing what another returned:
//
//	timeline → settings → window → read-back → gaps and audit → group → txn → phases → checks → group recovery → txn recovery → metrics → load → verdict → findings
//
// analyzeProbe runs one probe's stages, up to the metrics; AnalyzeContext
// runs them for the franz-go probe and for each external client beside it,
// then judges the verdict on all of it, and the findings.

// Analyze reads the trial t: the timeline first (a graceful stop is dated
// by the broker's own SIGTERM line), then the read-back, then the probe
// CSV once, for the gaps and the audit together, then the stalls.
func Analyze(t results.Trial, opt Options) (*Trial, error) {
	return AnalyzeContext(context.Background(), t, opt)
}

// AnalyzeContext is Analyze, stopping with ctx's error once ctx is done.
func AnalyzeContext(ctx context.Context, t results.Trial, opt Options) (*Trial, error) {
	p, err := analyzeProbe(ctx, t, opt)
	if err != nil {
		return nil, err
	}
	cs, err := clientsOf(ctx, t, p)
	if err != nil {
		return nil, err
	}
	ld, lnotes, err := loadOf(ctx, t, p.ev.F, p.gaps) // load.go
	if err != nil {
		return nil, err
	}
	p.notes = concat(p.notes, lnotes)
	v := verdictOf(p.ev.meta, p.gaps, p.ev.F, p.notes, cs.notes)
	confirmReplicationCut(v, p.ev, faultOf(p.ev.meta)) // replication.go
	fs := findingsOf(p.ev.meta, p.integrity, p.group, cs.results)
	fs = txnFindings(fs, p.ev.meta, p.txn) // txn.go
	// A power loss's audit beside the flush settings (powerloss.go).
	fs = powerLossFindings(fs, powerLossOf(p.ev.dir, p.ev.meta, p.ev.configs, p.integrity))
	tr := p.trial(v, cs, fs)
	tr.Load = ld
	if tr.Failback, err = failbackOf(ctx, t, p.ev.tl, p.ev.F); err != nil { // failback.go
		return nil, err
	}
	confirmFailback(tr.Verdict, tr.Failback)
	return tr, nil
}

// analyzeProbe is one probe's analysis, stage by stage: the franz-go
// probe's, or an external client's (its own probe CSV, read-back and
// client log, against the same node logs).
func analyzeProbe(ctx context.Context, t results.Trial, opt Options) (*probeAnalysis, error) {
	fault := faultOf(t.Meta)
	tl := timelineOf(ctx, t, opt.FaultAt)
	start := faultStartOf(fault, tl.tl, opt.FaultAt)
	ev := settingsOf(ctx, t, fault, tl.tl, start)
	if err := ctx.Err(); err != nil {
		return nil, err // the logs were cut short, not unreadable
	}
	q := quorumOf(ev, fault)
	win := windowOf(t.Meta, ev.F, consequence(ev, fault), q, opt.Window)
	audit, lnotes, err := readBackOf(ctx, t)
	if err != nil {
		return nil, err
	}
	rd, err := gapsOf(ctx, t, win, audit, opt.Messages)
	if err != nil {
		return nil, err
	}
	in, void := countableAudit(t.Meta, auditOf(rd.audit), rd.gaps, fault) // readbacktopic.go
	grp, gnotes, err := groupOf(ctx, t, win, rd.gaps)
	if err != nil {
		return nil, err
	}
	txv, tnotes, err := txnOf(ctx, t, win, rd.gaps) // txn.go
	if err != nil {
		return nil, err
	}
	rv, err := readReplicaView(ctx, t, ev.F, rd.gaps.Window)
	if err != nil {
		return nil, err
	}
	ev, ext := externalOf(ev, rv)
	// From here on the fault is the one the evidence names: an external
	// fault's broker, which the record on disk may leave unknown.
	named := faultOf(ev.meta)
	roles := rolesOf(ev, rd.gaps, named)
	ff := factsOf(ev, named, faultedNode(named, ext.broker))
	ph := phasesOf(ev, rd.gaps, roles, ff, q, rd.last, tl)
	ph = checksOf(ev, ph)
	gr := groupRecoveryOf(ev, ff, grp, ph.stalls)
	txr := txnRecoveryOf(ev, ff, txv)
	m := metricsOf(ev, named, roles, rd.gaps, ph.stalls, rd.steps, in, grp, gr, txr)
	txnMeasures(m, txv)
	return &probeAnalysis{ev: ev, gaps: rd.gaps, steps: rd.steps, integrity: in, replicas: rv,
		external: ext.broker, quorum: q.beside(rd.gaps), roles: roles, phases: ph, metrics: m, group: grp, txn: txv, recovery: gr, txnRecovery: txr, facts: ff,
		auditVoid: void.text,
		notes:     concat(tl.notes, lnotes, void.notes(), rd.notes, gnotes, tnotes, ext.notes, ph.notes)}, nil
}

// probeAnalysis is what one probe's stages returned, before the verdict
// weighs it.
type probeAnalysis struct {
	ev        *evidence
	gaps      *gaps.Report
	steps     *StepView
	integrity *integrity.Report
	replicas  *ReplicaView
	external  *ExternalBroker
	quorum    *QuorumGap
	roles     map[int32]results.Role
	phases    phases
	metrics   *Metrics
	group     *GroupView
	txn       *TxnView
	recovery  *GroupRecovery
	// txnRecovery is the transaction coordinator's (txnphases.go).
	txnRecovery *TxnRecovery
	facts       *faultFacts
	// auditVoid is why the read-back was not audited (countableAudit).
	auditVoid string
	notes     notes
}

// trial is the Trial the analysis p, its verdict v, the clients cs beside
// it and its findings fs make.
func (p *probeAnalysis) trial(v *verdict.Verdict, cs clientAnalyses, fs Findings) *Trial {
	return &Trial{
		Dir:         p.ev.dir,
		Meta:        p.ev.meta,
		FaultAt:     p.ev.F,
		Gaps:        p.gaps,
		Timeline:    p.ev.tl,
		Integrity:   p.integrity,
		AuditVoid:   p.auditVoid,
		Stalls:      p.phases.stalls,
		Quorum:      p.quorum,
		Steps:       p.steps,
		Replicas:    p.replicas,
		Boundaries:  p.phases.boundaries,
		Notes:       concat(p.notes, cs.notes).texts(),
		Verdict:     v,
		Clients:     cs.results,
		ClientDiffs: cs.diffs,
		External:    p.external,
		Coordinator: coordinatorOf(faultOf(p.ev.meta), p.external),
		Hiccup:      HiccupOf(p.ev.meta, p.ev.tl), // hiccup.go
		Findings:    fs,
		Metrics:     p.metrics,
		Group:       p.group,
		Txn:         p.txn,
		Recovery:    p.recovery,
		TxnRecovery: p.txnRecovery,
		Detection:   p.facts.detectionEvent(),
		roles:       p.roles,
	}
}

// faultOf is the fault the metadata m records; nil for none.
func faultOf(m *results.Meta) *results.Fault {
	if m == nil {
		return nil
	}
	return m.Fault
}

// verdictOf judges whether the trial of metadata m can be trusted, from
// its gaps g and its fault at F, and makes it suspect for every note that
// found its evidence damaged; nil without metadata.
func verdictOf(m *results.Meta, g *gaps.Report, F time.Time, said ...notes) *verdict.Verdict {
	if m == nil {
		return nil
	}
	v := verdict.Judge(m, g, F)
	for _, n := range concat(said...) {
		switch {
		case n.replaced:
			v.Add(verdict.Invalid, verdict.TopicReplaced, n.text)
		case n.damaged:
			v.Add(verdict.Suspect, verdict.EvidenceDamaged, n.text)
		}
	}
	return &v
}

// A note says what could not be analysed and why. A damaged one says that
// evidence the analysis reads is missing, damaged or misdated: it makes
// the verdict suspect too; a replaced one, that the probe's topic was
// gone or made anew under the trial (countableAudit): invalid.
type note struct {
	text     string
	damaged  bool
	replaced bool
}

// notes are a stage's notes, in the order it found them.
type notes []note

func concat(nss ...notes) notes {
	var out notes
	for _, ns := range nss {
		out = append(out, ns...)
	}
	return out
}

// texts are the notes' texts; nil for none.
func (ns notes) texts() []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.text)
	}
	return out
}
