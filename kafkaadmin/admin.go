package kafkaadmin

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/kafkasec"
)

// How often the waits look again, and how long one look may take.
const (
	pollEvery   = 250 * time.Millisecond
	attemptTime = 5 * time.Second
	electEvery  = 2 * time.Second
)

// client returns the Kafka client the package's requests go through,
// making it on first use.
func (c *Admin) client() (*kgo.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl != nil {
		return c.cl, nil
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(c.Bootstrap()...),
		kgo.ClientID("kbf-admin"),
		// kadm routes by cached metadata; leaders move in an experiment.
		kgo.MetadataMinAge(100 * time.Millisecond),
	}, c.sec.KgoOpts()...)...)
	if err != nil {
		return nil, fmt.Errorf("kafka client: %w", err)
	}
	c.cl = cl
	return cl, nil
}

// Close closes the Kafka client. The Admin stays usable: the next request
// makes a new one, so a caller about to remove the brokers closes it
// rather than let it retry in vain.
func (c *Admin) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cl != nil {
		c.cl.Close()
		c.cl = nil
	}
}

// poll calls check until it reports done, an error that is final, or ctx
// ends; the error then names what was awaited and the last state seen.
func poll(ctx context.Context, what string, check func(ctx context.Context) (done bool, state string, err error)) error {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	last := "no answer yet"
	for {
		actx, cancel := context.WithTimeout(ctx, attemptTime)
		done, state, err := check(actx)
		cancel()
		var fe finalError
		switch {
		case errors.As(err, &fe):
			return fe.err
		case err != nil && ctx.Err() == nil:
			last = err.Error()
		case done:
			return nil
		case state != "":
			last = state
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s (last seen: %s): %w", what, last, ctx.Err())
		case <-t.C:
		}
	}
}

// finalError ends a poll at once.
type finalError struct{ err error }

func (e finalError) Error() string { return e.err.Error() }

// WaitBrokers waits until every broker is registered with the controller
// and unfenced, and answers on its address. It fails at once when
// Config.Alive says a node has stopped.
func (c *Admin) WaitBrokers(ctx context.Context) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	want := c.BrokerIDs()
	return poll(ctx, "brokers "+JoinIDs(want)+" to register", func(ctx context.Context) (bool, string, error) {
		if c.alive != nil {
			if err := c.alive(ctx); err != nil {
				return false, "", finalError{err}
			}
		}
		if c.sec != nil {
			// The client retries a failed authentication until the
			// request's time is up, which hides its cause; one broker's
			// own request does not.
			if err := c.authenticated(ctx, cl); err != nil {
				return false, "", err
			}
		}
		fenced, err := brokerStates(ctx, cl)
		if err != nil {
			if c.sec != nil {
				return false, "", c.sec.Explain(strings.Join(c.Bootstrap(), ","), err)
			}
			if serr := c.securedListener(ctx, cl, err); serr != nil {
				return false, "", finalError{serr}
			}
			return false, "", plainConnError(err)
		}
		if state := brokersState(want, fenced); state != "" {
			return false, state, nil
		}
		// The controller still counts a broker killed moments ago as
		// registered and unfenced, until its session times out; only an
		// answer from the broker itself shows the new process is up. A
		// broker opens its listeners only once unfenced.
		for i, b := range cl.SeedBrokers() {
			if _, err := b.Request(ctx, kmsg.NewPtrApiVersionsRequest()); err != nil {
				return false, fmt.Sprintf("broker %d does not answer on %s: %v", want[i], c.Bootstrap()[i], plainConnError(err)), nil
			}
		}
		return true, "", nil
	})
}

