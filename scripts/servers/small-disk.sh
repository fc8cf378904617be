#!/usr/bin/env bash
# A small disk for the cache's full-disk test: an 8 MB tmpfs that the test fills up so that writes to the cache
# file fail with "No space left on device", as they would on a full disk. Not a server, but it lives with them so
# that scripts/test-servers.sh sets it up and takes it down.
#
#   small-disk.sh install   nothing to install
#   small-disk.sh start     mount the tmpfs at $PERMAFROST_RUN_DIR/small-disk (needs root, as the tests run here)
#   small-disk.sh stop      unmount it
#   small-disk.sh env       print the export line the test reads (PERMAFROST_SMALL_DISK)
set -euo pipefail

run_dir=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
dir="$run_dir/small-disk"
size=${PERMAFROST_SMALL_DISK_SIZE:-8m}

log() { echo "small-disk: $*" >&2; }

start() {
  mkdir -p "$dir"
  if mountpoint -q "$dir"; then
    log "already mounted at $dir"
    return 0
  fi
  if ! mount -t tmpfs -o "size=$size,mode=0777" permafrost-small-disk "$dir"; then
    log "cannot mount a $size tmpfs at $dir: the cache's full-disk test (core, SharedRegionCacheFullDiskTest)"
    log "needs it; run the tests as root, or mount a small filesystem there yourself"
    exit 1
  fi
  log "mounted a $size tmpfs at $dir"
}

stop() {
  if mountpoint -q "$dir" 2>/dev/null; then
    umount "$dir"
    log "unmounted $dir"
  fi
}

case "${1:-}" in
  install) ;;
  start) start ;;
  stop) stop ;;
  env) echo "export PERMAFROST_SMALL_DISK=$dir" ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 2
    ;;
esac
