package analysis

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// chain is a recovery's phases while they are found, in its recipe's
// order: each phase starts where the latest boundary so far was, and ends
// at the very time of the line it cites. Evidence that came out of the
// recipe's order is shown as it happened: a phase whose line came before
// the latest boundary is drawn at its line, taking none of the time
// (Phase.Overlap says how far it came before).
type chain struct {
	prev   time.Time
	phases Phases
	note   string
}

// start is where the phase ended by evidence dated at starts: the latest
// boundary so far, or, for evidence that came before it (out of the
// recipe's order), its own line.
func (c *chain) start(at time.Time) time.Time {
	if at.Before(c.prev) {
		return at
	}
	return c.prev
}

// add ends the phase named name at its evidence e, dated at, within the
// bound b its settings allow.
func (c *chain) add(name string, at time.Time, e Explanation, b Bound) {
	c.phase(Phase{Name: name, End: at, Explanation: e, Bound: b})
}

// phase adds ph, its name, end, explanation and bound found: it starts
// where start says, and an out-of-order one overlaps the latest boundary.
func (c *chain) phase(ph Phase) Phase {
	at := ph.End
	ph.Start = c.start(at)
	ph.Duration = at.Sub(ph.Start)
	ph.Overlap = c.prev.Sub(ph.Start)
	ph.Bound.measure(ph.Duration)
	c.phases = append(c.phases, ph)
	if at.After(c.prev) {
		c.prev = at
	}
	return ph
}

// missing says, once, what the phases lack.
func (c *chain) missing(what string) {
	if c.note == "" {
		c.note = what
	}
}

// CoordinatorRecovery is how a coordinator the probe's clients used — the
// consumer group's or the transactional id's — recovered from the fault,
// phase by phase, each phase ending at its evidence: a line of a broker's
// log or of client.log, cited as file:line, or an event of the probe's
// files. When the coordinator was not on the faulted broker it has no
// phases, and Note gives the stall its own cause.
type CoordinatorRecovery struct {
	// Key is the group id or the transactional id.
	Key string
	// Topic is the coordinator's internal topic, Partition the key's
	// partition of it, abs(hash(key)) % Partitions (the setting, its value
	// and where it was read); -1 unknown.
	Topic      string
	Partition  int32
	Partitions Setting
	// Coordinator is the coordinator before the fault, NewCoordinator the
	// broker that loaded the key's partition after it; -1 unknown.
	Coordinator, NewCoordinator int32
	// Faulted is whether the coordinator was the faulted broker.
	Faulted bool
	// Loaded and LoadTook are what the new coordinator's load line says it
	// loaded (records, transactional ids) and how long the load took, by
	// its own count.
	Loaded   int64
	LoadTook time.Duration
	Phases   Phases
	// Note says why there are no phases, or what is missing.
	Note string
	// Cause is, for a coordinator the fault did not hit, the line that
	// shows its partition's ISR without the faulted broker: until then a
	// write of it, with acks=all, waited for it. Zero for none.
	Cause Explanation
	label string
}

// GroupRecovery is the consumer group coordinator's recovery.
type GroupRecovery = CoordinatorRecovery

// TxnRecovery is the transaction coordinator's recovery.
type TxnRecovery = CoordinatorRecovery

// Total is the phases' time, fault to the last phase's end.
func (r *CoordinatorRecovery) Total() time.Duration {
	if r == nil {
		return 0
	}
	return r.Phases.Total()
}

// Phase returns the phase named name; false without one.
func (r *CoordinatorRecovery) Phase(name string) (Phase, bool) {
	if r == nil {
		return Phase{}, false
	}
	return r.Phases.Named(name)
}