// authenticated asks each broker on its own connection, and reads an
// error, from a client secured by Config.Security, as the security
// settings explain it: a cause the listener stated ends the wait
// at once, as waiting would not change a password or a certificate; a
// guess (a connection closed without a word, as Docker's port proxy closes
// them while the broker starts) does not.
func (c *Admin) authenticated(ctx context.Context, cl *kgo.Client) error {
	addrs := c.Bootstrap()
	for i, b := range cl.SeedBrokers() {
		if _, err := b.Request(ctx, kmsg.NewPtrApiVersionsRequest()); err != nil && i < len(addrs) {
			return c.explainAt(addrs[i], err)
		}
	}
	return nil
}

// explainAt reads err from a connection to addr as authenticated does.
func (c *Admin) explainAt(addr string, err error) error {
	var ce *kafkasec.ConnError
	if e := c.sec.Explain(addr, err); errors.As(e, &ce) {
		if !ce.Guess {
			return finalError{e}
		}
		return e
	}
	return plainConnError(err)
}

// ErrSecured marks a broker whose listener requires TLS or SASL while
// kbf's clients were given no --command-config: waiting longer would not
// help.
var ErrSecured = errors.New("the listener requires TLS or SASL")

// securedListener tells, when err is a connection the broker closed at
// once, whether a broker's listener asks for what kbf's clients do not
// give without a --command-config: TLS (a TLS handshake with it
// completes) or SASL (it answers ApiVersions, which Kafka serves before
// authentication, then closes on the next request). It returns nil when neither is so: the broker may
// simply not listen yet, and the engine's port proxy closes the
// connection then too.
func (c *Admin) securedListener(ctx context.Context, cl *kgo.Client, err error) error {
	var eof *kgo.ErrFirstReadEOF
	if !errors.As(err, &eof) {
		return nil
	}
	ids, addrs := c.BrokerIDs(), c.Bootstrap()
	for i := range cl.SeedBrokers() {
		if speaksTLS(ctx, addrs[i]) {
			return fmt.Errorf("broker %d's listener at %s speaks TLS, and kbf's clients were given no security settings: pass Kafka's client properties for it with --command-config FILE (security.protocol, sasl.*, ssl.*): %w", ids[i], addrs[i], ErrSecured)
		}
		if wantsSASL(ctx, addrs[i]) {
			return fmt.Errorf("broker %d's listener at %s answers ApiVersions, then closes the connection on the next request: it requires SASL authentication, and kbf's clients were given no security settings: pass Kafka's client properties for it with --command-config FILE (security.protocol, sasl.*, ssl.*): %w", ids[i], addrs[i], ErrSecured)
		}
	}
	return nil
}

// wantsSASL reports whether addr speaks Kafka but only after SASL: on one
// new connection it answers ApiVersions, which Kafka serves before any
// authentication, then closes the connection on a Metadata request. Both
// on the one connection, so a broker that begins to listen in between
// cannot pass for one that wants SASL. A client's own connection cannot
// ask this: it has sent its ApiVersions already, and a SASL listener
// allows only one.
func wantsSASL(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	f := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kbf"))
	// Version 0 of each: no tagged fields, nothing the broker could refuse.
	answered := func(req kmsg.Request, corrID int32) (bool, error) {
		if _, err := conn.Write(f.AppendRequest(nil, req, corrID)); err != nil {
			return false, err
		}
		var head [8]byte // the size, then the correlation id
		if _, err := io.ReadFull(conn, head[:]); err != nil {
			return false, err
		}
		size := binary.BigEndian.Uint32(head[:4])
		if size < 4 || size > 1<<20 || int32(binary.BigEndian.Uint32(head[4:])) != corrID {
			return false, nil
		}
		_, err := io.CopyN(io.Discard, conn, int64(size-4))
		return err == nil, err
	}
	if ok, _ := answered(kmsg.NewPtrApiVersionsRequest(), 7); !ok {
		return false
	}
	ok, err := answered(kmsg.NewPtrMetadataRequest(), 8)
	return !ok && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET))
}

