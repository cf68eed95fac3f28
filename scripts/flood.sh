#!/usr/bin/env bash
# flood.sh [-r RATE] [-d DURATION] [-s SOURCES] [-w WINDOWS] [-k KINDS] [-o OUTDIR]
#
# Flood cost, twserver against the 0.7.5 reference server (issue 10 goal 2,
# issue 11): in each of WINDOWS windows (default 3; the order of the two
# servers alternates), for each server a fresh 64-slot server on 127.0.0.1
# (dm1, sv_register 0), 4 twload players, then `twload flood` with RATE
# (default 100000) unverified packets/s for DURATION (default 20s) from
# SOURCES (default 2000) loopback addresses (token requests, bad-token
# CONNECTs, connless info requests, garbage; equal shares, or the mix KINDS
# as twload's -kinds, e.g. connect=1,info=1,garbage=1). The server's CPU
# comes from /proc/PID/stat: over a 5 s players-only baseline, then over the
# flood; the flood's cost per packet is the extra CPU over the baseline
# divided by the packets sent. Prints every window, the median (min-max) per
# server and of the per-window ratio twserver/reference, and whether the
# players kept 25 snapshots/s, and the datagrams the kernel dropped at the
# server's socket (its buffer full: those cost the server nothing, so they
# must stay near 0 for a fair figure; /proc/net/udp). Loopback only;
# processes stopped by PID.
set -uo pipefail
RATE=100000 DUR=20s SRC=2000 WINDOWS=3 OUT= KINDS=
while getopts "r:d:s:w:k:o:h" opt; do
	case $opt in
	r) RATE=$OPTARG ;;
	d) DUR=$OPTARG ;;
	s) SRC=$OPTARG ;;
	w) WINDOWS=$OPTARG ;;
	k) KINDS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/lib.sh" # start_server, stop_pid, free_port, need_binaries
OUT=${OUT:-$(mktemp -d /tmp/twflood.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
SERVER_MAP=${FLOOD_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map} # start_server's map
need_binaries "$OUT" twserver twload
[ -x "$TW07_SERVER" ] || { echo "reference server $TW07_SERVER missing" >&2; exit 2; }
trap lib_stop_all EXIT
# udp_drops PORT: the kernel's drop counter of the socket bound to 127.0.0.1:PORT.
udp_drops() { awk -v p="$(printf '0100007F:%04X' "$1")" '$2 == p {print $NF; f=1} END {if (!f) print "NA"}' /proc/net/udp; }

printf 'window\tserver\tload1\tsent\tachieved_pps\tbase_cpu_pct\tflood_cpu_pct\tus_per_packet\tplayers_in\tsnaps_min\tsnaps_srv_min\tkernel_drops\n' >"$OUT/results.tsv"
for ((w = 1; w <= WINDOWS; w++)); do
	order=(twserver reference)
	((w % 2 == 0)) && order=(reference twserver)
	for kind in "${order[@]}"; do
		dir=$OUT/$kind-w$w
		port=$(free_port)
		start_server "$kind" "$port" "$dir" || die "$kind did not start (see $dir/server.log)"
		load1=$(cut -d' ' -f1 /proc/loadavg)
		"$TWLOAD" flood -addr "127.0.0.1:$port" -rate "$RATE" -duration "$DUR" -sources "$SRC" -players 4 ${KINDS:+-kinds "$KINDS"} \
			-baseline 5s -server-pid "$SPID" -seed "$w" -json "$dir/flood.json" 2>"$dir/flood.err"
		drops=$(udp_drops "$port")
		stop_pid "$SPID"
		jq -r --arg w "$w" --arg k "$kind" --arg l "$load1" --arg d "$drops" '[$w, $k, $l, .flood.sent_total, (.flood.achieved_pps|floor),
			(.server_cpu.baseline_pct*10|round/10), (.server_cpu.flood_pct*10|round/10), (.server_cpu.us_per_packet*1000|round/1000),
			"\(.players.connected)/\(.players.clients)", .players.snapshots_per_sec_per_client.min,
			.players.snapshots_per_server_sec_per_client.min, $d] | @tsv' "$dir/flood.json" | tee -a "$OUT/results.tsv"
	done
done
python3 - "$OUT/results.tsv" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
by = {}
for r in rows:
    by.setdefault(r["server"], {})[r["window"]] = r
def spread(xs, fmt="{:.3f}"):
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}-{fmt.format(max(xs))})"
print("\nmedian over the windows (min-max):")
for k, ws in by.items():
    rs = list(ws.values())
    print(f"{k:<9} us/packet {spread([float(r['us_per_packet']) for r in rs])}  flood CPU % {spread([float(r['flood_cpu_pct']) for r in rs], '{:.1f}')}"
          f"  achieved pps {spread([float(r['achieved_pps']) for r in rs], '{:.0f}')}  players' min snapshots/s {min(float(r['snaps_min']) for r in rs):.2f}"
          f"  kernel drops {','.join(r['kernel_drops'] for r in rs)}  load {','.join(r['load1'] for r in rs)}")
if "twserver" in by and "reference" in by:
    ws = sorted(set(by["twserver"]) & set(by["reference"]))
    xs = [float(by["twserver"][w]["us_per_packet"]) / float(by["reference"][w]["us_per_packet"]) for w in ws if float(by["reference"][w]["us_per_packet"]) > 0]
    if xs:
        print(f"ratio twserver/reference of CPU per packet: {spread(xs, '{:.2f}')}")
EOF
echo "(details in $OUT)"
