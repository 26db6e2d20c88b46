package probe

import (
	"strings"
	"testing"

	"github.com/kbf-project/kbf/results"
)

func TestGroupSettings(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		consumer, proto, commit  string
		group                    string
		wantErr                  string
		wantProto, wantCommit    string
		wantBalancer, wantEffect string
	}{
		{name: "assign: no group reader"},
		{name: "assign said", consumer: "assign"},
		{name: "group: classic, sync", consumer: "group", group: "g", wantProto: "classic", wantCommit: "sync", wantBalancer: "cooperative-sticky", wantEffect: "group g, protocol classic"},
		{name: "group id alone", group: "g", wantProto: "classic", wantCommit: "sync", wantBalancer: "cooperative-sticky"},
		{name: "consumer protocol, interval", consumer: "group", group: "g", proto: "consumer", commit: "interval", wantProto: "consumer", wantCommit: "interval", wantBalancer: "uniform"},
		{name: "unknown consumer", consumer: "share", wantErr: `consumer "share": want assign or group`},
		{name: "unknown protocol", consumer: "group", proto: "eager", wantErr: `group-protocol "eager": want classic or consumer`},
		{name: "unknown commit", consumer: "group", commit: "never", wantErr: `commit "never": want sync, async or interval`},
		{name: "protocol without a group", proto: "consumer", wantErr: "group-protocol consumer: only with consumer group"},
		{name: "commit without a group", consumer: "assign", commit: "sync", wantErr: "commit sync: only with consumer group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.Consumer, c.GroupProtocol, c.Commit, c.Group = tc.consumer, tc.proto, tc.commit, tc.group
			err := c.Validate()
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("Validate: %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			g := c.GroupSettings()
			if tc.wantProto == "" {
				if g != nil || c.GroupReader() {
					t.Errorf("group settings %+v, want none", g)
				}
				if _, ok := c.Effective()["group_consumer"]; ok {
					t.Error("meta.json's client names a group reader there is none of")
				}
				return
			}
			if g == nil || g.Protocol != tc.wantProto || g.Commit != tc.wantCommit || g.Balancer != tc.wantBalancer || g.ID != tc.group {
				t.Fatalf("group settings %+v, want %s, %s, %s, id %s", g, tc.wantProto, tc.wantCommit, tc.wantBalancer, tc.group)
			}
			if (g.AutoCommitInterval > 0) != (tc.wantCommit == results.CommitInterval) {
				t.Errorf("autocommit interval %v under commit %s", g.AutoCommitInterval, tc.wantCommit)
			}
			if e := c.Effective()["group_consumer"]; !strings.Contains(e, tc.wantEffect) {
				t.Errorf("meta.json's group_consumer %q, want it to say %q", e, tc.wantEffect)
			}
			if d := len(c.groupOpts(0)); d < 6 {
				t.Errorf("%d group options", d)
			}
		})
	}
}
