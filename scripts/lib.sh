# lib.sh - shell functions the load scripts share (sourced, not run):
# starting a server on 127.0.0.1 and stopping it by PID, and reading a
# process's CPU time and peak memory from /proc, and confining a reference
# server's name look-ups (confine). Used by scripts/bench1024.sh, flood.sh,
# hold.sh, idle.sh, indep.sh, loss.sh, realbench.sh, rssfloor.sh, soak.sh,
# together.sh and webload.sh.
#
# The caller sets LOG_TAG (the prefix of its log lines) and, for
# start_server, the binaries and map: TWSERVER, TW07_SERVER, DDNET_SERVER,
# SERVER_MAP (a 0.7 map file), and optionally PLAYER_SLOTS (default 16),
# SERVER_NAME (default bench), SERVER_LOG_LEVEL (twserver's, default warn)
# and DDNET_ARGS (an array of extra DDNet-Server settings). Every process
# started through start_server is appended to PIDS; lib_stop_all stops them.

PIDS=()

# MAX_CLIENTS_PER_IP is how many clients every server start_server starts
# takes from one address (a script with more clients spreads them over
# addresses: realbench.sh binds client i to 127.0.0.(1 + i/MAX_CLIENTS_PER_IP)).
MAX_CLIENTS_PER_IP=4
# SOURCES_64 is how many loopback source addresses a game's 64 clients need
# under that bound (twload -sources).
SOURCES_64=$(((64 + MAX_CLIENTS_PER_IP - 1) / MAX_CLIENTS_PER_IP))

# NODNS_SH is the inside half of confine (shared with the Go tests, which
# embed it: internal/nodns).
NODNS_SH=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/internal/nodns/confine.sh

# confine CMD [ARG...]: execs CMD (a reference server: teeworlds-server,
# DDNet-Server) in place of the calling (sub)shell, same process id, with
# its host-name look-ups confined to the machine. Both servers look names up
# at start even with sv_register 0 (the 0.7.5 one asks the host's DNS
# resolver for its masters), and the project allows loopback traffic only:
# in a private mount namespace of its own (unshare --mount; with a user
# namespace when not root) NODNS_SH hides /etc/nsswitch.conf, /etc/hosts and
# /etc/resolv.conf behind files that answer from localhost alone, then
# execs CMD. The network namespace stays the caller's, so clients reach the
# server on 127.0.0.1. Every script starts a reference server through it.
confine() {
	local flags=(--mount --propagation private)
	[ "$(id -u)" = 0 ] || flags=(--user --map-root-user "${flags[@]}")
	exec unshare "${flags[@]}" -- sh "$NODNS_SH" "$@"
}

log() { printf '%s %s: %s\n' "$(date +%H:%M:%S)" "${LOG_TAG:-script}" "$*" >&2; }
die() { log "FATAL: $*"; exit 2; }

# stop_pid PID: SIGTERM, then SIGKILL after 5 s; reaps it.
stop_pid() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# lib_stop_all stops every process in PIDS (for an EXIT trap).
lib_stop_all() {
	local p
	for p in "${PIDS[@]}"; do stop_pid "$p"; done
}

