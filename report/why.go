package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/kbf-project/kbf/results"
	"github.com/kbf-project/kbf/timeline"
)

// explainer says why each phase of a stall lasted as long as it did, from
// the nodes' logged configuration and the clients' own log.
type explainer struct {
	tr    *Trial
	f     *results.Fault
	ctl   map[string]string // the controller's configuration, as it logged it
	lines []timeline.ClientLine
	cfg   map[string]string // the probe's client configuration
}

func newExplainer(tr *Trial, f *results.Fault) *explainer {
	x := &explainer{tr: tr, f: f, cfg: tr.Meta.Probe.Client}
	for _, node := range controllers(tr) {
		if c := timeline.NodeConfig(tr.Dir, node); c != nil {
			x.ctl = c
			break
		}
	}
	end := tr.FaultAt.Add(time.Minute)
	if !tr.Gaps.End.IsZero() {
		end = tr.Gaps.End
	}
	lines, err := timeline.ReadClientLines(filepath.Join(tr.Dir, results.ClientLog), tr.FaultAt.Add(-time.Second), end)
	if err == nil {
		x.lines = lines
	}
	return x
}

// controllers names the nodes with logs that are not brokers.
func controllers(tr *Trial) []string {
	ents, _ := os.ReadDir(filepath.Join(tr.Dir, results.NodeLogsDir))
	var out []string
	for _, e := range ents {
		if _, broker := tr.Meta.Cluster.Brokers[e.Name()]; e.IsDir() && !broker && e.Name() != tr.Meta.Fault.Broker {
			out = append(out, e.Name())
		}
	}
	return out
}

