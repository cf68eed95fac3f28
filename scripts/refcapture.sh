#!/usr/bin/env bash
# refcapture.sh GAMETYPE MAP OUTDIR [CLIENTS] [SECONDS] [SEED] [EXTRA...]
#
# Records a session of synthetic clients (twload, random inputs) against the
# real teeworlds-server 0.7.5 for the world's reference replays
# (world/refsession_test.go): the server runs on 127.0.0.1:8303 with the given
# sv_gametype and map (a name from the teeworlds-data maps, or the path of a
# .map file), never registers, and
# records a server demo from its start; tcpdump captures the server leg.
# Everything runs inside a private network namespace with nothing but
# loopback (unshare --net), so no packet can leave the machine and port 8303
# cannot collide with anything outside. Needs root, teeworlds-server,
# teeworlds-data, tcpdump and iproute2.
#
# Writes OUTDIR/capture.pcap, OUTDIR/server.demo, OUTDIR/server.log and
# OUTDIR/twload.json. EXTRA are further reference console commands
# ("sv_scorelimit 3"). Example:
#
#   scripts/refcapture.sh lms lms1 /tmp/lms 6 30 7 "sv_scorelimit 5"
set -euo pipefail
GT=${1:-}; MAP=${2:-}; OUT=${3:-}
[ -n "$GT" ] && [ -n "$MAP" ] && [ -n "$OUT" ] || { sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2; }
CLIENTS=${4:-6}; SECS=${5:-30}; SEED=${6:-1}
shift $(( $# < 6 ? $# : 6 ))
if [ "${RC_ISOLATED:-0}" != 1 ]; then
	mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
	[ -f "$MAP" ] && MAP=$(cd "$(dirname "$MAP")" && pwd)/$(basename "$MAP")
	cd "$(dirname "$0")/.."
	CGO_ENABLED=0 go build -trimpath -o "$OUT/twload" ./cmd/twload
	exec unshare --net -- env RC_ISOLATED=1 bash -c 'ip link set lo up && exec "$@"' refcapture \
		"$(pwd)/scripts/refcapture.sh" "$GT" "$MAP" "$OUT" "$CLIENTS" "$SECS" "$SEED" "$@"
fi
# inside the namespace: only lo may exist
if ip -o link show | grep -v ': lo:' | grep -q .; then echo "refcapture: not isolated" >&2; exit 1; fi
. "$(dirname "$0")/lib.sh" # confine
SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
home=$OUT/home; cwd=$OUT/cwd
rm -rf "$home" "$cwd"; mkdir -p "$home" "$cwd"
if [ -f "$MAP" ]; then # a map file of our own, served from the server's maps/
	mkdir -p "$cwd/maps"; cp "$MAP" "$cwd/maps/"; MAP=$(basename "$MAP" .map)
fi
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
tcpdump -i lo -U -s 0 -w "$OUT/capture.pcap" udp port 8303 2>"$OUT/tcpdump.log" &
pids+=($!)
sleep 1
args=("bindaddr 127.0.0.1" "sv_port 8303" "sv_register 0" "sv_map $MAP" "sv_gametype $GT"
	"sv_name refcapture" "console_output_level 2" "sv_max_clients 16" "sv_max_clients_per_ip 16"
	"sv_player_slots 16" "sv_spamprotection 0" "sv_inactivekick_time 0"
	"ec_bindaddr 127.0.0.1" "ec_port 8310" "ec_password refcapture" "$@" "record refcapture")
(cd "$cwd" && confine env -u XDG_DATA_HOME HOME="$home" timeout --kill-after=5 $((SECS + 60)) "$SERVER" "${args[@]}" >"$OUT/server.log" 2>&1) &
srv=$!
pids+=($srv)
for _ in $(seq 1 50); do grep -q 'version 0\.7' "$OUT/server.log" 2>/dev/null && break; sleep 0.2; done
"$OUT/twload" -addr 127.0.0.1:8303 -n "$CLIENTS" -rampup 2s -duration "${SECS}s" -pattern random \
	-seed "$SEED" -status off -json "$OUT/twload.json" || echo "refcapture: twload exit $?" >&2
sleep 0.5
# stop the demo cleanly and shut the server down over its econ
exec 3<>/dev/tcp/127.0.0.1/8310
sleep 0.3; printf 'refcapture\n' >&3; sleep 0.3; printf 'stop_record\n' >&3; sleep 0.5; printf 'shutdown\n' >&3
sleep 1; exec 3>&-
wait "$srv" 2>/dev/null || true
cp "$home/.local/share/teeworlds/demos/refcapture.demo" "$OUT/server.demo" 2>/dev/null || \
	find "$home" -name '*.demo' -exec cp {} "$OUT/server.demo" \;
sleep 0.5
echo "refcapture: wrote $OUT/capture.pcap ($(stat -c %s "$OUT/capture.pcap") bytes), server.demo, server.log, twload.json"
