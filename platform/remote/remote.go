// Package remote is the trial protocol's target (cluster.Cluster) for
// any Kafka cluster kbf reaches by its bootstrap addresses, with no Docker:
// its nodes, their ids and roles are read from the cluster itself
// (Metadata, DescribeCluster, DescribeQuorum), and its brokers are reached
// where they advertise themselves. kbf injects nothing into it: its one
// fault is results.FaultExternal, made by something else, which kbf dates
// from the cluster's view (cluster.Observer).
//
// Nodes are named by their node id ("1", "2", …): a node's logs, when the
// user gives them, are the files of the folder of that name (Options.Logs),
// or what a command prints for that node (Options.LogsCommand).
package remote

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/kafkaadmin"
	"github.com/kbf-project/kbf/kafkasec"
	"github.com/kbf-project/kbf/platform/adminhealth"
	"github.com/kbf-project/kbf/results"
)

// Options are a remote target's settings.
type Options struct {
	Bootstrap []string
	// Logs, when set, is a directory with one folder per node, named by the
	// node's id, holding the node's log files (server.log, controller.log,
	// state-change.log as Kafka names them).
	Logs string
	// LogsCommand, when set instead, is a shell command that prints one
	// node's log, run for each node with PlaceID, PlaceHost and PlaceSince
	// replaced (CheckLogsCommand), within LogsTimeout (zero:
	// DefaultLogsTimeout); what it prints is split by logger into the
	// files Kafka would write.
	LogsCommand string
	LogsTimeout time.Duration
	// Dir is where LogsCommand runs (a bench scenario file's directory,
	// as its on_ready); empty: kbf's working directory.
	Dir string
	// DialTimeout bounds each broker's reachability check; zero: 3 s.
	DialTimeout time.Duration
	// Security is how kbf's own clients reach the brokers (TLS, SASL),
	// from --command-config; nil speaks PLAINTEXT.
	Security *kafkasec.Config
}

// ErrNoLogs is CollectLogs' error when the user gave no broker logs.
var ErrNoLogs = errors.New("no broker logs given")

// Cluster is a cluster reached over the network.
type Cluster struct {
	opts    Options
	cl      *kgo.Client
	admin   *kafkaadmin.Admin
	brokers []kafkaadmin.Broker // as advertised, by node id
	// Health is Up and the partitions' health, asked of the brokers:
	// kbf starts nothing there.
	adminhealth.Health
	controllers []int32
}

var (
	_ cluster.Cluster  = (*Cluster)(nil)
	_ cluster.Observer = (*Cluster)(nil)
)

// New reads the cluster's nodes from the brokers at opts.Bootstrap and
// checks that kbf reaches each broker where it advertises itself: one line
// per broker it cannot reach.
func New(ctx context.Context, opts Options) (*Cluster, error) {
	if len(opts.Bootstrap) == 0 {
		return nil, errors.New("no bootstrap address: give --bootstrap host:port,…")
	}
	kopts := []kgo.Opt{kgo.SeedBrokers(opts.Bootstrap...), kgo.RequestRetries(2)}
	if opts.Security != nil {
		kopts = append(kopts, opts.Security.KgoOpts()...)
	}
	cl, err := kgo.NewClient(kopts...)
	if err != nil {
		return nil, fmt.Errorf("bootstrap %s: %w", strings.Join(opts.Bootstrap, ","), err)
	}
	t := &Cluster{opts: opts, cl: cl}
	if err := t.discover(ctx); err != nil {
		cl.Close()
		return nil, err
	}
	timeout := opts.DialTimeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	if err := Reachable(ctx, t.brokers, timeout, opts.Security); err != nil {
		cl.Close()
		return nil, err
	}
	if t.admin, t.Health, err = adminhealth.Open(kafkaadmin.Config{Brokers: t.brokers, Topics: kafkaadmin.DefaultTopics(), Security: t.opts.Security}); err != nil {
		cl.Close()
		return nil, err
	}
	return t, nil
}

