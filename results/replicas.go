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

var replicasHeader = []string{"time", "partition", "broker", "leo", "hw", "leader", "leader_epoch", "isr", "elr", "last_known_elr", "error"}

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

// ReplicaEncoder writes the replica view. Rows reach the underlying writer
// only on Flush, whole.
type ReplicaEncoder struct{ lw *lineWriter }

// NewReplicaEncoder writes the header and returns an encoder.
func NewReplicaEncoder(w io.Writer) *ReplicaEncoder {
	return &ReplicaEncoder{lw: newLineWriter(w, replicasHeader)}
}

// Encode buffers one row.
func (e *ReplicaEncoder) Encode(s *ReplicaSample) {
	r := e.lw.row
	clear(r)
	r[0] = formatTime(s.Time)
	r[1] = strconv.FormatInt(int64(s.Partition), 10)
	if s.IsState() {
		r[5] = strconv.FormatInt(int64(s.Leader), 10)
		r[6] = strconv.FormatInt(int64(s.LeaderEpoch), 10)
		r[7] = joinNodes(s.ISR)
		r[8] = joinNodes(s.ELR)
		r[9] = joinNodes(s.LastKnownELR)
	} else {
		r[2] = strconv.FormatInt(int64(s.Broker), 10)
		if s.LEO >= 0 {
			r[3] = strconv.FormatInt(s.LEO, 10)
		}
		if s.HW >= 0 {
			r[4] = strconv.FormatInt(s.HW, 10)
		}
	}
	r[10] = oneLine(s.Err)
	e.lw.write()
}

// Flush writes the buffered rows.
func (e *ReplicaEncoder) Flush() error { return e.lw.flush() }

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
	return &ReplicaDecoder{lr: newLineReader(r, file, replicasHeader)}
}

// Decode reads the next row into s; io.EOF after the last.
func (d *ReplicaDecoder) Decode(s *ReplicaSample) error {
	row, err := d.lr.next()
	if err != nil {
		return err
	}
	*s = ReplicaSample{Broker: -1, LEO: -1, HW: -1, Leader: -1, Err: row[10]}
	if s.Time, err = ParseTime(row[0]); err != nil || s.Time.IsZero() {
		return d.lr.fieldError(0, errors.New("not an RFC 3339 time"))
	}
	p, err := strconv.ParseInt(row[1], 10, 32)
	if err != nil || p < 0 {
		return d.lr.fieldError(1, errors.New("not a partition number"))
	}
	s.Partition = int32(p)
	if row[2] == "" {
		return d.decodeState(row, s)
	}
	if s.Broker, err = parseNode(row[2]); err != nil || s.Broker < 0 {
		return d.lr.fieldError(2, errors.New("not a node id"))
	}
	for i, dst := range []*int64{&s.LEO, &s.HW} {
		if row[3+i] == "" {
			continue
		}
		v, err := strconv.ParseInt(row[3+i], 10, 64)
		if err != nil || v < 0 {
			return d.lr.fieldError(3+i, errors.New("not an offset"))
		}
		*dst = v
	}
	return nil
}

func (d *ReplicaDecoder) decodeState(row []string, s *ReplicaSample) error {
	var err error
	if s.Leader, err = parseNode(row[5]); err != nil {
		return d.lr.fieldError(5, err)
	}
	e, err := strconv.ParseInt(row[6], 10, 32)
	if err != nil || e < -1 {
		return d.lr.fieldError(6, errors.New("not a leader epoch"))
	}
	s.LeaderEpoch = int32(e)
	for i, dst := range []*[]int32{&s.ISR, &s.ELR, &s.LastKnownELR} {
		if *dst, err = splitNodes(row[7+i]); err != nil {
			return d.lr.fieldError(7+i, err)
		}
	}
	return nil
}

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
