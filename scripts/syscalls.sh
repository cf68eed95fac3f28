#!/usr/bin/env bash
# syscalls.sh - kernel work per datagram (issue 33, Build item 3): system
# calls and datagrams per client-second of twserver and teeworlds-server
# 0.7.5 under the same twload clients. For each server and round: a fresh
# server on 127.0.0.1 (sv_register 0, 64 slots, 16 playing), N twload
# clients over 16 loopback source addresses, and after the ramp-up and a
# settle time `strace -c -f` attached to the server for D seconds. Prints,
# per server, the system calls per client-second (total and the largest
# kinds) and the datagrams per client-second each way as twload counted
# them (so calls per datagram can be read off).
#
# Counts, not times: strace slows the traced process (each system call
# stops it), so its CPU figures mean nothing here, and a busy machine
# changes the counts only through the snapshots per second, which the
# script prints next to them.
#
# With -m perf it samples instead of tracing (`perf record -F 4999 -g` on
# the server for D seconds) and prints, per server and round, where the
# time went in µs of CPU per second: the whole (the samples, and the time
# the server's threads ran over the same seconds, schedstat), the
# kernel's part, sending (sendmmsg/sendto, and within it the delivery into
# the receivers' sockets, net_rx_action: on loopback the receiver's side
# runs in the sender's system call), receiving (recvmmsg/recvfrom) and
# waiting (epoll_pwait/pselect6/select/clock_nanosleep, with the sleep's
# wake-up). The sampler costs the server some CPU too, both servers alike.
#
# Usage: scripts/syscalls.sh [-n CLIENTS] [-d SECONDS] [-r RAMPUP] [-w ROUNDS] [-S SERVERS] [-p PACE] [-P PROTO] [-m MODE] [-o OUTDIR]
#   -n clients (default 63), -d traced seconds (default 10), -r ramp-up
#   seconds (default 5; 5 s more settle before tracing), -w rounds
#   (default 1), -S servers in order (default "twserver reference"),
#   -p twload's -pace (default real), -P twload's -proto (default 07; 06 and
#   mix only with -S twserver: the 0.7.5 reference serves 0.7 only),
#   -m strace (the default: counts) or perf (times), -o output directory
#   (default a temp dir)
# Env: TWSERVER, TWLOAD (default: built from ./cmd/...), TW07_SERVER,
#      BENCH_MAP (default dm1). Needs strace (apt-get install -y strace),
#      or perf for -m perf (apt-get install -y linux-perf), and root or
#      ptrace rights over the server.
# Runs inside its own network namespace with only lo (unshare --net, root).
# Only loopback traffic; every process started here is stopped by PID;
# the run is bounded by the rounds x (r + 5 + d + a few) seconds.
set -uo pipefail

N=63 DUR=10 RAMP=5 ROUNDS=1 SERVERS="twserver reference" PACE=real PROTO=07 MODE=strace OUT=
PERF_HZ=4999 # -m perf: samples a second (perf record -F), also the report's unit
ARGS=("$@")
while getopts "n:d:r:w:S:p:P:m:o:h" opt; do
	case $opt in
	n) N=$OPTARG ;;
	d) DUR=$OPTARG ;;
	r) RAMP=$OPTARG ;;
	w) ROUNDS=$OPTARG ;;
	S) SERVERS=$OPTARG ;;
	p) PACE=$OPTARG ;;
	P) PROTO=$OPTARG ;;
	m) MODE=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
((N >= 1 && N <= 64 && DUR >= 1 && DUR <= 120 && RAMP >= 0 && RAMP <= 60 && ROUNDS >= 1 && ROUNDS <= 10)) ||
	{ echo "clients 1..64, -d 1..120, -r 0..60, -w 1..10" >&2; exit 2; }
