package report

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// TxnRecovery is how the probe's transactional id recovered from the
// fault of its coordinator, phase by phase, each phase ending at its
// evidence: a line of a broker's log or of client.log, cited as file:line,
// or a transaction of transactions.csv. When the coordinator was not on
// the faulted broker it has no phases, and Note says so.
type TxnRecovery struct {
	ID string
	// StatePartition is the transactional id's __transaction_state
	// partition, abs(hash(transactional id)) %
	// transaction.state.log.num.partitions, the setting Partitions is (its
	// value and where it was read); -1 unknown.
	StatePartition int32
	Partitions     Setting
	// Coordinator is the coordinator before the fault, NewCoordinator the
	// broker that loaded the transactional id after it; -1 unknown.
	Coordinator, NewCoordinator int32
	// Faulted is whether the coordinator was the faulted broker.
	Faulted bool
	// Loaded and LoadTook are what the new coordinator's "Finished
	// loading" line says it loaded (transactional ids) and how long the
	// load took, by its own count.
	Loaded   int64
	LoadTook time.Duration
	Phases   Phases
	// Note says why there are no phases, or what is missing.
	Note string
}

// The transaction coordinator's recovery phase names; its detection and
// first phase is PhaseDetect's, as the group's.
const (
	TxnPhaseLeader = "state leader"
	TxnPhaseLoad   = "load"
	TxnPhaseFind   = "find"
	TxnPhaseCommit = "first commit"
)

// txnStateTopic is Kafka's topic of the transactions' state.
const txnStateTopic = "__transaction_state"

// Total is the phases' time, fault to the last phase's end.
func (r *TxnRecovery) Total() time.Duration {
	if r == nil {
		return 0
	}
	return r.Phases.Total()
}

// Phase returns the phase named name; false without one.
func (r *TxnRecovery) Phase(name string) (Phase, bool) {
	if r == nil {
		return Phase{}, false
	}
	return r.Phases.Named(name)
}

// The transaction coordinator's lines (Kafka 4.3, TransactionCoordinator
// and TransactionStateManager in server.log; the partition's leadership in
// state-change.log), as the real trials logged them:
//
//	[2026-12-05 08:39:38,833] INFO [Broker id=2] Leader __transaction_state-30 with topic id Some(RpVe…) starts at leader epoch 4 from offset 89 with partition epoch 13, high watermark 89, ISR [2,3], … (state.change.logger)
//	[2026-12-05 08:39:39,201] INFO [TransactionCoordinator id=2] Elected as the txn coordinator for partition 30 at epoch 4 (…)
//	[2026-12-05 08:39:39,222] INFO [Transaction State Manager 2]: Loading transaction metadata from __transaction_state-30 at epoch 4 (…)
//	[2026-12-05 08:39:39,245] INFO [Transaction State Manager 2]: Finished loading 1 transaction metadata from __transaction_state-30 in 43 milliseconds, of which 21 milliseconds was spent in the scheduler. (…)
//	[2026-12-05 08:39:39,251] INFO [Transaction State Manager 2]: Completed loading transaction metadata from __transaction_state-30 for coordinator epoch 4 (…)
var (
	txnLeaderRe    = regexp.MustCompile(`\[Broker id=(\d+)\] Leader ` + txnStateTopic + `-(\d+) with topic id .*? starts at leader epoch (\d+)`)
	txnElectedRe   = regexp.MustCompile(`\[TransactionCoordinator id=(\d+)\] Elected as the txn coordinator for partition (\d+) at epoch (\d+)`)
	txnLoadingRe   = regexp.MustCompile(`\[Transaction State Manager (\d+)\]: Loading transaction metadata from ` + txnStateTopic + `-(\d+) at epoch (\d+)`)
	txnFinishedRe  = regexp.MustCompile(`\[Transaction State Manager (\d+)\]: Finished loading (\d+) transaction metadata from ` + txnStateTopic + `-(\d+) in (\d+) milliseconds`)
	txnCompletedRe = regexp.MustCompile(`\[Transaction State Manager (\d+)\]: Completed loading transaction metadata from ` + txnStateTopic + `-(\d+) for coordinator epoch (\d+)`)
	// franz-go's client.log: the transactional producer's lines.
	// loggerSuffix is a line's logger at its end: " (state.change.logger)".
	loggerSuffix = regexp.MustCompile(` \((?:kafka|state\.change|org\.apache)\.[\w.$]*\)$`)
	txnRequestRe = regexp.MustCompile(` wrote (EndTxn|AddPartitionsToTxn|InitProducerID|AddOffsetsToTxn|TxnOffsetCommit) v\d+ broker=(\d+) `)
)

// citedLine is one cited line of a node's log.
type citedLine struct {
	node int32
	at   time.Time
	src  string
	text string
}

