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

// GroupRecovery is how the probe's consumer group recovered from the
// fault, phase by phase, each phase ending at its evidence: a line of a
// broker's server.log or of client.log, cited as file:line, or an event of
// group-events.csv. When the group's coordinator was not on the faulted
// broker, it has no phases and Note gives the group's stall its own cause.
type GroupRecovery struct {
	Group string
	// OffsetsPartition is the group's __consumer_offsets partition,
	// abs(hash(group id)) % offsets.topic.num.partitions, the setting
	// Partitions is (its value and where it was read); -1 unknown.
	OffsetsPartition int32
	Partitions       Setting
	// Coordinator is the coordinator before the fault, NewCoordinator
	// the broker that loaded the group after it; -1 unknown.
	Coordinator, NewCoordinator int32
	// Faulted is whether the coordinator was the faulted broker.
	Faulted bool
	// Loaded and LoadTook are what the new coordinator's load line says
	// it loaded and how long the load took, by its own count.
	Loaded   int64
	LoadTook time.Duration
	Phases   Phases
	// Note says why there are no phases, or what is missing.
	Note string
	// Cause is, for a coordinator the fault did not hit, the line that
	// shows its __consumer_offsets partition's ISR without the faulted
	// broker: until then a commit, written with acks=all, waited for it.
	// Zero for none.
	Cause Explanation
}

// Total is the phases' time, fault to the last phase's end.
func (r *GroupRecovery) Total() time.Duration {
	if r == nil {
		return 0
	}
	return r.Phases.Total()
}

// Phase returns the phase named name; false without one.
func (r *GroupRecovery) Phase(name string) (Phase, bool) {
	if r == nil {
		return Phase{}, false
	}
	return r.Phases.Named(name)
}

// The group recovery's phase names.
const (
	GroupPhaseDetect    = "detect"
	GroupPhaseElect     = "offsets leader"
	GroupPhaseLoad      = "load"
	GroupPhaseFind      = "find"
	GroupPhaseCommit    = "first commit"
	GroupPhaseRebalance = "rebalance"
	GroupPhaseProcess   = "first record"
)

// offsetsTopic is Kafka's topic of the groups' offsets and metadata.
const offsetsTopic = "__consumer_offsets"

