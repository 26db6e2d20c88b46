package watch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kbf-project/kbf/cluster"
)

// CheckMetricsAddr refuses a --metrics-addr that is not host:port with a
// port number; "" serves no metrics.
func CheckMetricsAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n uint64
		n, err = strconv.ParseUint(port, 10, 16)
		if err == nil && port != strconv.FormatUint(n, 10) {
			err = errors.New("not a port number")
		}
	}
	if err != nil {
		return fmt.Errorf("--metrics-addr %s: want host:port with a port number up to 65535, e.g. 127.0.0.1:9464", addr)
	}
	return nil
}

// ListenMetrics takes --metrics-addr's port, before the cluster is
// reached: a port in use or a host that is not this machine's is the
// flag's error. "" listens nowhere (nil, nil).
func ListenMetrics(addr string) (net.Listener, error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: cannot listen there (%w): give a free port of this machine's", addr, err)
	}
	return ln, nil
}

// ServeMetrics serves m's registry at /metrics on ln until stop is called.
func ServeMetrics(ln net.Listener, m *Metrics) (stop func()) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }
}

// Open opens the watched cluster: one that cannot be reached yet (down,
// not started) is tried again every retry, said each time, until it
// answers or ctx ends (then nil, nil). An error final says cannot be
// mended by waiting (a flag kbf cannot use) is returned at once.
func Open(ctx context.Context, open func(context.Context) (cluster.Cluster, error), retry time.Duration,
	final func(error) bool, say func(string)) (cluster.Cluster, error) {
	var down time.Time
	for {
		c, err := open(ctx)
		switch {
		case err == nil:
			return c, nil
		case ctx.Err() != nil:
			return nil, nil
		case final(err):
			return nil, err
		}
		if down.IsZero() {
			down = time.Now()
		}
		say(fmt.Sprintf("the cluster cannot be reached (%v) for %v: trying again in %v", err, time.Since(down).Round(time.Second), retry))
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(retry):
		}
	}
}

// StopSignals stop a watch: Ctrl-C, SIGTERM (a pod deleted) and SIGHUP
// (its terminal gone: a dropped ssh session). Each writes the open
// incident before kbf exits.
var StopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// CloseTimeout bounds closing the cluster's clients once the watch has
// stopped: a frozen cluster must not hold the exit.
const CloseTimeout = time.Second

// CloseWithin runs fn for at most d: a client closing on a frozen cluster
// is left behind as kbf exits.
func CloseWithin(d time.Duration, fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