// speaksTLS reports whether a TLS handshake with addr completes. The
// certificate is not checked: only whether the listener speaks TLS.
func speaksTLS(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // only asks whether the listener speaks TLS; nothing is sent
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// plainConnError rewords the client's guess about TLS: before a broker's
// process listens, the engine's port proxy accepts and closes connections,
// which the client takes for a TLS mismatch.
func plainConnError(err error) error {
	var eof *kgo.ErrFirstReadEOF
	if errors.As(err, &eof) {
		return errors.New("the broker closed the connection at once (not listening yet)")
	}
	return err
}

// brokerStates returns each registered broker's node id and whether it is
// fenced. Before DescribeCluster v2 (Kafka 4.0) fenced brokers are not
// listed at all.
func brokerStates(ctx context.Context, cl *kgo.Client) (map[int32]bool, error) {
	req := kmsg.NewPtrDescribeClusterRequest()
	req.IncludeFencedBrokers = true
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	fenced := make(map[int32]bool, len(resp.Brokers))
	for _, b := range resp.Brokers {
		fenced[b.NodeID] = b.IsFenced
	}
	return fenced, nil
}

// brokersState describes which of want are not yet registered or still
// fenced; "" when all are ready.
func brokersState(want []int32, fenced map[int32]bool) string {
	var missing, fencedIDs []int32
	for _, id := range want {
		f, ok := fenced[id]
		switch {
		case !ok:
			missing = append(missing, id)
		case f:
			fencedIDs = append(fencedIDs, id)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "not registered: "+JoinIDs(missing))
	}
	if len(fencedIDs) > 0 {
		parts = append(parts, "fenced: "+JoinIDs(fencedIDs))
	}
	return strings.Join(parts, "; ")
}

// metadata asks a broker directly, bypassing the client's cache.
func metadata(ctx context.Context, cl *kgo.Client, topics ...string) (*kmsg.MetadataResponse, error) {
	req := kmsg.NewPtrMetadataRequest() // no topics: all of them
	for _, t := range topics {
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(t)
		req.Topics = append(req.Topics, rt)
	}
	return req.RequestWith(ctx, cl)
}

// everywhere asks every broker directly for the topics' metadata and
// returns the first non-empty state that judge finds, naming the broker:
// right after a change the brokers' views can differ for a few
// milliseconds, and a client may ask any of them.
func (c *Admin) everywhere(ctx context.Context, cl *kgo.Client, topics []string, judge func(*kmsg.MetadataResponse) string) (string, error) {
	ids := c.BrokerIDs()
	for i, b := range cl.SeedBrokers() {
		req := kmsg.NewPtrMetadataRequest()
		for _, t := range topics {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, b)
		if err != nil {
			return "", fmt.Errorf("metadata from broker %d: %w", ids[i], err)
		}
		if state := judge(resp); state != "" {
			return fmt.Sprintf("broker %d sees %s", ids[i], state), nil
		}
	}
	return "", nil
}

// EnsureTopics creates the cluster's topics that are absent, with their
// replica assignment and min.insync.replicas, and checks those present
// have the same shape. It returns the names it created.
func (c *Admin) EnsureTopics(ctx context.Context) ([]string, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	var created []string
	for _, t := range c.topics {
		want := t.Assignment(c.BrokerIDs())
		var made bool
		err := poll(ctx, "topic "+t.Name, func(ctx context.Context) (bool, string, error) {
			md, err := metadata(ctx, cl, t.Name)
			if err != nil {
				return false, "", err
			}
			mt := md.Topics[0]
			switch err := kerr.ErrorForCode(mt.ErrorCode); {
			case errors.Is(err, kerr.UnknownTopicOrPartition):
				ok, err := createTopic(ctx, cl, t, want)
				made = made || ok
				return false, "creating", err
			case err != nil:
				return false, "", err
			}
			if len(mt.Partitions) == 0 {
				return false, "no partitions yet", nil
			}
			minInsync := ""
			if t.MinInsync > 0 {
				if minInsync, err = topicConfig(ctx, cl, t.Name, "min.insync.replicas"); err != nil {
					return false, "", err
				}
			}
			if diff := shapeDiff(t, want, replicasOf(mt), minInsync); diff != "" {
				return false, "", finalError{fmt.Errorf(
					"topic %s exists with another shape (%s): kbf down removes the cluster and its topics, then kbf up makes them anew",
					t.Name, diff)}
			}
			return true, "", nil
		})
		if err != nil {
			return created, err
		}
		if made {
			created = append(created, t.Name)
		}
	}
	return created, nil
}

// createTopic creates t; false when it already existed.
func createTopic(ctx context.Context, cl *kgo.Client, t Topic, assignment [][]int32) (bool, error) {
	req := kmsg.NewPtrCreateTopicsRequest()
	req.TimeoutMillis = int32(attemptTime / time.Millisecond)
	rt := kmsg.NewCreateTopicsRequestTopic()
	rt.Topic = t.Name
	rt.NumPartitions, rt.ReplicationFactor = -1, -1
	for p, replicas := range assignment {
		ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		ra.Partition = int32(p)
		ra.Replicas = replicas
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
	}
	if t.MinInsync > 0 {
		cfg := kmsg.NewCreateTopicsRequestTopicConfig()
		cfg.Name = "min.insync.replicas"
		cfg.Value = kmsg.StringPtr(strconv.Itoa(t.MinInsync))
		rt.Configs = append(rt.Configs, cfg)
	}
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return false, fmt.Errorf("create topic %s: %w", t.Name, err)
	}
	if len(resp.Topics) != 1 {
		return false, fmt.Errorf("create topic %s: %d topics in the answer", t.Name, len(resp.Topics))
	}
	switch err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); {
	case err == nil:
		return true, nil
	case errors.Is(err, kerr.TopicAlreadyExists):
		return false, nil
	default:
		msg := ""
		if m := resp.Topics[0].ErrorMessage; m != nil {
			msg = ": " + *m
		}
		return false, finalError{fmt.Errorf("create topic %s: %w%s", t.Name, err, msg)}
	}
}

