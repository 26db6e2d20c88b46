package analysis

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// explainer says why each phase of a stall lasted as long as it did, from
// the nodes' logged configuration and the clients' own facts in the
// timeline.
type explainer struct {
	ev *evidence
	f  *results.Fault
	// ctl is the controller's configuration as it logged it; ctlErr says
	// why it could not be read, when it could not.
	ctl    *timeline.NodeConfig
	ctlErr error
	cfg    map[string]string // the probe's client configuration
	// clientDamaged says why the probe's client.log was not read (it is
	// not text); "" when it was. Nothing is then explained from the
	// client's facts: their absence is no evidence.
	clientDamaged string
	// tookOver is the line of the controller that took the quorum over
	// from the faulted node, and quorum the quorum's leaderless gap, when
	// the faulted node led it (broker and controller both); nil else.
	tookOver *timeline.Event
	quorum   *QuorumGap
}

type nodeConfig struct {
	cfg *timeline.NodeConfig
	err error
}

// nodeConfigs are the configurations the nodes logged at their start,
// read once per trial and up front (readConfigs), so that no explanation
// reads a file in the middle of the analysis.
type nodeConfigs struct {
	// dirs are the node directories under logs/, in name order.
	dirs []string
	// logged is each node's ReadNodeConfig, for every node under logs/
	// and every broker meta.json names.
	logged map[string]nodeConfig
}

// evidence is what the stalls are explained from, read once and then
// only read: the trial's directory and metadata (an external fault's
// broker named, after externalOf), its timeline, its fault's time and
// record (faultStart) and the nodes' logged configurations.
type evidence struct {
	dir  string
	meta *results.Meta
	tl   *timeline.Timeline
	F    time.Time
	// record is the fault's own record at F (faultStart); zero without
	// a fault.
	record  LogLine
	configs *nodeConfigs
}

// settingsOf is the evidence of trial t: its timeline tl, its fault f
// beginning at start, and, for a fault the timeline can explain, the
// configuration of every node, read up front so that no explanation reads
// a file.
func settingsOf(ctx context.Context, t results.Trial, f *results.Fault, tl *timeline.Timeline, start faultStart) *evidence {
	ev := &evidence{dir: t.Dir, meta: t.Meta, tl: tl, F: start.F, record: start.record}
	if f != nil && tl != nil {
		ev.configs = readConfigs(ctx, t.Dir, t.Meta)
	}
	return ev
}

// readConfigs reads the configuration of every node of the trial in dir,
// of metadata m, stopping once ctx is done.
func readConfigs(ctx context.Context, dir string, m *results.Meta) *nodeConfigs {
	c := &nodeConfigs{logged: map[string]nodeConfig{}}
	ents, _ := os.ReadDir(filepath.Join(dir, results.NodeLogsDir))
	for _, e := range ents {
		if e.IsDir() {
			c.dirs = append(c.dirs, e.Name())
		}
	}
	names := slices.Clone(c.dirs)
	if m != nil {
		names = append(names, slices.Sorted(maps.Keys(m.Cluster.Brokers))...)
	}
	for _, n := range names {
		if _, ok := c.logged[n]; !ok {
			cfg, err := timeline.ReadNodeConfigContext(ctx, dir, n)
			c.logged[n] = nodeConfig{cfg, err}
		}
	}
	return c
}

// node returns the configuration node logged, as ReadNodeConfig would.
func (c *nodeConfigs) node(dir, node string) (*timeline.NodeConfig, error) {
	if nc, ok := c.logged[node]; ok {
		return nc.cfg, nc.err
	}
	// A node neither under logs/ nor in meta.json has no log to read:
	// ReadNodeConfig says so in its own words without finding one.
	return timeline.ReadNodeConfig(dir, node)
}

// values returns node's logged values by name, as
// timeline.NodeConfigValues would; nil when they could not be read.
func (c *nodeConfigs) values(dir, node string) map[string]string {
	cfg, err := c.node(dir, node)
	if err != nil {
		return nil
	}
	m := make(map[string]string, len(cfg.Values))
	for k, v := range cfg.Values {
		m[k] = v.Value
	}
	return m
}

