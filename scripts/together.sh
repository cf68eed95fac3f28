#!/usr/bin/env bash
# together.sh - twserver and teeworlds-server 0.7.5 measured at once under
# twload: in every window a fresh server of each kind runs on
# SERVER_CPUS (default CPU 0), one twload on CLIENT_CPUS (default CPU 1)
# loads each with N clients (`twload -targets 2`: the servers listen on
# consecutive ports), and both servers' CPU is read over the same seconds.
# Whatever else the machine does in a window (its host included) then falls
# on both servers, where bench.sh's windows, one server after the other,
# expose each to different seconds. scripts/realbench.sh -t does the same
# with the real 0.7.5 client.
#
# Per window and server: CPU % of a core (schedstat, every thread, to the
# nanosecond), runs a second and µs a run, system time (/proc/PID/stat,
# clock ticks). A window counts when twload had every client in game with
# no snapshot error, each server's clients got at least 24 snapshots a
# second and both servers were still running at its end. Windows alternate
# which server has the lower port (and so gets its clients first).
#
# Usage: scripts/together.sh [-w WINDOWS] [-d SECONDS] [-r SECONDS] [-s SECONDS] [-p PATTERN] [-o OUTDIR] N
#   -w  windows (default 6)
#   -d  measuring window in seconds (default 20)
#   -r  ramp-up: the clients start spread over this many seconds (default 3)
#   -s  settle after the ramp-up (default 3)
#   -p  twload's input pattern: idle, walk, jumpfire, random (default random)
#   -o  output directory for logs and results.tsv (default a temp dir)
#   N   clients on each server (1 to 63; default 4)
# Env: TWSERVER, TWLOAD (default: built from ./cmd), TW07_SERVER (default
#      /usr/games/teeworlds-server), TOGETHER_MAP (default the 0.7.5
#      dm1.map), TOGETHER_SERVER_CPUS (default 0), TOGETHER_CLIENT_CPUS
#      (default 1), TOGETHER_PACE (twload's -pace, default real).
# Needs: root or a private network namespace with nothing but lo (it
# re-runs itself under `unshare --net`), taskset, 2 CPUs.
# Exit: 0 when every window counted, 1 otherwise, 2 for usage errors.
set -uo pipefail

WINDOWS=6 DUR=20 RAMP=3 SETTLE=3 PAT=random OUT=
ARGS=("$@")
while getopts "w:d:r:s:p:o:h" opt; do
	case $opt in
	w) WINDOWS=$OPTARG ;; d) DUR=$OPTARG ;; r) RAMP=$OPTARG ;; s) SETTLE=$OPTARG ;; p) PAT=$OPTARG ;; o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
N=${1:-4}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG_TAG=together
. "$ROOT/scripts/lib.sh"

