#!/usr/bin/env bash
# rssfloor.sh - how much of an idle twserver's peak memory the Go binary
# sets by itself, before the game does anything, against the idle 0.7.5
# reference server (docs/performance.md#idle-cost).
#
# Rows, each a fresh process started R times (default 5), read SETTLE
# seconds (default 3) after its start, nothing connected:
#   twserver      one idle game on dm1 (start_server's settings, lib.sh)
#   inits         a program that imports every package twserver links
#                 (`go list -deps ./cmd/twserver`, blank imports, so every
#                 package init runs) and then sleeps
#   inits-nohttp  the same without net/http, crypto/..., mime/... and the
#                 packages only they need: what the HTTP endpoints and the
#                 HTTPS registration add by their inits alone
#   reference     teeworlds-server 0.7.5 idle on dm1
# Columns (median over the starts, min-max): VmHWM, RssFile (pages of the
# binary and of shared libraries), RssAnon, all in MB; for the Go programs
# also the binary's size and how many of the 64 kB blocks of its .text are
# resident (the kernel maps the 64 kB around a page of a file mapping that
# is touched, so this is what the code that ran has spread over).
#
# Usage: scripts/rssfloor.sh [-r STARTS] [-s SETTLE_S] [-o OUTDIR]
# Env: TW07_SERVER (default /usr/games/teeworlds-server), BENCH_MAP
#      (default the reference dm1.map). Builds with CGO_ENABLED=0 -trimpath,
#      as the image and the other scripts do. Only loopback traffic.
set -uo pipefail

STARTS=5 SETTLE=3 OUT=
while getopts "r:s:o:h" opt; do
	case $opt in
	r) STARTS=$OPTARG ;;
	s) SETTLE=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '2,/^[^#]/{/^#/p}' "$0"; exit 2 ;;
	esac
done
[[ $STARTS =~ ^[0-9]+$ ]] && ((STARTS >= 1 && STARTS <= 50)) || { echo "starts: 1..50" >&2; exit 2; }

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/twfloor.XXXXXX)}
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
TW07_SERVER=${TW07_SERVER:-/usr/games/teeworlds-server}
TW07_DATA=${TW07_DATA:-/usr/share/games/teeworlds/data}
BENCH_MAP=${BENCH_MAP:-$TW07_DATA/maps/dm1.map}
LOG_TAG=rssfloor SERVER_MAP=$BENCH_MAP
# log, die, free_port, start_server, stop_pid, mem_kb, status_mb, lib_stop_all
. "$ROOT/scripts/lib.sh"
# The generated programs live inside the module (they import its
# third-party dependencies); a directory starting with _ is outside ./...
GEN=$(mktemp -d "$ROOT/_rssfloor.XXXXXX")
trap 'lib_stop_all; rm -rf "$GEN"' EXIT
trap 'exit 130' INT TERM
export PATH=$PATH:/usr/local/go/bin
[ -x "$TW07_SERVER" ] || die "reference server $TW07_SERVER missing (apt-get install teeworlds-server)"
[ -f "$BENCH_MAP" ] || die "map $BENCH_MAP missing (set BENCH_MAP)"
for t in readelf python3; do command -v "$t" >/dev/null || die "$t missing (apt-get install binutils python3)"; done

# gen_inits DIR FILTER: a main package in DIR that blank-imports twserver's
# dependencies outside the module (less those matching the extended regexp
# FILTER, if any) and sleeps.
gen_inits() {
	local dir=$1 filter=$2
	mkdir -p "$dir"
	{
		echo 'package main'
		echo 'import sleep "time"'
		echo 'import ('
		(cd "$ROOT" && go list -deps ./cmd/twserver) |
			grep -vE '^(twserver|unsafe$|runtime/cgo$)|internal|vendor/' |
			{ if [ -n "$filter" ]; then grep -vE "$filter"; else cat; fi; } |
			sed 's/.*/\t_ "&"/'
		echo ')'
		echo 'func main() { sleep.Sleep(sleep.Hour) }'
	} >"$dir/main.go"
}