// txnLoad is a new coordinator's taking over of a __transaction_state
// partition: its leadership, its election as the coordinator, and its
// load, each line as logged.
type txnLoad struct {
	leader, elected, loading, finished, completed citedLine
	epoch                                         int64
	loaded                                        int64
	took                                          time.Duration
}

// readTxnLoad finds, in the logs of the nodes under dir other than the
// faulted one, the first broker that completed loading
// __transaction_state-p after F, with the lines of its taking over.
func readTxnLoad(ctx context.Context, dir string, p, faulted int32, F time.Time) (txnLoad, bool) {
	ents, _ := os.ReadDir(filepath.Join(dir, results.NodeLogsDir))
	var best txnLoad
	found := false
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		l, ok := scanTxnLoad(ctx, dir, e.Name(), p, faulted, F)
		if ok && (!found || l.completed.at.Before(best.completed.at)) {
			best, found = l, true
		}
	}
	return best, found
}

// scanTxnLoad reads node's server.log and state-change.log for its first
// completed load of __transaction_state-p after F; not a load by the
// faulted broker, back from its fault.
func scanTxnLoad(ctx context.Context, dir, node string, p, faulted int32, F time.Time) (txnLoad, bool) {
	var l txnLoad
	part := strconv.Itoa(int(p))
	done := false
	scanLog(ctx, dir, node+"/"+results.ServerLog, F, func(ll citedLine, line string) bool {
		if m := txnElectedRe.FindStringSubmatch(line); m != nil && m[2] == part {
			ll.node = atoi32(m[1])
			l.elected = ll
			return true
		}
		if m := txnLoadingRe.FindStringSubmatch(line); m != nil && m[2] == part {
			ll.node = atoi32(m[1])
			l.loading = ll
			return true
		}
		if m := txnFinishedRe.FindStringSubmatch(line); m != nil && m[3] == part {
			ll.node = atoi32(m[1])
			l.finished = ll
			l.loaded, _ = strconv.ParseInt(m[2], 10, 64)
			ms, _ := strconv.ParseInt(m[4], 10, 64)
			l.took = time.Duration(ms) * time.Millisecond
			return true
		}
		if m := txnCompletedRe.FindStringSubmatch(line); m != nil && m[2] == part {
			ll.node = atoi32(m[1])
			if ll.node == faulted {
				l = txnLoad{}
				return true
			}
			l.completed = ll
			l.epoch, _ = strconv.ParseInt(m[3], 10, 64)
			done = true
			return false
		}
		return true
	})
	if !done {
		return txnLoad{}, false
	}
	scanLog(ctx, dir, node+"/"+results.StateChangeLog, F, func(ll citedLine, line string) bool {
		if ll.at.After(l.completed.at) {
			return false
		}
		m := txnLeaderRe.FindStringSubmatch(line)
		if m == nil || m[2] != part {
			return true
		}
		ll.node = atoi32(m[1])
		l.leader = ll // the last before the load: the leadership it loaded for
		return true
	})
	return l, true
}

// scanLog calls fn with each line of the node log rel (under dir's logs)
// dated at F or after, until fn returns false.
func scanLog(ctx context.Context, dir, rel string, F time.Time, fn func(citedLine, string) bool) {
	f, err := results.Open(ctx, filepath.Join(dir, results.NodeLogsDir, rel))
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		t, ok := serverTime(line)
		if !ok || t.Before(F) {
			continue
		}
		text := loggerSuffix.ReplaceAllString(message(line), "")
		if !fn(citedLine{at: t, src: rel + ":" + strconv.Itoa(n), text: text}, line) {
			return
		}
	}
}

func atoi32(s string) int32 {
	n, _ := strconv.ParseInt(s, 10, 32)
	return int32(n)
}

