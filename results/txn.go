package results

// A transactional probe (kbf run --producer transactional) writes its
// records in transactions, one committed every TxnSettings.Records records
// or every TxnSettings.Interval, whichever comes first, and writes one row
// per transaction to the transactions CSV (transactions.csv), in the order
// they ended:
//
//	txn,begin,commit_start,end,outcome,records,error
//	0,2026-11-30T03:26:09.000000000Z,2026-11-30T03:26:09.660000000Z,2026-11-30T03:26:09.672000000Z,committed,0:0-33 1:0-32 2:0-32,
//	7,2026-11-30T03:26:14.000000000Z,2026-11-30T03:26:14.660000000Z,2026-11-30T03:26:24.100000000Z,aborted,0:230-263,NOT_COORDINATOR: ...
//
//	txn           the transaction's number in the run, from 0
//	begin         when the probe began it (BeginTransaction)
//	commit_start  when the probe asked to end it: it then waits for every
//	              record's ack (a flush) and sends EndTxn; empty when it
//	              never got so far
//	end           when its end was answered, or given up on
//	outcome       committed, aborted, timed-out or unknown (TxnOutcome)
//	records       the probe records it holds, per partition the first and
//	              the last sequence number (probe.csv's seq), as
//	              partition:first-last separated by spaces; a partition's
//	              records in one transaction are consecutive
//	error         why it did not commit (the commit's error, then the
//	              abort's); empty when it committed
//
// The probe marks, in probe.csv, each record of a transaction that did not
// commit with the error "transaction N OUTCOME: …", so that the integrity
// audit weighs none of them as an acknowledged record: a record of an
// aborted transaction was never committed, and read_committed must not
// return it.
//
// Times are RFC 3339 in UTC with nine fractional digits. The file came
// within format version 2: a reader that does not know it ignores it.

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// TxnFile is the transactions CSV (TxnEvent rows).
const TxnFile = "transactions.csv"

// The probe's producers, as meta.json records them and kbf run's
// --producer spells them.
const (
	// ProducerIdempotent is an idempotent producer with no transactions,
	// the probe's default.
	ProducerIdempotent = "idempotent"
	// ProducerTransactional writes in transactions (TxnSettings), and the
	// probe's reader reads at read_committed.
	ProducerTransactional = "transactional"
)

// TxnSettings are a transactional probe's settings in meta.json's probe
// section: nil for an idempotent producer.
type TxnSettings struct {
	// ID is the transactional id, unique to the run.
	ID string `json:"id"`
	// Records and Interval bound a transaction: it is committed once it
	// holds Records records, or Interval after it began.
	Records  int           `json:"records"`
	Interval time.Duration `json:"interval_ns"`
	// Timeout is the transaction timeout the producer asks for
	// (transaction.timeout.ms): the coordinator aborts a transaction still
	// open this long after its first record.
	Timeout time.Duration `json:"timeout_ns"`
	// Isolation is the probe reader's isolation level: read_committed.
	Isolation string `json:"isolation"`
}

// TxnOutcome is how a transaction ended.
type TxnOutcome string

// The outcomes of a transaction.
const (
	TxnCommitted TxnOutcome = "committed"
	// TxnAborted: the probe aborted it (a record or the commit failed) and
	// the abort was answered.
	TxnAborted TxnOutcome = "aborted"
	// TxnTimedOut: its end was not answered within the transaction
	// timeout; the coordinator aborts what it has not committed by then,
	// but whether it had committed is not known.
	TxnTimedOut TxnOutcome = "timed-out"
	// TxnUnknown: its commit failed and so did the abort: whether it
	// committed is not known.
	TxnUnknown TxnOutcome = "unknown"
)

func (o TxnOutcome) known() bool {
	return o == TxnCommitted || o == TxnAborted || o == TxnTimedOut || o == TxnUnknown
}

// SeqRange is one partition's records in a transaction: the sequence
// numbers First to Last, both included.
type SeqRange struct {
	Partition   int32
	First, Last int64
}

// TxnEvent is one transaction of the probe's.
type TxnEvent struct {
	Txn         int64
	Begin       time.Time
	CommitStart time.Time // zero when it never got so far
	End         time.Time
	Outcome     TxnOutcome
	// Records are its records, by partition in order.
	Records []SeqRange
	Err     string
}

// Holds reports whether the transaction holds record seq of partition p.
func (e *TxnEvent) Holds(p int32, seq int64) bool {
	for _, r := range e.Records {
		if r.Partition == p && seq >= r.First && seq <= r.Last {
			return true
		}
	}
	return false
}

// Count is how many records the transaction holds.
func (e *TxnEvent) Count() int64 {
	var n int64
	for _, r := range e.Records {
		n += r.Last - r.First + 1
	}
	return n
}

