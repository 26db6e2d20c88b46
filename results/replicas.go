package results

// The replica view (replicas.csv) is what kbf saw of each probed partition's
// replicas while it probed: a header row, then one row per answer, in the
// order the answers came back:
//
//	time,partition,broker,leo,hw,leader,leader_epoch,isr,elr,last_known_elr,error
//	2026-11-30T03:26:09.100000000Z,0,1,1042,1040,,,,,,
//	2026-11-30T03:26:09.101000000Z,0,2,1041,,,,,,,
//	2026-11-30T03:26:09.102000000Z,0,,,,1,0,1 2 3,,,
//	2026-11-30T03:26:09.200000000Z,0,3,,,,,,,,timed out
//
// There are two kinds of row. A broker row (broker set) is one broker's
// ListOffsets answer for its own replica of the partition:
//
//	broker     the broker asked, by node id
//	leo        that replica's log end offset (asked with the debugging
//	           replica id -2, which every replica serves, leader or not)
//	hw         the high watermark, set only when the broker answered as the
//	           partition's leader (the latest offset a consumer may read);
//	           while the partition has no leader (leader -1) no broker does,
//	           so the HW is unknown and empty, while the replicas' LEOs go on
//	error      why the broker gave no answer (timed out, refused), or why
//	           a replica of the partition gave none for it (its log not
//	           loaded yet); empty on success
//
// A state row (broker empty) is the cluster's view of the partition, from
// DescribeTopicPartitions:
//
//	leader          the leader's node id, -1 when there is none
//	leader_epoch    the leader epoch
//	isr             the in-sync replicas, node ids separated by spaces
//	elr             the eligible leader replicas (KIP-966)
//	last_known_elr  the last known eligible leader replicas
//	error           the request's or the partition's error; empty on success
//
// time is when the answer arrived: RFC 3339 in UTC with nine fractional
// digits, like every time in a trial directory.

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// ReplicasFile holds the replica view, ReplicaSample rows.
const ReplicasFile = "replicas.csv"

// replicasFormat maps both kinds of row: a broker row's columns are read
// and written for a broker row only (leo, hw), a state row's for a state
// row only.
var replicasFormat = rowFormat[ReplicaSample, ReplicaDecoder]{
	cols: []column[ReplicaSample, ReplicaDecoder]{
		{"time", func(s *ReplicaSample) string { return formatTime(s.Time) },
			func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) (err error) {
				if s.Time, err = parseTimeBytes(f); err != nil || s.Time.IsZero() {
					return errors.New("not an RFC 3339 time")
				}
				return nil
			}},
		{"partition", func(s *ReplicaSample) string { return strconv.FormatInt(int64(s.Partition), 10) },
			func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) error {
				p, err := parseInt(f, 32)
				if err != nil || p < 0 {
					return errors.New("not a partition number")
				}
				s.Partition = int32(p)
				return nil
			}},
		{"broker", func(s *ReplicaSample) string { return brokerOnly(s, int64(s.Broker)) },
			func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) (err error) {
				if len(f) == 0 { // a state row
					return nil
				}
				if s.Broker, err = parseNode(string(f)); err != nil || s.Broker < 0 {
					return errors.New("not a node id")
				}
				return nil
			}},
		replicaOffset("leo", func(s *ReplicaSample) *int64 { return &s.LEO }),
		replicaOffset("hw", func(s *ReplicaSample) *int64 { return &s.HW }),
		{"leader", func(s *ReplicaSample) string { return stateOnly(s, strconv.FormatInt(int64(s.Leader), 10)) },
			func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) (err error) {
				if !s.IsState() {
					return nil
				}
				s.Leader, err = parseNode(string(f))
				return err
			}},
		{"leader_epoch", func(s *ReplicaSample) string { return stateOnly(s, strconv.FormatInt(int64(s.LeaderEpoch), 10)) },
			func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) error {
				if !s.IsState() {
					return nil
				}
				e, err := parseInt(f, 32)
				if err != nil || e < -1 {
					return errors.New("not a leader epoch")
				}
				s.LeaderEpoch = int32(e)
				return nil
			}},
		replicaNodes("isr", func(s *ReplicaSample) *[]int32 { return &s.ISR }),
		replicaNodes("elr", func(s *ReplicaSample) *[]int32 { return &s.ELR }),
		replicaNodes("last_known_elr", func(s *ReplicaSample) *[]int32 { return &s.LastKnownELR }),
		errorColumn[ReplicaSample, ReplicaDecoder](func(s *ReplicaSample) *string { return &s.Err }),
	},
	blank: func(s *ReplicaSample) { *s = ReplicaSample{Broker: -1, LEO: -1, HW: -1, Leader: -1} },
}

