package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingListener accepts connections, counts them and closes them: a
// command that reaches it has reached "the cluster".
func countingListener(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), &n
}

// TestWatchFlagsBeforeCluster: every flag kbf watch cannot use is refused
// in one line, exit 2, before the cluster is reached (kbf run's rule).
func TestWatchFlagsBeforeCluster(t *testing.T) {
	addr, reached := countingListener(t)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "watch")
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"metrics not host:port":          {[]string{"--metrics-addr", "9464"}, "--metrics-addr 9464: want host:port"},
		"metrics port words":             {[]string{"--metrics-addr", "localhost:http2"}, "--metrics-addr localhost:http2: want host:port"},
		"metrics port too big":           {[]string{"--metrics-addr", "127.0.0.1:70000"}, "want host:port with a port number up to 65535"},
		"metrics port in use":            {[]string{"--metrics-addr", busy.Addr().String()}, "cannot listen there"},
		"metrics host elsewhere":         {[]string{"--metrics-addr", "192.0.2.1:9464"}, "cannot listen there"},
		"out a file":                     {[]string{"--out", file}, "--out"},
		"out under a file":               {[]string{"--out", filepath.Join(file, "w")}, "not a directory"},
		"partitions twice":               {[]string{"--out", out, "--partitions", "0,0"}, "--partitions 0,0: partition 0 given twice"},
		"partitions again":               {[]string{"--out", out, "--partitions", "1", "--partitions", "1"}, "partition 1 given twice"},
		"partition negative":             {[]string{"--out", out, "--partitions", "-1"}, "--partitions -1: partition -1: want 0 to 9999"},
		"partition too big":              {[]string{"--out", out, "--partitions", "10000"}, "--partitions 10000: partition 10000: want 0 to 9999"},
		"interval 1ns":                   {[]string{"--out", out, "--interval", "1ns"}, "--interval 1ns: must be at least 1ms"},
		"longest 1ns":                    {[]string{"--out", out, "--longest", "1ns"}, "--longest 1ns: below --stall"},
		"poll 1ns":                       {[]string{"--out", out, "--poll", "1ns"}, "--poll 1ns"},
		"settle 1ns":                     {[]string{"--out", out, "--settle", "1ns"}, "--settle 1ns"},
		"before 1ns":                     {[]string{"--out", out, "--before", "1ns"}, "--before 1ns"},
		"stall overflows":                {[]string{"--out", out, "--stall", "9999999999h"}, "--stall"},
		"retain overflows":               {[]string{"--out", out, "--retain", "213504d"}, "longer than kbf can hold"},
		"retain hours overflow":          {[]string{"--out", out, "--retain", "2562048h"}, "longer than kbf can hold"},
		"retain count overflow":          {[]string{"--out", out, "--retain", "99999999999999999999"}, "more incidents than kbf can count"},
		"logs without bootstrap cluster": {[]string{"--out", out, "--target", "k8s", "--logs", dir}, "--logs"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			args := append([]string{"watch", "--bootstrap", addr}, c.args...)
			code := run(context.Background(), args, &bytes.Buffer{}, &stderr)
			msg := strings.TrimSpace(stderr.String())
			if code != exitUsage || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, msg, exitUsage, c.want)
			}
		})
	}
	if n := reached.Load(); n > 0 {
		t.Errorf("the cluster was reached %d times by commands refused for their flags", n)
	}
}

// TestWatchBootstrapDown: a cluster down at start is tried again every
// 5 s, said each time, until kbf watch is stopped: exit 0.
func TestWatchBootstrapDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing answers there
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	code := run(ctx, []string{"watch", "--bootstrap", addr, "--out", t.TempDir()}, &bytes.Buffer{}, &stderr)
	if code != exitOK {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitOK, stderr.String())
	}
	if n := strings.Count(stderr.String(), "the cluster cannot be reached"); n < 2 {
		t.Errorf("tried %d times in 7 s, want 2 (every 5 s); stderr:\n%s", n, stderr.String())
	}
}