((N >= 1 && N <= 63)) || die "N: 1 to 63 clients a server (twload takes 64 a target; both servers take 64)"
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
SERVER_MAP=${TOGETHER_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
SERVER_CPUS=${TOGETHER_SERVER_CPUS:-0}
CLIENT_CPUS=${TOGETHER_CLIENT_CPUS:-1}
[ -x "$TW07_SERVER" ] || die "$TW07_SERVER missing (apt-get install teeworlds-server)"
[ -f "$SERVER_MAP" ] || die "map $SERVER_MAP missing (apt-get install teeworlds-data)"
for c in "$SERVER_CPUS" "$CLIENT_CPUS"; do taskset -c "$c" true 2>/dev/null || die "CPU list $c: taskset does not accept it on this machine"; done
(($(nproc) >= 2)) || die "needs 2 CPUs (servers on one, twload on the other)"

in_own_netns "$0" "${ARGS[@]}"

OUT=${OUT:-$(mktemp -d /tmp/together.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
need_binaries "$OUT" twserver twload
TCK=$(getconf CLK_TCK)
trap lib_stop_all EXIT

# port_pair: a port P such that P and P+1 are both free for UDP on 127.0.0.1.
port_pair() {
	python3 - <<-'PY'
		import socket
		for _ in range(100):
		    a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		    a.bind(("127.0.0.1", 0))
		    p = a.getsockname()[1]
		    if p >= 65535:
		        continue
		    b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		    try:
		        b.bind(("127.0.0.1", p + 1))
		    except OSError:
		        continue
		    print(p)
		    break
	PY
}

# run_window W KIND KIND: one window, the first KIND on the lower port.
run_window() {
	local w=$1 s dir port lp t0 t1
	shift
	local kinds=("$@") spids=() alive=(1 1) n0=() n1=() r0=() r1=() s0=() s1=()
	dir=$OUT/w$w
	mkdir -p "$dir"
	port=$(port_pair)
	[ -n "$port" ] || die "no two consecutive free ports"
	for s in 0 1; do
		start_server "${kinds[s]}" $((port + s)) "$dir/${kinds[s]}" || {
			log "${kinds[s]}: no server"
			for SPID in "${spids[@]}"; do stop_pid "$SPID"; done # the other, started before it
			return 1
		}
		taskset -a -p -c "$SERVER_CPUS" "$SPID" >/dev/null
		spids+=("$SPID")
	done
	taskset -c "$CLIENT_CPUS" "$TWLOAD" -addr "127.0.0.1:$port" -targets 2 -n "$N" -pattern "$PAT" -pace "${TOGETHER_PACE:-real}" \
		-rampup "${RAMP}s" -duration $((SETTLE + DUR + 2))s -status off -per-client -json "$dir/twload.json" >"$dir/twload.log" 2>&1 &
	lp=$!
	sleep $((RAMP + SETTLE))
	for s in 0 1; do n0[s]=$(sched_runs "${spids[s]}") r0[s]=$(sched_ns "${spids[s]}") s0[s]=$(sys_ticks "${spids[s]}"); done
	t0=$(date +%s.%N)
	sleep "$DUR"
	for s in 0 1; do n1[s]=$(sched_runs "${spids[s]}") r1[s]=$(sched_ns "${spids[s]}") s1[s]=$(sys_ticks "${spids[s]}"); done
	t1=$(date +%s.%N)
	wait "$lp"
	for s in 0 1; do
		kill -0 "${spids[s]}" 2>/dev/null || { log "${kinds[s]} window $w: the server died"; alive[s]=0; }
		stop_pid "${spids[s]}"
	done
	RATIOS_DIR="$ROOT/scripts" python3 - "$dir/twload.json" "$w" "$port" "$N" "$t0" "$t1" "$TCK" "${kinds[@]}" "${alive[@]}" \
		"${r0[0]}" "${r1[0]}" "${n0[0]}" "${n1[0]}" "${s0[0]}" "${s1[0]}" \
		"${r0[1]}" "${r1[1]}" "${n0[1]}" "${n1[1]}" "${s0[1]}" "${s1[1]}" >>"$OUT/results.tsv" <<-'PY'
		import json, os, sys
		sys.path.insert(0, os.environ["RATIOS_DIR"])
		from ratios import window_cpu
		path, w, port, n, t0, t1, tck, k0, k1, a0, a1 = sys.argv[1:12]
		port, n, tck = int(port), int(n), int(tck)
		dt = float(t1) - float(t0)
		try:
		    rep = json.load(open(path))
		except (OSError, ValueError) as e:
		    rep = {"error": str(e)}
		# twload's summary of each target (in -targets order): a server counts when all n of
		# its clients got in, none failed or saw a bad snapshot, and each had 24 or more
		# snapshots a second in game
		tgts = rep.get("targets") or []
		for s, kind in enumerate((k0, k1)):
		    r0, r1, n0, n1, s0, s1 = map(int, sys.argv[12 + 6 * s:18 + 6 * s])
		    mine = tgts[s] if s < len(tgts) else {}
		    errors = sum(mine.get(k, 0) for k in ("crc_errors", "delta_errors", "no_base", "bad_items", "bad_messages"))
		    snaps = (mine.get("snapshots_per_sec_per_client") or {}).get("min", 0)
		    ok = ((a0, a1)[s] == "1" and mine.get("connected") == n and mine.get("failed") == 0
		          and errors == 0 and snaps >= 24)
		    cpu, stat_sys, per_s, us = window_cpu(r0, r1, n0, n1, s0, s1, tck, dt)
		    print("\t".join([kind, w, "1" if ok else "0", cpu, stat_sys, per_s, us, f"{snaps:.1f}"]))
		    print(f"{kind} window {w}: CPU {cpu} % of a core (system {stat_sys}), {per_s} runs/s of {us} µs, "
		          f"snapshots/s per client (min) {snaps:.1f}, {'counted' if ok else 'NOT COUNTED'}", file=sys.stderr)
	PY
}

printf 'server\twindow\tcounted\tcpu_pct\tstat_sys_pct\truns_per_s\tus_per_run\tmin_snaps_per_s\n' >"$OUT/results.tsv"
log "$N twload clients ($PAT) on each server, both servers at once, $WINDOWS windows of ${DUR}s, output in $OUT"
STATUS=0
for ((w = 1; w <= WINDOWS; w++)); do
	order="twserver reference"
	((w % 2 == 0)) && order="reference twserver"
	run_window "$w" $order || STATUS=1
done
GOAL=0.4 # the goals (docs/performance.md): 0.4 of the reference's CPU at 4 and 16 clients, 0.25 at 63
((N >= 63)) && GOAL=0.25
python3 "$ROOT/scripts/ratios.py" "$OUT/results.tsv" "$N twload clients ($PAT) on each server, both at once" "$WINDOWS" "$GOAL" || STATUS=1
exit $STATUS
