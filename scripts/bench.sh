#!/usr/bin/env bash
# bench.sh - twserver against the 0.7.5 reference server (and DDNet-Server),
# now a thin caller of `twload bench` (docs/load-testing.md#twload-bench):
# it builds twserver and twload, gives twload bench the two (or three)
# server command lines with the settings of the published figures (map dm1,
# 64 slots of which 16 play, 4 clients per address, no inactivity kick,
# 127.0.0.1 only, no registration), one `twload bench` per client dialect,
# and prints, after twload bench's table and ratios, the server-to-client
# bytes by message kind and the tees in view per snapshot from its
# report.json (twload bench keeps them per run but does not print them).
# twload bench's table splits each server's CPU into user and system time
# (utime and stime from /proc/PID/stat over the window).
#
# Usage: scripts/bench.sh [-d WINDOW] [-r RAMPUP] [-s SETTLE] [-p PATTERN] [-w WINDOWS] [-P PROTOS] [-o OUTDIR] [N ...]
#   -d  measured window after the ramp-up (default 30s)
#   -r  ramp-up (default 3s)
#   -s  settle between the ramp-up and the window (default 3s): the last
#       joins' tail is not steady state; twload bench prints the CPU from
#       the start to the window apart ("join CPU %")
#   -p  input pattern: idle, walk, jumpfire, random (default random)
#   -w  windows per N (default 5); even windows run the servers in reverse order
#   -P  client dialects, space-separated: 07, 06, mix (default "07"); the 0.7.5
#       reference cannot serve 0.6 clients and is left out of 06 and mix runs
#       (add "ddnet" to BENCH_SERVERS for DDNet-Server 16.4, its DDNet
#       extensions counted apart with -ddnet-extensions; 48 of its 64
#       slots are spectator slots, so 16 clients play there too)
#   -o  output directory (default a temp dir): PROTO/report.json, report.html, runs/
# N: client counts (default 1 16 32 63).
# Env: TWSERVER, TWLOAD (binaries; default: built from ./cmd), TW07_SERVER
#      (default /usr/games/teeworlds-server), DDNET_SERVER (default
#      /usr/games/DDNet-Server), BENCH_MAP (default the reference dm1.map),
#      BENCH_SERVERS (default "twserver reference"; also "ddnet"),
#      BENCH_PACE (twload's -pace: real, the default, or tick),
#      BENCH_INDEP=1: then, for every N, the independent client's rows
#      beside twload's: scripts/indep.sh with the same windows, window and
#      ramp-up (whole seconds), N clients of which min(N, 16) play, the npm
#      `teeworlds` bots and twload -proto 06 against twserver and
#      DDNet-Server 16.4 (the library speaks 0.6 only, so it cannot load
#      the 0.7.5 reference; needs node, npm ci's registry access and root).
# Exit: twload bench's: 0 when every run had all clients in game and no error.
set -uo pipefail

DUR=30s RAMP=3s SETTLE=3s PAT=random OUT= WINDOWS=5 PROTOS=07
while getopts "d:r:s:p:w:P:o:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;; r) RAMP=$OPTARG ;; s) SETTLE=$OPTARG ;; p) PAT=$OPTARG ;; w) WINDOWS=$OPTARG ;;
	P) PROTOS=$OPTARG ;; o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