var txnFormat = rowFormat[TxnEvent, TxnDecoder]{cols: []column[TxnEvent, TxnDecoder]{
	countColumn[TxnEvent, TxnDecoder]("txn", func(ev *TxnEvent) *int64 { return &ev.Txn }),
	timeColumn("begin", func(ev *TxnEvent) *time.Time { return &ev.Begin }, txnScope, true),
	timeColumn("commit_start", func(ev *TxnEvent) *time.Time { return &ev.CommitStart }, txnScope, false),
	timeColumn("end", func(ev *TxnEvent) *time.Time { return &ev.End }, txnScope, true),
	{"outcome", func(ev *TxnEvent) string { return string(ev.Outcome) },
		func(_ *TxnDecoder, ev *TxnEvent, f []byte) error {
			if ev.Outcome = TxnOutcome(f); !ev.Outcome.known() {
				return fmt.Errorf("%s: want committed, aborted, timed-out or unknown", Excerpt(string(f)))
			}
			return nil
		}},
	{"records", func(ev *TxnEvent) string { return formatSeqRanges(ev.Records) },
		func(_ *TxnDecoder, ev *TxnEvent, f []byte) (err error) {
			ev.Records, err = parseSeqRanges(string(f))
			return err
		}},
	errorColumn[TxnEvent, TxnDecoder](func(ev *TxnEvent) *string { return &ev.Err }),
}}

func txnScope(d *TxnDecoder) Scope { return d.Scope }

// TxnEncoder writes the transactions CSV. A row's records are written in
// partition order.
type TxnEncoder = RowEncoder[TxnEvent]

// NewTxnEncoder returns a TxnEncoder writing to w.
func NewTxnEncoder(w io.Writer) *TxnEncoder { return txnFormat.encoder(w) }

// formatSeqRanges writes a transaction's records in partition order.
func formatSeqRanges(ranges []SeqRange) string {
	return joinByPartition(ranges, rangePartition, func(b *strings.Builder, s SeqRange) {
		fmt.Fprintf(b, "%d:%d-%d", s.Partition, s.First, s.Last)
	})
}

func rangePartition(s SeqRange) int32 { return s.Partition }

// TxnDecoder reads the transactions CSV.
type TxnDecoder struct {
	lr *lineReader
	// Scope bounds the rows' partitions and times; the zero Scope only
	// the plausible range.
	Scope Scope
	// MaxRecords, when positive, is the most records a transaction holds
	// (TxnSettings.Records): a row that says more is refused.
	MaxRecords int
	seen       map[int64]bool
}

// NewTxnDecoder returns a TxnDecoder reading r; file names r in errors.
func NewTxnDecoder(r io.Reader, file string) *TxnDecoder {
	return &TxnDecoder{lr: txnFormat.reader(r, file)}
}

// Decode reads the next row; io.EOF after the last.
func (d *TxnDecoder) Decode(ev *TxnEvent) error {
	if err := txnFormat.decode(d.lr, d, ev); err != nil {
		return err
	}
	switch {
	case ev.End.Before(ev.Begin):
		return d.lr.fieldError(3, errors.New("an end before the begin"))
	case !ev.CommitStart.IsZero() && (ev.CommitStart.Before(ev.Begin) || ev.CommitStart.After(ev.End)):
		return d.lr.fieldError(2, errors.New("a commit start outside begin–end"))
	case ev.Outcome == TxnCommitted && ev.CommitStart.IsZero():
		return d.lr.fieldError(2, errors.New("a committed transaction with no commit start"))
	}
	return d.bounded(ev)
}

// bounded refuses a transaction numbered twice, one of a partition the
// trial did not probe, and one holding more records than a transaction
// does: the audit weighs each of its records, and a range of 10^18 would
// never end.
func (d *TxnDecoder) bounded(ev *TxnEvent) error {
	if d.seen == nil {
		d.seen = map[int64]bool{}
	}
	if d.seen[ev.Txn] {
		return d.lr.fieldError(0, fmt.Errorf("transaction %d again: each ends once", ev.Txn))
	}
	d.seen[ev.Txn] = true
	var n int64
	for _, r := range ev.Records {
		if err := d.Scope.partition(r.Partition); err != nil {
			return d.lr.fieldError(5, err)
		}
		n += r.Last - r.First + 1
		if d.MaxRecords > 0 && (r.Last-r.First >= int64(d.MaxRecords) || n > int64(d.MaxRecords)) {
			return d.lr.fieldError(5, fmt.Errorf("more records than the %d a transaction holds (transactions.records)", d.MaxRecords))
		}
	}
	return nil
}

// parseSeqRanges parses "0:0-33 1:0-32", partitions in increasing order.
func parseSeqRanges(s string) ([]SeqRange, error) {
	return splitByPartition(s, rangePartition, func(f string) (SeqRange, error) {
		p, rng, ok1 := strings.Cut(f, ":")
		first, last, ok2 := strings.Cut(rng, "-")
		pn, err1 := strconv.ParseInt(p, 10, 32)
		fn, err2 := strconv.ParseInt(first, 10, 64)
		ln, err3 := strconv.ParseInt(last, 10, 64)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || pn < 0 || fn < 0 || ln < fn {
			return SeqRange{}, fmt.Errorf("not partition:first-last ranges separated by spaces: %s", Excerpt(f))
		}
		return SeqRange{Partition: int32(pn), First: fn, Last: ln}, nil
	})
}
