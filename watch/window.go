package watch

import (
	"bytes"
	"slices"
	"sync"
	"time"
)

// window is the probe's recent output, kept in memory as whole lines so
// that an incident can be written out from a moment before it began: a
// CSV's rows, dated by one of their columns (the probe CSV's sent, the
// group CSV's processed, …), and the clients' log lines, dated when they
// came. Lines older than the cut are dropped by trim; nothing else bounds
// it, so the watch trims it on every tick.
type window struct {
	mu      sync.Mutex
	header  []byte // a CSV's header row, kept whatever is trimmed
	col     int    // the column that dates a CSV's rows; -1: not a CSV
	partial []byte
	lines   []line
	now     func() time.Time
}

type line struct {
	at   time.Time
	text []byte // with its newline
}

// The columns that date the rows of the CSVs a watch keeps.
const (
	sentColumn      = 3 // probe.csv's sent
	processedColumn = 3 // group.csv's processed
	timeColumn      = 0 // group-events.csv's time
	beginColumn     = 1 // transactions.csv's begin
	notCSV          = -1
)

// newWindow keeps a CSV whose rows col dates, or (notCSV) lines dated as
// they come.
func newWindow(col int) *window { return &window{col: col, now: time.Now} }

// Write takes the probe's bytes; a line is kept once its newline came.
func (w *window) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			w.partial = append(w.partial, b...)
			break
		}
		text := append(w.partial, b[:i+1]...)
		w.partial = nil
		b = b[i+1:]
		w.add(bytes.Clone(text))
	}
	return n, nil
}

func (w *window) add(text []byte) {
	if w.col == notCSV {
		w.lines = append(w.lines, line{at: w.now(), text: text})
		return
	}
	if w.header == nil {
		w.header = text
		return
	}
	at, ok := dateOf(text, w.col)
	if !ok {
		at = w.now()
	}
	w.lines = append(w.lines, line{at: at, text: text})
}

// dateOf is the time in a CSV row's column col; the columns before it
// hold no comma (numbers and times).
func dateOf(row []byte, col int) (time.Time, bool) {
	f := bytes.SplitN(bytes.TrimRight(row, "\r\n"), []byte{','}, col+2)
	if len(f) <= col {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(f[col]))
	return t, err == nil
}

// trim drops the lines dated before cut. Rows come in the order their
// records completed, not sent, so a few older ones may stay behind a slow
// one until it goes; lines reads by date all the same.
func (w *window) trim(cut time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	i := 0
	for i < len(w.lines) && w.lines[i].at.Before(cut) {
		i++
	}
	if i == 0 {
		return
	}
	w.lines = append(w.lines[:0:0], w.lines[i:]...)
}

// since returns the header (for a CSV) and every line dated at or after
// from, in the order they came.
func (w *window) since(from time.Time) []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b bytes.Buffer
	b.Write(w.header)
	for _, l := range w.lines {
		if !l.at.Before(from) {
			b.Write(l.text)
		}
	}
	return b.Bytes()
}

// size is how many lines the window holds.
func (w *window) size() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.lines)
}

// longestSendGap is the longest gap between consecutive sends of one
// partition among the probe CSV rows sent from from on.
func (w *window) longestSendGap(from time.Time) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	sent := map[string][]time.Time{}
	for _, l := range w.lines {
		if l.at.Before(from) {
			continue
		}
		part, _, _ := bytes.Cut(l.text, []byte{','})
		sent[string(part)] = append(sent[string(part)], l.at)
	}
	var longest time.Duration
	for _, ts := range sent {
		slices.SortFunc(ts, time.Time.Compare)
		for i := 1; i < len(ts); i++ {
			longest = max(longest, ts[i].Sub(ts[i-1]))
		}
	}
	return longest
}
