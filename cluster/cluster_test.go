package cluster_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/cluster"
	"github.com/kbf-project/kbf/results"
)

func TestFaultValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault cluster.Fault
		want  string // "" = valid
	}{
		{"sigkill", cluster.Fault{Broker: "k1", Kind: results.FaultSIGKILL}, ""},
		{"a cut with its controllers", cluster.Fault{Broker: "k2", Kind: results.FaultIsolateController, Controllers: []string{"c1"}}, ""},
		{"zero waits take the defaults", cluster.Fault{Broker: "k1", Kind: results.FaultDiskFull}, ""},
		{"no broker", cluster.Fault{Kind: results.FaultSIGKILL}, "needs a broker"},
		{"a fault of two nodes", cluster.Fault{Broker: "k1", Kind: results.FaultTwoBrokers}, "want "},
		{"an unknown kind", cluster.Fault{Broker: "k1", Kind: results.FaultKind("sigstop")}, "want "},
		{"no kind", cluster.Fault{Broker: "k1"}, "want "},
		{"negative grace", cluster.Fault{Broker: "k1", Kind: results.FaultSIGTERM, Grace: -time.Second}, "must not be negative"},
		{"negative halt wait", cluster.Fault{Broker: "k1", Kind: results.FaultDiskFull, HaltWait: -time.Second}, "must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.fault.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Validate: %v, want nil", err)
			case tc.want != "" && err == nil:
				t.Fatalf("Validate: nil, want an error saying %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("Validate: %v, want it to say %q", err, tc.want)
			}
		})
	}
}

func TestUnsupportedfIsErrUnsupported(t *testing.T) {
	err := cluster.Unsupportedf("fault %s on %s: no nsenter", results.FaultIsolate, "k1")
	if !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("errors.Is(%v, ErrUnsupported) = false", err)
	}
	if wrapped := fmt.Errorf("run: %w", err); !errors.Is(wrapped, cluster.ErrUnsupported) {
		t.Fatalf("wrapped: errors.Is(%v, ErrUnsupported) = false", wrapped)
	}
	if got, want := err.Error(), "fault isolate on k1: no nsenter"; got != want {
		t.Fatalf("message %q, want %q (the cluster's own words, nothing added)", got, want)
	}
	if errors.Is(errors.New("fault isolate on k1: no nsenter"), cluster.ErrUnsupported) {
		t.Fatal("an error of the same words but not made by Unsupportedf is ErrUnsupported")
	}
}