// txnRecoveryOf is the transaction coordinator's recovery stage: from the
// evidence ev, the named fault f, the faulted node (the fault's, or an
// external fault's as the analysis named it) and the transactional probe's
// view v, its recovery phase by phase; nil for a trial with no
// transactional probe, no fault or no coordinator recorded.
func txnRecoveryOf(ctx context.Context, ev *evidence, f *results.Fault, faulted int32, v *TxnView) *TxnRecovery {
	if f == nil || f.TxnCoordinator == nil || v == nil || ev.F.IsZero() || ev.meta == nil {
		return nil
	}
	c := f.TxnCoordinator
	r := &TxnRecovery{ID: c.Key, Coordinator: c.NodeID, NewCoordinator: -1, StatePartition: -1,
		Faulted: c.Found() && c.NodeID == faulted}
	if ev.tl == nil {
		r.Note = "no timeline of the node logs: the transaction coordinator's recovery is not split into phases"
		return r
	}
	x := newExplainer(ev, f)
	cfg, cfgErr := x.brokerConfig(f.Broker)
	r.Partitions = nodeSetting(cfg, cfgErr, f.Broker, "transaction.state.log.num.partitions")
	if n, err := strconv.ParseInt(r.Partitions.Value, 10, 32); err == nil && n > 0 {
		r.StatePartition = groupOffsetsPartition(c.Key, int32(n)) // the same placement as a group's
	}
	switch {
	case !c.Found():
		r.Note = "the transactional id's coordinator was not found before the fault (" + c.Err + "), so its recovery is not split into phases"
		return r
	case !r.Faulted:
		r.Note = fmt.Sprintf("the transactional id's coordinator, broker %d, was not the faulted broker: the transactions needed no new coordinator, and their commit stall is the partitions' own", c.NodeID)
		return r
	case r.StatePartition < 0:
		r.Note = "the transactional id's " + txnStateTopic + " partition is unknown: transaction.state.log.num.partitions could not be read (" + r.Partitions.Where + ")"
		return r
	}
	t := &txnPhasing{ctx: ctx, x: x, ev: ev, f: f, r: r, v: v, prev: ev.F}
	t.detect()
	t.load()
	t.find()
	t.commit()
	return r
}

// txnPhasing is a transaction coordinator's recovery while its phases are
// found: each phase starts where the one before it ended (prev).
type txnPhasing struct {
	ctx    context.Context
	x      *explainer
	ev     *evidence
	f      *results.Fault
	r      *TxnRecovery
	v      *TxnView
	prev   time.Time
	loaded *txnLoad
}

func (t *txnPhasing) add(name string, end time.Time, e Explanation) {
	if end.Before(t.prev) {
		end = t.prev
	}
	t.r.Phases = append(t.r.Phases, Phase{Name: name, Start: t.prev, End: end, Duration: end.Sub(t.prev), Explanation: e})
	t.prev = end
}

// missing says, once, what the phases lack.
func (t *txnPhasing) missing(what string) {
	if t.r.Note == "" {
		t.r.Note = what
	}
}

func (t *txnPhasing) detect() {
	e, ok := detection(t.ev.tl, t.f, t.ev.F)
	if !ok {
		t.missing("no fence of broker " + strconv.Itoa(int(t.f.NodeID)) + " in the logs: the detection is in the state leader's phase")
		return
	}
	ph := Phase{End: e.Time}
	t.x.detect(&ph, e.Kind)
	t.add(PhaseDetect, e.Time, Explanation{Evidence: e.Text, Source: e.Source,
		Why:     "the transaction coordinator moves only when its " + txnStateTopic + " partition's leader does, after the controller fences the broker: " + ph.Why,
		Setting: ph.Setting, Settings: ph.Settings})
}

// cfg is broker node's logged configuration, nil when unread.
func (t *txnPhasing) cfg(node int32) *timeline.NodeConfig {
	for name, id := range t.ev.meta.Cluster.Brokers {
		if id == node {
			c, _ := t.x.brokerConfig(name)
			return c
		}
	}
	return nil
}

func (t *txnPhasing) load() {
	p := t.r.StatePartition
	l, ok := readTxnLoad(t.ctx, t.ev.dir, p, t.f.NodeID, t.ev.F)
	if !ok {
		t.missing(fmt.Sprintf("no broker logged completing the load of %s-%d after the fault: the new coordinator is not found", txnStateTopic, p))
		return
	}
	t.loaded = &l
	node := l.completed.node
	t.r.NewCoordinator, t.r.Loaded, t.r.LoadTook = node, l.loaded, l.took
	cfg := t.cfg(node)
	if l.leader.src != "" {
		t.add(TxnPhaseLeader, l.leader.at, Explanation{Evidence: l.leader.text, Source: l.leader.src,
			Why: fmt.Sprintf("broker %d became the leader of %s-%d, the transactional id's partition (abs(hash(%q)) %% %s), and with it the transaction coordinator",
				node, txnStateTopic, p, t.r.ID, t.r.Partitions.Value),
			Setting:  "the controller's election; " + txnStateTopic + "'s replicas (transaction.state.log.replication.factor) are the brokers it can move to, and transaction.state.log.min.isr the ISR it needs to write",
			Settings: []Setting{nodeSetting(cfg, nil, "", "transaction.state.log.replication.factor"), nodeSetting(cfg, nil, "", "transaction.state.log.min.isr")}})
	}
	why := fmt.Sprintf("the new coordinator reads the partition before it answers the producer: %d transactional id(s) in %s by its own count", l.loaded, l.took)
	if l.elected.src != "" {
		why += fmt.Sprintf("; it was elected the partition's coordinator at %s (%s)", clock(l.elected.at), l.elected.src)
		if l.leader.src != "" {
			why += fmt.Sprintf(", %s after it became the leader, the broker applying first the leaderships the fence moved", secs(l.elected.at.Sub(l.leader.at)))
		}
		why += fmt.Sprintf(", and loaded at epoch %d", l.epoch)
	}
	if l.finished.src != "" {
		why += " (" + l.finished.src + ")"
	}
	why += "; until it is elected it answers the producer NOT_COORDINATOR, and while it loads COORDINATOR_LOAD_IN_PROGRESS"
	t.add(TxnPhaseLoad, l.completed.at, Explanation{Evidence: l.completed.text, Source: l.completed.src, Why: why,
		Setting:  "a smaller " + txnStateTopic + " partition: transaction.state.log.segment.bytes (compaction), transaction.state.log.load.buffer.size",
		Settings: []Setting{nodeSetting(cfg, nil, "", "transaction.state.log.segment.bytes"), nodeSetting(cfg, nil, "", "transaction.state.log.load.buffer.size")}})
}