build() { (cd "$ROOT" && CGO_ENABLED=0 go build -trimpath -o "$OUT/$1" "$2") || die "cannot build $1"; }
build twserver ./cmd/twserver
TWSERVER=$OUT/twserver
gen_inits "$GEN/inits" ''
build inits "./$(basename "$GEN")/inits"
gen_inits "$GEN/inits-nohttp" '^(net/http|crypto|mime|net/textproto|golang.org/x/net/netutil)'
build inits-nohttp "./$(basename "$GEN")/inits-nohttp"

# text_blocks PID BIN: resident 64 kB blocks of BIN's .text in PID / all.
text_blocks() {
	python3 - "$1" "$2" <<-'EOF'
		import re, struct, subprocess, sys
		pid, binp = int(sys.argv[1]), sys.argv[2]
		for l in subprocess.check_output(['readelf', '-SW', binp], text=True).splitlines():
		    m = re.match(r'\s*\[\s*\d+\]\s+\.text\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)', l)
		    if m:
		        start, size = int(m.group(1), 16), int(m.group(2), 16)
		pm = open(f'/proc/{pid}/pagemap', 'rb')
		res = tot = 0
		for blk in range(start & ~0xffff, start + size, 0x10000):
		    tot += 1
		    for pg in range(max(blk, start & ~0xfff), min(blk + 0x10000, start + size), 0x1000):
		        pm.seek(pg // 4096 * 8)
		        if struct.unpack('<Q', pm.read(8))[0] >> 63:
		            res += 1
		            break
		print(f'{res}/{tot}')
	EOF
}

# run_one ROW: starts ROW once, prints "hwm file anon blocks".
run_one() {
	local row=$1 pid port dir blocks=-
	case $row in
	twserver | reference)
		port=$(free_port)
		dir=$OUT/runs/$row.$RANDOM
		start_server "$row" "$port" "$dir"
		pid=$SPID ;;
	*)
		"$OUT/$row" & pid=$!
		PIDS+=("$pid") ;;
	esac
	sleep "$SETTLE"
	kill -0 "$pid" 2>/dev/null || die "$row exited early"
	[ "$row" = reference ] || blocks=$(text_blocks "$pid" "$OUT/$row")
	echo "$(status_mb "$pid" VmHWM) $(status_mb "$pid" RssFile) $(status_mb "$pid" RssAnon) $blocks"
	stop_pid "$pid"
}

# med_range: "median (min-max)" of the numbers on stdin.
med_range() { sort -g | awk '{v[NR] = $1} END {printf "%.2f (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR]}'; }

ROWS=(twserver inits inits-nohttp reference)
for ((i = 1; i <= STARTS; i++)); do
	for row in "${ROWS[@]}"; do
		out=$(run_one "$row") && [ -n "$out" ] || die "$row: no reading (start $i)"
		echo "$row $out" >>"$OUT/starts.txt"
	done
	log "start $i/$STARTS done"
done
printf '%-13s %-10s %-22s %-22s %-22s %s\n' row "binary MB" "VmHWM MB" "RssFile MB" "RssAnon MB" "text blocks resident"
for row in "${ROWS[@]}"; do
	size=-
	[ "$row" = reference ] || size=$(awk '{printf "%.1f", $1 / 1048576}' <<<"$(stat -c %s "$OUT/$row")")
	printf '%-13s %-10s %-22s %-22s %-22s %s\n' "$row" "$size" \
		"$(awk -v r="$row" '$1 == r {print $2}' "$OUT/starts.txt" | med_range)" \
		"$(awk -v r="$row" '$1 == r {print $3}' "$OUT/starts.txt" | med_range)" \
		"$(awk -v r="$row" '$1 == r {print $4}' "$OUT/starts.txt" | med_range)" \
		"$(awk -v r="$row" '$1 == r {print $5}' "$OUT/starts.txt" | sort | uniq -c | sort -rn | head -1 | awk '{print $2}')"
done