// The coordinators' recovery phase names; the first is PhaseDetect.
const (
	GroupPhaseDetect    = PhaseDetect
	GroupPhaseElect     = "offsets leader"
	GroupPhaseLoad      = "load"
	GroupPhaseFind      = "find"
	GroupPhaseCommit    = "first commit"
	GroupPhaseRebalance = "rebalance"
	GroupPhaseProcess   = "first record"
	TxnPhaseLeader      = "state leader"
	TxnPhaseLoad        = GroupPhaseLoad
	TxnPhaseFind        = GroupPhaseFind
	TxnPhaseCommit      = GroupPhaseCommit
)

// The coordinators' internal topics.
const (
	offsetsTopic  = "__consumer_offsets"
	txnStateTopic = "__transaction_state"
)

// coordRecipe is what tells one coordinator's recovery from another's; the
// walk (coordWalk) is the same for all.
type coordRecipe struct {
	label  string // "group recovery"
	what   string // the key's name: "group", "transactional id"
	serves string // whom the coordinator answers: "the group", "the producer"
	topic  string
	// partitions, replication, loadSettings are the broker settings that
	// place the key's partition, say which brokers can take it over, and
	// size its load.
	partitions   string
	replication  []string
	loadSettings []string
	leader       string // the leader phase's name
	client       results.Client
	kind         string   // the client's requests' kind: "group", "transaction"
	requests     []string // the client's requests to the coordinator
	loaded       string   // what a load counts: "records"
}

// groupRecipe is the consumer group coordinator's recipe.
var groupRecipe = coordRecipe{label: "group recovery", what: "group", serves: "the group", topic: offsetsTopic,
	partitions: "offsets.topic.num.partitions", replication: []string{"offsets.topic.replication.factor"},
	loadSettings: []string{"offsets.topic.segment.bytes", "offsets.load.buffer.size"}, leader: GroupPhaseElect,
	client: results.ClientGroup, kind: "group", loaded: "records",
	requests: []string{"OffsetCommit", "Heartbeat", "JoinGroup", "SyncGroup", "ConsumerGroupHeartbeat", "OffsetFetch"}}

// txnRecipe is the transaction coordinator's recipe.
var txnRecipe = coordRecipe{label: "txn coordinator recovery", what: "transactional id", serves: "the producer", topic: txnStateTopic,
	partitions: "transaction.state.log.num.partitions", replication: []string{"transaction.state.log.replication.factor", "transaction.state.log.min.isr"},
	loadSettings: []string{"transaction.state.log.segment.bytes", "transaction.state.log.load.buffer.size"}, leader: TxnPhaseLeader,
	client: results.ClientProducer, kind: "transaction", loaded: "transactional id(s)",
	requests: []string{"EndTxn", "AddPartitionsToTxn", "InitProducerID", "AddOffsetsToTxn", "TxnOffsetCommit"}}

// coordinatorRecoveryOf is a coordinator's recovery stage: from the
// evidence ev, the fault's facts ff, the coordinator c as kbf found it
// before the fault and the recipe rc, its recovery phase by phase, first
// adding the phases after the client found the new coordinator (its first
// commit, a rebalance); nil for a trial with no such coordinator or no
// fault.
func coordinatorRecoveryOf(ev *evidence, ff *faultFacts, c *results.Coordinator, rc *coordRecipe, first func(w *coordWalk)) *CoordinatorRecovery {
	if ff == nil || c == nil || ev.F.IsZero() || ev.meta == nil {
		return nil
	}
	f := ff.f
	r := &CoordinatorRecovery{Key: c.Key, Topic: rc.topic, Coordinator: c.NodeID, NewCoordinator: -1, Partition: -1,
		Faulted: c.Found() && c.NodeID == ff.node, label: rc.label}
	if ev.tl == nil {
		r.Note = "no timeline of the node logs: the " + rc.label + " is not split into phases"
		return r
	}
	x := newExplainer(ev, f)
	cfg, cfgErr := x.brokerConfig(f.Broker)
	r.Partitions = nodeSetting(cfg, cfgErr, f.Broker, rc.partitions)
	if n, err := strconv.ParseInt(r.Partitions.Value, 10, 32); err == nil && n > 0 {
		r.Partition = keyPartition(c.Key, int32(n))
	}
	switch {
	case !c.Found():
		r.Note = fmt.Sprintf("the %s's coordinator was not found before the fault (%s), so its recovery is not split into phases", rc.what, c.Err)
		return r
	case !r.Faulted:
		r.Note = fmt.Sprintf("the %s's coordinator, broker %d, was not the faulted broker: it needed no new coordinator, and its stall is the partitions' own", rc.what, c.NodeID)
		r.Cause = isrWithout(ev.tl, c.Broker, rc.topic, r.Partition, f.NodeID, ev.F)
		if r.Cause.Source != "" {
			r.Cause.Settings = []Setting{x.sessionTimeout()}
		}
		return r
	case r.Partition < 0:
		r.Note = fmt.Sprintf("the %s's %s partition is unknown: %s could not be read (%s)", rc.what, rc.topic, rc.partitions, r.Partitions.Where)
		return r
	}
	w := &coordWalk{rc: rc, x: x, ev: ev, ff: ff, r: r, c: chain{prev: ev.F}}
	w.detect()
	w.load()
	w.find()
	first(w)
	r.Phases, r.Note = w.c.phases, w.c.note
	return r
}

