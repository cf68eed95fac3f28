#!/usr/bin/env bash
# indep.sh - independent check of the load figures: twserver and DDNet-Server
# 16.4 under N bots of the npm package teeworlds (a DDNet/0.6 client library
# we did not write, driven by scripts/indep/bots.js) and under N twload
# -proto 06 clients of the same shape, so that one can see whether twload
# and the independent client load each server alike.
#
# With -g G (G > 1) each row runs G games of N clients: twserver as ONE
# process with G game configs, DDNet-Server as G processes, the npm bots as
# G node processes (one per game, 64 bots at most each), twload as one
# process (-targets G); CPU and peak RSS are summed over the processes of
# each side (server and load client alike). Every load client runs under
# nice -n NICE (default 10) alike, so it does not preempt a server in the
# middle of its tick.
#
# Rows (each on fresh server processes, alternating the order in W windows):
#   twserver/npm, ddnet/npm        N npm bots, the first P play (a seeded
#                                  input pattern), the rest SetTeam(-1)
#   twserver/twload, ddnet/twload  N twload -proto 06 -pattern random clients
#                                  (-pace real: on change, else every 2nd
#                                  tick; twload50: -pace tick, 50 inputs/s)
# Both servers: 64 slots, P of them players (twserver player_slots = P,
# DDNet-Server sv_spectator_slots 64-P, so twload's clients, which never ask
# to spectate, fall into the same shape), 4 clients per IP, clients spread
# over 16 loopback source addresses joining over the ramp-up, the map dm1
# (twserver: the 0.7.5 file and its 0.6 variant; DDNet-Server: its own 0.6
# copy). DDNet-Server plays DDRace, twserver DM: not like for like.
# After ramp-up + 2 s it measures for DURATION seconds:
#   server CPU       the time its threads ran on a CPU (schedstat, to the
#                    nanosecond), % of one core, and its system time
#                    (stime from /proc/PID/stat, in 10 ms clock ticks) apart;
#                    utime+stime alone moves by 0.07 % of a core in a 15 s
#                    window, a seventh of twserver's cost at 4 clients
#   peak RSS         VmHWM from /proc/PID/status at the end
#   client CPU       the load client's own CPU over the same window (schedstat)
#   snapshots/s      per client (npm: the library's snapshot events in the
#                    window; twload: its own count over its in-game time)
#   per client       datagrams each way and bytes received per second, the
#                    tees (characters) per snapshot, players/spectators
# and prints every window, the medians over the windows (min-max) and the
# ratios twserver/ddnet under each client and npm/twload on each server
# (median of the per-window ratios, min-max).
#
# Usage: scripts/indep.sh [-w WINDOWS] [-d SECONDS] [-r SECONDS] [-n N] [-p P]
#                         [-g GAMES] [-N NICE] [-k BOTS] [-S "SERVERS"] [-C "CLIENTS"] [-o OUTDIR]
#   -w  windows (default 3); window k runs the servers in reverse order when k is even
#   -d  measuring window in seconds after the ramp-up (default 60)
#   -r  ramp-up in seconds: clients join evenly over it (default 10)
#   -n  clients per game (default 63), -p  of them playing (default 16)
#   -g  games (default 1; at most 16), -N  the load clients' niceness (default 10)
#   -k  npm bots per node process (default 64: one process per game; node
#       runs a process's bots on one thread, which 63 bots on DDNet-Server
#       can fill)
#   -S  servers, of twserver ddnet (default both)
#   -C  load clients, of npm twload npm50 twload50 (default "npm twload"); npm50: the
#       npm bots with the library's own input timer off and its sendInput
#       called 50 times a second (twload's and the real client's rate; the
#       library's own is 20); twload50: twload -pace tick (50 inputs/s)
#   -o  output directory for JSON, logs and results.tsv (default a temp dir)
# Env: TWSERVER, TWLOAD (default: built from ./cmd), DDNET_SERVER (default
#      /usr/games/DDNet-Server), INDEP_MAP (default the 0.7.5 dm1.map),
#      INDEP_LOCK (default /work/measure.lock when it exists, else
#      internal/heavytest's lock, $TMPDIR/twserver-heavytest.lock; empty: no
#      lock): the measuring runs hold flock on it, so no heavy test of
#      another session overlaps them.
# Needs: node and npm (the first run does `npm ci` in scripts/indep, which
# reaches the npm registry: not in CI), root for `unshare --net`, jq,
# python3. Everything measured runs inside a private network namespace with
# only lo (the library can fetch a map URL a server names; there nothing can
# leave the machine); the script refuses to start clients anywhere else.
# Exit: 0 when every row had every client in game for the whole window with
# no CRC error or missing delta base and at least 24 snapshots/s, 1
# otherwise, 2 for usage errors or missing tools.
set -uo pipefail

