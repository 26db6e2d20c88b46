package analysis

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/gaps"
	"github.com/kbf-project/kbf/results"
)

// LoadView is the real traffic beside the probe (kbf run --load): what it
// offered, what was acknowledged before the fault, its errors, and how
// its throughput fell through the fault and came back. It is the load's
// own measure, apart from the probe's figures.
type LoadView struct {
	Settings results.LoadSettings
	// Seconds are the whole seconds of load.csv: its first and last rows
	// (the load started and stopped within them) left out.
	Seconds int
	// Acked is the median records acknowledged per second before the
	// fault (over the whole run without one).
	Acked float64
	// Sent, AckedTotal, Failed and Received count every row.
	Sent, AckedTotal, Failed, Received int64
	// FirstErr is the first error, empty for none.
	FirstErr string
	// Low is the least acknowledged in a whole second from the fault's
	// second on, LowAt that second; BackAt the start of the first second
	// after it with at least BackShare of Acked, zero when none. Zero
	// LowAt: no fault, or no whole second after it.
	Low           int64
	LowAt, BackAt time.Time
}

// BackShare is the share of its throughput before the fault at which the
// load is back.
const BackShare = 0.9

// loadOf is the load's stage: load.csv against the fault's time F; nil for
// a trial without a load.
// g, the probe's gaps, says whether its reader read records (files.go).
func loadOf(ctx context.Context, t results.Trial, F time.Time, g *gaps.Report) (*LoadView, notes, error) {
	if t.Dir == "" || t.Meta == nil || t.Meta.Load == nil {
		return nil, nil, nil
	}
	rows, ns, err := readFileRows[results.LoadSecond](ctx, t.Path(results.LoadFile), "a load", g,
		func(r io.Reader, file string) *results.LoadDecoder {
			d := results.NewLoadDecoder(r, file)
			d.Scope, d.Rate = t.Meta.Scope(), t.Meta.Load.Rate
			return d
		})
	if err != nil || ns != nil {
		return nil, ns, err
	}
	return loadView(*t.Meta.Load, rows, F), nil, nil
}

// loadView measures rows, the load of settings s, against the fault at F
// (zero: none).
func loadView(s results.LoadSettings, rows []results.LoadSecond, F time.Time) *LoadView {
	v := &LoadView{Settings: s}
	for _, r := range rows {
		v.Sent += r.Sent
		v.AckedTotal += r.Acked
		v.Failed += r.Failed
		v.Received += r.Received
		if v.FirstErr == "" {
			v.FirstErr = r.Err
		}
	}
	if len(rows) < 3 {
		return v
	}
	whole := rows[1 : len(rows)-1]
	v.Seconds = len(whole)
	var before []float64
	for _, r := range whole {
		if F.IsZero() || !r.Second.Add(time.Second).After(F) {
			before = append(before, float64(r.Acked))
		}
	}
	v.Acked = median(before)
	if F.IsZero() {
		return v
	}
	low := -1
	for i, r := range whole {
		if r.Second.Add(time.Second).After(F) && (low < 0 || r.Acked < whole[low].Acked) {
			low = i
		}
	}
	if low < 0 {
		return v
	}
	v.Low, v.LowAt = whole[low].Acked, whole[low].Second
	for _, r := range whole[low+1:] {
		if float64(r.Acked) >= BackShare*v.Acked {
			v.BackAt = r.Second
			break
		}
	}
	return v
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// LoadLine is the load at a glance, one line for the digest and the text
// report; empty without one:
//
//	load: 5,000 rec/s offered (1024-byte records on orders-load), 4,980 acked; 0 errors; throughput fell to 0/s at T+0 s, back at T+9 s
func (tr *Trial) LoadLine() string {
	v := tr.Load
	if v == nil {
		return ""
	}
	s := v.Settings
	l := fmt.Sprintf("load: %s rec/s offered (%s, %d-byte records on %s), %s acked",
		grouped(s.Rate), s.Offered, s.Size, s.Topic, grouped(v.Acked))
	if tr.FaultAt.IsZero() {
		l += "/s"
	} else {
		l += "/s before the fault"
	}
	switch {
	case v.Failed == 0:
		l += "; 0 errors"
	default:
		l += fmt.Sprintf("; %s errors (first: %s)", grouped(float64(v.Failed)), excerpt(v.FirstErr))
	}
	switch {
	case v.Seconds == 0:
		l += "; no whole second recorded"
	case tr.FaultAt.IsZero() || v.LowAt.IsZero():
	case v.BackAt.IsZero():
		l += fmt.Sprintf("; throughput fell to %s/s at T%s, not back to %.0f %% by its end", grouped(float64(v.Low)), offset(v.LowAt, tr.FaultAt), 100*BackShare)
	default:
		l += fmt.Sprintf("; throughput fell to %s/s at T%s, back at T%s", grouped(float64(v.Low)), offset(v.LowAt, tr.FaultAt), offset(v.BackAt, tr.FaultAt))
	}
	return l
}

// offset is t after F, signed, in seconds: "+9.4 s".
func offset(t, F time.Time) string {
	return fmt.Sprintf("%+.1f s", t.Sub(F).Seconds())
}

// grouped is x rounded, its thousands grouped: 5,000.
func grouped(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// excerpt is an error cut to a line's worth.
func excerpt(s string) string {
	const n = 80
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
