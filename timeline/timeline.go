// Package timeline reads a trial's logs — controller.log, each broker's
// state-change.log and server.log, the controllers' server.log with their
// states in the KRaft quorum, the probe clients' client.log — and the fault
// record, and produces typed events merged in time order.
//
// Only what the report needs is kept: a fixed set of Kafka messages (the
// rules table in rules.go, each with the Kafka source it comes from), the
// franz-go leader changes in client.log, the fault's own times, and, apart
// in Timeline.Client, the client's own facts that explain a stall (its
// produce and metadata requests, retries and refreshes). Every other line is
// skipped. client.log is read through results' decoder, its format's one
// owner. The package reads files only; it needs neither
// Docker nor a Kafka client, so a trial can be re-read years later.
package timeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kbf-project/kbf/results"
)

// NodeKBF is the node of the events kbf itself recorded (the signal sent).
const NodeKBF = "kbf"

// Sources names what a timeline is built from.
type Sources struct {
	// Nodes maps a node's name (c1, k1, ...) to its log files, each base
	// name's rotated files before the current one. A listed file that does
	// not exist is reported in Timeline.Missing, not as an error.
	Nodes map[string][]string
	// NodeIDs maps a node's name to its Kafka node id, for messages about
	// the node that logged them that do not name it.
	NodeIDs map[string]int32
	// ClientLog is the probe's client.log; "" when there is none to read.
	ClientLog string
	// Fault is the injected fault; nil when there was none.
	Fault *results.Fault
	// Topics, when set, keeps the partition events of these topics only.
	Topics []string
}

// Options narrow a timeline.
type Options struct {
	// From and To bound the events' times, both inclusive; a zero time
	// leaves that side open.
	From, To time.Time
	// ClientFrom and ClientTo bound the client facts kept in
	// Timeline.Client the same way: a report needs those around the fault
	// only, and a long run's client.log holds many.
	ClientFrom, ClientTo time.Time
}

// Timeline is a trial's events in time order. Events at the same time keep
// the order of their sources: the fault record, then the nodes by name (each
// node's files in the order given, each file in line order), then client.log.
type Timeline struct {
	Fault  *results.Fault
	Events []Event
	// Client are the client's own facts (Kind.ClientFact) in time order:
	// its requests, retries and metadata refreshes, which explain a stall
	// but are not drawn or listed as the timeline.
	Client []Event
	// Internal are the partition events of Kafka's internal topics
	// (internalTopics: the coordinators' partitions, their leaders, ISRs and
	// loads) in time order, when the timeline keeps the probe's topics
	// only: a coordinator's recovery reads them, but they are not drawn or
	// listed as the timeline.
	Internal []Event
	// Missing lists expected files that were absent, as "c1 controller.log"
	// or "client.log".
	Missing []string
	// Unparsed counts lines that could not be read: a timestamp that does
	// not parse, a stray continuation line, a recognised message whose
	// numbers do not parse.
	Unparsed int
	// Damaged lists the logs that are not text (binary, or not UTF-8),
	// as "client.log: binary (a NUL byte in its first 8 KiB)": none of
	// their lines is read, so nothing is explained from them.
	Damaged []string
	// Dated counts, per node log file, the events Options.From and To
	// kept and left out: a file whose events fall after the trial's end,
	// or none within it, has a clock or dates that are off, and its lines
	// must not be cited.
	Dated []Dated
}

// Dated is what Build kept of one node log file's events by their times.
type Dated struct {
	// File is the file as events cite it: "k2/state-change.log".
	File string
	// Kept counts the events within [From, To]; Before and After those
	// left out on either side, the earliest of them at First and the
	// latest at Last (zero when none was left out).
	Kept, Before, After int
	First, Last         time.Time
}

