#!/usr/bin/env bash
# test-recap.sh: reads the output of go test -v (a file, or stdin) and prints, for
# every test that failed and has no failed subtest, the first line of each of its
# log and error entries, so that why a test failed stands at the end of a long run
# instead of among thousands of lines above it. Prints nothing when nothing failed.
#
#   go test -v ./... 2>&1 | tee test.log; scripts/test-recap.sh test.log
set -euo pipefail
awk '
function leaf(name,   k) {
	for (k in failed) if (index(k, name "/") == 1) return 0
	return 1
}
/^=== (RUN|NAME|CONT|PAUSE) / { cur = $3; next }
/^[ \t]*--- FAIL: / {
	name = $0; sub(/^[ \t]*--- FAIL: /, "", name); sub(/ .*/, "", name)
	failed[name] = 1; order[++n] = name; next
}
/^[ \t]*--- (PASS|SKIP): / { next }
cur != "" && /^[ \t]+[A-Za-z0-9_.-]+_test\.go:[0-9]+: / {
	line = $0; sub(/^[ \t]+/, "", line)
	if (length(line) > 400) line = substr(line, 1, 400) "…"
	entries[cur] = entries[cur] "    " line "\n"
}
END {
	for (i = 1; i <= n; i++) {
		name = order[i]
		if (!leaf(name)) continue
		if (!shown) print "\nwhy the failed tests failed (the first line of each of their log and error entries):"
		shown = 1
		printf "--- %s\n%s", name, entries[name]
	}
}' "${1:-/dev/stdin}"
