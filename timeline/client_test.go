package timeline

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReadClientLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "client.log")
	const log = "" +
		"2026-11-30T03:26:17.000000000Z DEBUG producer wrote Metadata v13 broker=2 bytes_written=46 err=<nil>\n" +
		"not a line of ours\n" +
		"2026-11-30T03:26:18.133256930Z DEBUG producer retrying request request=Metadata tries=1 backoff=100ms request_error=\"unable to dial: connection refused\"\n" +
		"2026-11-30T03:26:18.500000000Z INFO consumer metadata update triggered why=\"load during source backoff\"\n" +
		"2026-11-30T03:26:30.000000000Z INFO producer too late\n"
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	from := time.Date(2026, 11, 30, 3, 26, 18, 0, time.UTC)
	lines, err := ReadClientLines(path, from, from.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d lines in [from, to], want 2: %+v", len(lines), lines)
	}
	l := lines[0]
	if l.Client != "producer" || l.Level != "DEBUG" || l.Msg != "retrying request" || l.Line != 3 ||
		l.KV["backoff"] != "100ms" || l.KV["request_error"] != "unable to dial: connection refused" {
		t.Errorf("first line %+v", l)
	}
	if l := lines[1]; l.Client != "consumer" || l.Msg != "metadata update triggered" || l.KV["why"] != "load during source backoff" {
		t.Errorf("second line %+v", l)
	}
}

func TestSplitMessage(t *testing.T) {
	for _, tc := range []struct{ in, msg, kvs string }{
		{"metadata update triggered why=x", "metadata update triggered", "why=x"},
		{"no pairs at all", "no pairs at all", ""},
		{"a=b", "", "a=b"},
	} {
		msg, kvs := splitMessage(tc.in)
		if msg != tc.msg || kvs != tc.kvs {
			t.Errorf("splitMessage(%q) = %q, %q; want %q, %q", tc.in, msg, kvs, tc.msg, tc.kvs)
		}
	}
}