// topicConfig returns one configuration value of a topic.
func topicConfig(ctx context.Context, cl *kgo.Client, topic, key string) (string, error) {
	rcs, err := kadm.NewClient(cl).DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return "", fmt.Errorf("describe topic %s configs: %w", topic, err)
	}
	rc, err := rcs.On(topic, nil)
	if err != nil {
		return "", fmt.Errorf("describe topic %s configs: %w", topic, err)
	}
	if rc.Err != nil {
		return "", fmt.Errorf("describe topic %s configs: %w", topic, rc.Err)
	}
	for _, cfg := range rc.Configs {
		if cfg.Key == key && cfg.Value != nil {
			return *cfg.Value, nil
		}
	}
	return "", nil
}

func replicasOf(mt kmsg.MetadataResponseTopic) map[int32][]int32 {
	m := make(map[int32][]int32, len(mt.Partitions))
	for _, p := range mt.Partitions {
		m[p.Partition] = p.Replicas
	}
	return m
}

// shapeDiff says how an existing topic differs from t; "" when it does
// not. minInsync is the topic's min.insync.replicas ("" when unchecked).
func shapeDiff(t Topic, want [][]int32, got map[int32][]int32, minInsync string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d partitions, want %d", len(got), len(want))
	}
	for p, w := range want {
		g, ok := got[int32(p)]
		if !ok {
			return fmt.Sprintf("no partition %d", p)
		}
		if !slices.Equal(g, w) {
			return fmt.Sprintf("partition %d has replicas %s, want %s", p, JoinIDs(g), JoinIDs(w))
		}
	}
	if t.MinInsync > 0 && minInsync != strconv.Itoa(t.MinInsync) {
		if minInsync == "" {
			minInsync = "unset"
		}
		return fmt.Sprintf("min.insync.replicas %s, want %d", minInsync, t.MinInsync)
	}
	return ""
}

