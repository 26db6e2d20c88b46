//go:build integration

package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/platform/remote"
	"github.com/kbf-project/kbf/probe"
)

// TestIntegrationWatchScrapedByPrometheus starts a real Prometheus (the
// prometheus binary, Debian's package) scraping a watch's metrics, and
// asks it for the probe's counters: what kbf serves, Prometheus takes.
// The watch probes kfake; nothing here is a claim about Kafka.
func TestIntegrationWatchScrapedByPrometheus(t *testing.T) {
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus binary (apt-get install prometheus)")
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(2, "orders"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	target, err := remote.New(ctx, remote.Options{Bootstrap: c.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	m := NewMetrics()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	cfg := probe.Defaults()
	cfg.Interval = 50 * time.Millisecond
	cfg.Drain = time.Second
	w := &Watcher{Opt: Options{Probe: cfg, Stall: 2 * time.Second, Before: time.Second, Settle: time.Second, Poll: time.Second,
		Longest: time.Minute, Retry: time.Second, Out: t.TempDir()}, Target: target, Metrics: m}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	defer func() { stop(); <-done }()

	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, fmt.Appendf(nil, "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: kbf\n    static_configs:\n      - targets: ['%s']\n", ln.Addr()), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := pl.Addr().String()
	pl.Close()
	cmd := exec.CommandContext(ctx, bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+web)
	logf, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	query := func(q string) (float64, bool) {
		resp, err := http.Get("http://" + web + "/api/v1/query?query=" + url.QueryEscape(q))
		if err != nil {
			return 0, false
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Value [2]any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		if json.NewDecoder(resp.Body).Decode(&r) != nil || len(r.Data.Result) == 0 {
			return 0, false
		}
		s, _ := r.Data.Result[0].Value[1].(string)
		v, err := strconv.ParseFloat(s, 64)
		return v, err == nil
	}
	end := time.Now().Add(90 * time.Second)
	for {
		up, ok1 := query(`up{job="kbf"}`)
		sent, ok2 := query(`sum(kbf_probe_sent_total{job="kbf"})`)
		avail, ok3 := query(`min(kbf_partition_available{job="kbf",kind="ack"})`)
		if ok1 && ok2 && ok3 && up == 1 && sent > 0 && avail == 1 {
			t.Logf("Prometheus scraped: up %v, records sent %v, every partition available", up, sent)
			return
		}
		if time.Now().After(end) {
			b, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("Prometheus never saw the watch: up %v (%v), sent %v (%v), available %v (%v); its log:\n%s", up, ok1, sent, ok2, avail, ok3, b)
		}
		time.Sleep(time.Second)
	}
}