// brokerConfig returns the configuration broker node logged, or else the
// one read back from it into meta.json.
func (x *explainer) brokerConfig(node string) (*timeline.NodeConfig, error) {
	cfg, err := x.ev.configs.node(x.ev.dir, node)
	if err != nil {
		if rb, ok := timeline.ReadBackConfig(x.ev.meta, node); ok {
			cfg, err = rb, nil
		}
	}
	return cfg, err
}

func newExplainer(ev *evidence, f *results.Fault) *explainer {
	if ev.configs == nil {
		// Evidence made by hand, not by settingsOf.
		withConfigs := *ev
		withConfigs.configs = readConfigs(context.Background(), ev.dir, ev.meta)
		ev = &withConfigs
	}
	x := &explainer{ev: ev, f: f, cfg: ev.meta.Probe.Client}
	for _, d := range ev.tl.Damaged {
		if strings.HasPrefix(d, results.ClientLog+":") {
			x.clientDamaged = d
		}
	}
	nodes := controllers(ev)
	x.ctlErr = fmt.Errorf("no controller's logs under %s/", results.NodeLogsDir)
	for _, node := range nodes {
		c, err := ev.configs.node(ev.dir, node)
		if err == nil {
			x.ctl, x.ctlErr = c, nil
			break
		}
		x.ctlErr = err
	}
	if x.ctl == nil {
		for _, node := range nodes {
			if c, ok := timeline.ReadBackConfig(ev.meta, node); ok {
				x.ctl, x.ctlErr = c, nil
				break
			}
		}
	}
	return x
}

// controllers names the nodes whose logs hold a controller's settings: the
// nodes that are not brokers, then the brokers that logged a
// process.roles with controller in it (a node that is both), the faulted
// one last, as a survivor is the one that fenced it.
func controllers(ev *evidence) []string {
	var out, combined []string
	faulted := false
	for _, name := range ev.configs.dirs {
		if _, broker := ev.meta.Cluster.Brokers[name]; !broker && name != ev.meta.Fault.Broker {
			out = append(out, name)
			continue
		}
		roles := ev.configs.values(ev.dir, name)["process.roles"]
		if !strings.Contains(roles, "controller") {
			continue
		}
		if name == ev.meta.Fault.Broker {
			faulted = true
			continue
		}
		combined = append(combined, name)
	}
	out = append(out, combined...)
	if faulted {
		out = append(out, ev.meta.Fault.Broker)
	}
	return out
}

// kafkaDefaults are Kafka 4.3's defaults of the node settings the
// explanations name, for a node whose start properties do not set one.
var kafkaDefaults = map[string]string{
	"broker.session.timeout.ms":                 "9000",
	"broker.heartbeat.interval.ms":              "2000",
	"controller.quorum.fetch.timeout.ms":        "2000",
	"controller.quorum.election.timeout.ms":     "1000",
	"controller.quorum.election.backoff.max.ms": "1000",
	"replica.fetch.backoff.ms":                  "1000",
	"replica.lag.time.max.ms":                   "30000",
	// The flush settings a power loss is judged by (powerloss.go).
	"log.flush.interval.messages": "9223372036854775807",
	"log.flush.interval.ms":       "null",
}

// nodeSetting is a node's setting as it logged it, or as the properties it
// was started with leave it (Kafka's default), or unknown, saying why.
func nodeSetting(cfg *timeline.NodeConfig, cfgErr error, node, name string) Setting {
	s := Setting{Name: name, Node: node, Source: SourceUnknown}
	if cfg != nil {
		s.Node = cfg.Node
		if v, where, ok := cfg.Lookup(name); ok {
			s.Value, s.Source, s.Where = v, SourceNodeConfig, where
			return s
		}
		if d, ok := kafkaDefaults[name]; ok && cfg.StartFile {
			s.Value, s.Source, s.Where = d, SourceDefault, "Kafka's default: "+cfg.File+" does not set it"
			return s
		}
		s.Where = "not in " + cfg.File + "'s logged configuration"
		return s
	}
	if cfgErr != nil {
		s.Where = cfgErr.Error()
	}
	return s
}