case $MODE in
strace) command -v strace >/dev/null || { echo "strace missing (apt-get install -y strace)" >&2; exit 2; } ;;
perf) command -v perf >/dev/null || { echo "perf missing (apt-get install -y linux-perf)" >&2; exit 2; } ;;
*) echo "-m strace or perf" >&2; exit 2 ;;
esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twsyscalls.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
BENCH_MAP=${BENCH_MAP:-/usr/share/games/teeworlds/data/maps/dm1.map}
SERVER_MAP=$BENCH_MAP
SETTLE=5
LOG_TAG=syscalls
. "$ROOT/scripts/lib.sh"
trap lib_stop_all EXIT

if [ "${SYSCALLS_INNER:-0}" != 1 ]; then
	# Outside: build, then run again inside a new network namespace with
	# only lo (teeworlds-server 0.7.5 looks up host names when it starts,
	# even with sv_register 0: there the look-up cannot leave the machine).
	if [ -z "${TWSERVER:-}" ] || [ -z "${TWLOAD:-}" ]; then
		(cd "$ROOT" && go build -o "$OUT/twserver" ./cmd/twserver && go build -o "$OUT/twload" ./cmd/twload) || die "build failed"
		TWSERVER=${TWSERVER:-$OUT/twserver} TWLOAD=${TWLOAD:-$OUT/twload}
	fi
	trap - EXIT
	exec unshare --net -- env SYSCALLS_INNER=1 TWSERVER="$TWSERVER" TWLOAD="$TWLOAD" bash "$0" "${ARGS[@]}" -o "$OUT"
	die "cannot run unshare --net (needs root)"
fi
loopback_only || die "refusing to run: this network namespace has interfaces other than lo (run scripts/syscalls.sh, which makes its own)"

for ((round = 1; round <= ROUNDS; round++)); do
	for kind in $SERVERS; do
		dir="$OUT/$kind.$round"
		mkdir -p "$dir"
		port=$(free_port)
		start_server "$kind" "$port" "$dir" || die "$kind did not start"
		"$TWLOAD" -addr "127.0.0.1:$port" -n "$N" -rampup "${RAMP}s" -duration "$((SETTLE + DUR + 2))s" \
			-pattern random -pace "$PACE" -proto "$PROTO" -sources 16 -source-base 127.0.0.2 -status off -json "$dir/load.json" \
			>/dev/null 2>"$dir/twload.log" &
		lpid=$!
		PIDS+=("$lpid")
		sleep "$((RAMP + SETTLE))"
		if [ "$MODE" = perf ]; then
			log "$kind round $round: sampling pid $SPID for ${DUR}s"
			t0=$(sched_ns "$SPID")
			perf record -q -F "$PERF_HZ" -g -p "$SPID" -o "$dir/perf.data" -- sleep "$DUR" >/dev/null 2>&1
			echo "$(( $(sched_ns "$SPID") - t0 ))" >"$dir/cpu_ns.txt"
			perf report -i "$dir/perf.data" --children --sort sym --stdio -g none 2>/dev/null >"$dir/children.txt"
			perf report -i "$dir/perf.data" -n --no-children --sort dso --stdio -g none 2>/dev/null >"$dir/dso.txt"
		else
			log "$kind round $round: tracing pid $SPID for ${DUR}s"
			timeout -s INT "$DUR" strace -c -f -q -p "$SPID" -o "$dir/strace.txt" 2>/dev/null
		fi
		wait "$lpid"
		stop_pid "$SPID"
	done
done

python3 - "$MODE" "$PERF_HZ" "$OUT" "$N" "$DUR" "$ROUNDS" $SERVERS <<'PY'
import json, os, re, sys
mode, HZ, out, n, dur, rounds, servers = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7:]
PARTS = [  # -m perf: kernel entry points whose samples (with their callees) make each part
    ("send", ["__x64_sys_sendmmsg", "__x64_sys_sendto"]),
    ("delivery", ["net_rx_action"]),
    ("receive", ["__x64_sys_recvmmsg", "__x64_sys_recvfrom"]),
    ("wait", ["__x64_sys_epoll_pwait", "__x64_sys_pselect6", "__x64_sys_select", "__x64_sys_clock_nanosleep", "__x64_sys_nanosleep"]),
]


