package main

import (
	"bytes"
	"strconv"
	"time"
)

// A record's value is the franz-go probe's (kbf's probe/value.go), so kbf's
// read-back and audit read every probe's records alike:
//
//	kbf1 <run id> <partition> <seq> <sent, Unix nanoseconds>
const valueMagic = "kbf1"

type value struct {
	runID     string
	partition int32
	seq       int64
	sent      time.Time
}

func encodeValue(runID string, part int32, seq int64, sent time.Time) []byte {
	b := make([]byte, 0, 64)
	b = append(b, valueMagic...)
	b = append(b, ' ')
	b = append(b, runID...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(part), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, sent.UnixNano(), 10)
	return b
}

func decodeValue(b []byte) (value, bool) {
	f := bytes.Fields(b)
	if len(f) != 5 || string(f[0]) != valueMagic {
		return value{}, false
	}
	part, err1 := strconv.ParseInt(string(f[2]), 10, 32)
	seq, err2 := strconv.ParseInt(string(f[3]), 10, 64)
	sent, err3 := strconv.ParseInt(string(f[4]), 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return value{}, false
	}
	return value{runID: string(f[1]), partition: int32(part), seq: seq, sent: time.Unix(0, sent).UTC()}, true
}
