package results

// The group events CSV (group-events.csv) has a header row and one row per
// commit and per change of the reader's assignment, in the order they
// ended:
//
//	time,kind,start,generation,partitions,offsets,error
//	2026-11-30T03:26:09.090000000Z,assigned,,1,0 1 2,,
//	2026-11-30T03:26:09.095000000Z,commit,2026-11-30T03:26:09.087000000Z,1,,0:1043 1:1040,
//	2026-11-30T03:26:18.500000000Z,commit,2026-11-30T03:26:09.300000000Z,1,,0:1050,NOT_COORDINATOR: ...
//
//	time        a commit's end (its answer, or its error); when an
//	            assignment change's callback ran
//	kind        commit, assigned, revoked or lost (GroupEventKind)
//	start       when a commit was issued; empty for an autocommit (the
//	            client starts those itself: only their end is seen) and for
//	            an assignment change
//	generation  the group's generation (classic protocol) or the member's
//	            epoch (consumer protocol, KIP-848) the client held; -1 when
//	            it held none
//	partitions  an assignment change's partitions, separated by spaces
//	offsets     a commit's offsets, partition:offset separated by spaces:
//	            the next offset to read, as Kafka commits it
//	error       why the commit failed (its request's error, or a
//	            partition's, "partition N: ERROR"); empty on success
//
// Times are RFC 3339 in UTC with nine fractional digits.

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// GroupEventKind is what a group event row records.
type GroupEventKind string

// The kinds of group event.
const (
	GroupCommit   GroupEventKind = "commit"
	GroupAssigned GroupEventKind = "assigned" // partitions given to the reader
	GroupRevoked  GroupEventKind = "revoked"  // partitions taken from it in a rebalance
	GroupLost     GroupEventKind = "lost"     // partitions it lost with its membership
)

func (k GroupEventKind) known() bool {
	return k == GroupCommit || k == GroupAssigned || k == GroupRevoked || k == GroupLost
}

// PartitionOffset is one partition's committed offset.
type PartitionOffset struct {
	Partition int32
	Offset    int64
}

// GroupEvent is one commit, or one change of the group reader's
// assignment.
type GroupEvent struct {
	Time time.Time
	Kind GroupEventKind
	// Start is when a commit was issued; zero for an autocommit and an
	// assignment change.
	Start      time.Time
	Generation int32 // -1 when the client held none
	// Partitions are an assignment change's, in order.
	Partitions []int32
	// Offsets are a commit's, by partition in order.
	Offsets []PartitionOffset
	Err     string
}

// Failed reports whether the event is a commit that failed.
func (e *GroupEvent) Failed() bool { return e.Kind == GroupCommit && e.Err != "" }

var groupEventsFormat = rowFormat[GroupEvent, GroupEventDecoder]{cols: []column[GroupEvent, GroupEventDecoder]{
	timeColumn("time", func(ev *GroupEvent) *time.Time { return &ev.Time }, groupEventsScope, true),
	{"kind", func(ev *GroupEvent) string { return string(ev.Kind) },
		func(_ *GroupEventDecoder, ev *GroupEvent, f []byte) error {
			if ev.Kind = GroupEventKind(f); !ev.Kind.known() {
				return fmt.Errorf("%s: want commit, assigned, revoked or lost", Excerpt(string(f)))
			}
			return nil
		}},
	{"start", func(ev *GroupEvent) string { return formatTime(ev.Start) }, (*GroupEventDecoder).start},
	{"generation", func(ev *GroupEvent) string { return strconv.FormatInt(int64(ev.Generation), 10) },
		func(_ *GroupEventDecoder, ev *GroupEvent, f []byte) error {
			g, err := parseInt(f, 32)
			if err != nil || g < -1 {
				return errors.New("not a generation")
			}
			ev.Generation = int32(g)
			return nil
		}},
	{"partitions", func(ev *GroupEvent) string { return joinNodes(slices.Sorted(slices.Values(ev.Partitions))) },
		(*GroupEventDecoder).partitions},
	{"offsets", func(ev *GroupEvent) string { return formatOffsets(ev.Offsets) }, (*GroupEventDecoder).offsets},
	errorColumn[GroupEvent, GroupEventDecoder](func(ev *GroupEvent) *string { return &ev.Err }),
}}