// FromDir returns the sources of the trial in dir, laid out as the results
// package writes it: logs/<node>/{server,controller,state-change}.log with
// their rotated files, client.log and meta.json's fault. Node names are the
// directory names under logs/ and the nodes meta names. A broker (a node in
// meta.Cluster.Brokers, or the faulted node of a broker's fault) is expected
// to have server.log and state-change.log, any other node server.log and
// controller.log; an expected file that is
// absent is listed, so Build reports it. The probe's topic, when meta names
// one, becomes Topics. meta may be nil.
func FromDir(dir string, meta *results.Meta) (Sources, error) {
	src := Sources{
		Nodes:     map[string][]string{},
		NodeIDs:   map[string]int32{},
		ClientLog: filepath.Join(dir, results.ClientLog),
	}
	brokers := map[string]bool{}
	if meta != nil {
		src.Fault = meta.Fault
		if meta.Probe.Topic != "" {
			src.Topics = []string{meta.Probe.Topic}
		}
		for name, id := range meta.Cluster.Brokers {
			src.NodeIDs[name] = id
			brokers[name] = true
		}
		if f := meta.Fault; f != nil && f.Broker != "" {
			src.NodeIDs[f.Broker] = f.NodeID
			// A controller fault's node is the active controller: it
			// keeps a controller's logs, not a broker's.
			if !f.Kind.Controller() {
				brokers[f.Broker] = true
			}
		}
	}
	logs := filepath.Join(dir, results.NodeLogsDir)
	nodes := map[string]bool{}
	for name := range src.NodeIDs { // the nodes meta names
		nodes[name] = true
	}
	ents, err := os.ReadDir(logs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Sources{}, fmt.Errorf("list node logs: %w", err)
	}
	for _, e := range ents {
		if e.IsDir() {
			nodes[e.Name()] = true
		}
	}
	for node := range nodes {
		want := []string{results.ServerLog, results.ControllerLog}
		if brokers[node] {
			want = []string{results.ServerLog, results.StateChangeLog}
		}
		files, err := nodeFiles(filepath.Join(logs, node), want)
		if err != nil {
			return Sources{}, err
		}
		src.Nodes[node] = files
	}
	return src, nil
}

// nodeFiles lists one node's log files: for each base name, its rotated
// files in name order, then the current file. A base in want is listed even
// when absent.
func nodeFiles(dir string, want []string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list node logs: %w", err)
	}
	var files []string
	for _, base := range results.NodeLogs() {
		var rotated []string
		current := false
		for _, e := range ents {
			switch name := e.Name(); {
			case e.IsDir():
			case name == base:
				current = true
			case strings.HasPrefix(name, base+"."):
				rotated = append(rotated, name)
			}
		}
		sort.Strings(rotated)
		for _, name := range rotated {
			files = append(files, filepath.Join(dir, name))
		}
		if current || contains(want, base) {
			files = append(files, filepath.Join(dir, base))
		}
	}
	return files, nil
}

// Build reads the sources and returns their events in time order. An absent
// file is reported in Missing; a file that exists but cannot be read is an
// error naming it.
func Build(src Sources, opt Options) (*Timeline, error) {
	return BuildContext(context.Background(), src, opt)
}

