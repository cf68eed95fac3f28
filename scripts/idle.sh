#!/usr/bin/env bash
# idle.sh - what idle games cost: twserver against the 0.7.5 reference server
# with no client at all.
#
# For every game count G (default 1 64), in W windows (default 3) that
# alternate which server goes first, it starts G idle games on 127.0.0.1 -
# twserver: one process with G -config files; the reference: G processes -
# waits SETTLE, then measures over DURATION:
#   cpu      CPU time of the processes over the window, % of one core, from
#            the scheduler's nanosecond counters (/proc/PID/task/*/schedstat),
#            since utime+stime count in 10 ms ticks, too coarse for an idle game
#   rss      the processes' resident memory at the end (VmRSS, summed), MB
#   peak     their peak resident memory (VmHWM, summed), MB
# and, per G, the median over the windows with the spread (min-max) and the
# ratio twserver/reference of the medians.
#
# Usage: scripts/idle.sh [-d DURATION_S] [-s SETTLE_S] [-w WINDOWS] [-o OUTDIR] [G ...]
# Env: TWSERVER (binary; default built from ./cmd/twserver), TW07_SERVER
#      (default /usr/games/teeworlds-server), BENCH_MAP (default the reference
#      dm1.map), IDLE_SERVERS (default "twserver reference"), TWSERVER_ENV
#      (extra environment for twserver, e.g. "GOGC=50").
# Only loopback traffic; every process started here is stopped by PID.
set -uo pipefail

DUR=20 SETTLE=5 WINDOWS=3 OUT=
while getopts "d:s:w:o:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	s) SETTLE=$OPTARG ;;
	w) WINDOWS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(1 64)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twidle.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
TW07_DATA=${TW07_DATA:-/usr/share/games/teeworlds/data}
BENCH_MAP=${BENCH_MAP:-$TW07_DATA/maps/dm1.map}
SERVERS=(${IDLE_SERVERS:-twserver reference})
LOG_TAG=idle SERVER_MAP=$BENCH_MAP
# log, die, stop_pid, free_ports, udp_bound, twserver_toml, start_server, mem_kb
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM

export PATH=$PATH:/usr/local/go/bin
if [ -z "${TWSERVER:-}" ]; then
	TWSERVER=$OUT/twserver
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWSERVER" ./cmd/twserver) || die "cannot build twserver"
fi
[ -x "$TW07_SERVER" ] || die "reference server $TW07_SERVER missing (apt-get install teeworlds-server)"
[ -f "$BENCH_MAP" ] || die "map $BENCH_MAP missing (set BENCH_MAP)"
for g in "${COUNTS[@]}"; do
	[[ $g =~ ^[0-9]+$ ]] && ((g >= 1 && g <= 64)) || die "game count $g: 1..64"
done

# start_games KIND G DIR: starts G idle games; sets GPIDS.
start_games() {
	local kind=$1 g=$2 dir=$3 i=0 port args=()
	GPIDS=()
	if [ "$kind" = reference ] || ((g == 1)); then
		for port in $(free_ports "$g"); do
			start_server "$kind" "$port" "$dir/$i" || return 1
			GPIDS+=("$SPID")
			i=$((i + 1))
		done
		return 0
	fi
	mkdir -p "$dir/cwd"
	i=0
	for port in $(free_ports "$g"); do
		twserver_toml "$port" >"$dir/game$i.toml"
		args+=(-config "$dir/game$i.toml")
		i=$((i + 1))
	done
	(cd "$dir/cwd" && exec env ${TWSERVER_ENV:-} "$TWSERVER" "${args[@]}" -no-console -log-level warn \
		>"$dir/server.log" 2>&1 </dev/null) &
	SPID=$!
	PIDS+=("$SPID")
	for ((i = 0; i < 100; i++)); do
		udp_bound "$port" && { GPIDS=("$SPID"); return 0; }
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.1
	done
	log "twserver did not bind udp $port (see $dir/server.log)"
	return 1
}

RESULTS=$OUT/results.tsv
printf 'games\tserver\twindow\tcpu_pct\trss_mb\tpeak_mb\n' >"$RESULTS"
STATUS=0
for g in "${COUNTS[@]}"; do
	for ((win = 1; win <= WINDOWS; win++)); do
		order=("${SERVERS[@]}")
		if ((win % 2 == 0)); then
			order=(); for ((i = ${#SERVERS[@]} - 1; i >= 0; i--)); do order+=("${SERVERS[i]}"); done
		fi
		for kind in "${order[@]}"; do
			dir=$OUT/$kind-$g-$win
			if ! start_games "$kind" "$g" "$dir"; then
				STATUS=1
				for p in "${GPIDS[@]}"; do stop_pid "$p"; done
				continue
			fi
			sleep "$SETTLE"
			c0=$(sched_ns "${GPIDS[@]}") t0=$(date +%s%N)
			sleep "$DUR"
			c1=$(sched_ns "${GPIDS[@]}") t1=$(date +%s%N)
			rss=$(mem_kb VmRSS "${GPIDS[@]}") hwm=$(mem_kb VmHWM "${GPIDS[@]}")
			for p in "${GPIDS[@]}"; do stop_pid "$p"; done
			row=$(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) -v r="$rss" -v h="$hwm" \
				'BEGIN {printf "%.4f\t%.1f\t%.1f", 100*c/t, r/1024, h/1024}')
			printf '%s\t%s\t%s\t%s\n' "$g" "$kind" "$win" "$row" >>"$RESULTS"
			log "games=$g $kind window $win: cpu% rss peak = $row"
		done
	done
done

python3 - "$RESULTS" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault((int(r["games"]), r["server"]), []).append(r)
def med(rs, k):
    v = sorted(float(r[k]) for r in rs)
    return statistics.median(v), v[0], v[-1]
print("games  server      cpu % of a core (median, min-max)   RSS MB           peak RSS MB")
for (g, srv), rs in sorted(by.items()):
    c, r, h = med(rs, "cpu_pct"), med(rs, "rss_mb"), med(rs, "peak_mb")
    print(f"{g:5d}  {srv:10s}  {c[0]:8.3f} ({c[1]:.3f}-{c[2]:.3f})            {r[0]:6.1f} ({r[1]:.1f}-{r[2]:.1f})  {h[0]:6.1f} ({h[1]:.1f}-{h[2]:.1f})")
for g in sorted({g for g, _ in by}):
    a, b = by.get((g, "twserver")), by.get((g, "reference"))
    if a and b:
        print(f"games={g} twserver/reference: cpu {med(a,'cpu_pct')[0]/max(med(b,'cpu_pct')[0],1e-9):.2f}, "
              f"peak RSS {med(a,'peak_mb')[0]/med(b,'peak_mb')[0]:.2f}")
EOF
exit $STATUS