func groupEventsScope(d *GroupEventDecoder) Scope { return d.Scope }

// GroupEventEncoder writes the group events CSV. A row's partitions and
// offsets are written in partition order.
type GroupEventEncoder = RowEncoder[GroupEvent]

// NewGroupEventEncoder returns a GroupEventEncoder writing to w.
func NewGroupEventEncoder(w io.Writer) *GroupEventEncoder { return groupEventsFormat.encoder(w) }

// formatOffsets writes a commit's offsets in partition order.
func formatOffsets(offsets []PartitionOffset) string {
	return joinByPartition(offsets, offsetPartition, func(b *strings.Builder, o PartitionOffset) {
		fmt.Fprintf(b, "%d:%d", o.Partition, o.Offset)
	})
}

func offsetPartition(o PartitionOffset) int32 { return o.Partition }

// GroupEventDecoder reads the group events CSV.
type GroupEventDecoder struct {
	lr *lineReader
	// Scope bounds the rows' partitions and times; the zero Scope only
	// the plausible range.
	Scope Scope
}

// NewGroupEventDecoder returns a GroupEventDecoder reading r; file names r
// in errors.
func NewGroupEventDecoder(r io.Reader, file string) *GroupEventDecoder {
	return &GroupEventDecoder{lr: groupEventsFormat.reader(r, file)}
}

// Decode reads the next row; io.EOF after the last.
func (d *GroupEventDecoder) Decode(ev *GroupEvent) error {
	return groupEventsFormat.decode(d.lr, d, ev)
}

// start reads when a commit was issued: empty for anything else, and at
// or before the commit's end.
func (d *GroupEventDecoder) start(ev *GroupEvent, f []byte) (err error) {
	if ev.Start, err = d.Scope.time(f, false); err != nil {
		return err
	}
	if !ev.Start.IsZero() && (ev.Kind != GroupCommit || ev.Start.After(ev.Time)) {
		return errors.New("a start only a commit has, at or before its time")
	}
	return nil
}

// partitions reads an assignment change's partitions.
func (d *GroupEventDecoder) partitions(ev *GroupEvent, f []byte) (err error) {
	if ev.Partitions, err = splitNodes(string(f)); err != nil {
		return errors.New("not a list of partitions separated by spaces")
	}
	if ev.Kind == GroupCommit && len(ev.Partitions) > 0 {
		return errors.New("a commit lists its partitions in offsets")
	}
	return d.Scope.partitions(ev.Partitions...)
}

// offsets reads a commit's offsets.
func (d *GroupEventDecoder) offsets(ev *GroupEvent, f []byte) (err error) {
	if ev.Offsets, err = parseOffsets(string(f)); err != nil {
		return err
	}
	for _, o := range ev.Offsets {
		if err := d.Scope.partition(o.Partition); err != nil {
			return err
		}
	}
	if ev.Kind != GroupCommit && len(ev.Offsets) > 0 {
		return errors.New("offsets only a commit has")
	}
	return nil
}

// parseOffsets parses "0:1043 1:1040", partitions in increasing order.
func parseOffsets(s string) ([]PartitionOffset, error) {
	return splitByPartition(s, offsetPartition, func(f string) (PartitionOffset, error) {
		p, o, ok := strings.Cut(f, ":")
		pn, err1 := strconv.ParseInt(p, 10, 32)
		on, err2 := strconv.ParseInt(o, 10, 64)
		if !ok || err1 != nil || err2 != nil || pn < 0 || on < 0 {
			return PartitionOffset{}, fmt.Errorf("not partition:offset pairs separated by spaces: %s", Excerpt(f))
		}
		return PartitionOffset{Partition: int32(pn), Offset: on}, nil
	})
}