// replicaOffset is a broker row's offset column: empty when absent.
func replicaOffset(name string, field func(*ReplicaSample) *int64) column[ReplicaSample, ReplicaDecoder] {
	return column[ReplicaSample, ReplicaDecoder]{name,
		func(s *ReplicaSample) string { return brokerOnly(s, *field(s)) },
		func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) error {
			if s.IsState() || len(f) == 0 {
				return nil
			}
			v, err := parseInt(f, 64)
			if err != nil || v < 0 {
				return errors.New("not an offset")
			}
			*field(s) = v
			return nil
		}}
}

// replicaNodes is a state row's column of node ids.
func replicaNodes(name string, field func(*ReplicaSample) *[]int32) column[ReplicaSample, ReplicaDecoder] {
	return column[ReplicaSample, ReplicaDecoder]{name,
		func(s *ReplicaSample) string { return stateOnly(s, joinNodes(*field(s))) },
		func(_ *ReplicaDecoder, s *ReplicaSample, f []byte) (err error) {
			if !s.IsState() {
				return nil
			}
			*field(s), err = splitNodes(string(f))
			return err
		}}
}

// brokerOnly is v on a broker row, empty on a state row and where v is
// negative (absent).
func brokerOnly(s *ReplicaSample, v int64) string {
	if s.IsState() || v < 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// stateOnly is v on a state row, empty on a broker row.
func stateOnly(s *ReplicaSample, v string) string {
	if !s.IsState() {
		return ""
	}
	return v
}

// ReplicaSample is one row of the replica view: a broker's answer about its
// replica (Broker ≥ 0) or the cluster's state of the partition (Broker -1).
type ReplicaSample struct {
	Time      time.Time
	Partition int32
	Broker    int32 // -1 on a state row
	LEO       int64 // -1 when absent
	HW        int64 // -1 when absent: the broker did not answer as leader, or the partition had none

	Leader       int32 // state rows only; -1 when there is none
	LeaderEpoch  int32
	ISR          []int32
	ELR          []int32
	LastKnownELR []int32

	Err string
}

// IsState reports whether s is a state row rather than a broker's answer.
func (s *ReplicaSample) IsState() bool { return s.Broker < 0 }

// ReplicaEncoder writes the replica view.
type ReplicaEncoder = RowEncoder[ReplicaSample]

// NewReplicaEncoder returns a ReplicaEncoder writing to w.
func NewReplicaEncoder(w io.Writer) *ReplicaEncoder { return replicasFormat.encoder(w) }

func joinNodes(ids []int32) string {
	var b strings.Builder
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatInt(int64(id), 10))
	}
	return b.String()
}

// ReplicaDecoder reads the replica view back.
type ReplicaDecoder struct{ lr *lineReader }

// NewReplicaDecoder returns a ReplicaDecoder reading r; file names r in
// errors.
func NewReplicaDecoder(r io.Reader, file string) *ReplicaDecoder {
	return &ReplicaDecoder{lr: replicasFormat.reader(r, file)}
}

// Decode reads the next row into s; io.EOF after the last.
func (d *ReplicaDecoder) Decode(s *ReplicaSample) error { return replicasFormat.decode(d.lr, d, s) }

func parseNode(s string) (int32, error) {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil || v < -1 {
		return 0, errors.New("not a node id")
	}
	return int32(v), nil
}

func splitNodes(s string) ([]int32, error) {
	if s == "" {
		return nil, nil
	}
	var ids []int32
	for _, f := range strings.Fields(s) {
		id, err := parseNode(f)
		if err != nil || id < 0 {
			return nil, errors.New("not a list of node ids separated by spaces")
		}
		ids = append(ids, id)
	}
	return ids, nil
}
