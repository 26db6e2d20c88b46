#!/usr/bin/env bash
# random-faults.sh: faults kbf's Docker cluster (kbf up) at random times, announcing
# nothing to kbf, for measuring kbf watch (docs/measurements.md). Each fault hits a
# random broker of k1..k3 and is healed before the next; one line per fault and heal
# goes to stdout with its UTC time, to set beside the incidents kbf watch wrote.
#
#   scripts/random-faults.sh [MINUTES] [FAULTS...]
#   scripts/random-faults.sh 30 sigkill sigterm pause cut sigkill sigterm
#
# The faults: sigkill (docker kill, started again 20 s later), sigterm (docker stop,
# started again 20 s later), pause (docker pause for 15 s), cut (every packet in and
# out of the broker's network namespace dropped for 15 s: root, nsenter, iptables).
set -euo pipefail
minutes=${1:-30}
shift || true
faults=("$@")
[ ${#faults[@]} -gt 0 ] || faults=(sigkill sigterm pause cut sigkill sigterm)
slot=$(( minutes * 60 / (${#faults[@]} + 1) ))
[ "$slot" -ge 120 ] || { echo "random-faults.sh: $minutes minutes leave under 2 minutes a fault: give more minutes or fewer faults" >&2; exit 2; }

say() { printf '%s %s\n' "$(date -u +%H:%M:%S.%3N)" "$*"; }
start=$SECONDS
for i in "${!faults[@]}"; do
  # Each fault at a random moment of its slot's first half, so that the
  # second half leaves the cluster time to recover.
  at=$(( (i + 1) * slot - slot / 2 + RANDOM % (slot / 2) ))
  sleep $(( at - (SECONDS - start) > 0 ? at - (SECONDS - start) : 0 ))
  b="k$(( RANDOM % 3 + 1 ))"
  c="kbf-$b"
  f=${faults[$i]}
  case $f in
    sigkill) say "fault $((i + 1)) sigkill $b"; docker kill "$c" >/dev/null; sleep 20; docker start "$c" >/dev/null; say "heal $((i + 1)) started $b" ;;
    sigterm) say "fault $((i + 1)) sigterm $b"; docker stop -t 60 "$c" >/dev/null; say "stopped $b"; sleep 20; docker start "$c" >/dev/null; say "heal $((i + 1)) started $b" ;;
    pause)   say "fault $((i + 1)) pause $b"; docker pause "$c" >/dev/null; sleep 15; docker unpause "$c" >/dev/null; say "heal $((i + 1)) unpaused $b" ;;
    cut)
      pid=$(docker inspect -f '{{.State.Pid}}' "$c")
      say "fault $((i + 1)) cut $b"
      nsenter -t "$pid" -n iptables -w -I INPUT 1 -j DROP
      nsenter -t "$pid" -n iptables -w -I OUTPUT 1 -j DROP
      sleep 15
      nsenter -t "$pid" -n iptables -w -D INPUT -j DROP
      nsenter -t "$pid" -n iptables -w -D OUTPUT -j DROP
      say "heal $((i + 1)) uncut $b" ;;
    *) echo "random-faults.sh: unknown fault $f: want sigkill, sigterm, pause or cut" >&2; exit 2 ;;
  esac
done
say "done"
