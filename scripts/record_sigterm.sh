#!/usr/bin/env bash
# record_sigterm.sh [RUNS] [SIGNAL]
#
# Recording robustness under load: RUNS times (default 20) start twserver with
# teehistorian and demo recording on, connect 8 twload clients (random
# inputs: moving, jumping, hooking, firing), send SIGNAL (default TERM) to the
# server at a random moment 2..12 s into the run, and check the recording:
#   TERM: the teehistorian ends with FINISH, twhist replay finds no divergence,
#         the demo header length is patched;
#   KILL: the teehistorian reads to its last complete tick (the only error is
#         the missing FINISH at the very end of the file) and replays without
#         divergence.
# Prints one line per run and a summary; exit 0 when every run passed.
# Loopback only (127.0.0.1). Needs go (or prebuilt binaries in $BIN).
set -uo pipefail
RUNS=${1:-20}
SIG=${2:-TERM}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/record_sigterm.XXXXXX)
BIN=${BIN:-$WORK/bin}
export PATH=$PATH:/usr/local/go/bin
if [ ! -x "$BIN/twserver" ]; then
	mkdir -p "$BIN"
	(cd "$ROOT" && export CGO_ENABLED=0 && go build -trimpath -o "$BIN/twserver" ./cmd/twserver && go build -trimpath -o "$BIN/twload" ./cmd/twload &&
		go build -trimpath -o "$BIN/twhist" ./cmd/twhist) || exit 2
fi
PORT=${PORT:-8393}
pass=0
fail=0
SP=
LP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; [ -n "$LP" ] && kill "$LP" 2>/dev/null; exit 130' INT TERM
for run in $(seq 1 "$RUNS"); do
	dir=$WORK/run$run
	mkdir -p "$dir/rec"
	cat >"$dir/cfg.toml" <<CFG
[server]
bind = "127.0.0.1"
port = $PORT
max_clients = 16
max_clients_per_ip = 16
[record]
teehistorian = true
demo = true
dir = "$dir/rec"
CFG
	"$BIN/twserver" -config "$dir/cfg.toml" -no-console >"$dir/server.log" 2>&1 &
	SP=$!
	sleep 0.3
	"$BIN/twload" -addr 127.0.0.1:$PORT -clients 8 -rampup 1s -duration 20s -pattern random -seed "$run" -json "$dir/load.json" >/dev/null 2>&1 &
	LP=$!
	delay_ms=$((2000 + RANDOM % 10000))
	sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
	t0=$(date +%s%N)
	kill -"$SIG" "$SP"
	wait "$SP"
	srv_exit=$?
	t1=$(date +%s%N)
	kill "$LP" 2>/dev/null
	wait "$LP" 2>/dev/null
	th=$(ls "$dir"/rec/*.teehistorian 2>/dev/null | head -1)
	dm=$(ls "$dir"/rec/*.demo 2>/dev/null | head -1)
	ok=1
	why=""
	size=0 lasttick="" finished=0 err=""
	if [ -z "$th" ]; then
		ok=0
		why="no teehistorian file"
	else
		size=$(stat -c %s "$th")
		"$BIN/twhist" json "$th" >"$dir/summary.json" 2>/dev/null
		finished=$(grep -c '"finished": true' "$dir/summary.json")
		lasttick=$(sed -n 's/.*"last_tick": \([0-9]*\).*/\1/p' "$dir/summary.json")
		err=$(sed -n 's/.*"error": "\(.*\)".*/\1/p' "$dir/summary.json")
		"$BIN/twhist" replay "$th" >"$dir/replay.txt" 2>&1
		rep=$?
		if [ "$SIG" = TERM ]; then
			[ "$finished" = 1 ] || { ok=0; why="no FINISH ($err)"; }
			if [ -n "$dm" ]; then
				len=$(od -An -tu1 -j152 -N4 "$dm" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
				[ "$len" -gt 0 ] || { ok=0; why="$why demo length not patched"; }
			else
				ok=0
				why="$why no demo"
			fi
		else
			# a killed server: the only error allowed is the end of the file right after a complete tick
			case "$err" in
			"offset $size: unexpected EOF") ;;
			*) ok=0; why="bad end: $err" ;;
			esac
		fi
		[ $rep = 0 ] || { ok=0; why="$why replay: $(tail -1 "$dir/replay.txt")"; }
	fi
	ms=$(((t1 - t0) / 1000000))
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
	printf 'run %2d: signal at %5d ms, server exit %3s after %4d ms, %7s bytes, last tick %5s, finish=%s, replay=%s %s\n' \
		"$run" "$delay_ms" "$srv_exit" "$ms" "${size:-0}" "${lasttick:-?}" "${finished:-0}" \
		"$(grep -q 'no divergence' "$dir/replay.txt" && echo ok || echo FAIL)" "$([ $ok = 1 ] && echo PASS || echo "FAIL: $why")"
	sleep 0.2
done
echo "SIG$SIG: $pass of $RUNS runs passed ($WORK)"
[ $fail = 0 ]