// WaitISRFull waits until every partition of the topics has a leader and
// all its replicas in the ISR, as every broker sees it. No topics means the
// cluster's topics.
func (c *Admin) WaitISRFull(ctx context.Context, topics ...string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	if len(topics) == 0 {
		topics = c.TopicNames()
	}
	return poll(ctx, "full ISRs", func(ctx context.Context) (bool, string, error) {
		state, err := c.everywhere(ctx, cl, topics, isrState)
		return err == nil && state == "", state, err
	})
}

// isrState describes the partitions whose ISR is not full; "" when all are.
func isrState(md *kmsg.MetadataResponse) string {
	var short []string
	for _, t := range md.Topics {
		name := ""
		if t.Topic != nil {
			name = *t.Topic
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			short = append(short, name+": "+err.Error())
			continue
		}
		if len(t.Partitions) == 0 {
			short = append(short, name+": no partitions")
			continue
		}
		ps := slices.Clone(t.Partitions)
		sort.Slice(ps, func(i, j int) bool { return ps[i].Partition < ps[j].Partition })
		for _, p := range ps {
			full := p.Leader >= 0 && len(p.ISR) == len(p.Replicas)
			for _, r := range p.Replicas {
				full = full && slices.Contains(p.ISR, r)
			}
			if !full {
				short = append(short, fmt.Sprintf("%s-%d leader %d ISR [%s] of [%s]",
					name, p.Partition, p.Leader, JoinIDs(p.ISR), JoinIDs(p.Replicas)))
			}
		}
	}
	return listed(short)
}

// listedMax is how many partitions a wait's state names; the rest are
// counted, so the error of a wait on thousands of partitions is a line.
const listedMax = 5

// listed joins the first listedMax of parts and counts the others.
func listed(parts []string) string {
	if len(parts) <= listedMax {
		return strings.Join(parts, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(parts[:listedMax], ", "), len(parts)-listedMax)
}

// LeadersPreferred reports whether every partition of the topics is led by
// its first replica, its preferred leader. No topics means the cluster's
// topics.
func (c *Admin) LeadersPreferred(ctx context.Context, topics ...string) (bool, error) {
	cl, err := c.client()
	if err != nil {
		return false, err
	}
	if len(topics) == 0 {
		topics = c.TopicNames()
	}
	md, err := metadata(ctx, cl, topics...)
	if err != nil {
		return false, fmt.Errorf("metadata: %w", err)
	}
	return notPreferred(md) == "", nil
}

// notPreferred names the partitions not led by their first replica.
func notPreferred(md *kmsg.MetadataResponse) string {
	var off []string
	for _, t := range md.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			off = append(off, *t.Topic+": "+err.Error())
			continue
		}
		for _, p := range t.Partitions {
			if len(p.Replicas) == 0 || p.Leader != p.Replicas[0] {
				off = append(off, fmt.Sprintf("%s-%d led by %d", *t.Topic, p.Partition, p.Leader))
			}
		}
	}
	sort.Strings(off)
	return listed(off)
}

