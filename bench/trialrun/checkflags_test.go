package trialrun

import (
	"strings"
	"testing"
	"time"

	"github.com/kbf-project/kbf/results"
)

func TestCheckFlags(t *testing.T) {
	cases := []struct {
		name string
		set  func(o *Options, e *External)
		want string
	}{
		{name: "fine", set: func(*Options, *External) {}},
		{name: "the disk's first", set: func(o *Options, _ *External) {
			o.DiskDelay, o.Loss = time.Second, "30%"
		}, want: "--disk-delay is disk-slow's"},
		{name: "then the hiccup's", set: func(o *Options, e *External) {
			o.Loss, e.Logs = "30%", "/logs"
		}, want: "--loss is packet-loss's"},
		{name: "then Kubernetes'", set: func(o *Options, e *External) {
			o.K8s.Target, e.Logs = "nowhere", "/logs"
		}, want: "nowhere"},
		{name: "then a remote cluster's", set: func(_ *Options, e *External) { e.Logs = "/logs" }, want: "--fault external's"},
		{name: "Kubernetes' bootstrap is its own", set: func(o *Options, e *External) {
			o.K8s.Target, o.BrokerSet, e.Bootstrap, e.BootstrapSet = TargetK8s, true, []string{"kafka:9092"}, true
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			o.Trial.Kill = results.FaultSIGKILL
			var e External
			c.set(&o, &e)
			err := o.CheckFlags(&e)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