// coordWalk is one coordinator's recovery while its phases are found.
type coordWalk struct {
	rc     *coordRecipe
	x      *explainer
	ev     *evidence
	ff     *faultFacts
	r      *CoordinatorRecovery
	c      chain
	loaded *timeline.Event
}

func (w *coordWalk) detect() {
	if !w.ff.detected {
		w.c.missing(fmt.Sprintf("no fence of broker %d in the logs: the detection is in the %s's phase", w.ff.f.NodeID, w.rc.leader))
		return
	}
	ph := w.ff.detectPhase(w.x)
	ph.Evidence = w.ff.detection.Text
	ph.Why = "the " + w.rc.kind + " coordinator moves only when its " + w.rc.topic + " partition's leader does, after the controller fences the broker: " + ph.Why
	w.c.phase(ph)
}

// load adds the new coordinator's leadership of the key's partition and
// its load of it: the first load after the fault by a broker other than
// the faulted one, the last leadership line of that broker before it.
func (w *coordWalk) load() {
	p := w.r.Partition
	tl, F := w.ev.tl, w.ev.F
	done, ok := firstInternal(tl, F, timeline.OfKind(timeline.KindCoordinatorLoaded), timeline.ForPartition(w.rc.topic, p),
		func(e *timeline.Event) bool { return e.Broker != w.ff.f.NodeID })
	if !ok {
		w.c.missing(fmt.Sprintf("no broker logged loading %s-%d after the fault: the new coordinator's load is not found", w.rc.topic, p))
		return
	}
	w.loaded = &done
	node := done.Broker
	on := func(kinds ...timeline.Kind) (timeline.Event, bool) {
		return lastInternal(tl, F, done.Time, timeline.OfKind(kinds...), timeline.ForPartition(w.rc.topic, p), timeline.ForBroker(node))
	}
	took := done
	if t, ok := on(timeline.KindCoordinatorLoadTook); ok {
		took = t
	}
	began, began0 := on(timeline.KindCoordinatorLoading, timeline.KindCoordinatorElected)
	if e, ok := firstInternal(tl, F, timeline.OfKind(timeline.KindCoordinatorElected, timeline.KindCoordinatorLoading),
		timeline.ForPartition(w.rc.topic, p), timeline.ForBroker(node)); ok && !e.Time.After(done.Time) {
		began, began0 = e, true
	}
	w.r.NewCoordinator, w.r.Loaded, w.r.LoadTook = node, int64(took.Count), took.Wait
	cfg := w.x.brokerConfigOf(node)
	leader, isLeader := on(timeline.KindLeaderStarted)
	if !isLeader && began0 {
		leader, isLeader = began, true
	}
	if isLeader {
		var rs []Setting
		for _, name := range w.rc.replication {
			rs = append(rs, nodeSetting(cfg, nil, "", name))
		}
		w.c.add(w.rc.leader, leader.Time, Explanation{Evidence: leader.Text, Source: leader.Source,
			Why: fmt.Sprintf("broker %d became the leader of %s-%d, the %s's partition (abs(hash(%q)) %% %s), and with it the %s coordinator",
				node, w.rc.topic, p, w.rc.what, w.r.Key, w.r.Partitions.Value, w.rc.kind),
			Setting:  "the controller's election; " + strings.Join(w.rc.replication, ", ") + " say which brokers it can move to",
			Settings: rs}, noBound("the election follows the fence at once; no setting bounds the controller's and the new leader's own time"))
	}
	var ls []Setting
	for _, name := range w.rc.loadSettings {
		ls = append(ls, nodeSetting(cfg, nil, "", name))
	}
	why := fmt.Sprintf("the new coordinator reads the partition before it answers %s: %d %s in %s by its own count", w.rc.serves, took.Count, w.rc.loaded, took.Wait)
	if took.Source != done.Source {
		why += " (" + took.Source + ")"
	}
	if began0 {
		why += fmt.Sprintf("; it began at %s (%s), at epoch %d", clock(began.Time), began.Source, began.Epoch)
		if isLeader && began.Time.After(leader.Time) {
			why += fmt.Sprintf(", %s after it became the leader, the broker applying first the leaderships the fence moved", secs(began.Time.Sub(leader.Time)))
		}
	}
	why += "; until then it answers NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS"
	w.c.add(GroupPhaseLoad, done.Time, Explanation{Evidence: done.Text, Source: done.Source, Why: why,
		Setting: "a smaller " + w.rc.topic + " partition: " + strings.Join(w.rc.loadSettings, ", "), Settings: ls},
		loadBound(began, began0, took))
}

