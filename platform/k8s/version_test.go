package k8s

import (
	"context"
	"strings"
	"testing"
)

func TestTagVersion(t *testing.T) {
	tests := []struct {
		name, image, want string
	}{
		{"apache's", "apache/kafka:4.3.1", "4.3.1"},
		{"kbf's", "kbf/kafka:4.0.2", "4.0.2"},
		{"strimzi's", "quay.io/strimzi/kafka:0.45.0-kafka-3.9.0", "3.9.0"},
		{"a registry with a port", "registry:5000/kafka:3.7.1", "3.7.1"},
		{"a registry port and no tag", "registry:5000/kafka", ""},
		{"a digest", "apache/kafka:4.1.0@sha256:0123abcd", "4.1.0"},
		{"a release candidate", "apache/kafka:4.2.0-rc1", "4.2.0-rc1"},
		{"latest", "apache/kafka:latest", ""},
		{"no tag", "apache/kafka", ""},
		{"a tag of the company's", "corp/kafka:prod-2026", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tagVersion(tt.image); got != tt.want {
				t.Errorf("tagVersion(%q) = %q, want %q", tt.image, got, tt.want)
			}
		})
	}
}

func TestKafkaVersion(t *testing.T) {
	started := "[2026-12-02 01:00:00,000] INFO Kafka version: 4.3.1 (org.apache.kafka.common.utils.AppInfoParser)\n"
	tests := []struct {
		name    string
		logs    map[string]string
		image   string
		want    string
		wantErr string
	}{
		{name: "the broker's start-up line wins over the tag", logs: map[string]string{"kafka-broker-1/current": "[x] INFO starting\n" + started}, image: "corp/kafka:4.0.0", want: "4.3.1"},
		{name: "logs to files: the image's tag", logs: map[string]string{"kafka-broker-1/current": "starting\n"}, image: "apache/kafka:4.1.0", want: "4.1.0"},
		{name: "no output: the image's tag", image: "quay.io/strimzi/kafka:0.45.0-kafka-3.9.0", want: "3.9.0"},
		{name: "neither", logs: map[string]string{"kafka-broker-1/current": "starting\n"}, image: "corp/kafka:prod",
			wantErr: `kafka version: no "Kafka version" line in its output of pod kafka-broker-1 (kafka), and image corp/kafka:prod's tag names no release`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tg := newCluster(&fakeAPI{logs: tt.logs}, Options{}, []Node{{Pod: "kafka-broker-1", Container: "kafka", ID: 1, Broker: true, Image: tt.image}})
			defer tg.Close()
			got, err := tg.KafkaVersion(context.Background())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