func (t *txnPhasing) find() {
	if t.loaded == nil {
		return
	}
	c, ok := readFind(t.ctx, t.ev.dir, results.ClientProducer, txnRequestRe, t.r.NewCoordinator, t.ev.F)
	if !ok {
		t.missing(fmt.Sprintf("no FindCoordinator answer in %s before a transaction request to broker %d", results.ClientLog, t.r.NewCoordinator))
		return
	}
	t.add(TxnPhaseFind, c.find, Explanation{Evidence: fmt.Sprintf("FindCoordinator answered by broker %s; the next transaction request, %s, went to broker %d (%s)", c.findBy, c.request, t.r.NewCoordinator, c.reqSrc),
		Source:   c.findSrc,
		Why:      findWhyOf("transaction", t.r.NewCoordinator, c.find.Sub(t.loaded.completed.at)),
		Setting:  "the client's retry backoff (retry_backoff, retry_backoff_max)",
		Settings: []Setting{t.x.clientSetting("retry_backoff"), t.x.clientSetting("retry_backoff_max")}})
}

func (t *txnPhasing) commit() {
	ev, ok := firstCommitted(t.v.events, t.prev)
	if !ok {
		t.missing("no transaction committed after the fault in " + results.TxnFile)
		return
	}
	why := fmt.Sprintf("transaction %d, whose commit the producer asked for before the fault, committed once its EndTxn, retried, reached the new coordinator", ev.Txn)
	if ev.CommitStart.IsZero() || ev.CommitStart.After(t.ev.F) {
		why = fmt.Sprintf("transaction %d, whose commit the producer asked for after the fault, was the first to commit once its requests reached the new coordinator", ev.Txn)
	}
	to := t.x.clientSetting("transaction_timeout")
	t.add(TxnPhaseCommit, ev.End, Explanation{Evidence: fmt.Sprintf("transaction %d committed (%d records, commit asked at %s)", ev.Txn, ev.Count(), clock(ev.CommitStart)),
		Source:   results.TxnFile,
		Why:      why + "; a transaction left open instead holds the read_committed readers until the coordinator aborts it after transaction.timeout.ms",
		Setting:  "the client's retry backoff (retry_backoff); transaction.timeout.ms (the producer's transaction_timeout) bounds an abandoned transaction's hold on the last stable offset",
		Settings: []Setting{t.x.clientSetting("retry_backoff"), to}})
}

// firstCommitted is the first transaction of evs that committed at or
// after at.
func firstCommitted(evs []results.TxnEvent, at time.Time) (results.TxnEvent, bool) {
	i := slices.IndexFunc(evs, func(e results.TxnEvent) bool { return e.Outcome == results.TxnCommitted && !e.End.Before(at) })
	if i < 0 {
		return results.TxnEvent{}, false
	}
	return evs[i], true
}

// Line is the transaction coordinator's recovery in one line, for the
// digest: its phases and their times, or its note.
func (r *TxnRecovery) Line() string {
	if r == nil {
		return ""
	}
	if len(r.Phases) == 0 {
		return "  txn coordinator recovery: " + r.Note
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  txn coordinator recovery %.2f s", r.Total().Seconds())
	for i, ph := range r.Phases {
		sep := " + "
		if i == 0 {
			sep = " = "
		}
		fmt.Fprintf(&b, "%s%.2f %s", sep, ph.Duration.Seconds(), ph.Name)
	}
	if r.NewCoordinator >= 0 {
		fmt.Fprintf(&b, " (%s-%d, new coordinator %d)", txnStateTopic, r.StatePartition, r.NewCoordinator)
	}
	return b.String()
}