// ms reads a millisecond setting from a logged configuration.
func ms(cfg map[string]string, key string, def time.Duration) (time.Duration, bool) {
	if v, err := strconv.ParseInt(cfg[key], 10, 64); err == nil {
		return time.Duration(v) * time.Millisecond, true
	}
	return def, false
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func setting(cfg map[string]string, key string, def time.Duration) string {
	d, logged := ms(cfg, key, def)
	if logged {
		return fmt.Sprintf("%s = %d ms", key, d.Milliseconds())
	}
	return fmt.Sprintf("%s (default %d ms)", key, d.Milliseconds())
}

// detect explains fault → the controller acting on the broker.
func (x *explainer) detect(ph *Phase) {
	if x.f.Kind == "sigterm" {
		ph.Why = fmt.Sprintf("on SIGTERM broker %d asks the controller for a controlled shutdown with its next heartbeat; the controller granted it %s after the signal and moved its leaderships first",
			x.f.NodeID, secs(ph.End.Sub(x.f.SignalSent)))
		ph.Setting = "none: controlled.shutdown.enable (on by default) is what makes this short"
		return
	}
	session, _ := ms(x.ctl, "broker.session.timeout.ms", 9*time.Second)
	hb, _ := ms(x.ctl, "broker.heartbeat.interval.ms", 2*time.Second)
	last := ph.End.Add(-session)
	before := x.tr.FaultAt.Sub(last)
	ended := "the process ended"
	if x.f.Kind == "pause" {
		ended = "it froze"
	}
	ph.Why = fmt.Sprintf("the controller fences a broker %s after its last heartbeat (%s); broker %d heartbeats every %s, so its last one came about %s before %s",
		secs(session), setting(x.ctl, "broker.session.timeout.ms", session), x.f.NodeID, secs(hb), secs(before), ended)
	if before < 0 {
		ph.Why = fmt.Sprintf("the controller fenced broker %d %s after %s, more than %s: the session runs from the last heartbeat the controller handled, which can be one still in flight at the fault, and expiry is noticed by a periodic check",
			x.f.NodeID, secs(ph.End.Sub(x.tr.FaultAt)), ended, setting(x.ctl, "broker.session.timeout.ms", session))
	}
	ph.Setting = "broker.session.timeout.ms on the controller (and broker.heartbeat.interval.ms on the brokers)"
}

// elect explains the controller's change reaching the partition's leader.
func (x *explainer) elect(st *Stall, ph *Phase, prev time.Time) {
	if st.Role == "leader" {
		ph.Why = fmt.Sprintf("the controller chose broker %d from the ISR; the change reached it through the metadata log and it started leading %s later",
			st.NewLeader, secs(ph.End.Sub(prev)))
		return
	}
	ph.Why = fmt.Sprintf("acks=all waits for every replica in the ISR, and broker %d stayed in it until the controller removed it; the leader applied the smaller ISR %s later, and the high watermark moved again",
		x.f.NodeID, secs(ph.End.Sub(prev)))
	if x.f.Kind != "sigterm" {
		ph.Setting = "the detection's: the ISR keeps a dead follower until the controller fences it"
	}
}

// client explains the producer learning the new leader.
func (x *explainer) client(st *Stall, ph *Phase, prev time.Time) {
	topic := x.tr.Meta.Probe.Topic
	p := strconv.Itoa(int(st.Partition))
	var stale, retries int
	var lastStale time.Time
	var backoff time.Duration
	kip951 := false
	for _, l := range x.lines {
		if l.Client != "producer" || l.Time.Before(prev) || l.Time.After(ph.End) {
			continue
		}
		if l.Msg == "retrying request" && l.KV["request"] == "Metadata" {
			retries++
			if d, err := time.ParseDuration(l.KV["backoff"]); err == nil {
				backoff += d
			}
			continue
		}
		if l.KV["topic"] != topic || l.KV["partition"] != p {
			continue
		}
		switch {
		case l.Msg == "metadata refresh has identical topic partition data" && l.KV["leader"] != strconv.Itoa(int(st.NewLeader)):
			stale++
			lastStale = l.Time
		case strings.HasPrefix(l.Msg, "moving producing partition due to kip-951"):
			kip951 = true
		}
	}
	age := x.cfg["metadata_min_age"]
	switch {
	case kip951:
		ph.Why = "the producer learnt the new leader from a broker's NOT_LEADER_OR_FOLLOWER answer naming it (KIP-951), without waiting for a metadata refresh"
	case stale > 0:
		ph.Why = fmt.Sprintf("the producer refreshes metadata at most every %s; %d refresh(es) after the new leader started still named the old one (the last at %s, answered by a broker that had not yet applied the change)",
			age, stale, lastStale.UTC().Format("15:04:05.000"))
		ph.Setting = "metadata_min_age (--metadata-min-age; librdkafka: topic.metadata.refresh.fast.interval.ms)"
	default:
		ph.Why = fmt.Sprintf("the producer's next metadata refresh (at most every %s) named the new leader", age)
		ph.Setting = "metadata_min_age (--metadata-min-age)"
	}
	if retries > 0 {
		ph.Why += fmt.Sprintf("; %d metadata request(s) went to an unreachable broker and were retried after %s of backoff", retries, backoff)
		ph.Setting += "; retry_backoff (--retry-backoff)"
	}
	if hung := x.hungProduce(st.Leader, prev, ph.End); hung != nil {
		waited := hung.KV["time_to_read"]
		if d, err := time.ParseDuration(waited); err == nil {
			waited = secs(d)
		}
		ph.Why = fmt.Sprintf("the producer had a produce request in flight to broker %d, which neither answered nor closed the connection; it gave up only after %s (%s), then refreshed metadata and found the new leader",
			st.Leader, waited, hung.KV["err"])
		ph.Setting = fmt.Sprintf("produce_request_timeout + request_timeout_overhead (--produce-timeout %s, --request-timeout-overhead %s)",
			x.cfg["produce_request_timeout"], x.cfg["request_timeout_overhead"])
	}
}

// stuck explains a producer that never learnt a new leader that the logs
// show was elected: its requests to the faulted broker b hung.
func (x *explainer) stuck(b int32, from, to time.Time) string {
	id := strconv.Itoa(int(b))
	var hung, metadata int
	for _, l := range x.lines {
		if l.Client != "producer" || l.Time.Before(from) || l.Time.After(to) || l.KV["broker"] != id {
			continue
		}
		switch {
		case strings.HasPrefix(l.Msg, "read ") && strings.Contains(l.KV["err"], "timeout"):
			hung++
		case strings.HasPrefix(l.Msg, "wrote Metadata"):
			metadata++
		}
	}
	if hung == 0 && metadata == 0 {
		return "the producer had not learnt the new leader when the probe stopped"
	}
	return fmt.Sprintf("the producer had not learnt the new leader when the probe stopped: %d of its requests to broker %d timed out, and it sent %d metadata request(s) to that same broker, which never answered (shorten: --request-timeout-overhead, now %s)",
		hung, b, metadata, x.cfg["request_timeout_overhead"])
}

// hungProduce returns the producer's read of a produce response from broker
// b that ended in a timeout within [from, to]: a request stuck on a broker
// that stopped answering without closing its connections.
func (x *explainer) hungProduce(b int32, from, to time.Time) *timeline.ClientLine {
	id := strconv.Itoa(int(b))
	for i := range x.lines {
		l := &x.lines[i]
		if l.Client == "producer" && !l.Time.Before(from) && !l.Time.After(to) &&
			strings.HasPrefix(l.Msg, "read Produce") && l.KV["broker"] == id && strings.Contains(l.KV["err"], "timeout") {
			return l
		}
	}
	return nil
}

// firstAck explains the last boundary → the first ack.
func (x *explainer) firstAck(st *Stall, ph *Phase, prev time.Time) {
	leader := st.NewLeader
	if st.Role != "leader" {
		leader = x.tr.Meta.Probe.Leaders[st.Partition]
	}
	b := strconv.Itoa(int(leader))
	var wrote, read *timeline.ClientLine
	for i := range x.lines {
		l := &x.lines[i]
		if l.Client != "producer" || l.Time.Before(prev) || l.Time.After(ph.End) || l.KV["broker"] != b {
			continue
		}
		if wrote == nil && strings.HasPrefix(l.Msg, "wrote Produce") {
			wrote = l
		}
		if strings.HasPrefix(l.Msg, "read Produce") {
			read = l
		}
	}
	d := ph.End.Sub(prev)
	// The broker held the request when its answer took most of the phase.
	var held time.Duration
	if read != nil {
		held, _ = time.ParseDuration(read.KV["time_to_read"])
	}
	brokerSide := held > d/2
	if (st.Role != "leader" || brokerSide) && x.fetchBackoff(leader, ph, d) {
		return
	}
	if st.Role != "leader" {
		ph.Why = fmt.Sprintf("the leader answered the produce requests it was holding once the high watermark moved, %s later", secs(d))
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
		ph.Setting = "retry_backoff / retry_backoff_max (--retry-backoff, --retry-backoff-max)"
		parts = append(parts, fmt.Sprintf("the rest is the producer's retry backoff (%s to %s)", x.cfg["retry_backoff"], x.cfg["retry_backoff_max"]))
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
	var cfg map[string]string
	for node, id := range x.tr.Meta.Cluster.Brokers {
		if id == leader {
			cfg = timeline.NodeConfig(x.tr.Dir, node)
		}
	}
	backoff, _ := ms(cfg, "replica.fetch.backoff.ms", time.Second)
	n := (d + backoff/2) / backoff // the nearest whole number of backoffs
	if n < 1 || n > 3 || (d-n*backoff).Abs() > backoff*3/10 {
		return false
	}
	times := ""
	if n > 1 {
		times = fmt.Sprintf("%d × ", n)
	}
	ph.Why = fmt.Sprintf("about %s%s: with acks=all leader %d answers once the followers in the ISR have fetched the records, and a follower whose fetch failed while leadership moved (asking the new leader before it had applied its election) waits that long before fetching again",
		times, setting(cfg, "replica.fetch.backoff.ms", backoff), leader)
	ph.Setting = "replica.fetch.backoff.ms on the brokers"
	return true
}

// receive explains a receive gap much longer than the ack gap: the
// consumer learnt the new leader later than the producer.
func (x *explainer) receive(st *Stall, ackGap, recvGap time.Duration) {
	if st.Role != "leader" || recvGap-ackGap < 100*time.Millisecond {
		return
	}
	topic := x.tr.Meta.Probe.Topic
	cons, ok1 := x.tr.Timeline.ClientLearnedLeader("consumer", topic, st.Partition, x.tr.FaultAt)
	prod, ok2 := x.tr.Timeline.ClientLearnedLeader("producer", topic, st.Partition, x.tr.FaultAt)
	if !ok1 || !ok2 {
		return
	}
	why := ""
	for _, l := range x.lines {
		if l.Client == "consumer" && l.Msg == "metadata update triggered" && l.Time.Before(cons.Time) && l.Time.After(prod.Time.Add(-time.Second)) {
			why = l.KV["why"]
		}
	}
	s := fmt.Sprintf("the receive gap is %s longer than the ack gap: the consumer learnt leader %d at %s, %s after the producer",
		secs(recvGap-ackGap), cons.Leader, cons.Time.UTC().Format("15:04:05.000"), secs(cons.Time.Sub(prod.Time)))
	if strings.Contains(why, "backoff") {
		s += fmt.Sprintf(": its fetches to the dead broker were backing off (up to %s), and it refreshes metadata only when a backoff ends (%q)", x.cfg["retry_backoff_max"], why)
		st.ReceiveSetting = "retry_backoff_max (--retry-backoff-max)"
	}
	st.ReceiveWhy = s
}
