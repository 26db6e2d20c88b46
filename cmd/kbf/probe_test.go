package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/kbf-project/kbf/kafkaadmin"
)

func TestProbeBootstrapFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		set  bool
	}{
		{"default addresses", []string{"probe"}, false},
		{"explicit", []string{"probe", "--bootstrap", "10.0.0.1:9092"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *probeOptions
			code, stderr := runOnly(t, func(g *globals) *cobra.Command {
				return newProbeCmdF(g, func(_ context.Context, o *probeOptions) error { got = o; return nil })
			}, tt.args...)
			if code != exitOK || got == nil {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if got.bootstrapSet != tt.set {
				t.Errorf("bootstrapSet = %v, want %v", got.bootstrapSet, tt.set)
			}
		})
	}
}

func TestCheckOwnCluster(t *testing.T) {
	const kbfID = "a2JmLWNsdXN0ZXItMDAwMQ"
	addrs := []string{"127.0.0.1:19092", "127.0.0.1:19093"}
	id := func(s string, err error) func(context.Context) (string, error) {
		return func(context.Context) (string, error) { return s, err }
	}
	tests := []struct {
		name    string
		idOf    func(context.Context) (string, error)
		want    string
		wantErr string // "" for none
	}{
		{"kbf's own", id(kbfID, nil), kbfID, ""},
		{"another cluster", id("MkU3OEVBNTcwNTJENDM2Qk", nil), kbfID,
			"probe: the brokers on 127.0.0.1:19092,127.0.0.1:19093 are cluster MkU3OEVBNTcwNTJENDM2Qk, not kbf's (" + kbfID + "): pass --bootstrap"},
		{"nobody answers", id("", errors.New("dial tcp: connection refused")), kbfID,
			"probe: no broker answers on 127.0.0.1:19092,127.0.0.1:19093 (dial tcp: connection refused): is the cluster up?"},
		{"compose file sets no id", id("anything", nil), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkOwnCluster(context.Background(), tt.idOf, tt.want, addrs)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("checkOwnCluster: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("checkOwnCluster: %v, want one line starting %q", err, tt.wantErr)
			}
		})
	}
}

// The cluster id comes from what the brokers really report.
func TestCheckOwnClusterKfake(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.ClusterID("someone-elses"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	a, err := kafkaadmin.New(kafkaadmin.Config{Brokers: []kafkaadmin.Broker{{ID: 0, Addr: kc.ListenAddrs()[0]}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := checkOwnCluster(ctx, a.ClusterID, "someone-elses", kc.ListenAddrs()); err != nil {
		t.Errorf("same id: %v", err)
	}
	if err := checkOwnCluster(ctx, a.ClusterID, "a2JmLWNsdXN0ZXItMDAwMQ", kc.ListenAddrs()); err == nil ||
		!strings.Contains(err.Error(), "are cluster someone-elses, not kbf's") {
		t.Errorf("other id: %v, want a refusal naming both", err)
	}
}
