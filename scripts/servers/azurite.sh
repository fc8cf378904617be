#!/usr/bin/env bash
# Azurite, Microsoft's Azure Storage emulator, for the blobstore-azure tests. Blob service only, in memory,
# telemetry off, bound to 127.0.0.1:20000.
#
#   scripts/servers/azurite.sh install   npm-install azurite into $PERMAFROST_TOOLS_DIR/azurite (once)
#   scripts/servers/azurite.sh start     install if needed, start in the background, wait until it answers
#   scripts/servers/azurite.sh stop      stop the server started by 'start' (pid file in $PERMAFROST_RUN_DIR)
#   scripts/servers/azurite.sh env       print the export lines the tests read
#
# The account name and key printed by 'env' are Azurite's well-known development account, published by
# Microsoft in Azurite's documentation; they are not secrets.
set -euo pipefail

AZURITE_VERSION=3.35.0
HOST=127.0.0.1
PORT=${PERMAFROST_AZURITE_PORT:-20000}
ACCOUNT=devstoreaccount1
KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

TOOLS_DIR=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
RUN_DIR=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
PREFIX_DIR="$TOOLS_DIR/azurite"
BIN="$PREFIX_DIR/node_modules/.bin/azurite-blob"
PID_FILE="$RUN_DIR/azurite.pid"
LOG_FILE="$RUN_DIR/azurite.log"
DATA_DIR="$RUN_DIR/azurite-data"

log() { echo "azurite: $*" >&2; }

installed_version() {
  local pkg="$PREFIX_DIR/node_modules/azurite/package.json"
  [ -f "$pkg" ] && sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg" | head -n 1
}

install() {
  if [ -x "$BIN" ] && [ "$(installed_version)" = "$AZURITE_VERSION" ]; then
    return 0
  fi
  if ! command -v npm >/dev/null 2>&1; then
    log "npm is not installed; Azurite needs Node.js 18+ with npm (e.g. 'apt-get install nodejs npm')"
    exit 1
  fi
  log "installing azurite@$AZURITE_VERSION into $PREFIX_DIR"
  mkdir -p "$PREFIX_DIR"
  npm install --prefix "$PREFIX_DIR" --no-audit --no-fund --loglevel=error "azurite@$AZURITE_VERSION" >&2
  if [ ! -x "$BIN" ]; then
    log "npm install finished but $BIN is missing"
    exit 1
  fi
}

running_pid() {
  # Prints the pid from the pid file if that process is alive.
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

answers() {
  # Any HTTP answer from the blob endpoint means the server is up (an anonymous request gets a 4xx).
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://$HOST:$PORT/$ACCOUNT?comp=list" || true)
  [ -n "$code" ] && [ "$code" != "000" ]
}

start() {
  install
  mkdir -p "$RUN_DIR" "$DATA_DIR"
  if pid=$(running_pid); then
    if answers; then
      log "already running (pid $pid) on http://$HOST:$PORT"
      return 0
    fi
  fi
  if answers; then
    log "port $PORT on $HOST is already taken by another process; stop it or set PERMAFROST_AZURITE_PORT"
    exit 1
  fi
  log "starting on http://$HOST:$PORT (log: $LOG_FILE)"
  # setsid: the server gets its own process group, so stop can end node and anything it spawned.
  # It runs in $DATA_DIR so that anything it writes beside its in-memory store stays out of the work tree.
  (cd "$DATA_DIR" && exec setsid "$BIN" --blobHost "$HOST" --blobPort "$PORT" --skipApiVersionCheck \
    --inMemoryPersistence --disableTelemetry >"$LOG_FILE" 2>&1 < /dev/null) &
  echo $! > "$PID_FILE"
  local deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    if answers; then
      log "ready (pid $(cat "$PID_FILE"))"
      return 0
    fi
    if ! running_pid >/dev/null; then
      log "exited during start-up; last lines of $LOG_FILE:"
      tail -n 30 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    sleep 0.5
  done
  log "did not answer on http://$HOST:$PORT within 60 s; last lines of $LOG_FILE:"
  tail -n 30 "$LOG_FILE" >&2 || true
  stop || true
  exit 1
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$PID_FILE"
    return 0
  fi
  log "stopping (pid $pid)"
  # The pid is the leader of its own process group (setsid), so signal the group.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 15))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do
    sleep 0.2
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "still alive after 15 s; sending KILL"
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$PID_FILE"
}

env_lines() {
  echo "export PERMAFROST_AZURE_ENDPOINT=http://$HOST:$PORT/$ACCOUNT"
  echo "export PERMAFROST_AZURE_ACCOUNT=$ACCOUNT"
  echo "export PERMAFROST_AZURE_KEY='$KEY'"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) env_lines ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 2
    ;;
esac
