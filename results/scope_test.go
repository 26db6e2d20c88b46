package results

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// TestSettingsValidated: meta.json's group, transaction and load settings
// are checked as the fault's kind is: a value kbf does not know, or a
// count or rate no run can have, is refused naming the field.
func TestSettingsValidated(t *testing.T) {
	const head = `{"format_version": 2, "kind": "trial", "started": "2026-11-30T03:25:00Z"`
	group := `"group": {"id": "g", "protocol": "classic", "commit": "sync"}`
	txn := `"transactions": {"id": "x", "records": 100, "interval_ns": 1000000000, "timeout_ns": 30000000000, "isolation": "read_committed"}`
	load := `"load": {"topic": "t-load", "partitions": 3, "replication_factor": 3, "rate_per_s": 5000, "record_bytes": 1024, "acks": "all"}`
	probe := func(s string) string { return head + `, "probe": {` + s + `}}` }
	for _, tc := range []struct{ name, in, err string }{
		{"good group", probe(group), ""},
		{"good transactions", probe(txn), ""},
		{"good load", head + ", " + load + "}", ""},
		{"unknown protocol", probe(strings.Replace(group, "classic", "gossip", 1)), `probe.group.protocol "gossip"`},
		{"unknown commit", probe(strings.Replace(group, `"sync"`, `"never"`, 1)), `probe.group.commit "never"`},
		{"interval commit with no interval", probe(strings.Replace(group, `"sync"`, `"interval"`, 1)), "probe.group.auto_commit_interval_ns 0"},
		{"group without id", probe(strings.Replace(group, `"g"`, `""`, 1)), "probe.group.id: empty"},
		{"no records a transaction", probe(strings.Replace(txn, `"records": 100`, `"records": 0`, 1)), "probe.transactions.records 0"},
		{"negative transaction interval", probe(strings.Replace(txn, "1000000000", "-1", 1)), "probe.transactions.interval_ns -1"},
		{"read_uncommitted", probe(strings.Replace(txn, "read_committed", "read_uncommitted", 1)), `probe.transactions.isolation "read_uncommitted"`},
		{"negative load rate", head + ", " + strings.Replace(load, "5000", "-5000", 1) + "}", "load.rate_per_s -5000"},
		{"no load rate", head + ", " + strings.Replace(load, `"rate_per_s": 5000, `, "", 1) + "}", "load.rate_per_s 0"},
		{"no record size", head + ", " + strings.Replace(load, "1024", "0", 1) + "}", "load.record_bytes 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeMeta(strings.NewReader(tc.in), "meta.json")
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("DecodeMeta: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, errBadMeta)):
				t.Errorf("error %v, want a bad meta.json naming %q", err, tc.err)
			}
		})
	}
}

var scopeT0 = time.Date(2026, 11, 30, 3, 25, 0, 0, time.UTC)

// testScope is a trial of partitions 0–2 over a minute from scopeT0.
var testScope = Scope{Partitions: map[int32]bool{0: true, 1: true, 2: true}, From: scopeT0, To: scopeT0.Add(time.Minute)}