free_port() { python3 -c 'import socket;s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(("127.0.0.1",0));print(s.getsockname()[1])'; }
udp_bound() { ss -Hulpn "sport = :$1" 2>/dev/null | grep -q .; }
# stat_ticks EXPR PID...: the awk expression EXPR of the fields of each
# process's /proc/PID/stat, summed over the processes (0 for one gone).
stat_ticks() {
	local expr=$1 p
	shift
	for p in "$@"; do cat "/proc/$p/stat" 2>/dev/null; done | awk "{t += $expr} END {print t + 0}"
}
# cpu_ticks PID...: their user+system CPU time (utime+stime), in clock ticks
# (getconf CLK_TCK).
cpu_ticks() { stat_ticks '$14 + $15' "$@"; }
# sched_ns PID...: the nanoseconds every thread of the processes has run on
# a CPU (/proc/PID/task/*/schedstat; /proc/PID/schedstat is the main
# thread's alone): exact where cpu_ticks counts 10 ms clock ticks, a few
# dozen in a window at 1 % of a core.
sched_ns() { sched_sum 1 "$@"; }
# sched_runs PID...: how many times every thread of the processes was put
# on a CPU (the third field of the same file): a process's wake-ups, and
# its preemptions while it ran.
sched_runs() { sched_sum 3 "$@"; }
# sched_sum FIELD PID...: FIELD of /proc/PID/task/*/schedstat summed over
# every thread of the processes.
sched_sum() {
	local f=$1 p
	shift
	for p in "$@"; do cat /proc/"$p"/task/*/schedstat 2>/dev/null; done | awk -v f="$f" '{t += $f} END {printf "%d\n", t}'
}
# sys_ticks PID...: their system time (stime: the kernel's work in their
# system calls, such as sending and receiving the datagrams), in clock ticks.
sys_ticks() { stat_ticks '$15' "$@"; }
# mem_kb FIELD PID...: the processes' /proc/PID/status FIELD (VmRSS, VmHWM,
# RssFile, RssAnon) summed, in KiB.
mem_kb() {
	local f=$1 p
	shift
	for p in "$@"; do cat "/proc/$p/status" 2>/dev/null; done | awk -v f="$f:" '$1 == f {t += $2} END {print t + 0}'
}

# status_mb PID FIELD: the process's /proc/PID/status FIELD in MB.
status_mb() { awk -v k="$(mem_kb "$2" "$1")" 'BEGIN {printf "%.2f", k / 1024}'; }

# need_binaries DIR NAME...: for each NAME (twserver, twload, twhist) whose
# upper-case variable (TWSERVER, ...) is empty, builds ./cmd/NAME into DIR
# as the image does (CGO_ENABLED=0 -trimpath) and sets the variable.
need_binaries() {
	local dir=$1 b v
	shift
	for b in "$@"; do
		v=${b^^}
		if [ -z "${!v:-}" ]; then
			(cd "$ROOT" && CGO_ENABLED=0 PATH=$PATH:/usr/local/go/bin go build -trimpath -o "$dir/$b" "./cmd/$b") || die "cannot build $b"
			printf -v "$v" '%s' "$dir/$b"
		fi
	done
}

# twserver_toml PORT: prints start_server's twserver configuration for PORT.
twserver_toml() {
	cat <<-EOT
		[server]
		bind = "127.0.0.1"
		port = $1
		max_clients = 64
		player_slots = ${PLAYER_SLOTS:-16}
		max_clients_per_ip = $MAX_CLIENTS_PER_IP
		[map]
		file = "$SERVER_MAP"
		[game]
		inactive_kick_time = 0
	EOT
}

# free_ports N: prints N distinct free UDP ports of 127.0.0.1, one a line.
free_ports() { python3 -c 'import socket,sys
ss=[socket.socket(socket.AF_INET,socket.SOCK_DGRAM) for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1",0))
print("\n".join(str(s.getsockname()[1]) for s in ss))' "$1"; }

# port_range N: the first of N consecutive free UDP ports of 127.0.0.1 whose
# next port is a free TCP port too (for a metrics endpoint); empty when 200
# tries found none.
port_range() {
	python3 - "$1" <<-'EOF'
		import socket, sys, random
		n = int(sys.argv[1])
		for _ in range(200):
		    base = random.randrange(20000, 60000 - n)
		    socks = []
		    try:
		        for p in range(base, base + n):
		            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", p)); socks.append(s)
		        t = socket.socket(); t.bind(("127.0.0.1", base + n)); socks.append(t)
		        print(base); break
		    except OSError:
		        pass
		    finally:
		        for s in socks: s.close()
	EOF
}

# wait_bound BASE N: true once 127.0.0.1 UDP ports BASE..BASE+N-1 are all
# bound (gives up after 20 s).
wait_bound() {
	local base=$1 n=$2 i p; shift 2
	for ((i = 0; i < 200; i++)); do
		local all=1
		for ((p = base; p < base + n; p++)); do udp_bound "$p" || { all=0; break; }; done
		((all)) && return 0
		sleep 0.1
	done
	return 1
}

# start_server KIND PORT DIR: starts twserver, reference (0.7.5) or ddnet
# (DDNet-Server) on 127.0.0.1:PORT with 64 slots (PLAYER_SLOTS of them
# players on twserver and the reference), 4 clients per IP, no
# inactivity kick, on SERVER_MAP (DDNet-Server: its own 0.6 copy of the
# map of that name, the 0.7 file in maps7/ for 0.7 clients), its files
# and log in DIR; sets SPID (the server process itself, so /proc shows its
# own CPU and memory) and returns once it has bound the port.
start_server() {
	local kind=$1 port=$2 dir=$3 map
	mkdir -p "$dir/home" "$dir/cwd/maps"
	map=$(basename "$SERVER_MAP" .map)
	case $kind in
	twserver)
		twserver_toml "$port" >"$dir/twserver.toml"
		(cd "$dir/cwd" && exec "$TWSERVER" -config "$dir/twserver.toml" -no-console -log-level "${SERVER_LOG_LEVEL:-warn}" \
			>"$dir/server.log" 2>&1 </dev/null) &
		SPID=$! ;;
	reference)
		cp "$SERVER_MAP" "$dir/cwd/maps/$map.map"
		(cd "$dir/cwd" && confine env -u XDG_DATA_HOME HOME="$dir/home" "$TW07_SERVER" \
			"bindaddr 127.0.0.1" "sv_port $port" "sv_register 0" "sv_map $map" "sv_name ${SERVER_NAME:-bench}" \
			"console_output_level 1" "sv_max_clients 64" "sv_max_clients_per_ip $MAX_CLIENTS_PER_IP" \
			"sv_player_slots ${PLAYER_SLOTS:-16}" "sv_spamprotection 0" "sv_inactivekick_time 0" \
			>"$dir/server.log" 2>&1 </dev/null) &
		SPID=$! ;;
	ddnet)
		mkdir -p "$dir/cwd/maps7"
		cp "$SERVER_MAP" "$dir/cwd/maps7/$map.map"
		(cd "$dir/cwd" && confine env -u XDG_DATA_HOME HOME="$dir/home" "$DDNET_SERVER" \
			"bindaddr 127.0.0.1" "sv_ipv4only 1" "sv_port $port" "sv_register 0" "sv_map $map" \
			"sv_name ${SERVER_NAME:-bench}" "loglevel 1" "sv_max_clients 64" "sv_max_clients_per_ip $MAX_CLIENTS_PER_IP" "sv_sixup 1" \
			"sv_spamprotection 0" "sv_inactivekick_time 0" ${DDNET_ARGS[@]+"${DDNET_ARGS[@]}"} \
			>"$dir/server.log" 2>&1 </dev/null) &
		SPID=$! ;;
	*) die "start_server: unknown server $kind" ;;
	esac
	PIDS+=("$SPID")
	local i
	for ((i = 0; i < 100; i++)); do
		udp_bound "$port" && return 0
		kill -0 "$SPID" 2>/dev/null || break
		sleep 0.1
	done
	log "$kind did not bind udp $port (see $dir/server.log)"
	return 1
}

# in_own_netns SCRIPT [ARG...]: returns when this network namespace has
# nothing but lo (loopback_only); else re-runs SCRIPT with its arguments in
# a private one (`unshare --net`, as root). LIB_NETNS_INNER marks the re-run,
# so a namespace that is still not loopback only ends it.
in_own_netns() {
	loopback_only && return 0
	[ "$(id -u)" = 0 ] || die "needs root for unshare --net"
	[ -z "${LIB_NETNS_INNER:-}" ] || die "inside the namespace and still not loopback only"
	exec env LIB_NETNS_INNER=1 unshare --net -- "$@"
}

# loopback_only: true when this network namespace has no interface but lo
# (bringing lo up first).
loopback_only() {
	ip link set lo up 2>/dev/null || return 1
	[ "$(ip -o link show | awk '{print $2}')" = "lo:" ]
}
