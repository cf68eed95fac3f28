#!/usr/bin/env bash
# realbench.sh - the cost per player judged by the real 0.7.5 client: K
# copies of the Debian teeworlds 0.7.5 client (a program we did not write)
# play on twserver and on teeworlds-server 0.7.5, and the servers' CPU is
# read from /proc, so the ratio at small sizes does not rest on twload.
#
# Each client runs on an Xvfb display of its own (320x240, software GL,
# at most 50 frames a second, as the e2e tests run it), joins the server
# and plays: a mover per client holds left or right, jumps, fires and
# moves the mouse at random instants (xdotool, about 3 actions a second).
# Client i binds 127.0.0.(1 + i/4): both servers take at most 4 clients
# from one address (lib.sh's MAX_CLIENTS_PER_IP). The clients and
# their displays start on both CPUs (a client's start takes seconds of
# CPU); once every one is in game (its log's `state change. last=2
# current=3`) they, their displays and the movers run on CPU 1 at nice 10
# (REALBENCH_CLIENT_CPUS) and the server on CPU 0 (REALBENCH_SERVER_CPUS),
# so a client's frame does not preempt a server's tick and both servers
# see the same clients. After SETTLE seconds more it measures DURATION
# seconds:
#   server CPU       the time its threads ran on a CPU (schedstat, to the
#                    nanosecond), % of one core; beside it utime+stime and
#                    stime from /proc/PID/stat (clock ticks)
#   runs/s, µs/run   how often its threads were put on a CPU (schedstat),
#                    and the CPU time per run: a server whose cost moves
#                    between windows shows whether it ran more often or
#                    longer each time
#   datagrams/s      the namespace's UDP datagrams each way (/proc/net/snmp:
#                    the clients' and the server's together; a server that
#                    fell behind or a client that stalled shows here)
#   INPUTs/s         about how many INPUTs a client sent a second: the
#                    datagrams in, less 25 snapshots a second per client,
#                    over the clients (an estimate: the few other
#                    datagrams count too). A client sends from its frame
#                    loop, so clients short of CPU send fewer than a
#                    player's (22-25 a second holding still, more aiming)
# A window counts when every client was in game from the start of the
# window to its end with no snapshot error in its log. Windows alternate
# the servers' order.
#
# With -t the two servers run at once, both on SERVER_CPUS, each with K
# clients of its own (client seat i on either server gets the same
# mover), and are measured over the same seconds: whatever else the
# machine does in a window (its host included) falls on both, where one
# after the other it falls on one. The datagram counts are then both
# servers' together.
#
# Usage: scripts/realbench.sh [-t] [-w WINDOWS] [-d SECONDS] [-s SECONDS] [-k CLIENTS] [-o OUTDIR]
#   -t  both servers at once (at most 4 clients each)
#   -w  windows (default 4); window k runs the servers in reverse order when k is even
#       (with -t: starts them, and their clients, in reverse order)
#   -d  measuring window in seconds (default 20)
#   -s  settle after the last client is in game (default 3)
#   -k  real clients (default 4, at most 8: each needs a share of CPU 1;
#       at 8 on one CPU each sends fewer inputs a second, since it sends
#       from its frame loop and its frames slow down)
#   -o  output directory for logs and results.tsv (default a temp dir)
# Env: TWSERVER (default: built from ./cmd), TW07_SERVER (default
#      /usr/games/teeworlds-server), TW07_CLIENT (default
#      /usr/games/teeworlds), REALBENCH_MAP (default the 0.7.5 dm1.map),
#      REALBENCH_SERVER_CPUS (the CPUs the server may run on, a taskset
#      list: default 0; 0-1 leaves the scheduler to place it, the clients
#      staying on CPU 1), REALBENCH_CLIENT_CPUS (the CPUs the clients play
#      on, default 1; 0-1 lets 8 clients send more inputs a second, while
#      sharing CPU 0 with the server).
# Needs: root (it re-runs itself under `unshare --net`: the real client
# broadcasts LAN discovery and looks up masters at start, so it runs only
# in a private network namespace with nothing but lo), Xvfb, xdotool,
# taskset, 2 CPUs.
# Exit: 0 when every window counted, 1 otherwise, 2 for usage errors or
# missing tools.
set -uo pipefail