WINDOWS=3 DUR=60 RAMP=10 N=63 PLAY=16 GAMES=1 NICE=10 PERPROC=64 SERVERS="twserver ddnet" CLIENTS="npm twload" OUT=
SETTLE=2
# MIN_SNAPS is the fewest snapshots a second any client of a row may get
# for the row to count: below it the server or the load client fell behind
# (on a saturated machine a late client acknowledges late, the server's
# deltas grow and both sides' CPU stops being the load's cost).
MIN_SNAPS=24
ARGS=("$@")
while getopts "w:d:r:n:p:g:N:k:S:C:o:h" opt; do
	case $opt in
	w) WINDOWS=$OPTARG ;;
	d) DUR=$OPTARG ;;
	r) RAMP=$OPTARG ;;
	n) N=$OPTARG ;;
	p) PLAY=$OPTARG ;;
	g) GAMES=$OPTARG ;;
	N) NICE=$OPTARG ;;
	k) PERPROC=$OPTARG ;;
	S) SERVERS=$OPTARG ;;
	C) CLIENTS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG_TAG=indep
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM

for fv in w:WINDOWS d:DUR r:RAMP n:N p:PLAY g:GAMES N:NICE k:PERPROC; do v=${fv#*:}; [[ ${!v} =~ ^[0-9]+$ ]] || die "-${fv%%:*}: not a whole number: ${!v}"; done
((N >= 1 && N <= 64 && PLAY <= N && DUR > 0 && GAMES >= 1 && GAMES <= 16 && NICE <= 19 && PERPROC >= 1)) || die "need 1 <= N <= 64, P <= N, DURATION > 0, 1 <= GAMES <= 16, NICE <= 19, BOTS >= 1"
for s in $SERVERS; do case $s in twserver | ddnet) ;; *) die "-S: unknown server $s (twserver, ddnet)" ;; esac; done
for c in $CLIENTS; do case $c in npm | npm50 | twload | twload50) ;; *) die "-C: unknown client $c (npm, npm50, twload, twload50)" ;; esac; done

