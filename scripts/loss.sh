#!/usr/bin/env bash
# loss.sh - the loss and jitter profiles (docs/reliability.md "Loss and jitter") against
# twserver and the 0.7.5 reference server.
#
# For every server and profile it starts a fresh server on 127.0.0.1 serving
# the 2 MB test map of internal/bigmap (64 slots, 16 playing, 4 clients per
# IP, no inactivity kick) and runs twload with 32 clients, each from its own
# loopback source address, every client downloading the map (-fresh-maps), with the
# profile's impairment inside twload's own sockets:
#   P0  clean
#   P1  5 % loss, 40±20 ms each way
#   P2  10 % loss, 10 % reordered, 1 % duplicated, 100±50 ms each way
#   P3  20 % loss each way
#   P4  a 2 s blackout (nothing in or out) starting 30 s into the run
# and prints a table: clients in game, map downloads, map download and
# enter times (p50 / max), snapshot coverage, snapshots per second of server
# time per client, too-weak drops, timeouts, other failures, blackout recovery.
#
# Usage: scripts/loss.sh [-d DURATION] [-o OUTDIR] [PROFILE ...]
#   -d  run length after the 2 s ramp-up (default 120s; P4 needs > 32s)
#   -o  output directory for JSON summaries and server logs (default a temp dir)
# Env: TWSERVER, TWLOAD (binaries; default built from ./cmd), TW07_SERVER
#      (default /usr/games/teeworlds-server), LOSS_SERVERS ("twserver reference"),
#      LOSS_EXTRA (twload flags added to every profile, e.g. "-delay 20ms" for
#      a base round trip: the profiles themselves are unchanged), LOSS_CLIENTS
#      (default 32).
# Exit: 0 when every run finished (whatever its figures), 2 for usage errors.
# Only loopback traffic; every process started here is stopped by PID.
set -uo pipefail

DUR=120s OUT=
while getopts "d:o:h" opt; do
	case $opt in
	d) DUR=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
PROFILES=("$@")
[ ${#PROFILES[@]} -gt 0 ] || PROFILES=(P0 P1 P2 P3 P4)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twloss.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
SERVERS=(${LOSS_SERVERS:-twserver reference})
LOG_TAG=loss SERVER_NAME=loss SERVER_LOG_LEVEL=info
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT
trap 'exit 130' INT TERM

export PATH=$PATH:/usr/local/go/bin
if [ -z "${TWLOAD:-}" ]; then
	TWLOAD=$OUT/twload
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWLOAD" ./cmd/twload) || die "cannot build twload"
fi
if [[ " ${SERVERS[*]} " == *" twserver "* ]] && [ -z "${TWSERVER:-}" ]; then
	TWSERVER=$OUT/twserver
	(cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$TWSERVER" ./cmd/twserver) || die "cannot build twserver"
fi
[[ " ${SERVERS[*]} " == *" reference "* ]] && { [ -x "$TW07_SERVER" ] || die "reference server $TW07_SERVER missing (apt-get install teeworlds-server)"; }
MAP=$OUT/twsrv_big2m.map
(cd "$ROOT" && go run ./internal/bigmap/genbigmap -o "$MAP") || die "cannot generate the test map"
SERVER_MAP=$MAP

profile_flags() {
	case $1 in
	P0) echo "" ;;
	P1) echo "-loss 5% -delay 40ms -jitter 20ms" ;;
	P2) echo "-loss 10% -reorder 10% -dup 1% -delay 100ms -jitter 50ms" ;;
	P3) echo "-loss 20%" ;;
	P4) echo "-blackout 2s@30s" ;;
	*) die "unknown profile $1 (P0..P4)" ;;
	esac
}

log "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; output in $OUT"
for kind in "${SERVERS[@]}"; do
	for p in "${PROFILES[@]}"; do
		flags=$(profile_flags "$p")
		dir=$OUT/$kind-$p
		port=$(free_port)
		start_server "$kind" "$port" "$dir" || continue
		sleep 0.5
		log "$kind $p: ${LOSS_CLIENTS:-32} clients for 2s + $DUR ${flags:-(clean)} ${LOSS_EXTRA:-}; load $(cut -d' ' -f1 /proc/loadavg)"
		# shellcheck disable=SC2086
		"$TWLOAD" -addr "127.0.0.1:$port" -n "${LOSS_CLIENTS:-32}" -sources "${LOSS_CLIENTS:-32}" -source-base 127.0.0.2 -rampup 2s -duration "$DUR" \
			-enter-timeout "$DUR" -fresh-maps -seed 11 -status off $flags ${LOSS_EXTRA:-} -json "$dir/twload.json" 2>"$dir/twload.err"
		echo "$flags ${LOSS_EXTRA:-}" >"$dir/flags"
		echo "$(cut -d' ' -f1 /proc/loadavg)" >"$dir/load"
		stop_pid "$SPID"
	done
done

python3 - "$OUT" "${SERVERS[@]}" -- "${PROFILES[@]}" <<'EOF'
import json, os, sys
out = sys.argv[1]
i = sys.argv.index("--")
servers, profiles = sys.argv[2:i], sys.argv[i + 1:]
print("| profile | server | in game | map downloads | map download p50 / max (s) | enter p50 / max (s) | snapshot coverage mean / min | snapshots/s per client | too weak | timeouts | other failures | blackout recovery |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for p in profiles:
    for k in servers:
        d = os.path.join(out, f"{k}-{p}")
        try:
            s = json.load(open(os.path.join(d, "twload.json")))
        except (OSError, ValueError):
            print(f"| {p} | {k} | (no result) |"); continue
        other = s["failed"] - s["too_weak_drops"] - s["timeouts"]
        rec = "-"
        if s.get("blackout_in_game"):
            rec = f"{s['blackout_recovered']}/{s['blackout_in_game']}, max {s['blackout_recovery_ms']['max']:.0f} ms"
        md, cm = s["map_download_ms"], s["connect_ms"]
        print(f"| {p} | {k} | {s['connected']}/{s['clients']} | {s['map_downloads']} | {md['p50']/1000:.2f} / {md['max']/1000:.2f} | "
              f"{cm['p50']/1000:.2f} / {cm['max']/1000:.2f} | {s['snapshot_coverage']['mean']:.2f} / {s['snapshot_coverage']['min']:.2f} | "
              f"{s['snapshots_per_server_sec_per_client']['mean']:.1f} | {s['too_weak_drops']} | {s['timeouts']} | {other} | {rec} |")
EOF