// BuildContext is Build, stopping with ctx's error once ctx is done: a
// node's log can be hundreds of megabytes, and Ctrl-C must not wait for
// it to be read.
func BuildContext(ctx context.Context, src Sources, opt Options) (*Timeline, error) {
	tl := &Timeline{Fault: src.Fault}
	var events []Event
	add := func(e Event) { events = append(events, e) }
	faultEvents(src.Fault, add)

	nodes := make([]string, 0, len(src.Nodes))
	for node := range src.Nodes {
		nodes = append(nodes, node)
	}
	sort.Strings(nodes)
	for _, node := range nodes {
		id, ok := src.NodeIDs[node]
		if !ok {
			id = None
		}
		for _, path := range src.Nodes[node] {
			name := node + "/" + filepath.Base(path)
			n, missing, err := readFile(ctx, path, func(r io.Reader) (int, error) {
				return parseText(r, name, &tl.Damaged, func(r io.Reader) (int, error) {
					return parseKafkaLog(r, node, name, id, add)
				})
			})
			if err != nil {
				return nil, fmt.Errorf("%s log: %w", node, err)
			}
			if missing {
				tl.Missing = append(tl.Missing, node+" "+filepath.Base(path))
			}
			tl.Unparsed += n
		}
	}
	if src.ClientLog != "" {
		name := filepath.Base(src.ClientLog)
		n, missing, err := readFile(ctx, src.ClientLog, func(r io.Reader) (int, error) {
			return parseText(r, name, &tl.Damaged, func(r io.Reader) (int, error) {
				return parseClientLog(r, name, add)
			})
		})
		if err != nil {
			return nil, fmt.Errorf("client log: %w", err)
		}
		if missing {
			tl.Missing = append(tl.Missing, name)
		}
		tl.Unparsed += n
	}
	events = termFromFault(src.Fault, events)

	topics := map[string]bool{}
	for _, t := range src.Topics {
		topics[t] = true
	}
	tl.Events = []Event{}
	dated := map[string]*Dated{}
	for _, e := range events {
		if e.Topic != "" && len(topics) > 0 && !topics[e.Topic] {
			tl.keepInternal(e, opt)
			continue
		}
		from, to, dst := opt.From, opt.To, &tl.Events
		if e.Kind.ClientFact() {
			from, to, dst = opt.ClientFrom, opt.ClientTo, &tl.Client
		}
		var d *Dated
		if file := sourceFile(e.Source); file != "" && src.Nodes[e.Node] != nil {
			if d = dated[file]; d == nil {
				d = &Dated{File: file}
				dated[file] = d
			}
		}
		before, after := !from.IsZero() && e.Time.Before(from), !to.IsZero() && e.Time.After(to)
		if d != nil {
			d.count(e.Time, before, after)
		}
		if before || after {
			continue
		}
		*dst = append(*dst, e)
	}
	for _, file := range slices.Sorted(maps.Keys(dated)) {
		tl.Dated = append(tl.Dated, *dated[file])
	}
	sort.SliceStable(tl.Events, func(i, j int) bool { return tl.Events[i].Time.Before(tl.Events[j].Time) })
	sort.SliceStable(tl.Client, func(i, j int) bool { return tl.Client[i].Time.Before(tl.Client[j].Time) })
	sort.SliceStable(tl.Internal, func(i, j int) bool { return tl.Internal[i].Time.Before(tl.Internal[j].Time) })
	return tl, nil
}

// keepInternal keeps e, an event of a topic other than the timeline's, in
// Internal when it is one of Kafka's internal topics and within opt's
// times; it is not counted in Dated, being no event of the timeline's.
func (tl *Timeline) keepInternal(e Event, opt Options) {
	if !internalTopics[e.Topic] || (!opt.From.IsZero() && e.Time.Before(opt.From)) || (!opt.To.IsZero() && e.Time.After(opt.To)) {
		return
	}
	tl.Internal = append(tl.Internal, e)
}

// sourceFile is the file of an event's Source, "k2/state-change.log" of
// "k2/state-change.log:28"; "" for the fault record's.
func sourceFile(source string) string {
	i := strings.LastIndexByte(source, ':')
	if i < 0 || !strings.Contains(source[:i], "/") {
		return ""
	}
	return source[:i]
}

func (d *Dated) count(t time.Time, before, after bool) {
	switch {
	case before:
		d.Before++
	case after:
		d.After++
	default:
		d.Kept++
		return
	}
	if d.First.IsZero() || t.Before(d.First) {
		d.First = t
	}
	if t.After(d.Last) {
		d.Last = t
	}
}

// sniffSize is how much of a log parseText looks at to tell text.
const sniffSize = 8 << 10

// parseText parses r with parse when it is text; a log that is not (a NUL
// byte or bytes that are not UTF-8 in its first sniffSize) is listed in
// damaged by name and not parsed: a line read from it would be noise
// taken for evidence.
func parseText(r io.Reader, name string, damaged *[]string, parse func(io.Reader) (int, error)) (int, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return 0, err
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		*damaged = append(*damaged, fmt.Sprintf("%s: binary (a NUL byte at offset %d)", name, i))
		return 0, nil
	}
	// A rune cut by the end of the peek is not a fault of the file.
	if len(head) == sniffSize {
		for k := 0; k < utf8.UTFMax && len(head) > 0 && !utf8.Valid(head); k++ {
			head = head[:len(head)-1]
		}
	}
	if !utf8.Valid(head) {
		*damaged = append(*damaged, fmt.Sprintf("%s: not text (bytes that are not UTF-8 in its first %d KiB)", name, sniffSize>>10))
		return 0, nil
	}
	return parse(br)
}

