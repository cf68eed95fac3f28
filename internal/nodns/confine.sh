# confine.sh CMD [ARG...] - the inside half of the confinement of a
# reference server's name look-ups (internal/nodns, scripts/lib.sh confine).
# It runs in a new private mount namespace of its own (unshare --mount
# --propagation private, started by the caller) and, there only, hides the
# host's resolver configuration behind files that keep every look-up on
# the machine:
#   /etc/nsswitch.conf  hosts: files (no dns, no mdns, no resolve)
#   /etc/hosts          localhost only
#   /etc/resolv.conf    nameserver 127.0.0.1 (for resolvers that bypass NSS)
#   /run/nscd           empty (a host nscd would look names up for it)
# then execs CMD in its place (same process id). It refuses to start CMD
# when any of this fails. The host's files are untouched.
set -eu
[ $# -gt 0 ] || { echo "nodns: no command" >&2; exit 2; }
d=$(mktemp -d "${TMPDIR:-/tmp}/nodns.XXXXXX")
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' >"$d/hosts"
printf 'hosts: files\nnetworks: files\n' >"$d/nsswitch.conf"
printf 'nameserver 127.0.0.1\noptions attempts:1 timeout:1\n' >"$d/resolv.conf"
for f in nsswitch.conf hosts resolv.conf; do
	if ! mount --bind "$d/$f" "/etc/$f"; then
		rm -rf "$d"
		echo "nodns: cannot bind-mount over /etc/$f: not starting $1" >&2
		exit 126
	fi
done
if [ -d /run/nscd ]; then
	mount -t tmpfs -o size=16k,mode=0755 nodns /run/nscd || { rm -rf "$d"; echo "nodns: cannot hide /run/nscd: not starting $1" >&2; exit 126; }
fi
rm -rf "$d"
exec "$@"
