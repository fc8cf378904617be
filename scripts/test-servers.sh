#!/usr/bin/env bash
# Installs, starts and stops the local servers the integration tests talk to (MinIO for S3, fake-gcs-server for
# GCS, Azurite for Azure, toxiproxy for the S3 fault suite), all bound to 127.0.0.1, and the small tmpfs of core's
# full-disk test.
#
#   scripts/test-servers.sh install   install every server (binaries cached in $PERMAFROST_TOOLS_DIR)
#   scripts/test-servers.sh start     install if needed, start every server, wait until each answers
#   scripts/test-servers.sh stop      stop every server this script started
#   scripts/test-servers.sh env       print the environment the tests read (export lines)
#
# Each server has its own script in scripts/servers/<name>.sh with the same subcommands.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PERMAFROST_TOOLS_DIR=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
export PERMAFROST_RUN_DIR=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
mkdir -p "$PERMAFROST_TOOLS_DIR" "$PERMAFROST_RUN_DIR"

servers=()
for script in "$root"/scripts/servers/*.sh; do
  [ -e "$script" ] && servers+=("$script")
done

cmd=${1:-}
case "$cmd" in
  install|start|env)
    for s in "${servers[@]}"; do bash "$s" "$cmd"; done
    ;;
  stop)
    status=0
    for s in "${servers[@]}"; do bash "$s" stop || status=1; done
    exit $status
    ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 2
    ;;
esac