def read_lines(d, name):
    return open(os.path.join(d, name)).read().splitlines()


def strace_row(d):
    """System calls per client-second, datagrams each way, largest kinds."""
    lines = read_lines(d, "strace.txt")
    load = json.load(open(os.path.join(d, "load.json")))
    calls = {}
    for l in lines:
        f = l.split()
        if len(f) >= 5 and re.fullmatch(r"[\d.]+", f[0]) and f[-1] not in ("total",):
            calls[f[-1]] = int(f[3])
    total = sum(calls.values())
    cs = total / (n * dur)
    up = load["tx_packets_per_sec_per_client"]["mean"]
    down = load["rx_packets_per_sec_per_client"]["mean"]
    snaps = load["snapshots_per_sec_per_client"]["min"]
    top = sorted(calls.items(), key=lambda kv: -kv[1])[:6]
    kinds = ", ".join(f"{k} {v / (n * dur):.1f}" for k, v in top)
    return f"{cs:7.1f} {up:11.1f} {down:11.1f} {cs / (up + down):11.2f} {snaps:11.2f}  {kinds}"


def perf_row(d):
    """µs of CPU a second: samples, schedstat, kernel, the parts, user."""
    children, dso = read_lines(d, "children.txt"), read_lines(d, "dso.txt")
    cpu_ns = int(open(os.path.join(d, "cpu_ns.txt")).read())
    total = kernel = 0
    for l in dso:  # "  64.68%   722  twserver"
        f = l.split()
        if len(f) >= 3 and f[0].endswith("%") and not l.startswith("#"):
            total += int(f[1])
            if "kernel" in f[2]:
                kernel += int(f[1])
    share = {}
    for l in children:  # "  20.60%   0.00%  [k] __x64_sys_sendmmsg"
        f = l.split()
        if len(f) >= 4 and f[0].endswith("%") and not l.startswith("#"):
            share[f[-1]] = float(f[0][:-1]) / 100
    us = lambda samples: samples / HZ / dur * 1e6
    parts = [us(total * sum(share.get(s, 0) for s in syms)) for _, syms in PARTS]
    return f"{total:>8} {us(total):8.0f} {cpu_ns / 1e3 / dur:9.0f} {us(kernel):8.0f} " + " ".join(f"{v:8.0f}" for v in parts) + f" {us(total - kernel):8.0f}"


if mode == "perf":
    print(f"where the CPU went, in µs of CPU per second ({n} clients, {dur:g} s sampled at {HZ} Hz, {rounds} round(s));")
    print("sampled: the samples' time; schedstat: the time the server's threads ran over the same seconds (the sampler's cost included)")
    print(f"{'server':<10} {'round':>5} {'samples':>8} {'sampled':>8} {'schedstat':>9} {'kernel':>8} {'send':>8} {'delivery':>8} {'receive':>8} {'wait':>8} {'user':>8}")
    row = perf_row
else:
    print(f"system calls per client-second while traced ({n} clients, {dur:g} s traced, {rounds} round(s)); datagrams per client-second from twload")
    print(f"{'server':<10} {'round':>5} {'calls':>7} {'c->s dgrams':>11} {'s->c dgrams':>11} {'calls/dgram':>11} {'snaps/s min':>11}  largest kinds (calls per client-second)")
    row = strace_row
for kind in servers:
    for r in range(1, rounds + 1):
        try:
            print(f"{kind:<10} {r:>5} " + row(os.path.join(out, f"{kind}.{r}")))
        except (OSError, ValueError, KeyError) as e:
            print(f"{kind:<10} {r:>5} missing or unreadable: {e}")
PY
