package results

import (
	"context"
	"io"
)

// ContextReader returns a reader of r whose reads fail with ctx's error
// once ctx is done, so that a loop parsing a trial's files (its CSVs, the
// nodes' logs) stops within a buffer's worth of lines of a Ctrl-C.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
