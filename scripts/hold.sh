#!/usr/bin/env bash
# hold.sh [-k] [STAGE ...]
#
# Slot-holding, twserver against the 0.7.5 reference server (issue 11,
# proof 5, the comparison in docs/reliability.md): for each STAGE (default: connect map
# ready) and each server, a fresh 64-slot server on 127.0.0.1 (dm1, 4
# clients per IP, sv_register 0) and the scenario scripts/scenarios/hold-STAGE.toml
# (-k; hold-STAGE-silent.toml without): 200 connections from as many loopback
# addresses stalling at STAGE (-k: kept alive with acks, keep-alives and a
# PING every 2 s; default silent) for 15 s, and 3.5 s in one normal client
# from 127.0.0.1 (twload -scenario). Prints, per run, whether the
# new client got in and how fast (or its refusal), and what the server did
# with the stalled connections (held, dropped after how long, reasons).
# Loopback only; every process started here is stopped by PID.
set -uo pipefail
KEEP=
while getopts "kh" opt; do
	case $opt in
	k) KEEP=-keepalive ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
SFX=-silent
[ -n "$KEEP" ] && SFX=
STAGES=("$@")
[ ${#STAGES[@]} -gt 0 ] || STAGES=(connect map ready)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/scripts/lib.sh" # start_server, stop_pid, free_port, need_binaries
OUT=${OUT:-$(mktemp -d /tmp/twhold.XXXXXX)}
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
SERVER_MAP=${HOLD_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map} # start_server's map
need_binaries "$OUT" twserver twload
trap lib_stop_all EXIT

printf '%-9s %-8s %-9s %-48s %6s %6s %8s %s\n' server stage mode "new client" held dropped "drop p50/max s" reasons
for st in "${STAGES[@]}"; do
	for kind in twserver reference; do
		[ "$kind" = reference ] && [ ! -x "$TW07_SERVER" ] && continue
		dir=$OUT/$kind-$st
		port=$(free_port)
		start_server "$kind" "$port" "$dir" || die "$kind did not start (see $dir/server.log)"
		"$TWLOAD" -addr "127.0.0.1:$port" -scenario "$ROOT/scripts/scenarios/hold-$st$SFX.toml" -status off -json "$dir/scenario.json" 2>"$dir/scenario.err"
		stop_pid "$SPID"
		jq '.phases[0].hold' "$dir/scenario.json" >"$dir/hold.json"
		new=$(jq -r '.load | if .connected == 1 then "in game after \(.connect_ms.max|floor) ms" else "refused: " + (.failures|keys|join(";")) end' "$dir/scenario.json")
		jq -r --arg k "$kind" --arg st "$st" --arg m "${KEEP:-silent}" --arg new "$new" \
			'[$k, $st, ($m|ltrimstr("-")), $new, .held, .dropped, "\(.dropped_after_s.p50)/\(.dropped_after_s.max)", (.reasons|to_entries|map("\(.value)x \(.key)")|join("; "))] |
			 "\(.[0]|.+"         "|.[:9]) \(.[1]|.+"        "|.[:8]) \(.[2]|.+"         "|.[:9]) \(.[3]|.+"                                                "|.[:48]) \(.[4]|tostring|.+"      "|.[:6]) \(.[5]|tostring|.+"      "|.[:6]) \(.[6]|.+"         "|.[:12]) \(.[7])"' "$dir/hold.json"
	done
done
echo "(details in $OUT)"