// clientSetting is one of the probe client's settings, as meta.json
// records it.
func (x *explainer) clientSetting(name string) Setting {
	if v, ok := x.cfg[name]; ok && v != "" {
		return Setting{Name: name, Value: v, Source: SourceClientConfig, Where: results.MetaFile}
	}
	return Setting{Name: name, Source: SourceUnknown, Where: "not in " + results.MetaFile}
}

// clientValue is a client setting's value for a sentence: "unknown" when
// meta.json does not have it.
func (x *explainer) clientValue(name string) string {
	if s := x.clientSetting(name); s.Source != SourceUnknown {
		return s.Value
	}
	return "unknown"
}

// ms reads a millisecond setting.
func ms(s Setting) (time.Duration, bool) {
	if s.Source == SourceUnknown {
		return 0, false
	}
	v, err := strconv.ParseInt(s.Value, 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(v) * time.Millisecond, true
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

// says writes a millisecond setting for a sentence: its value, or that it
// is unknown and why, with Kafka's default named as such.
func says(s Setting, def time.Duration) string {
	if d, ok := ms(s); ok {
		if s.Source == SourceDefault {
			return fmt.Sprintf("%s = %d ms, Kafka's default", s.Name, d.Milliseconds())
		}
		return fmt.Sprintf("%s = %d ms", s.Name, d.Milliseconds())
	}
	return fmt.Sprintf("%s unknown: %s; Kafka's default is %d ms", s.Name, s.Where, def.Milliseconds())
}

// sessionTimeout is the controller's broker.session.timeout.ms: the
// detection's explanation and the metrics (Metrics.SessionTimeout) read it
// here alike.
func (x *explainer) sessionTimeout() Setting {
	return nodeSetting(x.ctl, x.ctlErr, "", sessionTimeoutSetting)
}

// detect explains fault → the controller acting on the broker, as the line
// of kind k showed it.
func (x *explainer) detect(ph *Phase, k timeline.Kind) {
	if x.f.Graceful() {
		ph.Why = fmt.Sprintf("on SIGTERM broker %d asks the controller for a controlled shutdown with its next heartbeat; the controller granted it %s after the signal and moved its leaderships first",
			x.f.NodeID, secs(ph.End.Sub(x.f.SignalSent)))
		ph.Setting = "none: controlled.shutdown.enable (on by default) is what makes this short"
		return
	}
	sessionS := x.sessionTimeout()
	hbS := nodeSetting(x.ctl, x.ctlErr, "", "broker.heartbeat.interval.ms")
	ph.Setting = "broker.session.timeout.ms on the controller (and broker.heartbeat.interval.ms on the brokers)"
	ph.Settings = []Setting{sessionS, hbS}
	if t := x.tookOver; t != nil {
		// The new leader knows no heartbeat of the faulted broker's: it
		// counts every broker's session from its own start as leader.
		ph.Why = fmt.Sprintf("%s, the controller that took the quorum over at %s, starts every broker's session afresh when it takes over, and broker %d never heartbeat to it: it fenced it %s after taking over (%s)",
			t.Node, clock(t.Time), x.f.NodeID, secs(ph.End.Sub(t.Time)), says(sessionS, 9*time.Second))
		return
	}
	ended := faultEnded(x.f.Kind)
	if k == timeline.KindNewIncarnation {
		// The controller refuses a new incarnation while the previous
		// one's session is valid: the session's expiry bounds this too.
		ph.Why = fmt.Sprintf("broker %d, restarted under the same id, registered again %s after %s: the controller refuses a new incarnation until the previous one's session has expired (%s after its last heartbeat), and this registration came before its periodic check had fenced the previous one, so the registration itself removed it from the partitions",
			x.f.NodeID, secs(ph.End.Sub(x.ev.F)), ended, says(sessionS, 9*time.Second))
		return
	}
	session, ok := ms(sessionS)
	if !ok {
		ph.Why = fmt.Sprintf("the controller fences a broker broker.session.timeout.ms after its last heartbeat; here it fenced broker %d %s after %s (%s)",
			x.f.NodeID, secs(ph.End.Sub(x.ev.F)), ended, says(sessionS, 9*time.Second))
		return
	}
	last := ph.End.Add(-session)
	before := x.ev.F.Sub(last)
	hbText := "at its heartbeat interval (broker.heartbeat.interval.ms, unknown)"
	if hb, ok := ms(hbS); ok {
		hbText = "every " + secs(hb)
	}
	ph.Why = fmt.Sprintf("the controller fences a broker %s after its last heartbeat (%s); broker %d heartbeats %s, so its last one came about %s before %s",
		secs(session), says(sessionS, 0), x.f.NodeID, hbText, secs(before), ended)
	if before < 0 {
		ph.Why = fmt.Sprintf("the controller fenced broker %d %s after %s, more than %s: the session runs from the last heartbeat the controller handled, which can be one still in flight at the fault, and expiry is noticed by a periodic check",
			x.f.NodeID, secs(ph.End.Sub(x.ev.F)), ended, says(sessionS, 0))
	}
	if x.f.Kind == results.FaultDiskFull || x.f.Kind == results.FaultDiskError {
		ph.Why += x.diskStory()
	}
}

// quorumPhase explains the quorum's leaderless gap, when the faulted node
// led it: no controller could fence the broker until another took over.
func (x *explainer) quorumPhase(ph *Phase) {
	ph.Why = fmt.Sprintf("node %d, the faulted broker's, also led the controller quorum, so no controller could fence the broker until another took the quorum over", x.f.NodeID)
	if q := x.quorum; q != nil && q.Why != "" {
		ph.Why += ": " + q.Why
		ph.Setting, ph.Settings = q.Setting, q.Settings
	}
}

// diskStory tells, for a disk-full or disk-error fault, what the broker
// did with its full or failing disk, from its own log: the failed write,
// the directory taken offline, the halt (LogManager's, or the fault
// handler's when the metadata log's write failed), and that nothing of it
// reached the controller.
func (x *explainer) diskStory() string {
	at := x.ev.F
	disk := diskEvent(x.f.Kind)
	var parts []string
	for _, step := range []struct {
		kind  timeline.Kind
		what  string
		cited bool // the log line is quoted
	}{
		{timeline.KindLogDirWriteFailed, "its next write failed %s after " + disk, true},
		{timeline.KindLogDirOffline, "it took the directory's replicas offline %s after", false},
		{timeline.KindLogDirsFailed, "with no log directory left it halted %s after", true},
		{timeline.KindFatalFault, "it halted on a fatal fault %s after", true},
	} {
		e, ok := x.ev.tl.First(at.Add(-time.Millisecond), timeline.OfKind(step.kind), timeline.OnNode(x.f.Broker))
		if !ok {
			continue
		}
		part := fmt.Sprintf(step.what, secs(e.Time.Sub(at)))
		if step.cited {
			part += fmt.Sprintf(" (%s [%s])", e.Summary(), e.Source)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return ""
	}
	s := "; " + strings.Join(parts, ", ")
	if !x.f.Finished.IsZero() {
		s += fmt.Sprintf(", and its process ended %s after "+disk+" (exit %d): a halt skips the controlled shutdown, so only the session's expiry told the controller", secs(x.f.Finished.Sub(at)), x.f.ExitCode)
	}
	return s
}

// elect explains the controller's change reaching the partition's leader.
func (x *explainer) elect(st *Stall, ph *Phase, prev time.Time) {
	if st.Role == results.RoleLed {
		ph.Why = fmt.Sprintf("the controller chose broker %d from the ISR; the change reached it through the metadata log and it started leading %s later",
			st.NewLeader, secs(ph.End.Sub(prev)))
		return
	}
	ph.Why = fmt.Sprintf("acks=all waits for every replica in the ISR, and broker %d stayed in it until the controller removed it; the leader applied the smaller ISR %s later, and the high watermark moved again",
		x.f.NodeID, secs(ph.End.Sub(prev)))
	if !x.f.Graceful() {
		ph.Setting = "the detection's: the ISR keeps a dead follower until the controller fences it"
	}
}

// returned explains fault → the faulted broker, restarted, following the
// partition again: it had stayed in the ISR, so acks=all waited for it, and
// it came back before the controller fenced it. later are the fault's
// other consequences for the partition, all after the return.
func (x *explainer) returned(ph *Phase, later []bound) {
	b := x.f.NodeID
	ph.Why = fmt.Sprintf("acks=all waits for every replica in the ISR, and broker %d stayed in it: it came back before the controller fenced it, and its follower of the partition started again %s after %s",
		b, secs(ph.End.Sub(x.ev.F)), faultEnded(x.f.Kind))
	var then []string
	for _, bd := range later {
		then = append(then, fmt.Sprintf("%s at %s [%s]", bd.kind, clock(bd.e.Time), bd.e.Source))
	}
	if len(then) > 0 {
		ph.Why += "; the fault's other consequences came after: " + strings.Join(then, ", ")
	}
	ph.Setting = "broker.session.timeout.ms on the controller: a session shorter than the broker's absence fences it, and the ISR shrinks, before it returns"
	ph.Settings = []Setting{x.sessionTimeout()}
}

// facts returns the producer's own facts in [from, to] that every match
// accepts.
func (x *explainer) facts(from, to time.Time, match ...timeline.Match) []timeline.Event {
	return x.ev.tl.ClientFacts(results.ClientProducer, from, to, match...)
}

func timedOut(e *timeline.Event) bool { return strings.Contains(e.Err, "timeout") }

// unexplained fills a phase that the client's facts would explain, when
// its client.log could not be read, and reports whether it did.
func (x *explainer) unexplained(ph *Phase) bool {
	if x.clientDamaged == "" {
		return false
	}
	ph.Why = fmt.Sprintf("not explained: %s, so what the producer waited for is unknown", x.clientDamaged)
	return true
}

// client explains the producer learning the new leader.
func (x *explainer) client(st *Stall, ph *Phase, prev time.Time) {
	if x.unexplained(ph) {
		return
	}
	topic := x.ev.meta.Probe.Topic
	var stale, retries int
	var lastStale time.Time
	var backoff time.Duration
	for _, e := range x.facts(prev, ph.End, timeline.OfKind(timeline.KindClientRetry), timeline.ForRequest("Metadata")) {
		retries++
		backoff += e.Wait
	}
	for _, e := range x.facts(prev, ph.End, timeline.OfKind(timeline.KindClientMetadataSame), timeline.ForPartition(topic, st.Partition)) {
		if e.Leader != st.NewLeader {
			stale++
			lastStale = e.Time
		}
	}
	redirect, kip951 := x.ev.tl.First(prev, timeline.OfKind(timeline.KindClientRedirect),
		timeline.OnNode(string(results.ClientProducer)), timeline.ForPartition(topic, st.Partition))
	kip951 = kip951 && !redirect.Time.After(ph.End)
	age := x.clientValue("metadata_min_age")
	switch {
	case kip951:
		ph.Why = "the producer learnt the new leader from a broker's NOT_LEADER_OR_FOLLOWER answer naming it (KIP-951), without waiting for a metadata refresh"
	case stale > 0:
		ph.Why = fmt.Sprintf("the producer refreshes metadata at most every %s; %d refresh(es) after the new leader started still named the old one (the last at %s, answered by a broker that had not yet applied the change)",
			age, stale, lastStale.UTC().Format("15:04:05.000"))
		ph.Setting = "metadata_min_age (librdkafka: topic.metadata.refresh.fast.interval.ms)"
		ph.Settings = []Setting{x.clientSetting("metadata_min_age")}
	default:
		ph.Why = fmt.Sprintf("the producer's next metadata refresh (at most every %s) named the new leader", age)
		ph.Setting = "metadata_min_age"
		ph.Settings = []Setting{x.clientSetting("metadata_min_age")}
	}
	if retries > 0 {
		ph.Why += fmt.Sprintf("; %d metadata request(s) went to an unreachable broker and were retried after %s of backoff", retries, backoff.Round(time.Millisecond))
		ph.Setting = strings.TrimPrefix(ph.Setting+"; retry_backoff", "; ")
		ph.Settings = append(ph.Settings, x.clientSetting("retry_backoff"))
	}
	if held, ok := x.heldProduce(st.Leader, prev, ph.End); ok && x.f.Kind == results.FaultIsolateController {
		ph.Why = fmt.Sprintf("broker %d, cut from the controller only, led on until it was fenced; then its followers left it for the new leader, so its high watermark stopped and it held the producer's acks=all request %s, until the request's timeout, before answering that it timed out (%s); only then did the producer refresh metadata and find the new leader",
			st.Leader, secs(held.Wait), held.Source)
		ph.Setting = fmt.Sprintf("produce_request_timeout (now %s)", x.clientValue("produce_request_timeout"))
		ph.Settings = []Setting{x.clientSetting("produce_request_timeout")}
	}
	if hung, ok := x.hungProduce(st.Leader, prev, ph.End); ok {
		ph.Why = fmt.Sprintf("the producer had a produce request in flight to broker %d, which neither answered nor closed the connection; it gave up only after %s (%s), then refreshed metadata and found the new leader",
			st.Leader, secs(hung.Wait), hung.Err)
		ph.Setting = fmt.Sprintf("produce_request_timeout + request_timeout_overhead (now %s + %s)",
			x.clientValue("produce_request_timeout"), x.clientValue("request_timeout_overhead"))
		ph.Settings = []Setting{x.clientSetting("produce_request_timeout"), x.clientSetting("request_timeout_overhead")}
	}
}

// stuck explains a producer that never learnt a new leader that the logs
// show was elected: its requests to the faulted broker b hung.
func (x *explainer) stuck(b int32, from, to time.Time) (string, []Setting) {
	hung := len(x.facts(from, to, timeline.OfKind(timeline.KindClientRead), timeline.ForBroker(b), timedOut))
	metadata := len(x.facts(from, to, timeline.OfKind(timeline.KindClientWrote), timeline.ForBroker(b), timeline.ForRequest("Metadata")))
	if hung == 0 && metadata == 0 {
		return "the producer had not learnt the new leader when the probe stopped", nil
	}
	return fmt.Sprintf("the producer had not learnt the new leader when the probe stopped: %d of its requests to broker %d timed out, and it sent %d metadata request(s) to that same broker, which never answered (shorten: request_timeout_overhead, now %s)",
		hung, b, metadata, x.clientValue("request_timeout_overhead")), []Setting{x.clientSetting("request_timeout_overhead")}
}

// hungProduce returns the producer's read of a produce response from broker
// b that ended in a timeout within [from, to]: a request stuck on a broker
// that stopped answering without closing its connections.
func (x *explainer) hungProduce(b int32, from, to time.Time) (timeline.Event, bool) {
	hung := x.facts(from, to, timeline.OfKind(timeline.KindClientRead), timeline.ForRequest("Produce"), timeline.ForBroker(b), timedOut)
	if len(hung) == 0 {
		return timeline.Event{}, false
	}
	return hung[0], true
}

// heldProduce returns the producer's longest read of a produce response
// from broker b within [from, to], when that broker held the request most
// of its produce_request_timeout: a leader that could not advance its high
// watermark (its followers gone) answers only when the request times out.
func (x *explainer) heldProduce(b int32, from, to time.Time) (timeline.Event, bool) {
	timeout, err := time.ParseDuration(x.clientValue("produce_request_timeout"))
	if err != nil || timeout <= 0 {
		return timeline.Event{}, false
	}
	var best timeline.Event
	for _, e := range x.facts(from, to, timeline.OfKind(timeline.KindClientRead), timeline.ForRequest("Produce"), timeline.ForBroker(b)) {
		if e.Wait > best.Wait {
			best = e
		}
	}
	return best, best.Wait >= timeout*9/10
}

// faultEnded names the fault's start for a sentence about broker b's
// heartbeats: a broker that did not end is said to be cut or frozen.
func faultEnded(k results.FaultKind) string {
	switch {
	case k.Freezes():
		return "the freeze"
	case k.Network():
		return "the cut"
	case k == results.FaultDiskFull, k == results.FaultDiskError:
		return diskEvent(k)
	case k == results.FaultCPUStarve:
		return "the starvation"
	case k == results.FaultPacketLoss:
		return "the packet loss"
	}
	return "the process ended"
}

// diskEvent names a disk fault's moment for a sentence: "the disk filled"
// or "the disk failed".
func diskEvent(k results.FaultKind) string {
	if k == results.FaultDiskError {
		return "the disk failed"
	}
	return "the disk filled"
}

// firstAck explains the last boundary → the first ack.
func (x *explainer) firstAck(st *Stall, ph *Phase, prev time.Time) {
	if x.unexplained(ph) {
		return
	}
	leader := st.NewLeader
	if st.Role != results.RoleLed {
		leader = x.ev.meta.Probe.Leaders[st.Partition]
	}
	var wrote, read *timeline.Event
	if w := x.facts(prev, ph.End, timeline.OfKind(timeline.KindClientWrote), timeline.ForRequest("Produce"), timeline.ForBroker(leader)); len(w) > 0 {
		wrote = &w[0]
	}
	if r := x.facts(prev, ph.End, timeline.OfKind(timeline.KindClientRead), timeline.ForRequest("Produce"), timeline.ForBroker(leader)); len(r) > 0 {
		read = &r[len(r)-1]
	}
	d := ph.End.Sub(prev)
	// The broker held the request when its answer took most of the phase.
	var held time.Duration
	if read != nil {
		held = read.Wait
	}
	brokerSide := held > d/2
	if (st.Role != results.RoleLed || brokerSide) && x.fetchBackoff(leader, ph, d) {
		return
	}
	if st.Role != results.RoleLed {
		ph.Why = fmt.Sprintf("the leader answered the produce requests it was holding once the high watermark moved, %s later", secs(d))
		if n := len(st.Phases); n > 0 && st.Phases[n-1].Name == PhaseReturn {
			ph.Why = fmt.Sprintf("the leader answered the produce requests it was holding once broker %d had fetched their records and the high watermark moved, %s later", x.f.NodeID, secs(d))
		}
		return
	}
	if d < 50*time.Millisecond {
		ph.Why = fmt.Sprintf("the producer sent the waiting records to broker %d at once and the ack came %s later", leader, secs(d))
		return
	}
	var parts []string
	if wrote != nil {
		parts = append(parts, fmt.Sprintf("the producer's first request to broker %d left %s after it learnt the leader", leader, secs(wrote.Time.Sub(prev))))
	}
	if held > 0 {
		parts = append(parts, fmt.Sprintf("broker %d held the produce request %s before answering: with acks=all it answers once every replica in the ISR has fetched the records; the brokers' logs at INFO do not say what held the followers", leader, secs(held)))
	}
	if !brokerSide {
		ph.Setting = "retry_backoff / retry_backoff_max"
		ph.Settings = []Setting{x.clientSetting("retry_backoff"), x.clientSetting("retry_backoff_max")}
		parts = append(parts, fmt.Sprintf("the rest is the producer's retry backoff (%s to %s)", x.clientValue("retry_backoff"), x.clientValue("retry_backoff_max")))
	}
	ph.Why = strings.Join(parts, "; ")
}

// fetchBackoff explains a wait of about one to three times
// replica.fetch.backoff.ms: with
// acks=all the leader answers once its followers have fetched the records,
// and a follower whose fetch failed — as when it asks the new leader before
// that leader has applied its own election — waits that long before it
// fetches again. Setting it to 100 ms cut this phase of a SIGTERM trial from
// about 1 s to about 0.1 s.
func (x *explainer) fetchBackoff(leader int32, ph *Phase, d time.Duration) bool {
	var cfg *timeline.NodeConfig
	cfgErr := fmt.Errorf("no node is broker %d in %s", leader, results.MetaFile)
	node := ""
	for name, id := range x.ev.meta.Cluster.Brokers {
		if id == leader {
			node = name
			cfg, cfgErr = x.brokerConfig(name)
		}
	}
	s := nodeSetting(cfg, cfgErr, node, "replica.fetch.backoff.ms")
	backoff, known := ms(s)
	if !known {
		// Weighed against Kafka's default, and said so: the value itself
		// is unknown.
		backoff = time.Second
	}
	n := (d + backoff/2) / backoff // the nearest whole number of backoffs
	if n < 1 || n > 3 || (d-n*backoff).Abs() > backoff*3/10 {
		return false
	}
	times := ""
	if n > 1 {
		times = fmt.Sprintf("%d × ", n)
	}
	ph.Why = fmt.Sprintf("about %s%s: with acks=all leader %d answers once the followers in the ISR have fetched the records, and a follower whose fetch failed while leadership moved (asking the new leader before it had applied its election) waits that long before fetching again",
		times, says(s, time.Second), leader)
	ph.Setting = "replica.fetch.backoff.ms on the brokers"
	ph.Settings = []Setting{s}
	return true
}

// receive explains a receive gap much longer than the ack gap: the
// consumer learnt the new leader later than the producer.
func (x *explainer) receive(st *Stall, ackGap, recvGap time.Duration) {
	if st.Role != results.RoleLed || recvGap-ackGap < 100*time.Millisecond || x.clientDamaged != "" {
		return
	}
	tl, topic := x.ev.tl, x.ev.meta.Probe.Topic
	cons, ok1 := tl.ClientLearnedLeader(results.ClientConsumer, topic, st.Partition, x.ev.F)
	prod, ok2 := tl.ClientLearnedLeader(results.ClientProducer, topic, st.Partition, x.ev.F)
	if !ok1 || !ok2 {
		return
	}
	why := ""
	for _, e := range tl.ClientFacts(results.ClientConsumer, prod.Time.Add(-time.Second), cons.Time, timeline.OfKind(timeline.KindClientMetadataTriggered)) {
		if e.Time.Before(cons.Time) && e.Time.After(prod.Time.Add(-time.Second)) {
			why = e.Reason
		}
	}
	s := fmt.Sprintf("the receive gap is %s longer than the ack gap: the consumer learnt leader %d at %s, %s after the producer",
		secs(recvGap-ackGap), cons.Leader, cons.Time.UTC().Format("15:04:05.000"), secs(cons.Time.Sub(prod.Time)))
	if strings.Contains(why, "backoff") {
		s += fmt.Sprintf(": its fetches to the dead broker were backing off (up to %s), and it refreshes metadata only when a backoff ends (%q)", x.clientValue("retry_backoff_max"), why)
		st.Receive.Setting = "retry_backoff_max"
		st.Receive.Settings = []Setting{x.clientSetting("retry_backoff_max")}
	}
	st.Receive.Why = s
}

// brokerConfigOf is broker node's logged configuration (by node id), nil
// when unread.
func (x *explainer) brokerConfigOf(node int32) *timeline.NodeConfig {
	for name, id := range x.ev.meta.Cluster.Brokers {
		if id == node {
			c, _ := x.brokerConfig(name)
			return c
		}
	}
	return nil
}