// TestScopedDecoders: every decoder of a trial's files refuses, at its
// line, a row of a partition the trial did not probe or dated outside it.
func TestScopedDecoders(t *testing.T) {
	in := func(d time.Duration) string { return formatTime(scopeT0.Add(d)) }
	decode := map[string]func(string) error{
		GroupFile: func(s string) error {
			d := NewGroupDecoder(strings.NewReader(s), GroupFile)
			d.Scope = testScope
			return drain(func() error { var r GroupRecord; return d.Decode(&r) })
		},
		GroupEventsFile: func(s string) error {
			d := NewGroupEventDecoder(strings.NewReader(s), GroupEventsFile)
			d.Scope = testScope
			return drain(func() error { var r GroupEvent; return d.Decode(&r) })
		},
		TxnFile: func(s string) error {
			d := NewTxnDecoder(strings.NewReader(s), TxnFile)
			d.Scope, d.MaxRecords = testScope, 100
			return drain(func() error { var r TxnEvent; return d.Decode(&r) })
		},
	}
	txn := func(n int, records string) string {
		return fmt.Sprintf("%d,%s,%s,%s,committed,%s,\n", n, in(time.Second), in(2*time.Second), in(3*time.Second), records)
	}
	const gh, eh, th = "partition,offset,seq,processed\n", "time,kind,start,generation,partitions,offsets,error\n", "txn,begin,commit_start,end,outcome,records,error\n"
	for _, tc := range []struct{ name, file, in, err string }{
		{"group good", GroupFile, gh + "0,5,5," + in(time.Second) + "\n", ""},
		{"group partition not probed", GroupFile, gh + "0,5,5," + in(time.Second) + "\n7,5,5," + in(time.Second) + "\n", "line 3, column 1: partition: partition not probed in this run: 7"},
		{"group row after the trial", GroupFile, gh + "0,5,5," + in(2*time.Minute) + "\n", "line 2, column 7: processed: 2026-11-30T03:27:00Z is outside the trial"},
		{"group row before the trial", GroupFile, gh + "0,5,5," + in(-time.Second) + "\n", "outside the trial"},
		{"events good", GroupEventsFile, eh + in(time.Second) + ",assigned,,1,0 1 2,,\n" + in(2*time.Second) + ",commit,,1,,0:5 2:7,\n", ""},
		{"assigned a partition not probed", GroupEventsFile, eh + in(time.Second) + ",assigned,,1,0 5,,\n", "line 2, column 44: partitions: partition not probed in this run: 5"},
		{"committed a partition not probed", GroupEventsFile, eh + in(time.Second) + ",commit,,1,,0:5 4:7,\n", "offsets: partition not probed in this run: 4"},
		{"commit after the trial", GroupEventsFile, eh + in(time.Hour) + ",commit,,1,,0:5,\n", "time: 2026-11-30T04:25:00Z is outside the trial"},
		{"transaction good", TxnFile, th + txn(0, "0:0-33 1:0-32 2:0-32") + txn(1, "0:34-66"), ""},
		{"transaction of a partition not probed", TxnFile, th + txn(0, "0:0-33 3:0-5"), "records: partition not probed in this run: 3"},
		{"transaction past its size", TxnFile, th + txn(0, "0:0-999999999999999999"), "more records than the 100 a transaction holds"},
		{"transactions past their size together", TxnFile, th + txn(0, "0:0-60 1:0-60"), "more records than the 100"},
		{"transaction numbered twice", TxnFile, th + txn(0, "0:0-33") + txn(0, "0:34-40"), "line 3, column 1: txn: transaction 0 again"},
		{"transaction after the trial", TxnFile, th + strings.Replace(txn(0, "0:0-3"), in(3*time.Second), in(time.Hour), 1), "end: 2026-11-30T04:25:00Z is outside the trial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := decode[tc.file](tc.in)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("decode: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one holding %q", err, tc.err)
			}
		})
	}
}

// drain decodes with next until it fails: nil at the end of the file.
func drain(next func() error) error {
	for {
		err := next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// endlessLoad is a load CSV of a row a second from t0 that never ends:
// rows counts those read.
type endlessLoad struct {
	t0   time.Time
	rows int
	buf  []byte
}

func (e *endlessLoad) Read(p []byte) (int, error) {
	if len(e.buf) == 0 {
		if e.rows == 0 {
			e.buf = []byte("second,sent,acked,failed,received,error\n")
		}
		e.buf = fmt.Appendf(e.buf, "%s,100,100,0,100,\n", e.t0.Add(time.Duration(e.rows)*time.Second).Format(time.RFC3339))
		e.rows++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// TestLoadDecoderBounded: a load.csv longer than its trial is refused at
// its first row past the end, never read whole; counts past what can
// have happened are refused at their row.
func TestLoadDecoderBounded(t *testing.T) {
	src := &endlessLoad{t0: scopeT0}
	d := NewLoadDecoder(src, LoadFile)
	d.Scope, d.Rate = testScope, 100
	err := drain(func() error { var s LoadSecond; return d.Decode(&s) })
	if err == nil || !strings.Contains(err.Error(), "line 63, column 1: second: 2026-11-30T03:26:01Z is outside the trial") {
		t.Errorf("error %v, want the first row past the trial's end refused", err)
	}
	if src.rows > 200 {
		t.Errorf("read %d rows of a trial of 60 s", src.rows)
	}
	const h = "second,sent,acked,failed,received,error\n"
	row := func(s int, counts string) string {
		return scopeT0.Add(time.Duration(s)*time.Second).Format(time.RFC3339) + "," + counts + ",\n"
	}
	for _, tc := range []struct {
		name, in string
		rate     float64
		err      string
	}{
		{"good", h + row(0, "100,90,0,80") + row(1, "100,110,0,120"), 100, ""},
		{"acked past sent", h + row(0, "100,90,0,80") + row(1, "100,90,30,120"), 100, "line 3, column 26: acked: 210 records acked or failed so far, more than the 200 sent"},
		{"sent past the rate", h + row(0, "100,90,0,80") + row(1, "1000,90,0,120"), 100, "sent: 1100 records sent so far, more than the load's 100/s"},
		{"overflowing", h + row(0, "9223372036854775807,0,0,0") + row(1, "9223372036854775807,0,0,0"), 0, "line 3, column 22: sent: the counts so far overflow"},
		{"acked overflowing", h + row(0, "10,9223372036854775807,0,0"), 0, "more than the 10 sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewLoadDecoder(strings.NewReader(tc.in), LoadFile)
			d.Scope, d.Rate = testScope, tc.rate
			err := drain(func() error { var s LoadSecond; return d.Decode(&s) })
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("decode: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one holding %q", err, tc.err)
			}
		})
	}
}