// discover reads the brokers from the metadata, as they advertise the
// listener kbf bootstrapped on, and the dedicated controllers from the
// quorum where the cluster lets kbf ask.
func (t *Cluster) discover(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	md, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, t.cl)
	if err != nil {
		return fmt.Errorf("no broker answers on %s: %w", strings.Join(t.opts.Bootstrap, ","), err)
	}
	for _, b := range md.Brokers {
		t.brokers = append(t.brokers, kafkaadmin.Broker{ID: b.NodeID, Addr: net.JoinHostPort(b.Host, strconv.Itoa(int(b.Port)))})
	}
	slices.SortFunc(t.brokers, func(a, b kafkaadmin.Broker) int { return int(a.ID) - int(b.ID) })
	if len(t.brokers) == 0 {
		return fmt.Errorf("the cluster at %s names no broker", strings.Join(t.opts.Bootstrap, ","))
	}
	req := kmsg.NewPtrDescribeQuorumRequest()
	tp := kmsg.NewDescribeQuorumRequestTopic()
	tp.Topic = "__cluster_metadata"
	tp.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
	req.Topics = []kmsg.DescribeQuorumRequestTopic{tp}
	if resp, err := req.RequestWith(ctx, t.cl); err == nil && kerr.ErrorForCode(resp.ErrorCode) == nil {
		for _, rt := range resp.Topics {
			for _, p := range rt.Partitions {
				for _, v := range p.CurrentVoters {
					if !slices.ContainsFunc(t.brokers, func(b kafkaadmin.Broker) bool { return b.ID == v.ReplicaID }) {
						t.controllers = append(t.controllers, v.ReplicaID)
					}
				}
			}
		}
		slices.Sort(t.controllers)
	}
	return nil
}

// Reachable checks that kbf reaches every broker where it advertises
// itself (the address its clients, admin client and replica view use, on
// the listener kbf bootstrapped on), all at once and within timeout each:
// a TCP connection, then a Kafka request spoken as sec says (TLS, SASL).
// It returns one line per broker that fails either, naming the broker,
// the address and why.
func Reachable(ctx context.Context, brokers []kafkaadmin.Broker, timeout time.Duration, sec *kafkasec.Config) error {
	lines := make([]string, len(brokers))
	var wg sync.WaitGroup
	for i, b := range brokers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := reach(ctx, b.Addr, timeout, sec); err != nil {
				lines[i] = fmt.Sprintf("broker %d is unreachable at %s, the address it advertises: %v", b.ID, b.Addr, err)
			}
		}()
	}
	wg.Wait()
	lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	if len(lines) > 0 {
		return errors.New(strings.Join(lines, "\n"))
	}
	return nil
}

// reach connects to addr, then asks it for its API versions through a
// client secured by sec: a port that is open is not yet a Kafka listener
// kbf can speak to (a proxy, another service, a listener whose security
// differs from the one kbf bootstrapped on).
func reach(ctx context.Context, addr string, timeout time.Duration, sec *kafkasec.Config) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	c.Close()
	opts := []kgo.Opt{kgo.SeedBrokers(addr)}
	if sec != nil {
		opts = append(opts, sec.KgoOpts()...)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return err
	}
	defer cl.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	// From v3 a broker refuses a request without a valid client name.
	req.ClientSoftwareName, req.ClientSoftwareVersion = "kbf", "1"
	resp, err := cl.SeedBrokers()[0].Request(ctx, req)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("it takes connections but answered no Kafka request within %v: is it a Kafka listener, speaking the security.protocol kbf speaks (%s)?", timeout, protocol(sec))
	case err != nil:
		return sec.Explain(addr, err)
	}
	return kerr.ErrorForCode(resp.(*kmsg.ApiVersionsResponse).ErrorCode)
}

