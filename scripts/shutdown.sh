#!/usr/bin/env bash
# shutdown.sh [RUNS] [CLIENTS]
#
# Graceful shutdown under load (issue 11, proof 7): RUNS times (default 100)
# start twserver (64 slots, teehistorian recording on), connect CLIENTS
# (default 32) twload clients with random inputs over 8 loopback source
# addresses (ramp-up 2 s), send SIGTERM at a random moment 3..13 s after
# the start, and check:
#   - the server exits with status 0 within 5 s of the signal;
#   - every client was told "Server shutdown" (twload's per-client failure
#     is exactly "closed by server: Server shutdown");
#   - the teehistorian ends in FINISH (`twhist json` says finished).
# (scripts/record_sigterm.sh checks the recordings more deeply: replay and
# demo header; this script checks the exit and the clients at scale.)
# Prints one line per run and a summary; exit 0 when every run passed.
# Loopback only. Needs go (or prebuilt binaries in $BIN).
set -uo pipefail
RUNS=${1:-100}
N=${2:-32}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${OUT:-$(mktemp -d /tmp/twshutdown.XXXXXX)}
mkdir -p "$WORK"
BIN=${BIN:-$WORK/bin}
export PATH=$PATH:/usr/local/go/bin
if [ ! -x "$BIN/twserver" ]; then
	mkdir -p "$BIN"
	(cd "$ROOT" && export CGO_ENABLED=0 && go build -trimpath -o "$BIN/twserver" ./cmd/twserver && go build -trimpath -o "$BIN/twload" ./cmd/twload &&
		go build -trimpath -o "$BIN/twhist" ./cmd/twhist) || exit 2
fi
free_port() { python3 -c 'import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
pass=0 fail=0 SP= LP=
declare -a EXIT_MS
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; [ -n "$LP" ] && kill "$LP" 2>/dev/null; exit 130' INT TERM
for run in $(seq 1 "$RUNS"); do
	dir=$WORK/run$run
	mkdir -p "$dir/rec"
	port=$(free_port)
	cat >"$dir/cfg.toml" <<CFG
[server]
bind = "127.0.0.1"
port = $port
max_clients = 64
max_clients_per_ip = 8
[game]
inactive_kick_time = 0
[record]
teehistorian = true
dir = "$dir/rec"
CFG
	"$BIN/twserver" -config "$dir/cfg.toml" -no-console -log-level warn >"$dir/server.log" 2>&1 &
	SP=$!
	sleep 0.3
	"$BIN/twload" -addr 127.0.0.1:$port -clients "$N" -rampup 2s -duration 30s -pattern random -seed "$run" \
		-sources 8 -source-base 127.0.3.1 -status off -per-client -json "$dir/load.json" >/dev/null 2>&1 &
	LP=$!
	delay_ms=$((3000 + RANDOM % 10000))
	sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
	t0=$(date +%s%N)
	kill -TERM "$SP"
	# wait at most 5 s for the exit
	for ((i = 0; i < 100; i++)); do kill -0 "$SP" 2>/dev/null || break; sleep 0.05; done
	t1=$(date +%s%N)
	if kill -0 "$SP" 2>/dev/null; then
		srv_exit=timeout
		kill -KILL "$SP"
		wait "$SP" 2>/dev/null
	else
		wait "$SP"
		srv_exit=$?
	fi
	SP=
	# the clients stop on the server's CLOSE; give them a moment to write the summary
	for ((i = 0; i < 60; i++)); do kill -0 "$LP" 2>/dev/null || break; sleep 0.05; done
	kill "$LP" 2>/dev/null
	wait "$LP" 2>/dev/null
	LP=
	ms=$(((t1 - t0) / 1000000))
	EXIT_MS+=("$ms")
	told=$(jq '[.per_client[] | select(.failure == "closed by server: Server shutdown")] | length' "$dir/load.json" 2>/dev/null || echo 0)
	ingame=$(jq '[.per_client[] | select(.entered)] | length' "$dir/load.json" 2>/dev/null || echo 0)
	th=$(ls "$dir"/rec/*.teehistorian 2>/dev/null | head -1)
	finished=0
	[ -n "$th" ] && "$BIN/twhist" json "$th" >"$dir/th.json" 2>/dev/null && finished=$(grep -c '"finished": true' "$dir/th.json")
	ok=1 why=""
	[ "$srv_exit" = 0 ] || { ok=0; why="exit $srv_exit"; }
	[ "$ms" -le 5000 ] || { ok=0; why="$why slow exit"; }
	[ "$told" = "$N" ] || { ok=0; why="$why $told/$N told"; }
	[ "$finished" = 1 ] || { ok=0; why="$why no FINISH"; }
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	printf 'run %3d: SIGTERM at %5d ms, %2d/%d in game, exit %s after %4d ms, %2d/%d told "Server shutdown", teehistorian finished=%s %s\n' \
		"$run" "$delay_ms" "$ingame" "$N" "$srv_exit" "$ms" "$told" "$N" "$finished" "$([ $ok = 1 ] && echo PASS || echo "FAIL:$why")"
done
printf '%s\n' "${EXIT_MS[@]}" | sort -n | awk '{a[NR]=$1} END {printf "exit time after SIGTERM: min %d ms, p50 %d ms, max %d ms\n", a[1], a[int((NR+1)/2)], a[NR]}'
echo "shutdown: $pass of $RUNS runs passed ($WORK)"
[ $fail = 0 ]
