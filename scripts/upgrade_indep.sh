#!/usr/bin/env bash
# upgrade_indep.sh - live upgrades judged by a client we did not write: a
# twserver with N npm teeworlds bots (scripts/indep/bots.js, a DDNet/0.6
# client library) and M twload clients in game, upgraded K times in a row
# (SIGUSR2 every GAP seconds, the same binary: what passes is the state, not
# the build). It prints the bots' summary (in game for the whole window,
# disconnects, CRC errors, snapshots with a missing delta base, snapshots a
# second) and twload's (connected, tick backs, longest snapshot gap) and
# exits 1 when a bot or a twload client left or saw a broken snapshot.
#
# Usage: scripts/upgrade_indep.sh [-n BOTS] [-m TWLOAD] [-k UPGRADES] [-g GAP] [-o DIR]
# Defaults: 16 bots (8 play), 47 twload clients, 10 upgrades, 3.5 s apart.
# Needs root (everything runs inside `unshare --net`, loopback only: the
# library may fetch a map URL a server names), node and npm (the first run
# does `npm ci` in scripts/indep, which reaches the npm registry), jq, Go.
# Bounded: at most 64 clients in all, 100 upgrades, a run under 10 minutes.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BOTS=16 TW=47 K=10 GAP=3.5 OUT=
while getopts "n:m:k:g:o:h" o; do
	case $o in
	n) BOTS=$OPTARG ;; m) TW=$OPTARG ;; k) K=$OPTARG ;; g) GAP=$OPTARG ;; o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
die() { echo "upgrade_indep.sh: $*" >&2; exit 2; }
((BOTS >= 1 && TW >= 0 && BOTS + TW <= 64)) || die "1..64 clients in all (bots $BOTS, twload $TW)"
((K >= 1 && K <= 100)) || die "1..100 upgrades"
OUT=${OUT:-$(mktemp -d /tmp/upgrade_indep.XXXXXX)}
mkdir -p "$OUT"

if [ "${UPIND_INNER:-0}" != 1 ]; then
	for t in node npm jq unshare ip go; do command -v "$t" >/dev/null || die "$t missing"; done
	if ! (cd "$ROOT/scripts/indep" && node -e 'require("teeworlds")' 2>/dev/null); then
		(cd "$ROOT/scripts/indep" && nice -n 19 npm ci --no-audit --no-fund >"$OUT/npm-ci.log" 2>&1) || die "npm ci failed (see $OUT/npm-ci.log)"
	fi
	(cd "$ROOT" && go build -o "$OUT/twserver" ./cmd/twserver && go build -o "$OUT/twload" ./cmd/twload)
	exec unshare --net -- env UPIND_INNER=1 "$0" -n "$BOTS" -m "$TW" -k "$K" -g "$GAP" -o "$OUT"
fi

ip link set lo up
[ "$(ip -o link | wc -l)" = 1 ] || die "a network interface besides lo"
PORT=18501
cat >"$OUT/server.toml" <<EOF
[server]
bind = "127.0.0.1"
port = $PORT
max_clients = 64
max_clients_per_ip = 16
player_slots = 16
[game]
inactive_kick_time = 0
EOF
cd "$OUT"
./twserver -config server.toml -no-console -log-level info >server.log 2>&1 &
trap 'pkill -f "twserver -config server.toml" || true' EXIT
sleep 2
window=$(awk -v k="$K" -v g="$GAP" 'BEGIN { printf "%d", k * g + 15 }')
timeout 600 node "$ROOT/scripts/indep/bots.js" --port $PORT --n "$BOTS" --play $((BOTS / 2)) --rampup 5 --settle 3 \
	--duration "$window" --sources 4 --source-base 127.0.0.2 --json bots.json >bots.log 2>&1 &
B=$!
T=
if ((TW > 0)); then
	timeout 600 ./twload -addr 127.0.0.1:$PORT -n "$TW" -duration "$((window + 10))s" -sources 12 -source-base 127.0.1.2 \
		-json twload.json >twload.log 2>&1 &
	T=$!
fi
sleep 12
for _ in $(seq "$K"); do
	kill -USR2 "$(pgrep -n -f "twserver -config server.toml")"
	sleep "$GAP"
done
rc=0
wait "$B" || rc=1
[ -z "$T" ] || wait "$T" || rc=1
echo "upgrades that took over: $(grep -c 'the new process serves' server.log) of $K"
jq -c '{bots: .n, in_game_whole_window, disconnects, crc_errors, missing_base, snapshots_per_s}' bots.json
[ -z "$T" ] || jq -c '{twload: .clients, connected, failed, tick_backs, max_snapshot_interval_ms, crc_errors, delta_errors, no_base}' twload.json
echo "logs in $OUT"
exit $rc
