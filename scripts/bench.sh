#!/usr/bin/env bash
# bench.sh - load benchmark of twserver against the 0.7.5 reference server.
#
# For every client count N (default 1 16 32 63), in W windows (default 5) that
# alternate which server goes first, and for both servers it starts
# a fresh server on 127.0.0.1 (the same map, 64 slots of which 16 play and the
# rest spectate, 4 clients per IP), runs
# twload with N clients spread over 16 loopback source addresses, and reports:
#   server CPU      utime+stime from /proc/PID/stat over the load run, % of one core
#   peak RSS        VmHWM from /proc/PID/status at the end of the run
#   per client      received and sent bytes/s and packets/s (UDP payload, in game)
#   snapshots/s per client, input-to-snapshot latency p50/p99, failures, twload's own CPU,
#   server CPU time per snapshot delivered (us/snap; fair when snapshot rates differ)
#   received bytes per snapshot per client (B/snap; fair when snapshot rates differ)
#   and the characters (tees) in view per snapshot: the game state behind those
#   bytes (twload's inputs are seeded alike for both servers, but the games
#   diverge, and a run whose clients see more tees sends bigger snapshots)
#   the machine's 1-minute load average at the start and end of each run
#   the received bytes by message kind per client per second: snapshots
#   (SNAPSINGLE, SNAP slices, SNAPEMPTY), INPUTTIMING, other system messages,
#   game messages, and the rest (packet and chunk headers, keep-alives, less
#   what compression saved)
# and, per N, the median over the windows with its spread (min-max), and the
# ratio twserver/reference of CPU (median of the per-window ratios, min-max),
# peak RSS, bytes and packets. Never the best run alone.
#
# Usage: scripts/bench.sh [-d DURATION] [-r RAMPUP] [-p PATTERN] [-w WINDOWS] [-P PROTOS] [-o OUTDIR] [N ...]
#   -d  load duration after the ramp-up (default 30s)
#   -r  ramp-up (default 3s)
#   -p  input pattern: idle, walk, jumpfire, random (default random)
#   -w  windows per N (default 5); window k runs twserver first when k is odd
#   -P  client dialects, space-separated, of twload -proto: 07, 06 (DDNet 0.6), mix
#       (alternating 07 and 06) (default "07"); a 06 or mix row is labelled
#       SERVER/PROTO. The 0.7.5 reference server cannot serve 0.6 clients: it
#       gets no 06 or mix row; add "ddnet" to BENCH_SERVERS for DDNet-Server 16.4
#       as the 0.6 reference (its own DDRace game on its own 0.6 copy of the map,
#       the 0.7 map in maps7/ for the 0.7 half of mix; no spectator slots).
#   -o  output directory for JSON summaries and server logs (default a temp dir)
# Env: TWSERVER (binary; default: built from ./cmd/twserver), TWLOAD (default: built
#      from ./cmd/twload), TW07_SERVER (default /usr/games/teeworlds-server),
#      BENCH_MAP (default the reference dm1.map), BENCH_SERVERS ("twserver reference",
#      also "ddnet"), DDNET_SERVER (default /usr/games/DDNet-Server).
# Exit: 0 when every run had all clients in game and no bad snapshot, 1 otherwise,
#       2 for usage errors or a missing server.
# Only loopback traffic; every process started here is stopped by PID.
set -uo pipefail

DUR=30s RAMP=3s PAT=random OUT= WINDOWS=5 PROTOS=07
while getopts "d:r:p:w:P:o:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	r) RAMP=$OPTARG ;;
	p) PAT=$OPTARG ;;
	w) WINDOWS=$OPTARG ;;
	P) PROTOS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,45p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
COUNTS=("$@")
[ ${#COUNTS[@]} -gt 0 ] || COUNTS=(1 16 32 63)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twbench.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
TW07_DATA=${TW07_DATA:-/usr/share/games/teeworlds/data}
BENCH_MAP=${BENCH_MAP:-$TW07_DATA/maps/dm1.map}
SERVERS=(${BENCH_SERVERS:-twserver reference})
DDNET_SERVER=${DDNET_SERVER:-/usr/games/DDNet-Server}
HZ=$(getconf CLK_TCK)
LOG_TAG=bench SERVER_MAP=$BENCH_MAP
# log, die, stop_pid, free_port, udp_bound, cpu_ticks, vm_hwm_kb, start_server
. "$ROOT/scripts/lib.sh"
for proto in $PROTOS; do
	case $proto in 07 | 06 | mix) ;; *) die "-P: unknown dialect $proto (07, 06, mix)" ;; esac