// PreferredElection asks the controller to give each partition of the
// topics back to its preferred leader, as kafka-leader-election.sh
// --election-type preferred does. Partitions already led by it are not an
// error. No topics means the cluster's topics.
func (c *Admin) PreferredElection(ctx context.Context, topics ...string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	if len(topics) == 0 {
		topics = c.TopicNames()
	}
	md, err := metadata(ctx, cl, topics...)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	set := make(kadm.TopicsSet)
	for _, t := range md.Topics {
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return fmt.Errorf("topic %s: %w", *t.Topic, err)
		}
		for _, p := range t.Partitions {
			set.Add(*t.Topic, p.Partition)
		}
	}
	res, err := kadm.NewClient(cl).ElectLeaders(ctx, kadm.ElectPreferredReplica, set)
	if err != nil {
		return fmt.Errorf("preferred leader election: %w", err)
	}
	var errs []error
	for _, t := range slices.Sorted(maps.Keys(res)) {
		for _, r := range res[t] {
			if r.Err != nil && !errors.Is(r.Err, kerr.ElectionNotNeeded) {
				errs = append(errs, fmt.Errorf("%s-%d: %w", r.Topic, r.Partition, r.Err))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("preferred leader election: %w", errors.Join(errs...))
	}
	return nil
}

// EnsurePreferred runs preferred leader elections, again every little while,
// until every partition of the topics is led by its preferred replica, or
// ctx ends. No topics means the cluster's topics. It reports whether an
// election was needed.
func (c *Admin) EnsurePreferred(ctx context.Context, topics ...string) (bool, error) {
	cl, err := c.client()
	if err != nil {
		return false, err
	}
	if len(topics) == 0 {
		topics = c.TopicNames()
	}
	var elected bool
	var lastElection time.Time
	err = poll(ctx, "preferred leaders", func(ctx context.Context) (bool, string, error) {
		off, err := c.everywhere(ctx, cl, topics, notPreferred)
		if err != nil {
			return false, "", err
		}
		if off == "" {
			return true, "", nil
		}
		if c.now().Sub(lastElection) >= electEvery {
			lastElection = c.now()
			elected = true
			if err := c.PreferredElection(ctx, topics...); err != nil {
				return false, off + "; " + err.Error(), nil
			}
		}
		return false, off, nil
	})
	return elected, err
}

// Partition is one partition's state as the brokers report it.
type Partition struct {
	Topic string
	// TopicID is the topic's ID (TopicID): a topic deleted and made again
	// under the same name has another.
	TopicID     string
	Partition   int32
	Leader      int32 // -1: none
	LeaderEpoch int32
	Replicas    []int32
	ISR         []int32
	// ELR are the eligible leader replicas (KIP-966): replicas out of the
	// ISR that the controller knows hold the data up to the high watermark.
	ELR []int32
	// LastKnownELR are the ELR members last seen when the ELR emptied.
	LastKnownELR []int32
	// HighWatermark is the latest offset (ListOffsets latest), -1 when it
	// could not be read (no leader).
	HighWatermark int64
	// Err is the partition's error as the broker reported it, if any.
	Err error
}

// Describe reports the state of every partition of the topics, sorted by
// topic and partition. No topics means every topic that is not internal.
// It uses DescribeTopicPartitions (Kafka 3.7+), which carries the ELR.
func (c *Admin) Describe(ctx context.Context, topics ...string) ([]Partition, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	if len(topics) == 0 {
		md, err := metadata(ctx, cl)
		if err != nil {
			return nil, fmt.Errorf("metadata: %w", err)
		}
		for _, t := range md.Topics {
			if !t.IsInternal && t.Topic != nil {
				topics = append(topics, *t.Topic)
			}
		}
		if len(topics) == 0 {
			return nil, nil
		}
	}
	var parts []Partition
	for try := 1; ; try++ {
		parts, err = describePartitions(ctx, cl, topics)
		// A broker that has not yet heard of a new topic says it is
		// unknown; another try likely reaches one that has.
		var ke *kerr.Error
		if err == nil || try == 3 || !errors.As(err, &ke) || !ke.Retriable {
			break
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pollEvery):
		}
	}
	if err != nil {
		return nil, err
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topics...)
	if err != nil && len(ends) == 0 {
		return nil, fmt.Errorf("list end offsets: %w", err)
	}
	for i := range parts {
		parts[i].HighWatermark = -1
		if o, ok := ends.Lookup(parts[i].Topic, parts[i].Partition); ok && o.Err == nil {
			parts[i].HighWatermark = o.Offset
		}
	}
	return parts, nil
}