// find adds the client's finding the new coordinator: the last
// FindCoordinator answer it read before its first request to it.
func (w *coordWalk) find() {
	if w.loaded == nil {
		return
	}
	node := w.r.NewCoordinator
	find, req, ok := clientFound(w.ev.tl, w.rc.client, w.rc.requests, node, w.ev.F)
	if !ok {
		w.c.missing(fmt.Sprintf("no FindCoordinator answer in %s before a %s request to broker %d", results.ClientLog, w.rc.kind, node))
		return
	}
	by := "a seed broker"
	if find.Broker >= 0 {
		by = "broker " + strconv.Itoa(int(find.Broker))
	}
	rb, rbm := w.x.clientSetting("retry_backoff"), w.x.clientSetting("retry_backoff_max")
	w.c.add(GroupPhaseFind, find.Time, Explanation{Evidence: fmt.Sprintf("FindCoordinator answered by %s; the next %s request, %s, went to broker %d (%s)", by, w.rc.kind, req.Request, node, req.Source),
		Source:   find.Source,
		Why:      findWhyOf(w.rc.kind, node, find.Time.Sub(w.loaded.Time)),
		Setting:  "the client's retry backoff (retry_backoff, retry_backoff_max)",
		Settings: []Setting{rb, rbm}}, discoveryBound(rbm))
}

// clientFound is client's last FindCoordinator answer (read, no error)
// before its first request of requests written to node after from, and
// that request.
func clientFound(tl *timeline.Timeline, client results.Client, requests []string, node int32, from time.Time) (find, req timeline.Event, ok bool) {
	var found bool
	for _, e := range tl.Client {
		if e.Node != string(client) || e.Time.Before(from) {
			continue
		}
		switch {
		case e.Kind == timeline.KindClientRead && e.Request == "FindCoordinator" && e.Err == "":
			find, found = e, true
		case found && e.Kind == timeline.KindClientWrote && e.Broker == node && slices.Contains(requests, e.Request):
			return find, e, true
		}
	}
	return timeline.Event{}, timeline.Event{}, false
}