done

trap lib_stop_all EXIT
trap 'exit 130' INT TERM

export PATH=$PATH:/usr/local/go/bin
if [ -z "${TWLOAD:-}" ]; then
	TWLOAD=$OUT/twload
	(cd "$ROOT" && go build -o "$TWLOAD" ./cmd/twload) || die "cannot build twload"
fi
if [[ " ${SERVERS[*]} " == *" twserver "* ]] && [ -z "${TWSERVER:-}" ]; then
	TWSERVER=$OUT/twserver
	(cd "$ROOT" && go build -o "$TWSERVER" ./cmd/twserver) || die "cannot build twserver"
fi
[[ " ${SERVERS[*]} " == *" reference "* ]] && { [ -x "$TW07_SERVER" ] || die "reference server $TW07_SERVER missing (apt-get install teeworlds-server)"; }
[[ " ${SERVERS[*]} " == *" ddnet "* ]] && { [ -x "$DDNET_SERVER" ] || die "DDNet-Server $DDNET_SERVER missing (apt-get install ddnet-server)"; }
[ -f "$BENCH_MAP" ] || die "map $BENCH_MAP missing (set BENCH_MAP)"

RESULTS=$OUT/results.tsv
printf 'n\tserver\tload_cpu_pct\tcpu_pct\tpeak_rss_kb\trx_Bps\ttx_Bps\trx_pps\ttx_pps\tsnaps_ps\tlat_p50\tlat_p99\tconnected\tfailed\tbad\tsrv_snaps_ps\tinputs_ps\twindow\tla_start\tla_end\trx_B_snap\tsnap_Bps\tsnap_single_ps\tsnap_slice_ps\tsnap_empty_ps\ttiming_Bps\tsys_Bps\tgame_Bps\trest_Bps\tchars_snap\n' >"$RESULTS"
STATUS=0
for n in "${COUNTS[@]}"; do
  for ((win = 1; win <= WINDOWS; win++)); do
	order=("${SERVERS[@]}")
	if ((win % 2 == 0)); then # alternate which server runs first
		order=(); for ((i = ${#SERVERS[@]} - 1; i >= 0; i--)); do order+=("${SERVERS[i]}"); done
	fi
	for proto in $PROTOS; do
	for kind in "${order[@]}"; do
		label=$kind
		[ "$proto" = 07 ] || label=$kind/$proto
		if [ "$proto" != 07 ] && [ "$kind" = reference ]; then
			((n == COUNTS[0] && win == 1)) && log "reference: no -proto $proto row (the 0.7.5 reference server cannot serve 0.6 clients; BENCH_SERVERS=ddnet adds DDNet-Server 16.4)"
			continue
		fi
		dir=$OUT/${label//\//-}-$n-w$win
		port=$(free_port)
		start_server "$kind" "$port" "$dir" || { STATUS=1; continue; }
		sleep 0.5
		la0=$(cut -d' ' -f1 /proc/loadavg)
		t0=$(cpu_ticks "$SPID"); w0=$EPOCHREALTIME
		log "$label: $n clients for $RAMP + $DUR on port $port (window $win/$WINDOWS; load average $(cut -d' ' -f1-3 /proc/loadavg))"
		/usr/bin/time -f "%U %S %e" -o "$dir/twload.time" "$TWLOAD" -addr "127.0.0.1:$port" -n "$n" -duration "$DUR" -rampup "$RAMP" -pattern "$PAT" -proto "$proto" \
			-sources 16 -source-base 127.0.0.2 -status off -json "$dir/twload.json" 2>"$dir/twload.err"
		rc=$?
		t1=$(cpu_ticks "$SPID"); w1=$EPOCHREALTIME
		hwm=$(vm_hwm_kb "$SPID")
		la1=$(cut -d' ' -f1 /proc/loadavg)
		if [ $rc -ne 0 ] && [ "$kind" = ddnet ] && [ -s "$dir/twload.json" ] &&
			jq -e --argjson n "$n" '.connected == $n and .failed == 0 and .crc_errors == 0 and .delta_errors == 0' "$dir/twload.json" >/dev/null; then
			# twload's vanilla 0.6/0.7 decoders count DDNet's extensions (its own
			# snapshot items, a longer TuneParams) as bad: not a failure here.
			log "$label n=$n: $(jq -r '"\(.bad_items) items and \(.bad_messages) messages of DDNet extensions twload does not decode (not failures)"' "$dir/twload.json")"
			rc=0
		fi
		kill -0 "$SPID" 2>/dev/null || { log "$kind died during the run (see $dir/server.log)"; rc=1; }
		stop_pid "$SPID"
		[ $rc -eq 0 ] || { STATUS=1; log "$label n=$n: twload exit $rc: $(tail -1 "$dir/twload.err")"; }
		lcpu=$(tail -1 "$dir/twload.time" 2>/dev/null | awk '{ if ($3 > 0) printf "%.1f", ($1 + $2) / $3 * 100; else print 0 }' || echo 0) # the last line: GNU time puts "Command exited with non-zero status" first
		cpu=$(awk -v a="$t0" -v b="$t1" -v w0="$w0" -v w1="$w1" -v hz="$HZ" 'BEGIN{printf "%.1f", (b-a)/hz/(w1-w0)*100}')
		if [ -s "$dir/twload.json" ]; then
			jq -r --arg n "$n" --arg k "$label" --arg cpu "$cpu" --arg hwm "$hwm" --arg lcpu "$lcpu" \
				'[$n, $k, $lcpu, $cpu, $hwm, .rx_bytes_per_sec_per_client.mean, .tx_bytes_per_sec_per_client.mean,
				  .rx_packets_per_sec_per_client.mean, .tx_packets_per_sec_per_client.mean,
				  .snapshots_per_sec_per_client.mean, .input_to_snapshot_latency_ms.p50,
				  .input_to_snapshot_latency_ms.p99, .connected, .failed,
				  (.crc_errors + .delta_errors + .bad_messages + .bad_items), .server_snapshots_per_sec,
				  .inputs_per_sec_per_client.mean, '"$win"', '"$la0"', '"$la1"',
				  .rx_bytes_per_snapshot_per_client.mean] +
				  (.rx_breakdown as $r | (if .in_game_client_seconds > 0 then .in_game_client_seconds else 1 end) as $s |
				   ($r.snap_single_bytes + $r.snap_slice_bytes + $r.snap_empty_bytes) as $snap |
				   [$snap / $s, $r.snap_single / $s, $r.snap_slice / $s, $r.snap_empty / $s,
				    $r.input_timing_bytes / $s, $r.other_sys_bytes / $s, $r.game_bytes / $s,
				    (.rx_bytes_per_sec_per_client.mean - ($snap + $r.input_timing_bytes + $r.other_sys_bytes + $r.game_bytes) / $s)]) +
				  [.chars_in_view_per_snapshot.mean]
				  | @tsv' "$dir/twload.json" >>"$RESULTS"
		else
			printf '%s\t%s\t%s\t%s\t%s\t0\t0\t0\t0\t0\t0\t0\t0\t%s\t0\t0\t0\t%s\t%s\t%s\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n' "$n" "$label" "$lcpu" "$cpu" "$hwm" "$n" "$win" "$la0" "$la1" >>"$RESULTS"
		fi
	done
	done
  done
done

python3 - "$RESULTS" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
f = lambda r, k: float(r[k] or 0)
def us_per_snap(r):
    # server CPU time per snapshot delivered to a client: comparable even when
    # one server sends fewer snapshots than the other
    snaps = f(r, "snaps_ps") * int(r["n"])
    return f(r, "cpu_pct") / 100 / snaps * 1e6 if snaps else 0.0
print("every window (load: the 1-minute load average at the start and end of the run):")
print(f"{'N':>3} {'w':>2} {'server':<13} {'load':>9} {'CPU %':>6} {'peakRSS MB':>10} {'s2c B/s/cl':>10} {'B/snap/cl':>9} {'tees/snap':>9} {'c2s B/s/cl':>10} "
      f"{'s2c pk/s/cl':>11} {'c2s pk/s/cl':>11} {'snap/s':>6} {'srv snap/s':>10} {'in/s':>5} {'lat p50':>7} {'lat p99':>7} {'in game':>7} {'bad':>4} {'twload CPU %':>12} {'us/snap':>8}")
by = {}
for r in rows:
    by.setdefault(r["n"], {}).setdefault(r["server"], {})[r["window"]] = r
    load = f"{f(r,'la_start'):.2f}-{f(r,'la_end'):.2f}"
    print(f"{r['n']:>3} {r['window']:>2} {r['server']:<13} {load:>9} {f(r,'cpu_pct'):6.1f} {f(r,'peak_rss_kb')/1024:10.1f} {f(r,'rx_Bps'):10.0f} {f(r,'rx_B_snap'):9.1f} {f(r,'chars_snap'):9.2f} "
          f"{f(r,'tx_Bps'):10.0f} {f(r,'rx_pps'):11.1f} {f(r,'tx_pps'):11.1f} {f(r,'snaps_ps'):6.1f} {f(r,'srv_snaps_ps'):10.1f} {f(r,'inputs_ps'):5.1f} "
          f"{f(r,'lat_p50'):7.1f} {f(r,'lat_p99'):7.1f} {r['connected']:>3}/{r['n']:<3} {r['bad']:>4} {f(r,'load_cpu_pct'):12.1f} {us_per_snap(r):8.1f}")
def spread(xs, fmt):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"
med = lambda rs, k: statistics.median(f(r, k) for r in rs)
print()
print("median over the windows (min-max):")
print(f"{'N':>3} {'server':<13} {'CPU %':>16} {'peakRSS MB':>19} {'s2c B/s/cl':>18} {'B/snap/cl':>19} {'snap/s':>6} {'min snap/s':>10} {'load':>15}")
for n, d in by.items():
    for k, ws in d.items():
        rs = list(ws.values())
        print(f"{n:>3} {k:<13} {spread([f(r,'cpu_pct') for r in rs], '{:.1f}'):>16} {spread([f(r,'peak_rss_kb')/1024 for r in rs], '{:.1f}'):>19} "
              f"{spread([f(r,'rx_Bps') for r in rs], '{:.0f}'):>18} {spread([f(r,'rx_B_snap') for r in rs], '{:.1f}'):>19} "
              f"{med(rs,'snaps_ps'):6.1f} {min(f(r,'snaps_ps') for r in rs):10.2f} "
              f"{min(min(f(r,'la_start'), f(r,'la_end')) for r in rs):.2f}-{max(max(f(r,'la_start'), f(r,'la_end')) for r in rs):.2f}")
print()
print("server-to-client bytes by kind, per client per second (median over the windows), messages uncompressed; snap B/snap: snapshot")
print("message bytes per snapshot; hdr-zip: packet and chunk headers and keep-alives less what compression saved (wire total minus the messages)")
print(f"{'N':>3} {'server':<13} {'snapshots':>9} {'single/s':>8} {'slice/s':>7} {'empty/s':>7} {'snap B/snap':>11} {'INPUTTIMING':>11} {'other sys':>9} {'game msgs':>9} {'hdr-zip':>8} {'wire total':>10} {'tees/snap':>9}")
for n, d in by.items():
    for k, ws in d.items():
        rs = list(ws.values())
        snapb = statistics.median(f(r,'snap_Bps') / f(r,'snaps_ps') for r in rs if f(r,'snaps_ps')) if any(f(r,'snaps_ps') for r in rs) else 0
        print(f"{n:>3} {k:<13} {med(rs,'snap_Bps'):9.0f} {med(rs,'snap_single_ps'):8.1f} {med(rs,'snap_slice_ps'):7.1f} {med(rs,'snap_empty_ps'):7.1f} {snapb:11.1f} "
              f"{med(rs,'timing_Bps'):11.0f} {med(rs,'sys_Bps'):9.1f} {med(rs,'game_Bps'):9.1f} {med(rs,'rest_Bps'):8.0f} {med(rs,'rx_Bps'):10.0f} {med(rs,'chars_snap'):9.2f}")
print()
print("ratio twserver/reference (0.7: the 0.7.5 server; 06, mix: DDNet-Server 16.4): median of the per-window ratios (min-max)")
print(f"{'N':>3} {'pair':<26} {'CPU':>17} {'peakRSS':>17} {'s2c B/s':>17} {'s2c B/snap':>17} {'s2c pk/s':>17}")
pairs = [("twserver", "reference")] + [(f"twserver{p}", f"ddnet{p}") for p in ("", "/06", "/mix")]
for n, d in by.items():
    for a, b in pairs:
        if a not in d or b not in d:
            continue
        ws = sorted(set(d[a]) & set(d[b]))
        def rat(k):
            xs = [f(d[a][w], k) / f(d[b][w], k) for w in ws if f(d[b][w], k)]
            return spread(xs, "{:.2f}") if xs else "-"
        print(f"{n:>3} {a + '/' + b:<26} {rat('cpu_pct'):>17} {rat('peak_rss_kb'):>17} {rat('rx_Bps'):>17} {rat('rx_B_snap'):>17} {rat('rx_pps'):>17}")
EOF
log "results: $RESULTS (JSON summaries and server logs in $OUT)"
exit $STATUS
