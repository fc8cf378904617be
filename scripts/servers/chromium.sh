#!/usr/bin/env bash
# Headless Chromium and its chromedriver, for the examples' browser test (Selenium drives the search page). Debian's
# packages, installed only if missing; not a server: Selenium starts chromedriver itself, on 127.0.0.1.
#
#   scripts/servers/chromium.sh install   apt-get install chromium and chromium-driver if either is missing
#   scripts/servers/chromium.sh start     install if needed (nothing runs)
#   scripts/servers/chromium.sh stop      nothing to stop
#   scripts/servers/chromium.sh env       print the export lines the browser test reads
#
# PERMAFROST_CHROMIUM and PERMAFROST_CHROMEDRIVER, if set, name other binaries (and nothing is installed).
set -euo pipefail

chromium=${PERMAFROST_CHROMIUM:-/usr/bin/chromium}
chromedriver=${PERMAFROST_CHROMEDRIVER:-/usr/bin/chromedriver}

log() { echo "chromium: $*" >&2; }

install() {
  if [ -x "$chromium" ] && [ -x "$chromedriver" ]; then
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "$chromium or $chromedriver is missing and there is no apt-get here: install Chromium and its chromedriver,"
    log "and point PERMAFROST_CHROMIUM and PERMAFROST_CHROMEDRIVER at them"
    exit 1
  fi
  log "installing Debian's chromium and chromium-driver (once)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends chromium chromium-driver >&2
  [ -x "$chromium" ] && [ -x "$chromedriver" ] || { log "installed, but $chromium or $chromedriver is missing"; exit 1; }
  log "installed: $("$chromium" --version 2>/dev/null || echo "$chromium")"
}

case "${1:-}" in
  install|start) install ;;
  stop) ;;
  env)
    echo "export PERMAFROST_CHROMIUM=$chromium"
    echo "export PERMAFROST_CHROMEDRIVER=$chromedriver"
    ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 2
    ;;
esac
