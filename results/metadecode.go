package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"time"
)

// errBadMeta is reported, inside a located error, for a meta.json that
// parses as JSON but does not describe a run.
var errBadMeta = errors.New("not a valid kbf meta.json")

// maxMetaSize bounds what DecodeMeta reads: a real meta.json is a few KiB,
// and a device or a huge file given by mistake must not exhaust memory.
const maxMetaSize = 16 << 20

// Meta kinds.
const (
	KindProbe = "probe" // kbf probe: no fault
	KindTrial = "trial" // one trial of kbf run
	// KindIncident is one incident kbf watch found: a fault nobody
	// announced, recorded as an external fault's trial from a window
	// before its first sign to its recovery.
	KindIncident = "incident"
)

// metaFile is meta.json as it is read: the current fields and those only
// older format versions wrote.
type metaFile struct {
	Meta
	Fault *faultFile `json:"fault,omitempty"`
}

type faultFile struct {
	Fault
	TermLogged time.Time `json:"term_logged,omitzero"` // format version 1
}

// DecodeMeta reads one meta.json from r and validates it; file names it in
// errors. A JSON error is a *ParseError at its line and column; a value
// that cannot describe a run (null, {}, a format version below 1, an
// unknown kind, a fault with no times) is an error naming the field,
// wrapping errBadMeta; a newer format version wraps ErrNewerFormat.
func DecodeMeta(r io.Reader, file string) (*Meta, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxMetaSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(b) > maxMetaSize {
		return nil, fmt.Errorf("%s: larger than %d MiB: %w", file, maxMetaSize>>20, errBadMeta)
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: empty file: %w", file, errBadMeta)
	}
	var raw json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, jsonError(file, b, err)
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, fmt.Errorf("%s: null: want a JSON object: %w", file, errBadMeta)
	}
	var mf metaFile
	if err := json.Unmarshal(b, &mf); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			// A time's decoder says what is wrong, not where.
			if path, ferr := locateValueError(b, reflect.TypeFor[metaFile]()); path != "" {
				return nil, fmt.Errorf("%s: %s: %w: %w", file, path, ferr, errBadMeta)
			}
		}
		return nil, jsonError(file, b, err)
	}
	m := mf.Meta
	if mf.Fault != nil {
		f := mf.Fault.Fault
		f.termLogged = mf.Fault.TermLogged.UTC()
		if f.FirstStep == "" && f.Kind.MultiStep() && len(m.Steps) > 0 {
			// Written before kbf recorded it: the fault is its first
			// step (Meta.Steps), which says what was done.
			f.FirstStep = m.Steps[0].Action
		}
		m.Fault = &f
	}
	if err := checkTimes(reflect.ValueOf(m), ""); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", file, err, errBadMeta)
	}
	if err := m.validate(); err != nil {
		if errors.Is(err, ErrNewerFormat) {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, fmt.Errorf("%s: %w: %w", file, err, errBadMeta)
	}
	m.maskSecrets()
	return &m, nil
}

// jsonError locates a JSON decoding error by line and column.
func jsonError(file string, b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offset after the byte at fault
	case errors.As(err, &te):
		off = te.Offset
		if te.Field != "" {
			err = fmt.Errorf("%s: %s where %s was wanted", jsonField(te.Field), te.Value, te.Type)
		}
	}
	if off < 0 || off > int64(len(b)) {
		return fmt.Errorf("%s: %w", file, err)
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &ParseError{File: file, Line: line, Column: col, Err: err}
}

// validate checks what every reader of a Meta relies on.
func (m *Meta) validate() error {
	switch v := m.FormatVersion; {
	case v <= 0:
		return fmt.Errorf("format_version %d: want 1 to %d", v, FormatVersion)
	case v > FormatVersion:
		return fmt.Errorf("format version %d: %w (this one reads up to %d)", v, ErrNewerFormat, FormatVersion)
	}
	if m.Kind != KindProbe && m.Kind != KindTrial && m.Kind != KindIncident {
		return fmt.Errorf("kind %s: want %q, %q or %q", excerpt(m.Kind), KindProbe, KindTrial, KindIncident)
	}
	if m.Started.IsZero() {
		return errors.New("started: no time")
	}
	if !m.Ended.IsZero() && m.Ended.Before(m.Started) {
		return fmt.Errorf("ended %s is before started %s", m.Ended.Format(time.RFC3339Nano), m.Started.Format(time.RFC3339Nano))
	}
	if m.Probe.Interval < 0 {
		return fmt.Errorf("probe.interval_ns %d: negative", m.Probe.Interval)
	}
	for _, p := range m.Probe.Partitions {
		if p < 0 {
			return fmt.Errorf("probe.partitions: %d is negative", p)
		}
	}
	if err := m.validateSettings(); err != nil {
		return err
	}
	if f := m.Fault; f != nil {
		if f.Broker == "" {
			return errors.New("fault.broker: empty")
		}
		if !f.Kind.Known() {
			return fmt.Errorf("fault.kind %s: want one of %v", excerpt(string(f.Kind)), FaultKinds())
		}
		if f.SignalSent.IsZero() {
			return errors.New("fault.signal_sent: no time: a fault needs at least the time kbf signalled the broker")
		}
		if err := f.validateChoice(); err != nil {
			return err
		}
	}
	return nil
}