export PATH=$PATH:/usr/local/go/bin
DDNET_SERVER=${DDNET_SERVER:-/usr/games/DDNet-Server}
SERVER_MAP=${INDEP_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
PLAYER_SLOTS=$PLAY
DDNET_ARGS=("sv_spectator_slots $((64 - PLAY))")
BOTS=$ROOT/scripts/indep/bots.js

if [ "${INDEP_INNER:-0}" != 1 ]; then
	# Outside: build, install the library (the only step that needs the
	# network), take the lock, then run again inside a new namespace.
	OUT=${OUT:-$(mktemp -d /tmp/twindep.XXXXXX)}
	mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
	for t in node npm jq python3 unshare ip flock; do command -v "$t" >/dev/null || die "$t missing"; done
	[[ " $SERVERS " == *" ddnet "* ]] && { [ -x "$DDNET_SERVER" ] || die "DDNet-Server $DDNET_SERVER missing (apt-get install ddnet-server)"; }
	[ -f "$SERVER_MAP" ] || die "map $SERVER_MAP missing (set INDEP_MAP)"
	if [[ " $SERVERS " == *" twserver "* ]] && [ -z "${TWSERVER:-}" ]; then
		TWSERVER=$OUT/twserver
		(cd "$ROOT" && CGO_ENABLED=0 nice -n 19 go build -trimpath -o "$TWSERVER" ./cmd/twserver) || die "cannot build twserver"
	fi
	if [[ " $CLIENTS " == *" twload"* ]] && [ -z "${TWLOAD:-}" ]; then
		TWLOAD=$OUT/twload
		(cd "$ROOT" && CGO_ENABLED=0 nice -n 19 go build -trimpath -o "$TWLOAD" ./cmd/twload) || die "cannot build twload"
	fi
	if [[ " $CLIENTS " == *" npm"* ]] && ! (cd "$ROOT/scripts/indep" && node -e 'process.exit(require("teeworlds/package.json").version === require("./package-lock.json").packages["node_modules/teeworlds"].version ? 0 : 1)' 2>/dev/null); then
		log "installing the pinned teeworlds library (npm ci in scripts/indep)"
		(cd "$ROOT/scripts/indep" && nice -n 19 npm ci --no-audit --no-fund >"$OUT/npm-ci.log" 2>&1) || die "npm ci failed (see $OUT/npm-ci.log)"
	fi
	LOCK=${INDEP_LOCK-}
	if [ -z "${INDEP_LOCK+x}" ]; then
		LOCK=${TMPDIR:-/tmp}/twserver-heavytest.lock
		[ -e /work/measure.lock ] && LOCK=/work/measure.lock
	fi
	if [ -n "$LOCK" ]; then
		exec 9>>"$LOCK" || die "cannot open lock $LOCK"
		flock -n 9 || { log "waiting for the lock $LOCK"; flock 9 || die "cannot take the lock $LOCK"; }
		log "holding $LOCK"
	fi
	# fd 9 (the lock) stays open across exec for the whole inner run.
	exec unshare --net -- env INDEP_INNER=1 OUT="$OUT" TWSERVER="${TWSERVER:-}" TWLOAD="${TWLOAD:-}" \
		DDNET_SERVER="$DDNET_SERVER" INDEP_MAP="$SERVER_MAP" bash "$0" "${ARGS[@]}" -o "$OUT"
	die "cannot run unshare --net (needs root)"
fi

loopback_only || die "refusing to run: this network namespace has interfaces other than lo (run scripts/indep.sh, which makes its own)"
HZ=$(getconf CLK_TCK)
ROWS=()
for s in $SERVERS; do for c in $CLIENTS; do ROWS+=("$s/$c"); done; done

# start_games SERVER BASE DIR: starts SERVER's GAMES games on 127.0.0.1
# ports BASE.. (twserver: one process with one config per game; ddnet: one
# process per game); sets SPIDS and returns once every port is bound.
start_games() {
	local srv=$1 base=$2 dir=$3 g args=()
	SPIDS=()
	if [ "$GAMES" = 1 ]; then
		start_server "$srv" "$base" "$dir" || return 1
		SPIDS=("$SPID")
		return 0
	fi
	if [ "$srv" = ddnet ]; then
		for ((g = 0; g < GAMES; g++)); do
			start_server ddnet "$((base + g))" "$dir/game$g" || return 1
			SPIDS+=("$SPID")
		done
		return 0
	fi
	mkdir -p "$dir/cwd"
	for ((g = 0; g < GAMES; g++)); do
		twserver_toml "$((base + g))" >"$dir/game$g.toml"
		args+=(-config "$dir/game$g.toml")
	done
	(cd "$dir/cwd" && exec "$TWSERVER" "${args[@]}" -no-console -log-level "${SERVER_LOG_LEVEL:-warn}" >"$dir/server.log" 2>&1 </dev/null) &
	SPIDS=($!)
	PIDS+=("${SPIDS[@]}")
	wait_bound "$base" "$GAMES" || { log "twserver did not bind udp $base.. (see $dir/server.log)"; return 1; }
}

# npm_summary FILE...: one summary of the npm bots' per-game JSON files
# (bots.js --json), as bots.js writes for one game: counts summed, the
# per-bot rates' minimum and median over every bot, means over every bot.
npm_summary() {
	jq -s '(map(.bots) | add) as $b | ($b | map(.snapshots_per_s) | sort) as $r |
		def mean(k): ($b | map(k) | add) / ($b | length);
		{in_game_whole_window: (map(.in_game_whole_window) | add), players: (map(.players) | add), spectators: (map(.spectators) | add),
		 crc_errors: (map(.crc_errors) | add), missing_base: (map(.missing_base) | add), disconnects: (map(.disconnects) | add),
		 errors: (map(.errors) | add), cpu_pct: (map(.cpu_pct) | add),
		 snapshots_per_s: {min: $r[0], median: $r[($r | length) / 2 | floor]},
		 tees_per_snapshot: mean(.tees_per_snapshot), rx_bytes_per_s: mean(.rx_bytes_per_s),
		 rx_packets_per_s: mean(.rx_packets_per_s), tx_packets_per_s: mean(.tx_packets_per_s)}' "$@"
}

# run_row SERVER CLIENT WINDOW: fresh servers (GAMES games) under one load
# client; appends a line to results.tsv.
run_row() {
	local srv=$1 cl=$2 win=$3 dir base cpids=() t0 t1 s0 s1 c0 c1 w0 w1 hwm la0 la1 rc=0 ok g p total=$((N * GAMES))
	dir=$OUT/$srv-$cl-w$win
	mkdir -p "$dir"
	base=$(port_range "$GAMES")
	[ -n "$base" ] || { log "no $GAMES consecutive free ports"; return 1; }
	start_games "$srv" "$base" "$dir" || return 1
	sleep 0.5
	la0=$(cut -d' ' -f1 /proc/loadavg)
	log "$srv/$cl: $GAMES x $N clients ($PLAY playing each) over ${RAMP}s + ${SETTLE}s + ${DUR}s on ports $base.. (window $win/$WINDOWS; load average $(cut -d' ' -f1-3 /proc/loadavg))"
	if [ "${cl#twload}" = "$cl" ]; then
		local hz=0
		[ "$cl" = npm50 ] && hz=50
		local first k
		for ((g = 0; g < GAMES; g++)); do
			for ((first = 0; first < N; first += PERPROC)); do
				k=$((N - first < PERPROC ? N - first : PERPROC))
				nice -n "$NICE" node "$BOTS" --input-hz "$hz" --host 127.0.0.1 --port "$((base + g))" --first "$first" --n "$k" --of "$N" --play "$PLAY" \
					--rampup "$RAMP" --settle "$SETTLE" --duration "$((DUR + 1))" --sources 16 --source-base 127.0.0.2 \
					--json "$dir/client$g-$first.json" 2>"$dir/client$g-$first.err" &
				cpids+=($!)
			done
		done
	else
		local pace=real
		[ "$cl" = twload50 ] && pace=tick
		# twload's clients cannot be told to spectate: the servers' player
		# slots make the 17th and later spectators. Its window is the whole run.
		nice -n "$NICE" "$TWLOAD" -addr "127.0.0.1:$base" -targets "$GAMES" -n "$N" -duration "$((SETTLE + DUR + 1))s" -rampup "${RAMP}s" -pattern random \
			-pace "$pace" -proto 06 -sources 16 -source-base 127.0.0.2 -status off -json "$dir/client.json" 2>"$dir/client.err" &
		cpids=($!)
	fi
	PIDS+=("${cpids[@]}")
	sleep "$((RAMP + SETTLE))"
	t0=$(sched_ns "${SPIDS[@]}"); s0=$(sys_ticks "${SPIDS[@]}"); c0=$(sched_ns "${cpids[@]}"); w0=$EPOCHREALTIME
	sleep "$DUR"
	t1=$(sched_ns "${SPIDS[@]}"); s1=$(sys_ticks "${SPIDS[@]}"); c1=$(sched_ns "${cpids[@]}"); w1=$EPOCHREALTIME
	hwm=$(mem_kb VmHWM "${SPIDS[@]}")
	for p in "${cpids[@]}"; do wait "$p" || rc=$?; done
	la1=$(cut -d' ' -f1 /proc/loadavg)
	for p in "${SPIDS[@]}"; do kill -0 "$p" 2>/dev/null || { log "$srv died during the run (see $dir)"; rc=1; }; done
	for p in "${SPIDS[@]}"; do stop_pid "$p"; done
	# CPU and client CPU from nanoseconds (three decimals), system time from clock ticks (one).
	local cpu sys ccpu pct='BEGIN{printf "%.*f", d, (b-a)/hz/(w1-w0)*100}'
	cpu=$(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz=1e9 -v d=3 "$pct")
	sys=$(awk -v a="$s0" -v b="$s1" -v w0="$w0" -v w1="$w1" -v hz="$HZ" -v d=1 "$pct")
	ccpu=$(awk -v a="$c0" -v b="$c1" -v w0="$w0" -v w1="$w1" -v hz=1e9 -v d=3 "$pct")
	if [ "${cl#twload}" = "$cl" ]; then
		for p in "$dir"/client*-*.err; do
			[ -s "${p%.err}.json" ] || { log "$srv/$cl ${p##*/}: no JSON (exit $rc): $(tail -2 "$p")"; printf '{"bots":[],"errors":["no JSON"]}' >"${p%.err}.json"; }
		done
		npm_summary "$dir"/client*-*.json >"$dir/client.json" || printf '{}' >"$dir/client.json"
		ok=$(jq --argjson n "$total" --argjson min "$MIN_SNAPS" '.in_game_whole_window == $n and .crc_errors == 0 and .missing_base == 0 and .disconnects == 0 and (.errors | length) == 0 and .snapshots_per_s.min >= $min' "$dir/client.json")
		jq -r --arg s "$srv" --arg c "$cl" --arg w "$win" --arg cpu "$cpu" --arg hwm "$hwm" --arg ccpu "$ccpu" --arg la "$la0-$la1" --arg ok "$ok" --arg sys "$sys" \
			'[$s, $c, $w, $cpu, $hwm, $ccpu, .in_game_whole_window // 0, .snapshots_per_s.min // 0, .snapshots_per_s.median // 0,
			  .tees_per_snapshot // 0, .players // 0, .spectators // 0, (.crc_errors // 0) + (.missing_base // 0), .disconnects // 0, .cpu_pct // 0, $la, $ok,
			  .rx_bytes_per_s // 0, .rx_packets_per_s // 0, .tx_packets_per_s // 0, $sys] | @tsv' \
			"$dir/client.json" >>"$RESULTS"
	else
		[ -s "$dir/client.json" ] || { log "$srv/$cl: no JSON (exit $rc): $(tail -2 "$dir/client.err")"; printf '{}' >"$dir/client.json"; }
		# twload's 0.6 decoder counts DDNet's own snapshot items and
		# messages as bad: not failures here (as in bench.sh).
		ok=$(jq --argjson n "$total" --argjson min "$MIN_SNAPS" '.connected == $n and .failed == 0 and .crc_errors == 0 and .delta_errors == 0 and .snapshots_per_sec_per_client.min >= $min' "$dir/client.json")
		jq -r --arg s "$srv" --arg c "$cl" --arg w "$win" --arg cpu "$cpu" --arg hwm "$hwm" --arg ccpu "$ccpu" --arg la "$la0-$la1" --arg ok "$ok" --arg sys "$sys" \
			'[$s, $c, $w, $cpu, $hwm, $ccpu, .connected // 0, .snapshots_per_sec_per_client.min // 0, .snapshots_per_sec_per_client.p50 // 0,
			  .chars_in_view_per_snapshot.mean // 0, "-", "-", (.crc_errors // 0) + (.delta_errors // 0), .failed // 0, .twload_cpu_pct // 0, $la, $ok,
			  .rx_bytes_per_sec_per_client.mean // 0, .rx_packets_per_sec_per_client.mean // 0, .tx_packets_per_sec_per_client.mean // 0, $sys] | @tsv' \
			"$dir/client.json" >>"$RESULTS"
	fi
	[ "$ok" = true ] || { log "$srv/$cl window $win: not every client in game for the whole window, or errors (see $dir)"; return 1; }
}

RESULTS=$OUT/results.tsv
printf 'server\tclient\twindow\tcpu_pct\tpeak_rss_kb\tclient_cpu_pct\tin_game\tsnaps_min\tsnaps_median\ttees_snap\tplayers\tspectators\tsnap_errors\tdisconnects\tclient_own_cpu_pct\tload\tok\trx_Bps\trx_pps\ttx_pps\tsys_pct\n' >"$RESULTS"
STATUS=0
for ((win = 1; win <= WINDOWS; win++)); do
	order=("${ROWS[@]}")
	if ((win % 2 == 0)); then
		order=(); for ((i = ${#ROWS[@]} - 1; i >= 0; i--)); do order+=("${ROWS[i]}"); done
	fi
	for row in "${order[@]}"; do
		run_row "${row%/*}" "${row#*/}" "$win" || STATUS=1
	done
done

python3 - "$RESULTS" "$((N * GAMES))" "$PLAY" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
n = sys.argv[2]
f = lambda r, k: float(r[k]) if r[k] not in ("", "-") else 0.0
print("every window (load: the 1-minute load average at the start and end of the row):")
print(f"{'row':<16} {'w':>2} {'load':>9} {'CPU %':>6} {'sys':>5} {'peakRSS MB':>10} {'in game':>7} {'snap/s min':>10} {'median':>6} {'tees/snap':>9} {'play/spec':>9} {'errors':>6} {'disc':>4} {'client CPU %':>12} {'own':>5} {'s2c B/s/cl':>10} {'s2c pk/s':>8} {'c2s pk/s':>8}")
by = {}
for r in rows:
    k = f"{r['server']}/{r['client']}"
    by.setdefault(k, {})[r["window"]] = r
    ps = f"{r['players']}/{r['spectators']}"
    print(f"{k:<16} {r['window']:>2} {r['load']:>9} {f(r,'cpu_pct'):6.2f} {f(r,'sys_pct'):5.1f} {f(r,'peak_rss_kb')/1024:10.1f} {r['in_game']:>4}/{n:<4} {f(r,'snaps_min'):10.2f} {f(r,'snaps_median'):6.2f} "
          f"{f(r,'tees_snap'):9.2f} {ps:>9} {r['snap_errors']:>6} {r['disconnects']:>4} {f(r,'client_cpu_pct'):12.1f} {f(r,'client_own_cpu_pct'):5.1f} {f(r,'rx_Bps'):10.0f} {f(r,'rx_pps'):8.1f} {f(r,'tx_pps'):8.1f}")
def spread(xs, fmt="{:.1f}"):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"
print()
print("median over the windows (min-max); snap/s: the lowest client of any window / the median client's median:")
print(f"{'row':<16} {'in game':>15} {'CPU %':>17} {'system %':>17} {'peakRSS MB':>19} {'snap/s min/med':>14} {'tees/snap':>9} {'client CPU %':>17} {'s2c B/s/cl':>10} {'c2s pk/s/cl':>11} {'load':>11}")
for k, ws in by.items():
    rs = list(ws.values())
    ing = ",".join(r["in_game"] for r in rs)
    loads = [float(x) for r in rs for x in r["load"].split("-")]
    print(f"{k:<16} {ing:>15} {spread([f(r,'cpu_pct') for r in rs], '{:.2f}'):>17} {spread([f(r,'sys_pct') for r in rs]):>17} {spread([f(r,'peak_rss_kb')/1024 for r in rs]):>19} "
          f"{min(f(r,'snaps_min') for r in rs):6.2f}/{statistics.median(f(r,'snaps_median') for r in rs):<6.2f} {statistics.median(f(r,'tees_snap') for r in rs):9.2f} "
          f"{spread([f(r,'client_cpu_pct') for r in rs]):>17} {statistics.median(f(r,'rx_Bps') for r in rs):10.0f} {statistics.median(f(r,'tx_pps') for r in rs):11.1f} {min(loads):.2f}-{max(loads):.2f}")
print()
print("ratios, median of the per-window ratios (min-max), over the windows where both rows kept up (ok: every client")
print("in game, no snapshot error, at least 24 snapshots/s; a load client that fell behind voids its window):")
def ratio(a, b, k):
    if a not in by or b not in by:
        return None
    ws = sorted(set(by[a]) & set(by[b]))
    good = [w for w in ws if by[a][w]["ok"] == "true" and by[b][w]["ok"] == "true"]
    xs = [f(by[a][w], k) / f(by[b][w], k) for w in good if f(by[b][w], k)]
    return (spread(xs, "{:.2f}") if xs else "-") + f" [{len(xs)}/{len(ws)} windows]"
for a, b in [("twserver/npm", "ddnet/npm"), ("twserver/npm50", "ddnet/npm50"), ("twserver/twload", "ddnet/twload"), ("twserver/twload50", "ddnet/twload50"),
             ("twserver/npm", "twserver/twload"), ("ddnet/npm", "ddnet/twload"), ("twserver/npm50", "twserver/twload50"), ("ddnet/npm50", "ddnet/twload50")]:
    c = ratio(a, b, "cpu_pct")
    if c is not None:
        print(f"  {a + ' / ' + b:<36} CPU {c:<30} peak RSS {ratio(a, b, 'peak_rss_kb')}")
EOF
log "results: $RESULTS (JSON, client and server logs in $OUT)"
exit $STATUS
