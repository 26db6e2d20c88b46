package clients

import (
	"fmt"
	"strings"
)

// ParseChoice reads the clients chosen to probe side by side (--clients:
// a comma-separated list, "" for franz-go alone) and each external
// client's settings by its own names (--client-set: CLIENT:KEY=VALUE, in
// order, a later value of a key over an earlier). An error names the flag
// whose value it refuses.
func ParseChoice(list string, set []string) ([]Name, map[Name]map[string]string, error) {
	given := list
	if list == "" {
		list = string(FranzGo)
	}
	names, err := ParseList(list)
	if err != nil {
		return nil, nil, fmt.Errorf("--clients: %w", err)
	}
	settings := map[Name]map[string]string{}
	for _, s := range set {
		name, key, value, err := parseSetting(s, names, given)
		if err != nil {
			return nil, nil, fmt.Errorf("--client-set %q: %w", s, err)
		}
		if settings[name] == nil {
			settings[name] = map[string]string{}
		}
		settings[name][key] = value
	}
	return names, settings, nil
}

// parseSetting reads one CLIENT:KEY=VALUE of an external client among
// names.
func parseSetting(s string, names []Name, list string) (Name, string, string, error) {
	name, kv, ok := strings.Cut(s, ":")
	key, value, ok2 := strings.Cut(kv, "=")
	if !ok || !ok2 || key == "" {
		return "", "", "", fmt.Errorf("want CLIENT:KEY=VALUE, such as librdkafka:retry.backoff.ms=50")
	}
	c, err := Lookup(Name(name))
	switch {
	case err != nil:
		return "", "", "", err
	case !c.External:
		return "", "", "", fmt.Errorf("franz-go's settings are kbf's own flags (kbf run --help)")
	}
	for _, n := range names {
		if n == c.Name {
			return c.Name, key, value, nil
		}
	}
	return "", "", "", fmt.Errorf("%s is not in --clients %s", c.Name, list)
}

// CheckBuilt says, before a trial starts, which chosen external probe is
// not built and how to build it.
func CheckBuilt(names []Name) error {
	l := DefaultLocator()
	for _, n := range names {
		c, err := Lookup(n)
		if err != nil || !c.External {
			continue
		}
		spec := Spec{Client: n, Bootstrap: []string{"x:1"}, Topic: "t", Interval: 1, Acks: "all", Dir: "."}
		if _, err := l.Command(spec); err != nil {
			return fmt.Errorf("--clients %s: %w", n, err)
		}
	}
	return nil
}
