#!/usr/bin/env bash
# webload.sh [-n CLIENTS] [-v VIEWERS] [-d PHASE] [-r ROUNDS] [-o OUTDIR]
#
# What live web viewers cost a game: one twserver (64 slots, 16 playing,
# the reference dm1 map, the web page on) with CLIENTS twload clients
# (default 63, random inputs) for the whole run, and ROUNDS (default 3)
# rounds of three phases of PHASE (default 30s) each: no viewer; VIEWERS
# (default 50) viewers as as many curl processes, each reading the live
# stream (/api/games/PORT/events) of the game; the same VIEWERS streams
# read by one curl process (--parallel). The viewers come from
# 127.0.1.1, 127.0.1.2, ... (web.MaxStreamsPerAddr each, as many people
# behind one address at most). The two viewer phases cost the
# server the same work (connections, frames, writes); they differ in what
# the readers cost the machine the server shares with them (as many woken
# processes, or one). For every
# phase it prints the server's CPU (share of one core: its threads' CPU
# time in /proc/PID/task/*/schedstat over the phase), the mean and the p99
# of the tick work (the twserver_tick_duration_seconds histogram of
# /metrics at the phase's start and end; p99 interpolated within its
# bucket), the p99 of the loop's lateness (twserver_tick_lateness_seconds:
# how late it woke for a due tick), the skipped ticks, the server's
# write(2) calls a second (syscw of /proc/PID/io: the viewers' writes; the
# game's UDP goes out with sendmmsg, not counted) and the bytes the viewers
# received; then per condition the mean, min and max over the rounds and
# the change from the phases without viewers, and the median (min, max)
# over the rounds of each round's change, of the CPU and of the CPU outside
# the tick work (CPU less mean tick work x 50 ticks a second), which the
# game's own ups and downs move less. Loopback only; every process
# started here is stopped by PID.
set -uo pipefail
N=63 V=50 PHASE=30 R=3 OUT=
while getopts "n:v:d:r:o:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	v) V=$OPTARG ;;
	d) PHASE=${OPTARG%s} ;;
	r) R=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
[ "$V" -ge 1 ] && [ "$V" -le 200 ] || { echo "-v: 1..200 viewers (web.MaxStreams)" >&2; exit 2; }
PER_ADDR=8 # web.MaxStreamsPerAddr
viewer_addr() { echo "127.0.1.$(($1 / PER_ADDR + 1))"; }
[ "$PHASE" -ge 10 ] && [ "$PHASE" -le 600 ] || { echo "-d: 10s..600s" >&2; exit 2; }
[ "$R" -ge 1 ] && [ "$R" -le 10 ] || { echo "-r: 1..10" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twwebload.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
MAP=${WEBLOAD_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
LOG_TAG=webload
# log, stop_pid, free_port, PIDS and lib_stop_all
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM
TWSERVER=${TWSERVER:-$OUT/twserver}
TWLOAD=${TWLOAD:-$OUT/twload}
[ -x "$TWSERVER" ] || (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWSERVER" ./cmd/twserver) || exit 2
[ -x "$TWLOAD" ] || (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWLOAD" ./cmd/twload) || exit 2
[ -f "$MAP" ] || { echo "map $MAP missing (WEBLOAD_MAP)" >&2; exit 2; }

PORT=$(free_port)
HPORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
MPORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
HTTP="http://127.0.0.1:$HPORT"
METRICS="http://127.0.0.1:$MPORT"
{
	SERVER_MAP=$MAP twserver_toml "$PORT"
	cat <<EOT
[metrics]
listen = "127.0.0.1:$MPORT"
[web]
listen = "127.0.0.1:$HPORT"
EOT
} >"$OUT/twserver.toml"
"$TWSERVER" -config "$OUT/twserver.toml" -no-console -log-level warn >"$OUT/server.log" 2>&1 </dev/null &
SPID=$!
PIDS+=("$SPID")
sleep 1
kill -0 "$SPID" 2>/dev/null || die "server did not start (see $OUT/server.log)"
TOTAL=$((3 * R * (PHASE + 5) + 30)) # settling, and each phase's start and wait for its viewers
"$TWLOAD" -addr "127.0.0.1:$PORT" -n "$N" -rampup 5s -duration "${TOTAL}s" -pattern random \
	-sources "$SOURCES_64" -source-base 127.0.0.2 -status off -json "$OUT/twload.json" 2>"$OUT/twload.err" &
PIDS+=("$!")
log "server pid $SPID udp $PORT http $HPORT; $N clients; $R rounds of ${PHASE}s without viewers, with $V viewer processes and with $V viewers in one process; output $OUT"
sleep 15 # ramp-up and settling

# syscw PID: the write(2)-family calls of the process so far (/proc/PID/io)
syscw() { awk '$1 == "syscw:" {print $2}' /proc/"$1"/io 2>/dev/null || echo 0; }
# phase_row VIEWERS NS0 NS1 MS0 MS1 METRICS0 METRICS1 BYTES W0 W1: the rest
# of a row of phases.tsv from the CPU nanoseconds, the times (ms), two
# /metrics texts, the viewers' bytes and the write calls
phase_row() {
	python3 - "$@" <<'PY'
import sys
v, ns0, ns1, t0, t1, m0, m1, b, w0, w1 = sys.argv[1:]
def read(path):
    out = {}
    for line in open(path):
        if line.startswith(("twserver_tick_duration_seconds", "twserver_tick_lateness_seconds", "twserver_ticks_skipped_total")):
            k, _, val = line.rpartition(" ")
            out[k] = float(val)
    return out
a, z = read(m0), read(m1)
d = {k: z[k] - a.get(k, 0) for k in z}
secs = (int(t1) - int(t0)) / 1000
cpu = (int(ns1) - int(ns0)) / 1e9 / secs * 100
def hist(name):
    """the mean (us) and the p99 (ms, interpolated within its bucket) of histogram name over the phase"""
    n = d.get(name + "_count", 0)
    mean = d.get(name + "_sum", 0) / max(n, 1) * 1e6
    buckets = sorted((float(k.split('le="')[1].split('"')[0]), c) for k, c in d.items() if k.startswith(name + "_bucket{"))
    p99, lower, below = float("nan"), 0.0, 0.0
    for upper, c in buckets:
        if n and c >= 0.99 * n:
            p99 = (upper if c == below or upper == float("inf") else lower + (upper - lower) * (0.99 * n - below) / (c - below)) * 1000
            break
        lower, below = upper, c
    return mean, p99
mean, p99 = hist("twserver_tick_duration_seconds")
_, late99 = hist("twserver_tick_lateness_seconds")
skipped = int(d.get("twserver_ticks_skipped_total", 0))
writes = (int(w1) - int(w0)) / secs
print(f"{v}\t{cpu:.2f}\t{mean:.1f}\t{p99:.3f}\t{late99:.3f}\t{skipped}\t{writes:.0f}\t{b}")
PY
}

printf 'phase\treaders\tviewers\tcpu_pct\twork_mean_us\twork_p99_ms\tlate_p99_ms\tskipped\twrites_per_s\tviewer_bytes\n' | tee "$OUT/phases.tsv"
URL="$HTTP/api/games/$PORT/events"
for ((round = 1; round <= R; round++)); do
	for readers in none processes one; do
		vp=() viewers=$V out="$OUT/viewers.$round.$readers"
		case $readers in
		none) viewers=0 ;;
		processes)
			for ((i = 0; i < V; i++)); do
				curl -sN --interface "$(viewer_addr "$i")" --max-time "$((PHASE + 2))" -o /dev/null -w '%{size_download}\n' "$URL" >>"$out" 2>/dev/null &
				vp+=("$!")
			done ;;
		one)
			args=()
			for ((i = 0; i < V; i++)); do
				[ "$i" -gt 0 ] && args+=(--next)
				args+=(--interface "$(viewer_addr "$i")" --max-time "$((PHASE + 2))" -w '%{size_download}\n' -o /dev/null "$URL")
			done
			curl -sN -Z --parallel-max "$V" --parallel-immediate "${args[@]}" >>"$out" 2>/dev/null &
			vp+=("$!") ;;
		esac
		sleep 1
		curl -s --max-time 3 "$METRICS/metrics" >"$OUT/m0"
		c0=$(sched_ns "$SPID") t0=$(date +%s%3N) w0=$(syscw "$SPID")
		sleep "$PHASE"
		c1=$(sched_ns "$SPID") t1=$(date +%s%3N) w1=$(syscw "$SPID")
		curl -s --max-time 3 "$METRICS/metrics" >"$OUT/m1"
		for p in ${vp[@]+"${vp[@]}"}; do wait "$p"; done
		bytes=0
		[ "$viewers" -eq 0 ] || bytes=$(awk '{s += $1} END {print s + 0}' "$out")
		printf '%s\t' "$round" "$readers" | tee -a "$OUT/phases.tsv"
		phase_row "$viewers" "$c0" "$c1" "$t0" "$t1" "$OUT/m0" "$OUT/m1" "$bytes" "$w0" "$w1" | tee -a "$OUT/phases.tsv"
	done
done
python3 - "$OUT/phases.tsv" <<'EOF'
import math, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])][1:]
def vals(readers, col):
    return [float(r[col]) for r in rows if r[1] == readers and not math.isnan(float(r[col]))]