// readFile opens path (gunzipping a .gz) and parses it, its reads failing
// with ctx's error once ctx is done. missing is true when the file does not
// exist.
func readFile(ctx context.Context, path string, parse func(io.Reader) (int, error)) (unparsed int, missing bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	var r io.Reader = results.ContextReader(ctx, f)
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return 0, false, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	n, err := parse(r)
	return n, false, err
}

// faultEvents turns the fault record into the signal's sending and the
// process's end, spelt as the signal it was: a roll's first stop is a
// SIGTERM.
func faultEvents(f *results.Fault, add func(Event)) {
	if f == nil {
		return
	}
	// What the fault did and when it began, read once from the record.
	sig, began := f.Signal(), f.At()
	if f.Kind == results.FaultExternal {
		// kbf sent nothing: its ready time is no event of the fault's,
		// which is dated by what kbf saw of it, each sign at its time.
		for i, s := range f.Signs {
			how := "then seen by the " + s.Source
			if i == 0 {
				how = "external fault, dated by the " + s.Source
			}
			add(metaEvent(s.At, NodeKBF, KindFaultSign, s.NodeID, fmt.Sprintf("%s: %s", how, s.What)))
		}
		return
	}
	if !f.SignalSent.IsZero() {
		add(metaEvent(f.SignalSent, NodeKBF, KindSignalSent, f.NodeID, fmt.Sprintf("sent %s to %s", sig, f.Broker)))
	}
	if !f.Paused.IsZero() {
		add(metaEvent(f.Paused, f.Broker, KindFrozen, f.NodeID, "frozen: every process paused by the engine"))
	}
	if !f.Finished.IsZero() {
		how := sig
		if f.Escalated {
			how += ", escalated to SIGKILL"
		}
		add(metaEvent(f.Finished, f.Broker, KindProcessEnded, f.NodeID, fmt.Sprintf("process ended (%s, exit %d)", how, f.ExitCode)))
	}
	if !f.Returned.IsZero() {
		add(metaEvent(f.Returned, f.Broker, KindReturned, f.NodeID,
			fmt.Sprintf("%s, %.2f s after it began (--return-after)", returnedHow(f.Kind), f.Returned.Sub(began).Seconds())))
	}
}

// returnedHow says how a fault of kind was undone while probing.
func returnedHow(kind results.FaultKind) string {
	switch {
	case kind.Freezes():
		return "thawed: every process running again"
	case kind == results.FaultCPUStarve:
		return "fed: the container's CPU given back"
	case kind == results.FaultPacketLoss:
		return "mended: no packet dropped any more"
	}
	return "healed: the cut undone"
}

// metaEvent is an event the fault record (meta.json) gives of broker.
func metaEvent(t time.Time, node string, kind Kind, broker int32, text string) Event {
	e := newEvent(t, node, kind)
	e.Broker = broker
	e.Text = text
	e.Source = results.MetaFile
	return e
}

// termFromFault adds the broker's SIGTERM line from an old fault record
// (results.Fault.LoggedSignal) when its server.log did not give it (the
// log is missing or was cut short).
func termFromFault(f *results.Fault, events []Event) []Event {
	if f == nil {
		return events
	}
	logged, ok := f.LoggedSignal()
	if !ok {
		return events
	}
	for _, e := range events {
		if e.Kind == KindSignalReceived && e.Node == f.Broker {
			if d := e.Time.Sub(logged); d > -time.Second && d < time.Second {
				return events
			}
		}
	}
	return append(events, metaEvent(logged, f.Broker, KindSignalReceived, f.NodeID, "Terminating process due to signal SIGTERM"))
}

// FaultAt is the fault's start as the analysis uses it: for a graceful
// stop (a sigterm, or a fault of several steps whose first step is one,
// results.Fault.Graceful) the broker's own "Terminating process due to
// signal SIGTERM" line, the first at or after the signal was sent (Kafka's
// log times have millisecond resolution, so from a millisecond before);
// otherwise, or when the broker's log does not have it, what the fault
// record says (results.Fault.At). Zero without a fault.
func (tl *Timeline) FaultAt() time.Time {
	f := tl.Fault
	if f == nil {
		return time.Time{}
	}
	if f.Graceful() {
		if e, ok := tl.First(f.SignalSent.Add(-time.Millisecond), OfKind(KindSignalReceived), OnNode(f.Broker)); ok {
			return e.Time
		}
	}
	return f.At()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
