package timeline

import (
	"slices"
	"strings"
)

// matches reports whether msg is the rule's message; for a request rule,
// "wrote Produce v13", it returns the request's name.
func (cr *clientRule) matches(msg string) (request string, ok bool) {
	if !cr.request {
		return "", msg == cr.msg
	}
	rest, ok := strings.CutPrefix(msg, cr.msg+" ")
	if !ok {
		return "", false
	}
	name, version, _ := strings.Cut(rest, " ")
	if !strings.HasPrefix(version, "v") || strings.Contains(version, " ") {
		return "", false
	}
	if len(cr.requests) > 0 && !slices.Contains(cr.requests, name) {
		return "", false
	}
	return name, true
}