// protocol is the security protocol sec speaks.
func protocol(sec *kafkasec.Config) string {
	if sec == nil || sec.Protocol == "" {
		return kafkasec.Plaintext
	}
	return sec.Protocol
}

// Close closes the clients.
func (t *Cluster) Close() error {
	t.cl.Close()
	if t.admin != nil {
		t.admin.Close()
	}
	return nil
}

func name(id int32) string { return strconv.Itoa(int(id)) }

// Brokers maps each broker's name, its node id, to its node id.
func (t *Cluster) Brokers() map[string]int32 {
	m := make(map[string]int32, len(t.brokers))
	for _, b := range t.brokers {
		m[name(b.ID)] = b.ID
	}
	return m
}

// Services names the brokers, then the dedicated controllers.
func (t *Cluster) Services() []string {
	var s []string
	for _, b := range t.brokers {
		s = append(s, name(b.ID))
	}
	for _, id := range t.controllers {
		s = append(s, name(id))
	}
	return s
}

// Bootstrap is the brokers' advertised addresses.
func (t *Cluster) Bootstrap() []string { return t.admin.Bootstrap() }

// Image is unknown: kbf did not start the cluster.
func (t *Cluster) Image() string { return "" }

// KafkaVersion is not asked of a remote cluster: its brokers tell their
// protocol versions only.
func (t *Cluster) KafkaVersion(context.Context) (string, error) {
	return "", errors.New("a remote cluster's brokers do not tell their release")
}

// NodeConfigs reads back each broker's configuration in effect.
func (t *Cluster) NodeConfigs(ctx context.Context) (map[string]map[string]string, error) {
	byID, err := t.admin.BrokerConfigs(ctx)
	out := make(map[string]map[string]string, len(byID))
	for id, cfg := range byID {
		out[name(id)] = cfg
	}
	return out, err
}

// CPUTimes is unknown: the nodes run elsewhere.
func (t *Cluster) CPUTimes(context.Context) (map[string]time.Duration, error) { return nil, nil }

// Supports accepts the external fault only: kbf has no hand on a remote
// cluster's nodes.
func (t *Cluster) Supports(kind results.FaultKind, _ string) error {
	if kind != results.FaultExternal {
		return cluster.Unsupportedf("fault %s: kbf cannot inject into a cluster it reaches by --bootstrap; give --fault external and break it yourself", kind)
	}
	return nil
}

// Quorum is nil: the controller faults are not kbf's to make here.
func (t *Cluster) Quorum() cluster.Quorum { return nil }

// Observer is the target itself: its brokers' metadata dates a fault made
// by something else (View).
func (t *Cluster) Observer() cluster.Observer { return t }

// Identify checks nothing: the user named the addresses, and whoever
// answers there is the cluster.
func (t *Cluster) Identify(context.Context) error { return nil }

// Inject refuses: Supports has already.
func (t *Cluster) Inject(_ context.Context, f cluster.Fault) (results.Fault, error) {
	return results.Fault{}, t.Supports(f.Kind, f.Broker)
}

// Restart does nothing: kbf stopped nothing.
func (t *Cluster) Restart(context.Context, string) error { return cluster.ErrAlreadyRunning }

