package watch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
)

func TestCheckMetricsAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"": true, "127.0.0.1:9464": true, ":0": true,
		"9464": false, "localhost:http2": false, "127.0.0.1:70000": false, "127.0.0.1:+80": false,
	} {
		if err := CheckMetricsAddr(addr); (err == nil) != ok {
			t.Errorf("CheckMetricsAddr(%q) = %v, want ok %v", addr, err, ok)
		}
	}
}

func TestServeMetrics(t *testing.T) {
	if ln, err := ListenMetrics(""); ln != nil || err != nil {
		t.Fatalf(`ListenMetrics("") = %v, %v; want nothing`, ln, err)
	}
	ln, err := ListenMetrics("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if _, err := ListenMetrics(ln.Addr().String()); err == nil || !strings.Contains(err.Error(), "cannot listen there") {
		t.Errorf("a port in use: %v", err)
	}
	stop := ServeMetrics(ln, NewMetrics())
	defer stop()
	resp, err := http.Get("http://" + ln.Addr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "kbf_") {
		t.Errorf("status %d, body %.200q", resp.StatusCode, body)
	}
}

func TestOpenTriesAgain(t *testing.T) {
	var calls atomic.Int64
	var said []string
	down := errors.New("connection refused")
	open := func(context.Context) (cluster.Cluster, error) {
		if calls.Add(1) < 3 {
			return nil, down
		}
		return nil, errors.New("final")
	}
	final := func(err error) bool { return !errors.Is(err, down) }
	_, err := Open(context.Background(), open, time.Millisecond, final, func(s string) { said = append(said, s) })
	if err == nil || err.Error() != "final" || calls.Load() != 3 || len(said) != 2 {
		t.Errorf("err %v after %d calls, said %q; want final after 3, said twice", err, calls.Load(), said)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := Open(ctx, open, time.Hour, final, func(string) {}); c != nil || err != nil {
		t.Errorf("ended: %v, %v; want nil, nil", c, err)
	}
}

func TestCloseWithin(t *testing.T) {
	start := time.Now()
	block := make(chan struct{})
	defer close(block)
	CloseWithin(10*time.Millisecond, func() { <-block })
	if time.Since(start) > 5*time.Second {
		t.Error("CloseWithin waited for a close that does not end")
	}
	done := false
	CloseWithin(time.Hour, func() { done = true })
	if !done {
		t.Error("CloseWithin did not wait for a close that ends")
	}
}

func TestRetentionFlag(t *testing.T) {
	var r Retention
	if r.String() != "0" || r.Type() != "N|AGE" {
		t.Errorf("zero String %q, Type %q", r.String(), r.Type())
	}
	if err := r.Set("30d"); err != nil || r != (Retention{Age: 30 * 24 * time.Hour}) {
		t.Errorf("Set(30d): %v, %+v", err, r)
	}
	if err := r.Set("-1"); err == nil || r.Age == 0 {
		t.Errorf("Set(-1): %v, %+v; want an error and the value kept", err, r)
	}
}