// DescribeBy reports the state of every partition of the topics as
// broker id alone answers it, from its own metadata, sorted by topic and
// partition, with no high watermarks (-1). A broker learns the cluster's
// decisions from the controller's metadata log, so one that still follows
// the controller shows them, and one cut from it (isolate-controller)
// goes on answering with what it had: a question about what the
// controller decided is put to a broker other than the one faulted.
func (c *Admin) DescribeBy(ctx context.Context, id int32, topics ...string) ([]Partition, error) {
	if len(topics) == 0 {
		return nil, errors.New("describe: no topic named")
	}
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	parts, err := describePartitions(ctx, cl.Broker(int(id)), topics)
	if err != nil {
		return nil, fmt.Errorf("broker %d: %w", id, err)
	}
	for i := range parts {
		parts[i].HighWatermark = -1
	}
	return parts, nil
}

func describePartitions(ctx context.Context, cl kmsg.Requestor, topics []string) ([]Partition, error) {
	var parts []Partition
	err := describeTopics(ctx, cl, topics, 0, func(t *kmsg.DescribeTopicPartitionsResponseTopic, p *kmsg.DescribeTopicPartitionsResponseTopicPartition) {
		parts = append(parts, Partition{
			Topic: derefName(t.Topic), TopicID: TopicID(t.TopicID), Partition: p.Partition,
			Leader: p.LeaderID, LeaderEpoch: p.LeaderEpoch,
			Replicas: p.Replicas, ISR: p.ISR,
			ELR: p.EligibleLeaderReplicas, LastKnownELR: p.LastKnownELR,
			Err: kerr.ErrorForCode(p.ErrorCode),
		})
	})
	var te *TopicError
	switch {
	case errors.As(err, &te):
		return nil, fmt.Errorf("describe topic %s: %w", te.Topic, te.Err)
	case err != nil:
		return nil, fmt.Errorf("describe topic partitions: %w", err)
	}
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].Topic != parts[j].Topic {
			return parts[i].Topic < parts[j].Topic
		}
		return parts[i].Partition < parts[j].Partition
	})
	return parts, nil
}

// TopicError is a topic's error in a DescribeTopicPartitions answer.
type TopicError struct {
	Topic string
	Err   error
}

func (e *TopicError) Error() string { return e.Topic + ": " + e.Err.Error() }
func (e *TopicError) Unwrap() error { return e.Err }

// DescribeTopicPartitions asks cl for the partitions of topics with
// DescribeTopicPartitions (KIP-966), following the answers' cursor page by
// page, at most limit partitions a page (0: the broker's own, 2,000), and
// calls each with every partition and its topic's name. A request's error
// is returned as it is, a topic's as a *TopicError.
func DescribeTopicPartitions(ctx context.Context, cl kmsg.Requestor, topics []string, limit int32,
	each func(topic string, p *kmsg.DescribeTopicPartitionsResponseTopicPartition)) error {
	return describeTopics(ctx, cl, topics, limit, func(t *kmsg.DescribeTopicPartitionsResponseTopic, p *kmsg.DescribeTopicPartitionsResponseTopicPartition) {
		each(derefName(t.Topic), p)
	})
}