def stat(v):
    return (sum(v) / len(v) if v else float("nan")), min(v, default=0), max(v, default=0)
for name, col in (("cpu % of a core", 3), ("tick work mean us", 4), ("tick work p99 ms", 5), ("tick lateness p99 ms", 6), ("skipped ticks", 7), ("write calls a second", 8)):
    mo, lo, hi = stat(vals("none", col))
    line = f"{name}: without viewers {mo:.2f} ({lo:.2f}-{hi:.2f})"
    for readers, what in (("processes", "one process each"), ("one", "in one process")):
        mn, a, b = stat(vals(readers, col))
        ch = (mn - mo) / mo * 100 if mo else float("nan")
        line += f"; viewers {what} {mn:.2f} ({a:.2f}-{b:.2f}): {mn - mo:+.2f} ({ch:+.1f} %)"
    print(line)
# Per round, the change from the round's phase without viewers: of the CPU,
# and of the CPU outside the game's tick work (the phase's CPU less its mean
# tick work x 50 ticks a second: the streamer, HTTP, the runtime, the UDP
# reader), which the game's own ups and downs move less.
def median(v):
    v = sorted(v)
    n = len(v)
    return float("nan") if n == 0 else (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)
by = {(r[0], r[1]): r for r in rows}
base = [float(by[k][3]) for k in by if k[1] == "none"]
bmean = sum(base) / len(base) if base else float("nan")
for name, f in (("cpu", lambda r: float(r[3])), ("cpu outside the tick work", lambda r: float(r[3]) - float(r[4]) * 50 / 1e4)):
    line = f"{name}, change per round, median (min-max)"
    for readers, what in (("processes", "one process each"), ("one", "in one process")):
        ch = [f(by[(rd, readers)]) - f(by[(rd, "none")]) for (rd, x) in by if x == readers and (rd, "none") in by]
        m = median(ch)
        line += f"; viewers {what} {m:+.2f} ({min(ch, default=0):+.2f}-{max(ch, default=0):+.2f}) = {m / bmean * 100:+.1f} % of the cpu without viewers"
    print(line)
EOF
log "clients' result: $OUT/twload.json"
