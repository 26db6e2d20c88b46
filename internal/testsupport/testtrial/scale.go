package testtrial

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/kbf-project/kbf/results"
)

// Scale is a synthetic SIGKILL trial of any size, written as kbf run
// writes one (meta.json, probe.csv, log.csv and empty node logs), for
// measuring the analysis on more rows than a recorded trial holds. The
// same fields make the same files, byte for byte.
//
// Broker k1 leads every third partition (0, 3, …) and is killed 40% into
// the trial: those partitions stall for StallFor, their sends in the stall
// acknowledged and read together at its end, and written to probe.csv
// then, in completion order, as the probe writes them. A few rows make
// the audit's findings: on every 33rd partition (all k1's) the first send
// of the stall fails, and on every 66th the log holds that failed record
// anyway; on every 100th partition from 7 one record is in the log twice,
// and on every 200th from 5 one acknowledged record is not in it at all.
type Scale struct {
	Partitions int           // probed partitions, 0 to Partitions-1
	Rows       int           // rows of probe.csv in all, Rows/Partitions a partition
	Duration   time.Duration // from the first send to the last; the interval follows
	StallFor   time.Duration // the stall of k1's partitions; 8.5 s when zero
}

// scaleStart is when every scaled trial starts.
var scaleStart = time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)

// fate is what became of one message of a scaled trial.
type fate uint8

const (
	fateAcked fate = iota
	fateFailed
	fateFailedPresent // failed, and in the log all the same
	fateDuplicated    // acked, and in the log twice
	fateLost          // acked, and not in the log
)

// scaled is a Scale with its derived times.
type scaled struct {
	Scale
	perPart  int
	interval time.Duration
	fault    time.Time
	stallEnd time.Time
}

func (s Scale) derive() (scaled, error) {
	if s.Partitions < 3 || s.Rows < s.Partitions*100 || s.Duration <= 0 {
		return scaled{}, fmt.Errorf("scale %+v: want 3 partitions or more, 100 rows a partition or more and a duration", s)
	}
	if s.StallFor == 0 {
		s.StallFor = 8500 * time.Millisecond
	}
	d := scaled{Scale: s, perPart: s.Rows / s.Partitions}
	d.interval = s.Duration / time.Duration(d.perPart)
	d.fault = scaleStart.Add(s.Duration * 4 / 10)
	d.stallEnd = d.fault.Add(s.StallFor)
	return d, nil
}

// stalled reports whether k1 led partition p.
func stalled(p int) bool { return p%3 == 0 }

// fateOf is the fate of partition p's message seq, sent at sent.
func (d *scaled) fateOf(p, seq int, sent time.Time) fate {
	switch {
	case p%100 == 7 && seq == d.perPart/4:
		return fateDuplicated
	case p%200 == 5 && seq == d.perPart/2:
		return fateLost
	case p%33 == 0 && !sent.Before(d.fault) && sent.Sub(d.fault) < d.interval:
		if p%66 == 0 {
			return fateFailedPresent
		}
		return fateFailed
	}
	return fateAcked
}

// inStall reports whether a message of partition p sent at sent waited for
// the stall's end.
func (d *scaled) inStall(p int, sent time.Time) bool {
	return stalled(p) && !sent.Before(d.fault) && sent.Before(d.stallEnd)
}

// Write writes the trial into dir, which must exist, as trial directory
// results.TrialDir(1), and returns that directory.
func (s Scale) Write(dir string) (string, error) {
	d, err := s.derive()
	if err != nil {
		return "", err
	}
	tdir := filepath.Join(dir, results.TrialDir(1))
	for _, node := range []string{"k1", "k2", "k3", "c1"} {
		if err := os.MkdirAll(filepath.Join(tdir, results.NodeLogsDir, node), 0o755); err != nil {
			return "", err
		}
		for _, name := range results.NodeLogs() {
			if err := os.WriteFile(filepath.Join(tdir, results.NodeLogsDir, node, name), nil, 0o644); err != nil {
				return "", err
			}
		}
	}
	if err := results.WriteMeta(tdir, d.meta()); err != nil {
		return "", err
	}
	if err := writeFile(filepath.Join(tdir, results.ProbeFile), d.writeProbe); err != nil {
		return "", err
	}
	if err := writeFile(filepath.Join(tdir, results.LogFile), d.writeLog); err != nil {
		return "", err
	}
	return tdir, nil
}

func writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = write(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *scaled) meta() *results.Meta {
	m := &results.Meta{
		Kind:       results.KindTrial,
		KBFVersion: "dev",
		Command:    []string{"kbf", "run", "--kill", "sigkill", "--partitions", strconv.Itoa(d.Partitions)},
		Trial:      1,
		Started:    scaleStart.Add(-2 * time.Second),
		Ended:      scaleStart.Add(d.Duration + 2*time.Second),
		Cluster: results.Cluster{
			Bootstrap:    []string{"127.0.0.1:19092", "127.0.0.1:19093", "127.0.0.1:19094"},
			Image:        "kbf/kafka:4.3.1",
			KafkaVersion: "4.3.1",
			Brokers:      map[string]int32{"k1": 1, "k2": 2, "k3": 3},
		},
		Probe: results.Probe{
			Topic:        "orders",
			Interval:     d.interval,
			Acks:         "all",
			StartOffsets: map[int32]int64{},
			Leaders:      map[int32]int32{},
			Replicas:     map[int32][]int32{},
			Client:       map[string]string{"client": "franz-go v1.22.3", "acks": "all", "idempotent": "true"},
			RunID:        "5ca1ed000000",
			Ready:        scaleStart.Add(10 * time.Millisecond),
		},
		Fault: &results.Fault{Broker: "k1", NodeID: 1, Kind: results.FaultSIGKILL,
			SignalSent: d.fault, Finished: d.fault.Add(60 * time.Millisecond), ExitCode: 137},
		Recovery: &results.Recovery{Restarted: scaleStart.Add(d.Duration + 2*time.Second), LeadersBack: true},
	}
	for p := range d.Partitions {
		n := int32(p)
		lead := int32(p%3) + 1
		m.Probe.Partitions = append(m.Probe.Partitions, n)
		m.Probe.StartOffsets[n] = 0
		m.Probe.Leaders[n] = lead
		m.Probe.Replicas[n] = []int32{lead, lead%3 + 1, (lead+1)%3 + 1}
	}
	return m
}

// writeProbe writes probe.csv slot by slot, every partition's message of
// one slot together; a stalled partition's messages wait for the stall's
// end, as they did for their acks.
func (d *scaled) writeProbe(w *bufio.Writer) error {
	enc := results.NewEncoder(w)
	offsets := make([]int64, d.Partitions) // each partition's next offset
	var waiting []results.Message
	released := false
	for seq := range d.perPart {
		sent := scaleStart.Add(time.Duration(seq) * d.interval)
		if !released && !sent.Before(d.stallEnd) {
			for i := range waiting {
				enc.Encode(&waiting[i])
			}
			waiting, released = nil, true
		}
		for p := range d.Partitions {
			m := results.Message{Partition: int32(p), Seq: int64(seq), Offset: -1,
				Sent: sent.Add(time.Duration(p) * time.Microsecond)}
			f := d.fateOf(p, seq, sent)
			switch f {
			case fateFailed, fateFailedPresent:
				m.Err = "NOT_LEADER_OR_FOLLOWER: the broker is not the leader of this partition"
			default:
				m.Offset = offsets[p]
				m.Acked = m.Sent.Add(3*time.Millisecond + time.Duration(seq%7)*100*time.Microsecond)
				m.Received = m.Acked.Add(2 * time.Millisecond)
			}
			offsets[p] += logCopies(f)
			if d.inStall(p, sent) {
				if !m.Acked.IsZero() {
					m.Acked = d.stallEnd.Add(time.Duration(p) * time.Microsecond)
					m.Received = m.Acked.Add(2 * time.Millisecond)
				}
				waiting = append(waiting, m)
				continue
			}
			enc.Encode(&m)
		}
		if err := enc.Flush(); err != nil {
			return err
		}
	}
	for i := range waiting {
		enc.Encode(&waiting[i])
	}
	return enc.Flush()
}

// logCopies is how many records of a message of fate f the log holds.
func logCopies(f fate) int64 {
	switch f {
	case fateFailed, fateLost:
		return 0
	case fateDuplicated:
		return 2
	}
	return 1
}

// writeLog writes log.csv partition by partition, in offset order, as the
// read-back does.
func (d *scaled) writeLog(w *bufio.Writer) error {
	enc := results.NewLogEncoder(w)
	for p := range d.Partitions {
		var off int64
		for seq := range d.perPart {
			sent := scaleStart.Add(time.Duration(seq) * d.interval)
			for range logCopies(d.fateOf(p, seq, sent)) {
				enc.Encode(&results.LogRecord{Partition: int32(p), Offset: off, Seq: int64(seq)})
				off++
			}
		}
		if err := enc.Flush(); err != nil {
			return err
		}
	}
	return nil
}