// TopicID is a topic's ID as Kafka writes it (Uuid.toString: base64, URL
// alphabet, no padding), "" for the zero ID a broker answers when it
// does not say.
func TopicID(id [16]byte) string {
	if id == [16]byte{} {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(id[:])
}

func derefName(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// describeTopics is DescribeTopicPartitions, each called with the
// partition's topic whole (its name, its ID).
func describeTopics(ctx context.Context, cl kmsg.Requestor, topics []string, limit int32,
	each func(t *kmsg.DescribeTopicPartitionsResponseTopic, p *kmsg.DescribeTopicPartitionsResponseTopicPartition)) error {
	req := kmsg.NewPtrDescribeTopicPartitionsRequest()
	for _, t := range topics {
		rt := kmsg.NewDescribeTopicPartitionsRequestTopic()
		rt.Topic = t
		req.Topics = append(req.Topics, rt)
	}
	if limit > 0 {
		req.ResponsePartitionLimit = limit
	}
	for {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		n := 0
		for ti := range resp.Topics {
			t := &resp.Topics[ti]
			if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
				return &TopicError{Topic: derefName(t.Topic), Err: err}
			}
			for i := range t.Partitions {
				each(t, &t.Partitions[i])
			}
			n += len(t.Partitions)
		}
		// A cursor with nothing before it would ask the same page again.
		if resp.NextCursor == nil || n == 0 {
			return nil
		}
		cur := kmsg.NewDescribeTopicPartitionsRequestCursor()
		cur.Topic, cur.Partition = resp.NextCursor.Topic, resp.NextCursor.Partition
		req.Cursor = &cur
	}
}

// ClusterID returns the id of the cluster the brokers belong to, as a
// broker reports it in its metadata: the id its storage was formatted with.
func (c *Admin) ClusterID(ctx context.Context) (string, error) {
	cl, err := c.client()
	if err != nil {
		return "", err
	}
	md, err := metadata(ctx, cl)
	if err != nil {
		return "", fmt.Errorf("metadata: %w", plainConnError(err))
	}
	if md.ClusterID == nil {
		return "", errors.New("metadata: the broker reports no cluster id")
	}
	return *md.ClusterID, nil
}

// BrokerConfigs returns each broker's effective configuration, by node id:
// every key the broker reports with a value, static or dynamic, defaults
// included. Sensitive values, which brokers never return, are left out.
func (c *Admin) BrokerConfigs(ctx context.Context) (map[int32]map[string]string, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	rcs, err := kadm.NewClient(cl).DescribeBrokerConfigs(ctx, c.BrokerIDs()...)
	if err != nil {
		return nil, fmt.Errorf("describe broker configs: %w", err)
	}
	return brokerConfigs(rcs)
}

func brokerConfigs(rcs kadm.ResourceConfigs) (map[int32]map[string]string, error) {
	out := make(map[int32]map[string]string, len(rcs))
	for _, rc := range rcs {
		if rc.Err != nil {
			return nil, fmt.Errorf("describe broker %s configs: %w", rc.Name, rc.Err)
		}
		id, err := strconv.ParseInt(rc.Name, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("describe broker configs: %q is not a node id", rc.Name)
		}
		m := make(map[string]string, len(rc.Configs))
		for _, cfg := range rc.Configs {
			if cfg.Value != nil && !cfg.Sensitive {
				m[cfg.Key] = *cfg.Value
			}
		}
		out[int32(id)] = m
	}
	return out, nil
}

// WaitLeadersAnswer waits until every partition of the topics answers a
// ListOffsets request on its leader, as a probe's first request does: a
// leader the controller has named may not have applied its election yet
// and answer NOT_LEADER_OR_FOLLOWER for a moment. No topics means the
// cluster's topics.
func (c *Admin) WaitLeadersAnswer(ctx context.Context, topics ...string) error {
	cl, err := c.client()
	if err != nil {
		return err
	}
	if len(topics) == 0 {
		topics = c.TopicNames()
	}
	adm := kadm.NewClient(cl)
	return poll(ctx, "every partition's leader to answer", func(ctx context.Context) (bool, string, error) {
		ends, err := adm.ListEndOffsets(ctx, topics...)
		if err != nil {
			return false, "", err
		}
		var silent []string
		ends.Each(func(o kadm.ListedOffset) {
			if o.Err != nil {
				silent = append(silent, fmt.Sprintf("%s-%d: %v", o.Topic, o.Partition, o.Err))
			}
		})
		for _, t := range topics {
			if _, ok := ends[t]; !ok {
				silent = append(silent, t+": no partitions listed")
			}
		}
		sort.Strings(silent)
		return len(silent) == 0, listed(silent), nil
	})
}
