package results

import (
	"bytes"
	"strconv"
	"time"
)

// A probe record's value is text, so it can be read with any Kafka tool,
// and every probe writes it alike (kbf's own, the librdkafka and Java
// reference probes), so one read-back and one audit serve them all:
//
//	kbf1 <run id> <partition> <seq> <sent, Unix nanoseconds>
//
// The run ID keeps one run's records apart from another's in the same topic.
const ValueMagic = "kbf1"

// Value is what a probe record's value says.
type Value struct {
	RunID     string
	Partition int32
	Seq       int64
	Sent      time.Time
}

// AppendValue appends v's encoding to b.
func AppendValue(b []byte, v Value) []byte {
	b = append(b, ValueMagic...)
	b = append(b, ' ')
	b = append(b, v.RunID...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(v.Partition), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, v.Seq, 10)
	b = append(b, ' ')
	return strconv.AppendInt(b, v.Sent.UnixNano(), 10)
}

// ParseValue reads a probe record's value; ok is false for a record that is
// not a probe's.
func ParseValue(b []byte) (v Value, ok bool) {
	f := bytes.Fields(b)
	if len(f) != 5 || string(f[0]) != ValueMagic {
		return Value{}, false
	}
	part, err1 := strconv.ParseInt(string(f[2]), 10, 32)
	seq, err2 := strconv.ParseInt(string(f[3]), 10, 64)
	sent, err3 := strconv.ParseInt(string(f[4]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return Value{}, false
	}
	return Value{RunID: string(f[1]), Partition: int32(part), Seq: seq, Sent: time.Unix(0, sent).UTC()}, true
}
