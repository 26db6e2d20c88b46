package clients

import (
	"strings"
	"testing"
)

func TestParseChoice(t *testing.T) {
	for name, c := range map[string]struct {
		list string
		set  []string
		want string // "" for none
	}{
		"default":          {"", nil, ""},
		"a setting":        {"franz-go,librdkafka", []string{"librdkafka:retry.backoff.ms=50"}, ""},
		"unknown client":   {"franz-go,kcat", nil, "--clients: "},
		"no key":           {"librdkafka", []string{"librdkafka:=1"}, "want CLIENT:KEY=VALUE"},
		"franz-go's own":   {"franz-go", []string{"franz-go:linger.ms=1"}, "kbf's own flags"},
		"not chosen":       {"franz-go", []string{"librdkafka:linger.ms=1"}, "librdkafka is not in --clients franz-go"},
		"unknown in a set": {"franz-go", []string{"kcat:a=1"}, `--client-set "kcat:a=1"`},
	} {
		t.Run(name, func(t *testing.T) {
			names, _, err := ParseChoice(c.list, c.set)
			switch {
			case c.want == "" && (err != nil || len(names) == 0):
				t.Fatalf("%v, %v", names, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
	_, settings, err := ParseChoice("librdkafka", []string{"librdkafka:a=1", "librdkafka:a=2", "librdkafka:b=3"})
	if err != nil || settings[Librdkafka]["a"] != "2" || settings[Librdkafka]["b"] != "3" {
		t.Errorf("settings %v, %v; want the later value of a key", settings, err)
	}
}