// validateChoice checks how the fault's broker was chosen: a role kbf
// knows, and the coordinator found for it, which is the faulted broker.
func (f *Fault) validateChoice() error {
	for _, c := range []struct {
		field string
		kind  CoordinatorKind
		c     *Coordinator
	}{{"group_coordinator", CoordinatorGroup, f.GroupCoordinator}, {"txn_coordinator", CoordinatorTransaction, f.TxnCoordinator}} {
		if err := c.c.validate(c.field, c.kind); err != nil {
			return err
		}
	}
	switch f.ChosenAs {
	case "":
	case ChosenGroupCoordinator:
		if !f.GroupCoordinator.Found() || f.GroupCoordinator.NodeID != f.NodeID {
			return fmt.Errorf("fault.chosen_as %q: the group's coordinator found (fault.group_coordinator) is not the faulted node %d", f.ChosenAs, f.NodeID)
		}
	case ChosenTxnCoordinator:
		if !f.TxnCoordinator.Found() || f.TxnCoordinator.NodeID != f.NodeID {
			return fmt.Errorf("fault.chosen_as %q: the transactional id's coordinator found (fault.txn_coordinator) is not the faulted node %d", f.ChosenAs, f.NodeID)
		}
	default:
		return fmt.Errorf("fault.chosen_as %s: want %q or %q", excerpt(string(f.ChosenAs)), ChosenGroupCoordinator, ChosenTxnCoordinator)
	}
	return nil
}

// validate checks a coordinator recorded as fault.FIELD, of kind; nil is
// none recorded.
func (c *Coordinator) validate(field string, kind CoordinatorKind) error {
	if c == nil {
		return nil
	}
	switch {
	case c.Kind != kind:
		return fmt.Errorf("fault.%s.kind %s: want %q", field, excerpt(string(c.Kind)), kind)
	case c.Key == "":
		return fmt.Errorf("fault.%s.key: empty", field)
	case c.NodeID < -1:
		return fmt.Errorf("fault.%s.node_id %d: want a node id, or -1 for none found", field, c.NodeID)
	case c.NodeID == -1 && c.Err == "":
		return fmt.Errorf("fault.%s: no node and no error", field)
	case c.At.IsZero():
		return fmt.Errorf("fault.%s.at: no time", field)
	}
	return nil
}

// validateSettings checks the group reader's, the transactional
// producer's and the load's settings as the fault's kind is: a value kbf
// does not know, or a count or rate no run can have, is not printed as a
// fact.
func (m *Meta) validateSettings() error {
	if g := m.Probe.Group; g != nil {
		switch {
		case g.ID == "":
			return errors.New("probe.group.id: empty")
		case g.Protocol != GroupProtocolClassic && g.Protocol != GroupProtocolConsumer:
			return fmt.Errorf("probe.group.protocol %s: want %q or %q", excerpt(g.Protocol), GroupProtocolClassic, GroupProtocolConsumer)
		case g.Commit != CommitSync && g.Commit != CommitAsync && g.Commit != CommitInterval:
			return fmt.Errorf("probe.group.commit %s: want %q, %q or %q", excerpt(g.Commit), CommitSync, CommitAsync, CommitInterval)
		case g.AutoCommitInterval < 0 || g.Commit == CommitInterval && g.AutoCommitInterval == 0:
			return fmt.Errorf("probe.group.auto_commit_interval_ns %d: want a positive interval with commit %q, none otherwise", g.AutoCommitInterval, CommitInterval)
		}
	}
	if x := m.Probe.Txn; x != nil {
		switch {
		case x.ID == "":
			return errors.New("probe.transactions.id: empty")
		case x.Records < 1:
			return fmt.Errorf("probe.transactions.records %d: want at least 1", x.Records)
		case x.Interval <= 0:
			return fmt.Errorf("probe.transactions.interval_ns %d: want a positive interval", x.Interval)
		case x.Timeout < 0:
			return fmt.Errorf("probe.transactions.timeout_ns %d: negative", x.Timeout)
		case x.Isolation != "read_committed":
			return fmt.Errorf("probe.transactions.isolation %s: want \"read_committed\"", excerpt(x.Isolation))
		}
	}
	if l := m.Load; l != nil {
		switch {
		case l.Topic == "":
			return errors.New("load.topic: empty")
		case !(l.Rate > 0) || math.IsInf(l.Rate, 0):
			return fmt.Errorf("load.rate_per_s %v: want a positive rate", l.Rate)
		case l.Size < 1:
			return fmt.Errorf("load.record_bytes %d: want at least 1", l.Size)
		case l.Partitions < 0 || l.Replication < 0:
			return fmt.Errorf("load.partitions %d, load.replication_factor %d: negative", l.Partitions, l.Replication)
		}
	}
	return nil
}
