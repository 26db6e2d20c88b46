package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/kbf-project/kbf/results"
)

func TestParseGroupArgs(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    *groupOptions
		wantErr string
	}{
		{name: "no group reader", args: []string{"--out=d"}},
		{name: "assign named", args: []string{"--out=d", "--consumer=assign"}},
		{name: "group defaults", args: []string{"--out=d", "--consumer=group"},
			want: &groupOptions{protocol: "classic", commit: "sync", autoCommitInterval: time.Second}},
		{name: "kbf's command line", args: []string{"--out=d", "--consumer=group", "--group=g-librdkafka",
			"--group-protocol=consumer", "--commit=interval", "--auto-commit-interval=2s"},
			want: &groupOptions{id: "g-librdkafka", protocol: "consumer", commit: "interval", autoCommitInterval: 2 * time.Second}},
		{name: "bad consumer", args: []string{"--out=d", "--consumer=groups"}, wantErr: `--consumer "groups": want assign or group`},
		{name: "bad protocol", args: []string{"--out=d", "--consumer=group", "--group-protocol=eager"},
			wantErr: `--group-protocol "eager": want classic or consumer`},
		{name: "bad commit", args: []string{"--out=d", "--consumer=group", "--commit=never"},
			wantErr: `--commit "never": want sync, async or interval`},
		{name: "zero auto-commit interval", args: []string{"--out=d", "--consumer=group", "--auto-commit-interval=0s"},
			wantErr: "--auto-commit-interval 0s: must be positive"},
		{name: "group without the group reader", args: []string{"--out=d", "--group=g"},
			wantErr: "--group: only with --consumer group"},
		{name: "commit without the group reader", args: []string{"--out=d", "--consumer=assign", "--commit=sync"},
			wantErr: "--commit: only with --consumer group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseArgs(tt.args, io.Discard)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseArgs() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (o.group == nil) != (tt.want == nil) || (o.group != nil && *o.group != *tt.want) {
				t.Errorf("group = %+v, want %+v", o.group, tt.want)
			}
		})
	}
}

func TestGroupSettings(t *testing.T) {
	base := func(protocol, commit string) *options {
		return &options{topic: "orders", set: map[string]string{"session.timeout.ms": "10000", "fetch.wait.max.ms": "100"},
			group: &groupOptions{id: "g", protocol: protocol, commit: commit, autoCommitInterval: time.Second}}
	}
	cons := kafka.ConfigMap{"group.id": "kbf-probe-r", "enable.auto.commit": false, "fetch.wait.max.ms": 500}

	classic := groupSettings(base("classic", "sync"), cons)
	for k, want := range map[string]any{"group.id": "g", "group.protocol": "classic", "enable.auto.commit": false,
		"partition.assignment.strategy": "cooperative-sticky", "session.timeout.ms": "10000", "fetch.wait.max.ms": "100"} {
		if classic[k] != want {
			t.Errorf("classic %s = %v, want %v", k, classic[k], want)
		}
	}
	consumer := groupSettings(base("consumer", "interval"), cons)
	for k, want := range map[string]any{"group.protocol": "consumer", "enable.auto.commit": true,
		"auto.commit.interval.ms": 1000, "group.remote.assignor": "uniform"} {
		if consumer[k] != want {
			t.Errorf("consumer %s = %v, want %v", k, consumer[k], want)
		}
	}
	for _, k := range []string{"partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"} {
		if _, ok := consumer[k]; ok {
			t.Errorf("group.protocol=consumer sets %s, which librdkafka refuses under it", k)
		}
	}
	if cons["group.id"] != "kbf-probe-r" {
		t.Error("groupSettings changed the probe consumer's settings")
	}
}

func TestCommitEvent(t *testing.T) {
	topic, other := "orders", "other"
	start := time.Date(2026, 12, 5, 3, 26, 9, 87_000_000, time.UTC)
	end := start.Add(8 * time.Millisecond)
	tests := []struct {
		name string
		offs []kafka.TopicPartition
		err  error
		want string // its group-events.csv row; "" for none
	}{
		{name: "a sync commit", offs: []kafka.TopicPartition{
			{Topic: &topic, Partition: 1, Offset: 1040}, {Topic: &topic, Partition: 0, Offset: 1043}, {Topic: &other, Partition: 0, Offset: 7}},
			want: "2026-12-05T03:26:09.095000000Z,commit,2026-12-05T03:26:09.087000000Z,-1,,0:1043 1:1040,"},
		{name: "a failed commit", offs: []kafka.TopicPartition{{Topic: &topic, Partition: 0, Offset: 1050}},
			err:  kafka.NewError(kafka.ErrNotCoordinator, "Broker: Not coordinator", false),
			want: "2026-12-05T03:26:09.095000000Z,commit,2026-12-05T03:26:09.087000000Z,-1,,0:1050,Broker: Not coordinator"},
		{name: "a partition's error", offs: []kafka.TopicPartition{{Topic: &topic, Partition: 2, Offset: 9, Error: errors.New("Broker: Request timed out")}},
			want: "2026-12-05T03:26:09.095000000Z,commit,2026-12-05T03:26:09.087000000Z,-1,,2:9,partition 2: Broker: Request timed out"},
		{name: "nothing of the topic", offs: []kafka.TopicPartition{{Topic: &other, Partition: 0, Offset: 7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := commitEvent(topic, start, end, tt.offs, tt.err)
			if tt.want == "" {
				if ev != nil {
					t.Fatalf("commitEvent() = %+v, want none", ev)
				}
				return
			}
			var buf bytes.Buffer
			enc := results.NewGroupEventEncoder(&buf)
			enc.Encode(ev)
			if err := enc.Flush(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			if lines[0] != "time,kind,start,generation,partitions,offsets,error" || lines[1] != tt.want {
				t.Errorf("rows:\n%s\nwant the header and\n%s", buf.String(), tt.want)
			}
			var back results.GroupEvent
			if err := results.NewGroupEventDecoder(&buf, results.GroupEventsFile).Decode(&back); err != nil {
				t.Errorf("kbf does not read the row back: %v", err)
			}
		})
	}
}

// TestKbfCommandLines parses every command line kbf's package clients
// writes for a probe (its golden file): the probe takes each.
func TestKbfCommandLines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "testdata", "args.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var name string
	blocks := map[string][]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if a, ok := strings.CutPrefix(line, "\t"); ok {
			blocks[name] = append(blocks[name], a)
		} else if line != "" {
			name = strings.TrimSuffix(line, ":")
		}
	}
	if len(blocks["group reader"]) == 0 {
		t.Fatalf("no group reader's command line among %d", len(blocks))
	}
	for name, args := range blocks {
		o, err := parseArgs(args, io.Discard)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if strings.HasPrefix(name, "group reader") != (o.group != nil) {
			t.Errorf("%s: group reader %+v", name, o.group)
		}
	}
}