// javaStringHash is Java's String.hashCode of s: h = 31*h + c over its
// UTF-16 code units, in 32-bit arithmetic.
func javaStringHash(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			h = 31*h + int32(0xD800+(r>>10))
			h = 31*h + int32(0xDC00+(r&0x3FF))
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// groupOffsetsPartition is the __consumer_offsets partition of group id
// among n, as Kafka's group coordinator places it: Utils.abs(id.hashCode())
// % n, where Utils.abs of the smallest int is 0.
func groupOffsetsPartition(id string, n int32) int32 {
	h := javaStringHash(id)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % n
}

// The group coordinator's lines in a broker's server.log (Kafka 4.x,
// CoordinatorRuntime), as the real trials logged them:
//
//	[2026-12-05 06:04:47,063] INFO [GroupCoordinator id=1] Scheduling loading of metadata from __consumer_offsets-45 with epoch 1 (...)
//	[2026-12-05 06:04:47,209] INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-45 with epoch 1 in 143ms where 32ms was spent in the scheduler. Loaded 1782 records which total to 291985 bytes. (...)
var (
	serverLogTime = regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})\]`)
	loadScheduled = regexp.MustCompile(`\[GroupCoordinator id=(\d+)\] Scheduling loading of metadata from (\S+)-(\d+) with epoch (\d+)`)
	loadFinished  = regexp.MustCompile(`\[GroupCoordinator id=(\d+)\] Finished loading of metadata from (\S+)-(\d+) with epoch (\d+) in (\d+)ms.*?Loaded (\d+) records`)
	// franz-go's client.log: the group client's lines.
	clientLogTime = regexp.MustCompile(`^(\S+Z) \S+ (\S+) `) // a client.log line's time and client
	clientFindRe  = regexp.MustCompile(` read FindCoordinator v\d+ broker=(\S+) .*err=<nil>`)
	clientGroupRq = regexp.MustCompile(` wrote (OffsetCommit|Heartbeat|JoinGroup|SyncGroup|ConsumerGroupHeartbeat|OffsetFetch) v\d+ broker=(\d+) `)
)

// coordLoad is one "Finished loading" line of a broker, with the
// "Scheduling loading" line of the same partition and epoch before it.
type coordLoad struct {
	node             int32
	epoch            int64
	scheduled, done  time.Time
	schedSrc, doneSr string
	schedText, text  string
	took             time.Duration
	records          int64
}

// readLoads reads the load lines of __consumer_offsets partition p from
// the server.log of every node under dir's logs, after F, in time order.
func readLoads(ctx context.Context, dir string, p int32, F time.Time) []coordLoad {
	ents, _ := os.ReadDir(filepath.Join(dir, results.NodeLogsDir))
	var out []coordLoad
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		rel := e.Name() + "/" + results.ServerLog
		out = append(out, scanLoads(ctx, filepath.Join(dir, results.NodeLogsDir, rel), rel, p, F)...)
	}
	slices.SortFunc(out, func(a, b coordLoad) int { return a.done.Compare(b.done) })
	return out
}

// scanLoads reads the loads of partition p after F in the server.log at
// path, cited as rel.
func scanLoads(ctx context.Context, path, rel string, p int32, F time.Time) []coordLoad {
	f, err := results.Open(ctx, path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sched := map[int64]coordLoad{}
	var out []coordLoad
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.Contains(line, "[GroupCoordinator id=") {
			continue
		}
		t, ok := serverTime(line)
		if !ok || t.Before(F) {
			continue
		}
		src := rel + ":" + strconv.Itoa(n)
		if m := loadScheduled.FindStringSubmatch(line); m != nil && m[2] == offsetsTopic && m[3] == strconv.Itoa(int(p)) {
			epoch, _ := strconv.ParseInt(m[4], 10, 64)
			sched[epoch] = coordLoad{scheduled: t, schedSrc: src, schedText: message(line)}
			continue
		}
		m := loadFinished.FindStringSubmatch(line)
		if m == nil || m[2] != offsetsTopic || m[3] != strconv.Itoa(int(p)) {
			continue
		}
		node, _ := strconv.ParseInt(m[1], 10, 32)
		epoch, _ := strconv.ParseInt(m[4], 10, 64)
		took, _ := strconv.ParseInt(m[5], 10, 64)
		recs, _ := strconv.ParseInt(m[6], 10, 64)
		l := sched[epoch]
		l.node, l.epoch, l.done, l.doneSr, l.text = int32(node), epoch, t, src, message(line)
		l.took, l.records = time.Duration(took)*time.Millisecond, recs
		out = append(out, l)
	}
	return out
}

// serverTime is a server.log line's time, which the brokers write in UTC.
func serverTime(line string) (time.Time, bool) {
	m := serverLogTime.FindStringSubmatch(line)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse("2006-01-02 15:04:05,000", m[1])
	return t.UTC(), err == nil
}

// message is a log line without its time and level, and without the
// logger's class at its end.
func message(line string) string {
	if i := strings.Index(line, "] "); i >= 0 {
		line = line[i+2:]
	}
	for _, lvl := range []string{"INFO ", "WARN ", "ERROR ", "DEBUG "} {
		line = strings.TrimPrefix(line, lvl)
	}
	if i := strings.LastIndex(line, " (org.apache"); i > 0 {
		line = line[:i]
	}
	return strings.TrimSpace(line)
}

// clientFind is a client's FindCoordinator answer that led it to broker
// node: the last one read before its first coordinator request written to
// node after from, and that request.
type clientFind struct {
	find, req       time.Time
	findSrc, reqSrc string
	findBy          string
	request         string
}

// readFind reads client.log in dir for client finding node after from: a
// coordinator request is a line of that client that request matches, its
// first group the request's name and its second the broker it went to.
func readFind(ctx context.Context, dir string, client results.Client, request *regexp.Regexp, node int32, from time.Time) (clientFind, bool) {
	f, err := results.Open(ctx, filepath.Join(dir, results.ClientLog))
	if err != nil {
		return clientFind{}, false
	}
	defer f.Close()
	var c clientFind
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	want := strconv.Itoa(int(node))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		tm := clientLogTime.FindStringSubmatch(line)
		if tm == nil || tm[2] != string(client) {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, tm[1])
		if err != nil || t.Before(from) {
			continue
		}
		if m := clientFindRe.FindStringSubmatch(line); m != nil {
			c.find, c.findSrc, c.findBy = t, results.ClientLog+":"+strconv.Itoa(n), m[1]
			continue
		}
		if m := request.FindStringSubmatch(line); m != nil && m[2] == want && !c.find.IsZero() {
			c.req, c.reqSrc, c.request = t, results.ClientLog+":"+strconv.Itoa(n), m[1]
			return c, true
		}
	}
	return clientFind{}, false
}

// groupRecoveryOf is the group recovery stage: from the evidence ev, the
// named fault f, the group's coordinator c as kbf found it before the
// fault, the group reader's view v (its events) and the partitions'
// stalls, the group's recovery phase by phase; nil for a trial with no
// group or no fault.
func groupRecoveryOf(ctx context.Context, ev *evidence, f *results.Fault, c *GroupCoordinator, v *GroupView, stalls []Stall) *GroupRecovery {
	if f == nil || c == nil || v == nil || ev.F.IsZero() || ev.meta == nil {
		return nil
	}
	r := &GroupRecovery{Group: c.Group, Coordinator: c.NodeID, NewCoordinator: -1, Faulted: c.Faulted, OffsetsPartition: -1}
	if ev.tl == nil {
		r.Note = "no timeline of the node logs: the group's recovery is not split into phases"
		return r
	}
	x := newExplainer(ev, f)
	cfg, cfgErr := x.brokerConfig(f.Broker)
	r.Partitions = nodeSetting(cfg, cfgErr, f.Broker, "offsets.topic.num.partitions")
	n, err := strconv.ParseInt(r.Partitions.Value, 10, 32)
	if err == nil && n > 0 {
		r.OffsetsPartition = groupOffsetsPartition(c.Group, int32(n))
	}
	if !c.Faulted {
		r.Note = notCoordinator(c, stalls)
		if r.OffsetsPartition >= 0 && c.Broker != "" {
			r.Cause = offsetsISRShrunk(ctx, ev.dir, c.Broker, r.OffsetsPartition, f.NodeID, ev.F)
			if r.Cause.Source != "" {
				r.Cause.Settings = []Setting{x.sessionTimeout()}
			}
		}
		return r
	}
	if r.OffsetsPartition < 0 {
		r.Note = "the group's " + offsetsTopic + " partition is unknown: offsets.topic.num.partitions could not be read (" + r.Partitions.Where + ")"
		return r
	}
	g := &groupPhasing{ctx: ctx, x: x, ev: ev, f: f, r: r, v: v, prev: ev.F}
	g.detect()
	g.loadPhases()
	g.find()
	g.commit()
	g.rebalance()
	return r
}

// notCoordinator says that the group's coordinator survived the fault and
// where the group's stall came from instead: the partitions' leaders.
func notCoordinator(c *GroupCoordinator, stalls []Stall) string {
	if c.NodeID < 0 {
		return "the group's coordinator was not found before the fault, so its recovery is not split into phases"
	}
	s := fmt.Sprintf("the group's coordinator, broker %d, was not the faulted broker: the group needed no new coordinator, and its processing stall is the partitions' own", c.NodeID)
	var worst *Stall
	for i := range stalls {
		st := &stalls[i]
		if st.Role == results.RoleLed && (worst == nil || st.Total > worst.Total) {
			worst = st
		}
	}
	if worst != nil {
		s += fmt.Sprintf(": p%d's leader was the faulted broker (its ack stall %s, in phases above)", worst.Partition, secs(worst.Total))
	}
	return s
}

// groupPhasing is a group recovery while its phases are found: each
// phase starts where the one before it ended (prev).
type groupPhasing struct {
	ctx    context.Context
	x      *explainer
	ev     *evidence
	f      *results.Fault
	r      *GroupRecovery
	v      *GroupView
	prev   time.Time
	loaded *coordLoad
}

func (g *groupPhasing) add(name string, end time.Time, e Explanation) {
	if end.Before(g.prev) {
		end = g.prev
	}
	g.r.Phases = append(g.r.Phases, Phase{Name: name, Start: g.prev, End: end, Duration: end.Sub(g.prev), Explanation: e})
	g.prev = end
}

// missing says, once, what the phases lack.
func (g *groupPhasing) missing(what string) {
	if g.r.Note == "" {
		g.r.Note = what
	}
}

func (g *groupPhasing) detect() {
	e, ok := detection(g.ev.tl, g.f, g.ev.F)
	if !ok {
		g.missing("no fence of broker " + strconv.Itoa(int(g.f.NodeID)) + " in the logs: the detection is in the offsets leader's phase")
		return
	}
	ph := Phase{End: e.Time}
	g.x.detect(&ph, e.Kind)
	g.add(GroupPhaseDetect, e.Time, Explanation{Evidence: e.Text, Source: e.Source, Why: "the group's coordinator moves only when its " + offsetsTopic + " partition's leader does, after the controller fences the broker: " + ph.Why,
		Setting: ph.Setting, Settings: ph.Settings})
}

func (g *groupPhasing) loadPhases() {
	p := g.r.OffsetsPartition
	for _, l := range readLoads(g.ctx, g.ev.dir, p, g.ev.F) {
		if l.node == g.f.NodeID {
			continue // the faulted broker, back, loading it again
		}
		g.loaded = &l
		break
	}
	l := g.loaded
	if l == nil {
		g.missing(fmt.Sprintf("no broker logged loading %s-%d after the fault: the new coordinator's load is not found", offsetsTopic, p))
		return
	}
	g.r.NewCoordinator, g.r.Loaded, g.r.LoadTook = l.node, l.records, l.took
	if !l.scheduled.IsZero() {
		rf := nodeSetting(g.cfg(l.node), nil, "", "offsets.topic.replication.factor")
		g.add(GroupPhaseElect, l.scheduled, Explanation{Evidence: l.schedText, Source: l.schedSrc,
			Why:      fmt.Sprintf("broker %d became the leader of %s-%d, the group's partition (abs(hash(%q)) %% %s), and with it the group's coordinator: it scheduled the load at epoch %d", l.node, offsetsTopic, p, g.r.Group, g.r.Partitions.Value, l.epoch),
			Setting:  "the controller's election; the offsets topic's replicas (offsets.topic.replication.factor) are the brokers it can move to",
			Settings: []Setting{rf}})
	}
	buf := nodeSetting(g.cfg(l.node), nil, "", "offsets.load.buffer.size")
	seg := nodeSetting(g.cfg(l.node), nil, "", "offsets.topic.segment.bytes")
	g.add(GroupPhaseLoad, l.done, Explanation{Evidence: l.text, Source: l.doneSr,
		Why:      fmt.Sprintf("the new coordinator reads the whole partition before it answers the group: %d records in %s by its own count; until then it answers COORDINATOR_LOAD_IN_PROGRESS", l.records, l.took),
		Setting:  "a smaller " + offsetsTopic + " partition: offsets.topic.segment.bytes (compaction), offsets.load.buffer.size",
		Settings: []Setting{seg, buf}})
}

// cfg is broker node's logged configuration, nil when unread.
func (g *groupPhasing) cfg(node int32) *timeline.NodeConfig {
	for name, id := range g.ev.meta.Cluster.Brokers {
		if id == node {
			c, _ := g.x.brokerConfig(name)
			return c
		}
	}
	return nil
}

func (g *groupPhasing) find() {
	if g.r.NewCoordinator < 0 {
		return
	}
	c, ok := readFind(g.ctx, g.ev.dir, results.ClientGroup, clientGroupRq, g.r.NewCoordinator, g.ev.F)
	if !ok {
		g.missing(fmt.Sprintf("no FindCoordinator answer in %s before a group request to broker %d", results.ClientLog, g.r.NewCoordinator))
		return
	}
	rb := g.x.clientSetting("retry_backoff")
	rbm := g.x.clientSetting("retry_backoff_max")
	g.add(GroupPhaseFind, c.find, Explanation{Evidence: fmt.Sprintf("FindCoordinator answered by broker %s; the next group request, %s, went to broker %d (%s)", c.findBy, c.request, g.r.NewCoordinator, c.reqSrc),
		Source:   c.findSrc,
		Why:      findWhy(g.r.NewCoordinator, c.find.Sub(g.loaded.done)),
		Setting:  "the client's retry backoff (retry_backoff, retry_backoff_max)",
		Settings: []Setting{rb, rbm}})
}

func (g *groupPhasing) commit() {
	ev, ok := firstCommit(g.v.okCommits, g.prev)
	if !ok {
		g.missing("no successful commit after the fault in " + results.GroupEventsFile)
		return
	}
	why := "the commit the reader was blocked in since before the fault, retried against the new coordinator, answered once it had loaded the group"
	if ev.Start.IsZero() || ev.Start.After(g.ev.F) {
		why = "no commit was in flight at the fault (the reader had nothing new to commit while its records stalled); this is the first the reader issued after, once it processed records again, and the new coordinator answered it"
	}
	g.add(GroupPhaseCommit, ev.Time, Explanation{Evidence: fmt.Sprintf("commit of %d partition(s), started %s", len(ev.Offsets), clock(ev.Start)),
		Source:   results.GroupEventsFile,
		Why:      why,
		Setting:  "the client's request retries and backoff (retry_backoff)",
		Settings: []Setting{g.x.clientSetting("retry_backoff")}})
}

// findWhy explains the find phase: the answer naming broker node came
// after, from the load's end.
func findWhy(node int32, after time.Duration) string { return findWhyOf("group", node, after) }

// findWhyOf is findWhy for the client's requests of a kind: "group" or
// "transaction".
func findWhyOf(kind string, node int32, after time.Duration) string {
	asks := "the client asks FindCoordinator again only when a " + kind + " request to the old coordinator fails, between retries that back off up to retry_backoff_max; "
	if after < 0 {
		return asks + fmt.Sprintf("it was told of broker %d %s before its load had finished, so it waited on the load (COORDINATOR_LOAD_IN_PROGRESS) and this phase took none of the time", node, secs(-after))
	}
	return asks + fmt.Sprintf("the answer after which its %s requests went to broker %d came %s after the load finished", kind, node, secs(after))
}

// firstCommit is the first successful commit that ended after t.
func firstCommit(evs []results.GroupEvent, t time.Time) (results.GroupEvent, bool) {
	for _, e := range evs {
		if e.Kind == results.GroupCommit && !e.Failed() && !e.Time.Before(t) {
			return e, true
		}
	}
	return results.GroupEvent{}, false
}

// rebalance adds, where the group lost or gave up its partitions after
// the fault, the rebalance: → its partitions assigned again → the first
// record processed after that.
func (g *groupPhasing) rebalance() {
	var lost, assigned *results.GroupEvent
	for i := range g.v.Changes {
		e := &g.v.Changes[i]
		if e.Time.Before(g.ev.F) {
			continue
		}
		if lost == nil && (e.Kind == results.GroupLost || e.Kind == results.GroupRevoked) {
			lost = e
			continue
		}
		if lost != nil && e.Kind == results.GroupAssigned {
			assigned = e
			break
		}
	}
	if lost == nil || assigned == nil {
		return
	}
	session := g.sessionSetting()
	g.add(GroupPhaseRebalance, assigned.Time, Explanation{Evidence: fmt.Sprintf("%s at %s (generation %d), assigned %v at generation %d", lost.Kind, clock(lost.Time), lost.Generation, assigned.Partitions, assigned.Generation),
		Source:   results.GroupEventsFile,
		Why:      fmt.Sprintf("the member's partitions were %s while the coordinator was gone (its heartbeats failed), so it joined the group again at the new coordinator", lost.Kind),
		Setting:  "the group's session timeout and heartbeat interval (" + session.Name + "), rebalance.timeout.ms",
		Settings: []Setting{session}})
	if t, ok := g.v.FirstProcessed(assigned.Time); ok {
		g.add(GroupPhaseProcess, t, Explanation{Evidence: "first record processed after the assignment", Source: results.GroupFile,
			Why:     "after the assignment the reader fetches its committed offsets from the new coordinator and the records from the partitions' leaders",
			Setting: "the client's fetch settings (fetch_max_wait)", Settings: []Setting{g.x.clientSetting("fetch_max_wait")}})
	}
}

// sessionSetting is the group's session timeout: the broker's
// group.consumer.session.timeout.ms for the consumer protocol, the
// client's session timeout for the classic one.
func (g *groupPhasing) sessionSetting() Setting {
	if g.v.Settings.Protocol == results.GroupProtocolConsumer {
		return nodeSetting(g.cfg(g.r.NewCoordinator), nil, "", "group.consumer.session.timeout.ms")
	}
	s := g.x.clientSetting("session_timeout")
	if s.Source == SourceUnknown {
		s.Where = "not in " + results.MetaFile + "; franz-go's default is 45000 ms"
	}
	return s
}

// Line is the group's recovery in one line, for the digest: its phases
// and their times, or its note.
func (r *GroupRecovery) Line() string {
	if r == nil {
		return ""
	}
	if len(r.Phases) == 0 && !r.Faulted && r.Coordinator >= 0 {
		l := fmt.Sprintf("  group recovery: its coordinator, broker %d, was not faulted: the group waited on the partitions", r.Coordinator)
		if r.Cause.Source != "" {
			l += "; its commits on " + r.Cause.Evidence + " [" + r.Cause.Source + "]"
		}
		return l
	}
	if len(r.Phases) == 0 {
		return "  group recovery: " + r.Note
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  group recovery %.2f s", r.Total().Seconds())
	for i, ph := range r.Phases {
		sep := " + "
		if i == 0 {
			sep = " = "
		}
		fmt.Fprintf(&b, "%s%.2f %s", sep, ph.Duration.Seconds(), ph.Name)
	}
	if r.NewCoordinator >= 0 {
		fmt.Fprintf(&b, " (%s-%d, new coordinator %d)", offsetsTopic, r.OffsetsPartition, r.NewCoordinator)
	}
	return b.String()
}

// isrLine is the leader's state-change line that applies a partition's
// registration, with its ISR (Kafka 4.x):
//
//	[2026-12-05 06:04:47,000] INFO [Broker id=1] Skipped the become-leader state change for orders-0 with topic id Some(..), partition registration PartitionRegistration(replicas=[1, 2, 3], ..., isr=[1, 3], ...
var isrLine = regexp.MustCompile(`(?:Skipped the become-leader state change for|Leader) (\S+)-(\d+) with topic id .*?(?:isr=|ISR )\[([\d, ]*)\]`)

// offsetsISRShrunk finds, in broker node's state-change.log, the first
// line after F that applies __consumer_offsets-p's ISR without the
// faulted broker; zero when there is none.
func offsetsISRShrunk(ctx context.Context, dir, node string, p, faulted int32, F time.Time) Explanation {
	rel := node + "/" + results.StateChangeLog
	f, err := results.Open(ctx, filepath.Join(dir, results.NodeLogsDir, rel))
	if err != nil {
		return Explanation{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := isrLine.FindStringSubmatch(line)
		if m == nil || m[1] != offsetsTopic || m[2] != strconv.Itoa(int(p)) {
			continue
		}
		if t, ok := serverTime(line); !ok || t.Before(F) {
			continue
		}
		if slices.Contains(strings.Split(strings.ReplaceAll(m[3], " ", ""), ","), strconv.Itoa(int(faulted))) {
			continue
		}
		t, _ := serverTime(line)
		return Explanation{Evidence: fmt.Sprintf("%s-%d's ISR [%s] at %s", offsetsTopic, p, m[3], clock(t)), Source: rel + ":" + strconv.Itoa(n),
			Why:     fmt.Sprintf("the group's %s-%d kept broker %d in its ISR until its leader, the coordinator, applied one without it: a commit in flight, written with acks=all, waited that long", offsetsTopic, p, faulted),
			Setting: "broker.session.timeout.ms on the controller (the fence drops the broker from the ISR)"}
	}
	return Explanation{}
}
