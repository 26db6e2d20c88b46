package results

// The group reader (kbf run --consumer group) reads the probed topic in a
// consumer group beside the probe's own reader, and commits what it read.
// It writes two files.
//
// The group CSV (group.csv) has a header row and one row per probe record
// the group reader processed, in the order it polled them; a record read
// again (after a rebalance, from the last committed offset) has a row each
// time:
//
//	partition,offset,seq,processed
//	0,1042,0,2026-11-30T03:26:09.086500000Z
//
//	partition  Kafka partition number
//	offset     the record's offset
//	seq        the probe's sequence number within the partition (probe.csv)
//	processed  when the group reader's poll returned it
//
// The group events CSV (group-events.csv, groupevents.go) records the
// reader's commits and assignment changes. Times are RFC 3339 in UTC with
// nine fractional digits. Both files came within format version 2: a
// reader that does not know them ignores them.

import (
	"io"
	"time"
)

// The group reader's files.
const (
	GroupFile       = "group.csv"        // GroupRecord rows
	GroupEventsFile = "group-events.csv" // GroupEvent rows
)

// The group reader's settings, as meta.json records them (GroupSettings)
// and kbf run's flags spell them.
const (
	// ConsumerAssign is the probe's own reader alone: it assigns itself
	// the partitions, with no group and no commits. ConsumerGroup adds a
	// group reader beside it.
	ConsumerAssign = "assign"
	ConsumerGroup  = "group"
	// GroupProtocolClassic is the classic group protocol (JoinGroup,
	// SyncGroup, the client's balancer); GroupProtocolConsumer is KIP-848's,
	// the broker's coordinator assigning the partitions.
	GroupProtocolClassic  = "classic"
	GroupProtocolConsumer = "consumer"
	// CommitSync commits after every poll and polls again only once the
	// commit has answered; CommitAsync commits after every poll without
	// waiting; CommitInterval leaves commits to the client's autocommit,
	// every GroupSettings.AutoCommitInterval.
	CommitSync     = "sync"
	CommitAsync    = "async"
	CommitInterval = "interval"
)

// GroupSettings are the group reader's settings in meta.json's probe
// section: nil when there was none.
type GroupSettings struct {
	// ID is the group's id, unique to the run.
	ID       string `json:"id"`
	Protocol string `json:"protocol"` // GroupProtocolClassic or GroupProtocolConsumer
	Commit   string `json:"commit"`   // CommitSync, CommitAsync or CommitInterval
	// Balancer is the client's balancer (classic) or the broker's assignor
	// it asks for (consumer).
	Balancer string `json:"balancer,omitempty"`
	// AutoCommitInterval is the time between two autocommits, for
	// CommitInterval.
	AutoCommitInterval time.Duration `json:"auto_commit_interval_ns,omitempty"`
}

var groupFormat = rowFormat[GroupRecord, GroupDecoder]{cols: []column[GroupRecord, GroupDecoder]{
	partitionColumn(func(r *GroupRecord) *int32 { return &r.Partition }, groupScope),
	countColumn[GroupRecord, GroupDecoder]("offset", func(r *GroupRecord) *int64 { return &r.Offset }),
	countColumn[GroupRecord, GroupDecoder]("seq", func(r *GroupRecord) *int64 { return &r.Seq }),
	timeColumn("processed", func(r *GroupRecord) *time.Time { return &r.Processed }, groupScope, true),
}}

func groupScope(d *GroupDecoder) Scope { return d.Scope }

// GroupRecord is one probe record the group reader processed.
type GroupRecord struct {
	Partition int32
	Offset    int64
	Seq       int64
	Processed time.Time
}

// GroupEncoder writes the group CSV.
type GroupEncoder = RowEncoder[GroupRecord]

// NewGroupEncoder returns a GroupEncoder writing to w.
func NewGroupEncoder(w io.Writer) *GroupEncoder { return groupFormat.encoder(w) }

// GroupDecoder reads the group CSV.
type GroupDecoder struct {
	lr *lineReader
	// Scope bounds the rows' partitions and times; the zero Scope only
	// the plausible range.
	Scope Scope
}

// NewGroupDecoder returns a GroupDecoder reading r; file names r in errors.
func NewGroupDecoder(r io.Reader, file string) *GroupDecoder {
	return &GroupDecoder{lr: groupFormat.reader(r, file)}
}

// Decode reads the next row; io.EOF after the last.
func (d *GroupDecoder) Decode(r *GroupRecord) error { return groupFormat.decode(d.lr, d, r) }
