package compose

import (
	"strings"
	"testing"
)

func TestCheckLimits(t *testing.T) {
	for _, c := range []struct {
		name string
		set  []string
		want string // a part of the refusal; "" for settings that pass
	}{
		{name: "defaults", want: ""},
		{name: "a shorter session with its heartbeat", set: []string{"broker.session.timeout.ms=3000", "broker.heartbeat.interval.ms=1500"}},
		{name: "a shorter session, the default heartbeat", set: []string{"broker.session.timeout.ms=3000"},
			want: "--config broker.heartbeat.interval.ms=2000 (Kafka's default) with broker.session.timeout.ms=3000: broker.heartbeat.interval.ms must be at most half broker.session.timeout.ms"},
		{name: "on the controller alone", set: []string{"c1:broker.session.timeout.ms=2000", "broker.heartbeat.interval.ms=1000"}},
		{name: "one broker's heartbeat too slow", set: []string{"c1:broker.session.timeout.ms=2000", "broker.heartbeat.interval.ms=1000", "k2:broker.heartbeat.interval.ms=1500"},
			want: "--config k2:broker.heartbeat.interval.ms=1500 with c1:broker.session.timeout.ms=2000"},
		{name: "fetch wait past the socket timeout", set: []string{"replica.fetch.wait.max.ms=40000", "replica.lag.time.max.ms=60000"},
			want: "replica.fetch.wait.max.ms must be at most replica.socket.timeout.ms: Kafka refuses it"},
		{name: "fetch wait past the lag time", set: []string{"replica.lag.time.max.ms=400"},
			want: "--config replica.fetch.wait.max.ms=500 (Kafka's default) with replica.lag.time.max.ms=400"},
		{name: "not a number", set: []string{"broker.session.timeout.ms=9s"}, want: "is a whole number of milliseconds"},
		{name: "zero", set: []string{"controller.quorum.fetch.timeout.ms=0"}, want: "controller.quorum.fetch.timeout.ms must be positive"},
		{name: "past an int", set: []string{"broker.session.timeout.ms=3000000000"}, want: "is a whole number"},
		{name: "a long lag time", set: []string{"replica.lag.time.max.ms=3000000000"}},
		{name: "others pass", set: []string{"num.partitions=banana"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var ss []Setting
			for _, s := range c.set {
				st, err := ParseSetting(s)
				if err != nil {
					t.Fatal(err)
				}
				ss = append(ss, st)
			}
			err := CheckLimits(ss)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want %q", err, c.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error %q: want one line", err)
			}
		})
	}
}