COUNTS=${*:-1 16 32 63}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twbench.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
DDNET_SERVER=${DDNET_SERVER:-/usr/games/DDNet-Server}
BENCH_MAP=${BENCH_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
SERVERS=${BENCH_SERVERS:-twserver reference}
LOG_TAG=bench
. "$ROOT/scripts/lib.sh" # log, die, need_binaries

need_binaries "$OUT" twserver twload
[ -f "$BENCH_MAP" ] || die "map $BENCH_MAP missing (set BENCH_MAP)"

SETTINGS="bindaddr 127.0.0.1; sv_port {port}; sv_register 0; sv_map {map}; sv_name bench; sv_max_clients 64; sv_max_clients_per_ip $MAX_CLIENTS_PER_IP; sv_spamprotection 0; sv_inactivekick_time 0"
STATUS=0
for proto in $PROTOS; do
	case $proto in 07 | 06 | mix) ;; *) die "-P: unknown dialect $proto (07, 06, mix)" ;; esac
	args=()
	for kind in $SERVERS; do
		case $kind in
		twserver) args+=(-name twserver -server "'$TWSERVER' {configs} -no-console -log-level warn") ;;
		reference)
			[ "$proto" = 07 ] || { log "reference: no -proto $proto runs (the 0.7.5 server cannot serve 0.6 clients)"; continue; }
			[ -x "$TW07_SERVER" ] || die "$TW07_SERVER missing (apt-get install teeworlds-server)"
			args+=(-name reference -server "'$TW07_SERVER' '$SETTINGS; console_output_level 1; sv_player_slots 16'") ;;
		ddnet)
			[ -x "$DDNET_SERVER" ] || die "$DDNET_SERVER missing (apt-get install ddnet-server)"
			args+=(-name ddnet -ddnet-extensions -server "'$DDNET_SERVER' '$SETTINGS; sv_ipv4only 1; loglevel 1; sv_sixup 1; sv_spectator_slots 48'") ;;
		*) die "BENCH_SERVERS: unknown server $kind" ;;
		esac
	done
	"$TWLOAD" bench "${args[@]}" -clients "${COUNTS// /,}" -windows "$WINDOWS" -window "$DUR" -rampup "$RAMP" -settle "$SETTLE" \
		-proto "$proto" -pattern "$PAT" -pace "${BENCH_PACE:-real}" -map "$BENCH_MAP" -o "$OUT/$proto" || STATUS=1
	echo
	echo "server-to-client bytes by kind, per client per second (median over the windows), messages uncompressed;"
	echo "rest: packet and chunk headers and keep-alives less what compression saved"
	python3 - "$OUT/$proto/report.json" <<'PY'
import json, statistics, sys
rep = json.load(open(sys.argv[1]))
print(f"{'N':>3} {'server':<10} {'snapshots':>9} {'INPUTTIMING':>11} {'other sys':>9} {'game':>6} {'rest':>6} {'total':>6} {'B/snap':>7} {'tees/snap':>9} {'lat p50/p99 ms':>14}")
by = {}
for r in rep["rows"]:
    if r.get("load"):
        by.setdefault((r["clients"], r["server"]), []).append(r["load"])
med = lambda xs: statistics.median(xs) if xs else 0
for (n, name), loads in by.items():
    def per_s(l, *ks):
        s = l["in_game_client_seconds"] or 1
        return sum(l["rx_breakdown"][k] for k in ks) / s
    snap = med([per_s(l, "snap_single_bytes", "snap_slice_bytes", "snap_empty_bytes") for l in loads])
    timing = med([per_s(l, "input_timing_bytes") for l in loads])
    sysb = med([per_s(l, "other_sys_bytes") for l in loads])
    game = med([per_s(l, "game_bytes") for l in loads])
    total = med([l["rx_bytes_per_sec_per_client"]["mean"] for l in loads])
    bps = med([l["rx_bytes_per_snapshot_per_client"]["mean"] for l in loads])
    tees = med([l["chars_in_view_per_snapshot"]["mean"] for l in loads])
    lat = f'{med([l["input_to_snapshot_latency_ms"]["p50"] for l in loads]):.1f}/{med([l["input_to_snapshot_latency_ms"]["p99"] for l in loads]):.1f}'
    print(f"{n:>3} {name:<10} {snap:9.0f} {timing:11.0f} {sysb:9.1f} {game:6.1f} {total-snap-timing-sysb-game:6.0f} {total:6.0f} {bps:7.1f} {tees:9.2f} {lat:>14}")
PY
	log "report: $OUT/$proto/report.html"
done
if [ "${BENCH_INDEP:-0}" = 1 ]; then
	for n in $COUNTS; do
		((n > 0)) || continue
		log "independent client, $n clients: scripts/indep.sh (report in $OUT/indep-$n)"
		TWSERVER=$TWSERVER TWLOAD=$TWLOAD "$ROOT/scripts/indep.sh" -w "$WINDOWS" -d "${DUR%s}" -r "${RAMP%s}" -n "$n" -p "$((n < 16 ? n : 16))" \
			-N 10 -k 16 -C "npm twload" -o "$OUT/indep-$n" >"$OUT/indep-$n.txt" || STATUS=1
		echo
		echo "independent client (npm teeworlds bots, 0.6) beside twload -proto 06, $n clients, twserver and DDNet-Server 16.4:"
		sed -n '/^median over the windows/,$p' "$OUT/indep-$n.txt"
	done
fi
exit $STATUS
