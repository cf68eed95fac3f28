#!/usr/bin/env bash
# anonmem.sh - a game's anonymous memory under load: twserver against the
# 0.7.5 reference server with N twload clients (issue 33's "anonymous
# memory <= 1.0x at 0, 4 and 16 clients").
#
# For every client count N (default 0 4 16), in W windows (default 3) that
# alternate which server goes first, it starts the server fresh
# (start_server's settings, lib.sh: dm1, 64 slots of which 16 play, 4
# clients per address), runs twload with N clients (pattern random, the
# real pace, 2 s ramp-up) for DURATION seconds (none for N = 0: it waits
# as long), and reads /proc/PID/status while the clients are still in
# game: RssAnon (the process's own memory: heap, stacks, runtime data),
# RssFile (pages of the binary and libraries, shared between processes)
# and VmHWM (peak of their sum). Prints the median over the windows with
# the spread (min-max), and the ratios twserver/reference of the medians.
#
# Usage: scripts/anonmem.sh [-d DURATION_S] [-w WINDOWS] [-o OUTDIR] [N ...]
# Env: TWSERVER, TWLOAD (binaries; default built from ./cmd), TW07_SERVER
#      (default /usr/games/teeworlds-server), BENCH_MAP (default the
#      reference dm1.map).
# Only loopback traffic (127.0.0.1); run it in a private network namespace
# (unshare --net) to be sure. Every process started here is stopped by PID.
set -uo pipefail

DUR=20 WINDOWS=3 OUT=
while getopts "d:w:o:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	w) WINDOWS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(0 4 16)
[[ $DUR =~ ^[0-9]+$ ]] && ((DUR >= 5 && DUR <= 600)) || { echo "duration: 5..600 s" >&2; exit 2; }
[[ $WINDOWS =~ ^[0-9]+$ ]] && ((WINDOWS >= 1 && WINDOWS <= 20)) || { echo "windows: 1..20" >&2; exit 2; }
for n in "${COUNTS[@]}"; do
	[[ $n =~ ^[0-9]+$ ]] && ((n <= 63)) || { echo "client count $n: 0..63" >&2; exit 2; }
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twanon.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
TW07_DATA=${TW07_DATA:-/usr/share/games/teeworlds/data}
BENCH_MAP=${BENCH_MAP:-$TW07_DATA/maps/dm1.map}
LOG_TAG=anonmem SERVER_MAP=$BENCH_MAP
# log, die, stop_pid, free_port, start_server, status_mb, need_binaries, lib_stop_all
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM

need_binaries "$OUT" twserver twload
[ -x "$TW07_SERVER" ] || die "reference server $TW07_SERVER missing (apt-get install teeworlds-server)"
[ -f "$BENCH_MAP" ] || die "map $BENCH_MAP missing (set BENCH_MAP)"

# run_one KIND N W: one fresh server with N clients; appends a row to rows.tsv.
run_one() {
	local kind=$1 n=$2 w=$3 port dir lpid=
	port=$(free_port)
	dir=$OUT/runs/$kind.$n.$w
	start_server "$kind" "$port" "$dir" || die "$kind did not start"
	if ((n > 0)); then
		"$TWLOAD" -addr "127.0.0.1:$port" -n "$n" -rampup 2s -duration "$((DUR + 5))s" -pattern random \
			-seed 1 -status off -json "$dir/twload.json" >"$dir/twload.log" 2>&1 &
		lpid=$!
		PIDS+=("$lpid")
	fi
	sleep $((DUR + 2))
	kill -0 "$SPID" 2>/dev/null || die "$kind exited (see $dir/server.log)"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$n" "$w" "$(status_mb "$SPID" RssAnon)" "$(status_mb "$SPID" RssFile)" "$(status_mb "$SPID" VmHWM)" >>"$OUT/rows.tsv"
	[ -z "$lpid" ] || { wait "$lpid"; grep -q '"connected": *'"$n"'\b' "$dir/twload.json" || log "$kind N=$n window $w: not every client in game (see $dir/twload.json)"; }
	stop_pid "$SPID"
}

: >"$OUT/rows.tsv"
for n in "${COUNTS[@]}"; do
	for ((w = 1; w <= WINDOWS; w++)); do
		order=(twserver reference)
		((w % 2 == 0)) && order=(reference twserver)
		for kind in "${order[@]}"; do
			run_one "$kind" "$n" "$w"
			log "$kind N=$n window $w: $(tail -1 "$OUT/rows.tsv" | cut -f4-6 | tr '\t' ' ') (anon file peak, MB)"
		done
	done
done

python3 - "$OUT/rows.tsv" <<'EOF'
import statistics, sys
rows = [l.split('\t') for l in open(sys.argv[1]) if l.strip()]
def col(kind, n, i):
    return [float(r[i]) for r in rows if r[0] == kind and r[1] == n]
def fmt(v):
    return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
print(f"{'N':>3} {'server':<10} {'RssAnon MB':<20} {'RssFile MB':<20} {'VmHWM MB':<20}")
for n in dict.fromkeys(r[1] for r in rows):
    for kind in ('twserver', 'reference'):
        print(f"{n:>3} {kind:<10} {fmt(col(kind, n, 3)):<20} {fmt(col(kind, n, 4)):<20} {fmt(col(kind, n, 5)):<20}")
    ra = statistics.median(col('twserver', n, 3)) / statistics.median(col('reference', n, 3))
    rh = statistics.median(col('twserver', n, 5)) / statistics.median(col('reference', n, 5))
    print(f"    ratio twserver/reference at {n}: anonymous {ra:.2f}, peak {rh:.2f}")
EOF
