package watch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/kbf-project/kbf/probe"
	"github.com/kbf-project/kbf/results"
)

// readBack is the incident's audit's evidence: each partition read back
// over the offsets its records in the window were acknowledged at, written
// as the incident's log.csv. The probe runs on, so the partitions hold
// more than the window: records past the window's last acknowledged
// offset are left out, as are records of the probe before the window (its
// first acknowledged offset is where the reading starts).
func (w *Watcher) readBack(ctx context.Context, dir string, cfg probe.Config, csv []byte) error {
	first, last, err := ackedOffsets(csv)
	if err != nil || len(first) == 0 {
		return err
	}
	rb := w.ReadBack
	if rb == nil {
		rb = func(ctx context.Context, cfg probe.Config, starts map[int32]int64, out *results.LogEncoder) error {
			_, err := probe.ReadBack(ctx, cfg.Bootstrap, cfg.Topic, cfg.RunID, starts, cfg.Transactional(), out, cfg.Security.KgoOpts()...)
			return err
		}
	}
	var all bytes.Buffer
	enc := results.NewLogEncoder(&all)
	if err := rb(ctx, cfg, first, enc); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(dir, results.LogFile), func(out io.Writer) error {
		return keepOffsets(&all, out, last)
	})
}

// ackedOffsets are, per partition, the first and last offsets the probe
// CSV's rows were acknowledged at.
func ackedOffsets(csv []byte) (first, last map[int32]int64, err error) {
	first, last = map[int32]int64{}, map[int32]int64{}
	dec := results.NewDecoder(bytes.NewReader(csv), results.ProbeFile)
	defer dec.Close()
	var m results.Message
	for {
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return first, last, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if m.Offset < 0 {
			continue
		}
		if f, ok := first[m.Partition]; !ok || m.Offset < f {
			first[m.Partition] = m.Offset
		}
		last[m.Partition] = max(last[m.Partition], m.Offset)
	}
}

// keepOffsets copies the read-back CSV in to out, keeping each
// partition's records up to its last offset.
func keepOffsets(in io.Reader, out io.Writer, last map[int32]int64) error {
	dec := results.NewLogDecoder(in, results.LogFile)
	defer dec.Close()
	enc := results.NewLogEncoder(out)
	var r results.LogRecord
	for {
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read-back: %w", err)
		}
		if end, ok := last[r.Partition]; ok && r.Offset <= end {
			enc.Encode(&r)
		}
	}
	return enc.Flush()
}
