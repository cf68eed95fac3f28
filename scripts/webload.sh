#!/usr/bin/env bash
# webload.sh [-n CLIENTS] [-v VIEWERS] [-d PHASE] [-r ROUNDS] [-o OUTDIR]
#
# What live web viewers cost a game (issue 20, proof "load"): one twserver
# (64 slots, 16 playing, the reference dm1 map, the web page on) with
# CLIENTS twload clients (default 63, random inputs) for the whole run, and
# ROUNDS (default 3) pairs of phases of PHASE (default 30s) each: first no
# viewer, then VIEWERS (default 50) curl processes reading the live stream
# (/api/games/PORT/events) of the game. For every phase it prints the
# server's CPU (share of one core, from /proc), the mean tick work (the
# twserver_tick_duration_seconds sum and count), the tick work p99 (the
# mean of the web page's own 5 s samples of the same histogram, /history),
# the skipped ticks and the bytes the viewers received; then the mean of
# each over the rounds and the change with viewers. Loopback only; every
# process started here is stopped by PID.
set -uo pipefail
N=63 V=50 PHASE=30 R=3 OUT=
while getopts "n:v:d:r:o:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	v) V=$OPTARG ;;
	d) PHASE=${OPTARG%s} ;;
	r) R=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,16p' "$0"; exit 2 ;;
	esac
done
[ "$V" -ge 1 ] && [ "$V" -le 100 ] || { echo "-v: 1..100 viewers (web.MaxStreams)" >&2; exit 2; }
[ "$PHASE" -ge 10 ] && [ "$PHASE" -le 600 ] || { echo "-d: 10s..600s" >&2; exit 2; }
[ "$R" -ge 1 ] && [ "$R" -le 10 ] || { echo "-r: 1..10" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twwebload.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
MAP=${WEBLOAD_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
LOG_TAG=webload
# log, stop_pid, cpu_ticks, free_port, PIDS and lib_stop_all
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM
TWSERVER=${TWSERVER:-$OUT/twserver}
TWLOAD=${TWLOAD:-$OUT/twload}
[ -x "$TWSERVER" ] || (cd "$ROOT" && go build -o "$TWSERVER" ./cmd/twserver) || exit 2
[ -x "$TWLOAD" ] || (cd "$ROOT" && go build -o "$TWLOAD" ./cmd/twload) || exit 2
[ -f "$MAP" ] || { echo "map $MAP missing (WEBLOAD_MAP)" >&2; exit 2; }

PORT=$(free_port)
HPORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
HTTP="http://127.0.0.1:$HPORT"
{
	SERVER_MAP=$MAP twserver_toml "$PORT"
	cat <<EOT
[metrics]
listen = "127.0.0.1:$HPORT"
[web]
listen = "127.0.0.1:$HPORT"
EOT
} >"$OUT/twserver.toml"
"$TWSERVER" -config "$OUT/twserver.toml" -no-console -log-level warn >"$OUT/server.log" 2>&1 </dev/null &
SPID=$!
PIDS+=("$SPID")
sleep 1
kill -0 "$SPID" 2>/dev/null || die "server did not start (see $OUT/server.log)"
TOTAL=$((2 * R * PHASE + 20))
"$TWLOAD" -addr "127.0.0.1:$PORT" -n "$N" -rampup 5s -duration "${TOTAL}s" -pattern random \
	-sources 16 -source-base 127.0.0.2 -status off -json "$OUT/twload.json" 2>"$OUT/twload.err" &
PIDS+=("$!")
log "server pid $SPID udp $PORT http $HPORT; $N clients; $R rounds of ${PHASE}s without and with $V viewers; output $OUT"
sleep 15 # ramp-up and settling

HZ=$(getconf CLK_TCK)
metric() { curl -s --max-time 3 "$HTTP/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
# p99_mean FROM_MS TO_MS: mean tick work p99 of the page's samples in the window
p99_mean() {
	curl -s --max-time 3 "$HTTP/api/games/$PORT/history" | python3 -c '
import json, sys
lo, hi = int(sys.argv[1]), int(sys.argv[2])
s = [x["tick_p99_ms"] for x in json.load(sys.stdin)["samples"] if lo + 5000 <= x["t"] <= hi]
print(f"{sum(s) / len(s):.3f}" if s else "nan")' "$1" "$2"
}

printf 'phase\tviewers\tcpu_pct\twork_mean_us\twork_p99_ms\tskipped\tviewer_bytes\n' | tee "$OUT/phases.tsv"
for ((round = 1; round <= R; round++)); do
	for viewers in 0 "$V"; do
		vp=()
		for ((i = 0; i < viewers; i++)); do
			curl -sN --max-time "$((PHASE + 2))" -o /dev/null -w '%{size_download}\n' "$HTTP/api/games/$PORT/events" >>"$OUT/viewers.$round" 2>/dev/null &
			vp+=("$!")
		done
		sleep 1
		c0=$(cpu_ticks "$SPID") s0=$(metric twserver_tick_duration_seconds_sum) n0=$(metric twserver_tick_duration_seconds_count)
		k0=$(metric twserver_ticks_skipped_total) t0=$(date +%s%3N)
		sleep "$PHASE"
		c1=$(cpu_ticks "$SPID") s1=$(metric twserver_tick_duration_seconds_sum) n1=$(metric twserver_tick_duration_seconds_count)
		k1=$(metric twserver_ticks_skipped_total) t1=$(date +%s%3N)
		for p in ${vp[@]+"${vp[@]}"}; do wait "$p"; done
		bytes=0
		[ "$viewers" -eq 0 ] || bytes=$(awk '{s += $1} END {print s + 0}' "$OUT/viewers.$round")
		python3 -c '
import sys
r, v, c0, c1, hz, t0, t1, s0, s1, n0, n1, k0, k1, p99, b = sys.argv[1:]
secs = (int(t1) - int(t0)) / 1000
cpu = (int(c1) - int(c0)) / int(hz) / secs * 100
mean = (float(s1) - float(s0)) / max(float(n1) - float(n0), 1) * 1e6
print(f"{r}\t{v}\t{cpu:.1f}\t{mean:.1f}\t{p99}\t{int(float(k1) - float(k0))}\t{b}")' \
			"$round" "$viewers" "$c0" "$c1" "$HZ" "$t0" "$t1" "$s0" "$s1" "$n0" "$n1" "$k0" "$k1" "$(p99_mean "$t0" "$t1")" "$bytes" |
			tee -a "$OUT/phases.tsv"
	done
done
python3 - "$OUT/phases.tsv" <<'EOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
def mean(v, col):
    xs = [float(r[col]) for r in rows if (r[1] != "0") == v and r[col] != "nan"]
    return sum(xs) / len(xs) if xs else float("nan")
for name, col in (("cpu %", 2), ("tick work mean µs", 3), ("tick work p99 ms", 4), ("skipped ticks", 5)):
    off, on = mean(False, col), mean(True, col)
    ch = (on - off) / off * 100 if off else float("nan")
    print(f"{name}: without viewers {off:.2f}, with {on:.2f} ({ch:+.1f} %)")
EOF
log "clients' result: $OUT/twload.json"
