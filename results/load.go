package results

// Real traffic beside the probe (kbf run --load RATE) is a producer and a
// consumer of their own on a topic of their own, not counted in the
// probe's figures. What they did is written one row per second to the
// load CSV (load.csv), in time order:
//
//	second,sent,acked,failed,received,error
//	2026-11-30T03:26:09Z,5000,4993,0,4990,
//	2026-11-30T03:26:10Z,5000,0,312,0,NOT_ENOUGH_REPLICAS: ...
//
//	second    the second the row counts, [second, second+1s), in UTC
//	sent      records handed to the producer within it
//	acked     records whose ack arrived within it
//	failed    records that failed within it (the producer's error, or
//	          not sent at all: its buffer was full)
//	received  records the load's consumer read within it
//	error     the first error of the second, on one line; empty for none
//
// A second the generator ran through with nothing to count has a row of
// zeros, so a stall shows as rows, not as missing ones. The file came
// within format version 2: a reader that does not know it ignores it.

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// LoadSettings are the load's settings in meta.json's load section: nil
// for a trial without one.
type LoadSettings struct {
	// Topic is the load's own topic, Partitions and Replication its shape
	// (made like the probe's topic).
	Topic       string `json:"topic"`
	Partitions  int    `json:"partitions"`
	Replication int    `json:"replication_factor"`
	// Rate is the records offered per second, Size each record's value in
	// bytes, Acks the producer's acks ("all").
	Rate float64 `json:"rate_per_s"`
	Size int     `json:"record_bytes"`
	Acks string  `json:"acks"`
	// Offered is the rate as the user asked for it ("5000/s", "2MB/s").
	Offered string `json:"offered"`
}

// LoadSecond is one second of the load.
type LoadSecond struct {
	Second                        time.Time
	Sent, Acked, Failed, Received int64
	Err                           string
}

var loadFormat = rowFormat[LoadSecond, LoadDecoder]{cols: []column[LoadSecond, LoadDecoder]{
	{"second", func(s *LoadSecond) string { return s.Second.UTC().Format(time.RFC3339) }, (*LoadDecoder).second},
	countColumn[LoadSecond, LoadDecoder]("sent", func(s *LoadSecond) *int64 { return &s.Sent }),
	countColumn[LoadSecond, LoadDecoder]("acked", func(s *LoadSecond) *int64 { return &s.Acked }),
	countColumn[LoadSecond, LoadDecoder]("failed", func(s *LoadSecond) *int64 { return &s.Failed }),
	countColumn[LoadSecond, LoadDecoder]("received", func(s *LoadSecond) *int64 { return &s.Received }),
	errorColumn[LoadSecond, LoadDecoder](func(s *LoadSecond) *string { return &s.Err }),
}}

// LoadEncoder writes the load CSV.
type LoadEncoder = RowEncoder[LoadSecond]

// NewLoadEncoder returns a LoadEncoder writing to w.
func NewLoadEncoder(w io.Writer) *LoadEncoder { return loadFormat.encoder(w) }

// LoadDecoder reads the load CSV.
type LoadDecoder struct {
	lr   *lineReader
	last time.Time
	// Scope bounds the rows' seconds: a row counts a second that began
	// at most a second before the trial did and no later than its end,
	// so a file longer than its trial is refused at its first row past
	// the end, never read whole. The zero Scope is the plausible range.
	Scope Scope
	// Rate, when positive, is the records the load offered per second
	// (LoadSettings.Rate): no more can have been sent.
	Rate float64
	// first is the first row's second; sent and ended the records sent,
	// and acked or failed, up to the row before.
	first       time.Time
	sent, ended int64
}

// NewLoadDecoder returns a LoadDecoder reading r; file names r in errors.
func NewLoadDecoder(r io.Reader, file string) *LoadDecoder {
	return &LoadDecoder{lr: loadFormat.reader(r, file)}
}

// Decode reads the next row; io.EOF after the last.
func (d *LoadDecoder) Decode(s *LoadSecond) error {
	*s = LoadSecond{}
	if err := loadFormat.decode(d.lr, d, s); err != nil {
		return err
	}
	return d.counted(s)
}

// second reads a row's second: after the row before's, within the scope.
func (d *LoadDecoder) second(s *LoadSecond, f []byte) error {
	t, err := time.Parse(time.RFC3339, string(f))
	switch {
	case err != nil:
		return fmt.Errorf("not an RFC 3339 time: %s", Excerpt(string(f)))
	case t.Before(EarliestTime) || t.After(LatestTime):
		return fmt.Errorf("%s is outside %d–%d", f, EarliestTime.Year(), LatestTime.Year())
	case !d.last.IsZero() && !t.After(d.last):
		return errors.New("not after the row before: want one row per second, in order")
	}
	if err := d.Scope.within(t, time.Second); err != nil {
		return err
	}
	s.Second, d.last = t.UTC(), t
	return nil
}

// counted adds s to the counts so far and refuses a row past what can
// have happened: a count that overflows, more records acked or failed
// than were sent (each is counted sent before its answer comes), or more
// sent than the rate offered by the row's end.
func (d *LoadDecoder) counted(s *LoadSecond) error {
	if d.first.IsZero() {
		d.first = s.Second
	}
	const most = 1<<63 - 1
	if s.Sent > most-d.sent || s.Acked > most-d.ended || s.Failed > most-d.ended-s.Acked {
		return d.lr.fieldError(1, errors.New("the counts so far overflow: not a count of records"))
	}
	d.sent += s.Sent
	d.ended += s.Acked + s.Failed
	if d.ended > d.sent {
		return d.lr.fieldError(2, fmt.Errorf("%d records acked or failed so far, more than the %d sent", d.ended, d.sent))
	}
	// The generator's schedule is absolute from its start, within the
	// first row's second: by this row's end it can have sent at most
	// rate × the seconds since, and one tick's catching up.
	if d.Rate > 0 {
		secs := s.Second.Sub(d.first).Seconds() + 2
		if bound := d.Rate*secs + 1; float64(d.sent) > bound {
			return d.lr.fieldError(1, fmt.Errorf("%d records sent so far, more than the load's %g/s can have offered in %.0f s", d.sent, d.Rate, secs))
		}
	}
	return nil
}
