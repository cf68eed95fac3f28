#!/bin/sh
# Lays out a Docker build context for deploy/Dockerfile.runtime: the same
# files the build stage of deploy/Dockerfile puts under /out.
#   usage: deploy/docker-context.sh STATIC_BINARY CONTEXT_DIR
set -eu
bin=$1 ctx=$2
[ -x "$bin" ] || { echo "docker-context.sh: $bin is not an executable" >&2; exit 2; }
mkdir -p "$ctx/out/rootfs/etc/ssl/certs" "$ctx/out/data/maps" "$ctx/out/data/config" "$ctx/out/data/recordings"
cp "$bin" "$ctx/out/rootfs/twserver"
chmod 0755 "$ctx/out/rootfs/twserver"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/out/rootfs/etc/ssl/certs/"
else
  : > "$ctx/out/rootfs/etc/ssl/certs/ca-certificates.crt"
  echo "docker-context.sh: no CA bundle on this host; HTTPS registration will fail in the image" >&2
fi