// CollectLogs copies the files of the node's folder under Options.Logs
// into dst, or writes there what Options.LogsCommand prints for the node;
// ErrNoLogs without either.
func (t *Cluster) CollectLogs(ctx context.Context, service string, since time.Time, dst string) error {
	if t.opts.LogsCommand != "" {
		id, err := strconv.ParseInt(service, 10, 32)
		if err != nil {
			return fmt.Errorf("node %q: not a node id", service)
		}
		return runLogsCommand(ctx, logsRun{cmd: t.opts.LogsCommand, dir: t.opts.Dir, timeout: t.opts.LogsTimeout}, int32(id), t.host(int32(id)), since, dst)
	}
	if t.opts.Logs == "" {
		return ErrNoLogs
	}
	src := filepath.Join(t.opts.Logs, service)
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// host is the host broker id advertises; "" for a node that is not a
// broker the metadata names.
func (t *Cluster) host(id int32) string {
	for _, b := range t.brokers {
		if b.ID == id {
			if h, _, err := net.SplitHostPort(b.Addr); err == nil {
				return h
			}
		}
	}
	return ""
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	mw := results.MaskWriter(out) // no secret a node logged is kept
	if _, err := io.Copy(mw, in); err != nil {
		out.Close()
		return err
	}
	if err := mw.Close(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// View is the cluster's view now: its registered brokers (fenced ones
// too, from Kafka 4) and topic's partitions, asked of any broker.
func (t *Cluster) View(ctx context.Context, topic string) (cluster.View, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	type answer struct {
		id  int32
		v   cluster.View
		err error
	}
	answers := make(chan answer, len(t.brokers))
	for _, b := range t.brokers {
		go func() {
			v, err := t.viewFrom(ctx, t.cl.Broker(int(b.ID)), topic)
			answers <- answer{b.ID, v, err}
		}()
	}
	var (
		got    []answer
		silent []int32
		errs   []error
	)
	for range t.brokers {
		a := <-answers
		if a.err != nil {
			silent = append(silent, a.id)
			errs = append(errs, fmt.Errorf("broker %d: %w", a.id, a.err))
			continue
		}
		got = append(got, a)
	}
	if len(got) == 0 {
		return cluster.View{}, errors.Join(errs...)
	}
	// The lowest id that answered: the same broker's view each time while
	// it answers, so that brokers applying a change at different moments
	// do not read as changes back and forth.
	best := slices.MinFunc(got, func(a, b answer) int { return cmp.Compare(a.id, b.id) })
	slices.Sort(silent)
	best.v.Silent = silent
	return best.v, nil
}

// viewFrom is the view of the one broker b: its DescribeCluster (fenced
// brokers too) and its metadata of topic.
func (t *Cluster) viewFrom(ctx context.Context, b *kgo.Broker, topic string) (cluster.View, error) {
	dc := kmsg.NewPtrDescribeClusterRequest()
	dc.IncludeFencedBrokers = true
	dresp, err := dc.RequestWith(ctx, b)
	if err == nil {
		err = kerr.ErrorForCode(dresp.ErrorCode)
	}
	if err != nil {
		return cluster.View{}, fmt.Errorf("describe cluster: %w", err)
	}
	md := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	md.Topics = []kmsg.MetadataRequestTopic{rt}
	mresp, err := md.RequestWith(ctx, b)
	if err != nil {
		return cluster.View{}, fmt.Errorf("metadata: %w", err)
	}
	return viewOf(time.Now(), dresp, mresp), nil
}

// viewOf is the view the two answers give: a broker in DescribeCluster but
// absent from the metadata's brokers counts as gone too, as an older Kafka
// lists no fenced broker.
func viewOf(at time.Time, dc *kmsg.DescribeClusterResponse, md *kmsg.MetadataResponse) cluster.View {
	v := cluster.View{At: at, Brokers: map[int32]bool{}}
	inMetadata := map[int32]bool{}
	for _, b := range md.Brokers {
		inMetadata[b.NodeID] = true
	}
	for _, b := range dc.Brokers {
		if inMetadata[b.NodeID] || b.IsFenced {
			v.Brokers[b.NodeID] = b.IsFenced
		}
	}
	for _, tp := range md.Topics {
		for _, p := range tp.Partitions {
			v.Partitions = append(v.Partitions, cluster.Partition{Partition: p.Partition, Leader: p.Leader, Replicas: p.Replicas, ISR: p.ISR})
		}
	}
	slices.SortFunc(v.Partitions, func(a, b cluster.Partition) int { return int(a.Partition) - int(b.Partition) })
	return v
}