WINDOWS=4 DUR=20 SETTLE=3 K=4 OUT= TOGETHER=0
ARGS=("$@")
while getopts "w:d:s:k:o:th" opt; do
	case $opt in
	w) WINDOWS=$OPTARG ;; d) DUR=$OPTARG ;; s) SETTLE=$OPTARG ;; k) K=$OPTARG ;; o) OUT=$OPTARG ;; t) TOGETHER=1 ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOG_TAG=realbench
. "$ROOT/scripts/lib.sh"

((K >= 1 && K <= 8)) || die "-k: 1 to 8 clients"
((!TOGETHER || K <= 4)) || die "-t: at most 4 clients a server (8 in all)"
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
TW07_CLIENT=${TW07_CLIENT:-/usr/games/teeworlds}
SERVER_MAP=${REALBENCH_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
SERVER_CPUS=${REALBENCH_SERVER_CPUS:-0}
CLIENT_CPUS=${REALBENCH_CLIENT_CPUS:-1}
JOIN_CPUS=0-1     # where the clients and displays start, before they move to CLIENT_CPUS
JOIN_WAIT=600     # tenths of a second a window waits for every client to be in game
for b in "$TW07_SERVER" "$TW07_CLIENT"; do [ -x "$b" ] || die "$b missing (apt-get install teeworlds teeworlds-server)"; done
for b in Xvfb xdotool taskset unshare ip; do command -v "$b" >/dev/null || die "$b missing"; done
for c in "$SERVER_CPUS" "$CLIENT_CPUS"; do taskset -c "$c" true 2>/dev/null || die "CPU list $c: taskset does not accept it on this machine"; done
[ -f "$SERVER_MAP" ] || die "map $SERVER_MAP missing (apt-get install teeworlds-data)"
(($(nproc) >= 2)) || die "needs 2 CPUs (server on one, clients on the other)"

in_own_netns "$0" "${ARGS[@]}"

OUT=${OUT:-$(mktemp -d /tmp/realbench.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
need_binaries "$OUT" twserver
TCK=$(getconf CLK_TCK)
XPIDS=()
# stop_clients: kills the clients, their displays and movers (the client
# does not always end on SIGTERM).
stop_clients() {
	local p
	for p in "${XPIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	sleep 0.5
	for p in "${XPIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${XPIDS[@]}"; do wait "$p" 2>/dev/null; done
	XPIDS=()
}
cleanup() {
	stop_clients
	lib_stop_all
}
trap cleanup EXIT

# udp_count FIELD: the namespace's UDP counter FIELD (InDatagrams, OutDatagrams).
udp_count() { awk -v f="$1" '$1 == "Udp:" && !h {for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next} $1 == "Udp:" {print $c[f]}' /proc/net/snmp; }

# start_display DIR: starts Xvfb on a free display on CPU 1; sets CDISPLAY.
start_display() {
	local dir=$1 fifo line
	fifo=$dir/displayfd
	mkfifo "$fifo"
	taskset -c "$JOIN_CPUS" nice -n 10 Xvfb -displayfd 3 -screen 0 320x240x24 -nolisten tcp -noreset 3>"$fifo" >"$dir/xvfb.log" 2>&1 &
	XPIDS+=($!)
	read -r -t 10 line <"$fifo" || die "Xvfb reported no display (see $dir/xvfb.log)"
	rm -f "$fifo"
	CDISPLAY=:$line
}

# start_client I PORT DIR: the real client I on its own display, joining
# 127.0.0.1:PORT; sets CPID and CDISPLAY.
start_client() {
	local i=$1 port=$2 dir=$3
	mkdir -p "$dir/home"
	start_display "$dir"
	(cd "$dir" && exec env -u XDG_DATA_HOME HOME="$dir/home" DISPLAY="$CDISPLAY" taskset -c "$JOIN_CPUS" nice -n 10 "$TW07_CLIENT" \
		"bindaddr 127.0.0.$((1 + i / MAX_CLIENTS_PER_IP))" "gfx_fullscreen 0" "gfx_borderless 0" "gfx_screen_width 320" "gfx_screen_height 240" \
		"gfx_vsync 0" "snd_enable 0" "snd_init 0" "debug 1" "gfx_limitfps 1" "gfx_maxfps 50" \
		"console_output_level 2" "cl_auto_demo_record 0" "player_name real$i" "connect 127.0.0.1:$port" \
		>"$dir/client.log" 2>&1 </dev/null) &
	CPID=$!
	XPIDS+=("$CPID")
}

# mover DISPLAY SEED: plays the client of DISPLAY until killed.
mover() {
	local d=$1
	RANDOM=$2
	export DISPLAY=$d
	local wid=
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		wid=$(xdotool search --name '^Teeworlds$' 2>/dev/null | head -1)
		[ -n "$wid" ] && break
		sleep 0.5
	done
	[ -n "$wid" ] && xdotool mousemove --window "$wid" 160 120 windowfocus "$wid" 2>/dev/null
	while :; do
		case $((RANDOM % 6)) in
		0) xdotool keyup d keydown a ;;
		1) xdotool keyup a keydown d ;;
		2) xdotool keyup a keyup d ;;
		3) xdotool key space ;;
		4) xdotool click 1 ;;
		5) xdotool mousemove $((RANDOM % 320)) $((RANDOM % 240)) ;;
		esac 2>/dev/null
		sleep 0.$((2 + RANDOM % 5))
	done
}