// findWhyOf explains the find phase for the client's requests of a kind
// ("group", "transaction"): the answer naming broker node came after, from
// the load's end.
func findWhyOf(kind string, node int32, after time.Duration) string {
	asks := "the client asks FindCoordinator again only when a " + kind + " request to the old coordinator fails, between retries that back off up to retry_backoff_max; "
	if after < 0 {
		return asks + fmt.Sprintf("it was told of broker %d %s before its load had finished, so it waited on the load (COORDINATOR_LOAD_IN_PROGRESS): the answer overlaps the load and this phase took none of the time", node, secs(-after))
	}
	return asks + fmt.Sprintf("the answer after which its %s requests went to broker %d came %s after the load finished", kind, node, secs(after))
}

// firstInternal is the first event of the internal topics (Timeline.Internal)
// at or after t that every match accepts.
func firstInternal(tl *timeline.Timeline, t time.Time, match ...timeline.Match) (timeline.Event, bool) {
	for _, e := range tl.Internal {
		if !e.Time.Before(t) && all(&e, match) {
			return e, true
		}
	}
	return timeline.Event{}, false
}

// lastInternal is the last event of the internal topics in [from, to] that
// every match accepts.
func lastInternal(tl *timeline.Timeline, from, to time.Time, match ...timeline.Match) (timeline.Event, bool) {
	var last timeline.Event
	found := false
	for _, e := range tl.Internal {
		if e.Time.After(to) {
			break
		}
		if !e.Time.Before(from) && all(&e, match) {
			last, found = e, true
		}
	}
	return last, found
}

func all(e *timeline.Event, match []timeline.Match) bool {
	for _, m := range match {
		if !m(e) {
			return false
		}
	}
	return true
}

// isrWithout finds the first line after F on node (the coordinator, its
// leader) that applies topic-p's ISR without the faulted broker; zero when
// there is none.
func isrWithout(tl *timeline.Timeline, node, topic string, p, faulted int32, F time.Time) Explanation {
	if p < 0 || node == "" {
		return Explanation{}
	}
	e, ok := firstInternal(tl, F, timeline.OnNode(node), timeline.ForPartition(topic, p),
		func(e *timeline.Event) bool { return e.HasISR() && !e.InISR(faulted) })
	if !ok {
		return Explanation{}
	}
	isr := strings.Trim(strings.ReplaceAll(fmt.Sprint(e.ISR), " ", ", "), "[]")
	return Explanation{Evidence: fmt.Sprintf("%s-%d's ISR [%s] at %s", topic, p, isr, clock(e.Time)), Source: e.Source,
		Why:     fmt.Sprintf("%s-%d kept broker %d in its ISR until its leader, the coordinator, applied one without it: a write in flight, with acks=all, waited that long", topic, p, faulted),
		Setting: "broker.session.timeout.ms on the controller (the fence drops the broker from the ISR)"}
}

// Line is the coordinator's recovery in one line, for the digest: its
// phases and their times, or its note.
func (r *CoordinatorRecovery) Line() string {
	if r == nil {
		return ""
	}
	if len(r.Phases) == 0 && !r.Faulted && r.Coordinator >= 0 && r.Topic == offsetsTopic {
		l := fmt.Sprintf("  %s: its coordinator, broker %d, was not faulted: the group waited on the partitions", r.label, r.Coordinator)
		if r.Cause.Source != "" {
			l += "; its commits on " + r.Cause.Evidence + " [" + r.Cause.Source + "]"
		}
		return l
	}
	if len(r.Phases) == 0 {
		return "  " + r.label + ": " + r.Note
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %s %.2f s", r.label, r.Total().Seconds())
	for i, ph := range r.Phases {
		sep := " + "
		if i == 0 {
			sep = " = "
		}
		fmt.Fprintf(&b, "%s%.2f %s", sep, ph.Duration.Seconds(), ph.Name)
	}
	if r.NewCoordinator >= 0 {
		fmt.Fprintf(&b, " (%s-%d, new coordinator %d)", r.Topic, r.Partition, r.NewCoordinator)
	}
	return b.String()
}
