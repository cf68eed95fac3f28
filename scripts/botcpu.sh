#!/usr/bin/env bash
# botcpu.sh - what a bot costs the server against a connected client: one
# twserver process, in W windows (default 3) alternating the order, runs
#   clients  N twload clients (random inputs) and no bot
#   bots     N bots (bot_add over the econ) and no client
# for DURATION seconds each after SETTLE, with an idle window first; it
# prints the server's CPU (utime+stime over the window, % of one core) per
# window, and per kind the median over the windows with the spread
# (min-max) and the cost of one participant: (median - idle) / N.
#
# Usage: scripts/botcpu.sh [-n N] [-d DURATION_S] [-s SETTLE_S] [-w WINDOWS] [-o OUTDIR]
# Env: TWSERVER, TWLOAD (binaries; default built from ./cmd), BENCH_MAP
#      (default the 0.7.5 data's dm1.map).
# Only loopback traffic; every process started here is stopped by PID.
set -uo pipefail

N=16 DUR=20 SETTLE=3 WINDOWS=3 OUT=
while getopts "n:d:s:w:o:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	d) DUR=$OPTARG ;;
	s) SETTLE=$OPTARG ;;
	w) WINDOWS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
((N >= 1 && N <= 16)) || { echo "-n: 1..16 (the player places)" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twbotcpu.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
BENCH_MAP=${BENCH_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
LOG_TAG=botcpu SERVER_MAP=$BENCH_MAP
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM
export PATH=$PATH:/usr/local/go/bin
if [ -z "${TWSERVER:-}" ]; then
	TWSERVER=$OUT/twserver
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWSERVER" ./cmd/twserver) || die "cannot build twserver"
fi
if [ -z "${TWLOAD:-}" ]; then
	TWLOAD=$OUT/twload
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWLOAD" ./cmd/twload) || die "cannot build twload"
fi
[ -f "$BENCH_MAP" ] || die "map $BENCH_MAP missing (set BENCH_MAP)"

read -r PORT EPORT < <(free_ports 2 | tr '\n' ' ')
twserver_toml "$PORT" >"$OUT/twserver.toml"
printf '[econ]\nport = %s\npassword = "botcpu"\n[bots]\nmax = %s\n' "$EPORT" "$N" >>"$OUT/twserver.toml"
mkdir -p "$OUT/cwd"
(cd "$OUT/cwd" && exec "$TWSERVER" -config "$OUT/twserver.toml" -no-console -log-level warn >"$OUT/server.log" 2>&1 </dev/null) &
SPID=$!
PIDS+=("$SPID")
for ((i = 0; i < 100; i++)); do udp_bound "$PORT" && break; sleep 0.1; done
udp_bound "$PORT" || die "twserver did not start (see $OUT/server.log)"

# econ LINES...: runs console lines over the econ (loopback TCP).
econ() {
	exec 3<>"/dev/tcp/127.0.0.1/$EPORT" || die "econ"
	printf 'botcpu\n' >&3
	local l
	for l in "$@"; do printf '%s\n' "$l" >&3; done
	timeout 1 cat <&3 | tr -d '\0' >>"$OUT/econ.log"
	exec 3>&-
}

HZ=$(getconf CLK_TCK)
# window KIND: settles, then prints the server's CPU % over DUR seconds.
window() {
	local kind=$1 lpid= a b
	case $kind in
	clients)
		"$TWLOAD" -addr "127.0.0.1:$PORT" -n "$N" -duration $((SETTLE + DUR + 5))s -rampup 1s -pattern random \
			>"$OUT/twload.$RANDOM.json" 2>>"$OUT/twload.log" &
		lpid=$!; PIDS+=("$lpid") ;;
	bots)
		local adds=() i
		for ((i = 0; i < N; i++)); do adds+=("bot_add normal"); done
		econ "${adds[@]}" ;;
	esac
	sleep $((SETTLE + 1))
	a=$(cpu_ticks "$SPID")
	sleep "$DUR"
	b=$(cpu_ticks "$SPID")
	case $kind in
	clients) stop_pid "$lpid" ;;
	bots) econ "status" "bot_remove all" ;;
	esac
	sleep 1
	awk -v a="$a" -v b="$b" -v hz="$HZ" -v d="$DUR" 'BEGIN {printf "%.2f\n", (b - a) / hz / d * 100}'
}

declare -A RES
RES[idle]=$(window idle)
log "idle: ${RES[idle]} %"
for ((w = 0; w < WINDOWS; w++)); do
	order=(clients bots)
	((w % 2)) && order=(bots clients)
	for k in "${order[@]}"; do
		v=$(window "$k")
		if [ "$k" = bots ]; then
			n=$(grep -c "addr=(bot)" "$OUT/econ.log")
			((n == N * (w + 1))) || die "window $w: $((n - N * w)) bots in the status, want $N (see $OUT/econ.log)"
		fi
		log "window $w $k: $v %"
		RES[$k]="${RES[$k]:-} $v"
	done
done
for k in clients bots; do
	# shellcheck disable=SC2086
	printf '%s\n' ${RES[$k]} | sort -n | awk -v k="$k" -v n="$N" -v idle="${RES[idle]}" '
		{v[NR] = $1} END {m = v[int((NR + 1) / 2)]
		printf "%-8s median %.2f %% (%.2f-%.2f) of one core; per participant %.3f %%\n", k, m, v[1], v[NR], (m - idle) / n}'
done | tee "$OUT/summary.txt"