in_game() { grep -q 'state change\. last=2 current=3' "$1/client.log" 2>/dev/null; }
# left_game DIR: the client logged a state change away from online after it was in game.
left_game() { grep -A1000000 'state change\. last=2 current=3' "$1/client.log" | grep -q 'state change\. last=3'; }
snap_errors() { grep -c -E 'snapshot crc error|delta unpack failed|couldn.t find the delta snapshot' "$1/client.log" 2>/dev/null; }

# run_window W KIND...: one window on a fresh server of each KIND, all
# at once (one KIND; two with -t), K clients on each; appends a row per
# server to results.tsv.
run_window() {
	local w=$1 s i j dir port waited all t0 t1 in0 in1 out0 out1 err
	shift
	local kinds=("$@") spids=() dirs=() ports=() oks=() cdirs=() displays=() owner=() seats=()
	local n0=() n1=() r0=() r1=() c0=() c1=() s0=() s1=()
	for s in "${!kinds[@]}"; do
		dir=$OUT/w$w-${kinds[s]}
		mkdir -p "$dir"
		port=$(free_port)
		start_server "${kinds[s]}" "$port" "$dir/server" || {
			log "${kinds[s]}: no server"
			for SPID in "${spids[@]}"; do stop_pid "$SPID"; done # the other, started before it
			return 1
		}
		taskset -a -p -c "$SERVER_CPUS" "$SPID" >/dev/null
		spids+=("$SPID") dirs+=("$dir") ports+=("$port") oks+=(1)
	done
	# Client j binds 127.0.0.(1 + j/4) (start_client), so no address
	# brings more than MAX_CLIENTS_PER_IP clients to any server.
	for s in "${!kinds[@]}"; do
		for ((i = 0; i < K; i++)); do
			j=$((s * K + i))
			start_client "$j" "${ports[s]}" "${dirs[s]}/c$i"
			cdirs+=("${dirs[s]}/c$i") displays+=("$CDISPLAY") owner+=("$s") seats+=("$i")
			sleep 0.5
		done
	done
	for ((waited = 0; waited < JOIN_WAIT; waited++)); do
		all=1
		for dir in "${cdirs[@]}"; do in_game "$dir" || { all=0; break; }; done
		((all)) && break
		sleep 0.1
	done
	if ((waited >= JOIN_WAIT)); then
		log "window $w: not every client in game after $((JOIN_WAIT / 10)) s"
		for s in "${!kinds[@]}"; do oks[s]=0; done
	fi
	# The clients and their displays move to CLIENT_CPUS to play; seat i
	# of every server gets the same mover (the same actions at the same
	# instants), so the servers' games are alike.
	for p in "${XPIDS[@]}"; do taskset -a -p -c "$CLIENT_CPUS" "$p" >/dev/null 2>&1; done
	for j in "${!displays[@]}"; do
		taskset -c "$CLIENT_CPUS" nice -n 10 bash -c "$(declare -f mover); mover '${displays[j]}' $((w * 100 + seats[j]))" >/dev/null 2>&1 &
		XPIDS+=($!)
	done
	sleep "$SETTLE"
	for s in "${!kinds[@]}"; do
		n0[s]=$(sched_runs "${spids[s]}") r0[s]=$(sched_ns "${spids[s]}") c0[s]=$(cpu_ticks "${spids[s]}") s0[s]=$(sys_ticks "${spids[s]}")
	done
	in0=$(udp_count InDatagrams) out0=$(udp_count OutDatagrams) t0=$(date +%s.%N)
	sleep "$DUR"
	for s in "${!kinds[@]}"; do
		n1[s]=$(sched_runs "${spids[s]}") r1[s]=$(sched_ns "${spids[s]}") c1[s]=$(cpu_ticks "${spids[s]}") s1[s]=$(sys_ticks "${spids[s]}")
	done
	in1=$(udp_count InDatagrams) out1=$(udp_count OutDatagrams) t1=$(date +%s.%N)
	for j in "${!cdirs[@]}"; do
		dir=${cdirs[j]} s=${owner[j]}
		in_game "$dir" || { log "${kinds[s]} window $w: $(basename "$dir") never in game"; oks[s]=0; }
		left_game "$dir" && { log "${kinds[s]} window $w: $(basename "$dir") left the game"; oks[s]=0; }
		err=$(snap_errors "$dir")
		((err == 0)) || { log "${kinds[s]} window $w: $(basename "$dir") logged $err snapshot errors"; oks[s]=0; }
	done
	for s in "${!kinds[@]}"; do
		kill -0 "${spids[s]}" 2>/dev/null || { log "${kinds[s]} window $w: the server died"; oks[s]=0; }
	done
	stop_clients
	for s in "${!kinds[@]}"; do
		stop_pid "${spids[s]}"
		RATIOS_DIR="$ROOT/scripts" python3 - "${kinds[s]}" "$w" "${oks[s]}" "$t0" "$t1" "${c0[s]}" "${c1[s]}" "${s0[s]}" "${s1[s]}" \
			"$in0" "$in1" "$out0" "$out1" "$TCK" "${r0[s]}" "${r1[s]}" "${n0[s]}" "${n1[s]}" "$((K * ${#kinds[@]}))" >>"$OUT/results.tsv" <<-'PY'
			import os, sys
			sys.path.insert(0, os.environ["RATIOS_DIR"])
			from ratios import SNAPSHOTS_PER_SECOND, window_cpu
			kind, w, ok = sys.argv[1:4]
			t0, t1 = map(float, sys.argv[4:6])
			c0, c1, s0, s1, in0, in1, out0, out1, tck, r0, r1, n0, n1, clients = map(int, sys.argv[6:20])
			dt = t1 - t0
			cpu, stat_sys, per_s, us = window_cpu(r0, r1, n0, n1, s0, s1, tck, dt)
			stat = f"{100 * (c1 - c0) / tck / dt:.2f}"
			din, dout = (in1 - in0) / dt, (out1 - out0) / dt
			print("\t".join([kind, w, ok, cpu, stat, stat_sys, f"{din:.0f}", f"{dout:.0f}", per_s, us]))
			# the datagrams received in the namespace are the clients' INPUTs
			# and the snapshots the servers send them
			inputs = (din - SNAPSHOTS_PER_SECOND * clients) / clients
			print(f"{kind} window {w}: CPU {cpu} % of a core (/proc/PID/stat: {stat}, system {stat_sys}), {per_s} runs/s of {us} µs, "
			      f"{din:.0f} datagrams/s in, {dout:.0f} out, about {inputs:.1f} INPUTs/s a client, "
			      f"{'counted' if ok == '1' else 'NOT COUNTED'}", file=sys.stderr)
		PY
	done
}

printf 'server\twindow\tcounted\tcpu_pct\tstat_cpu_pct\tstat_sys_pct\tudp_in_per_s\tudp_out_per_s\truns_per_s\tus_per_run\n' >"$OUT/results.tsv"
log "$K real 0.7.5 clients$( ((TOGETHER)) && echo " on each server, both servers at once"), $WINDOWS windows of ${DUR}s, output in $OUT"
STATUS=0
for ((w = 1; w <= WINDOWS; w++)); do
	order="twserver reference"
	((w % 2 == 0)) && order="reference twserver"
	if ((TOGETHER)); then
		run_window "$w" $order || STATUS=1
	else
		for kind in $order; do run_window "$w" "$kind" || STATUS=1; done
	fi
done
python3 "$ROOT/scripts/ratios.py" "$OUT/results.tsv" "$K real 0.7.5 clients$( ((TOGETHER)) && echo " on each server, both at once")" "$WINDOWS" || STATUS=1
exit $STATUS
