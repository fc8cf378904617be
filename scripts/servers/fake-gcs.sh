#!/usr/bin/env bash
# fake-gcs-server, the Google Cloud Storage emulator the GCS backend's tests talk to.
#
#   fake-gcs.sh install   go install the pinned version into $PERMAFROST_TOOLS_DIR/bin (skipped when present)
#   fake-gcs.sh start     install if needed, start on http://127.0.0.1:14443 in the background, wait until it answers
#   fake-gcs.sh stop      stop the server started by this script (by its pid file) and wait for it to exit
#   fake-gcs.sh env       print the environment the tests read
#
# The server keeps its objects in memory, so every start begins empty. Pid and log files are kept in
# $PERMAFROST_RUN_DIR (default /tmp/permafrost-servers). Binds 127.0.0.1 only.
set -euo pipefail

VERSION=v1.56.1
HOST=127.0.0.1
PORT=${PERMAFROST_GCS_PORT:-14443}
PROJECT_ID=permafrost-test
TOOLS_DIR=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
RUN_DIR=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
BIN="$TOOLS_DIR/bin/fake-gcs-server"
VERSION_FILE="$TOOLS_DIR/bin/.fake-gcs-server.version"
PID_FILE="$RUN_DIR/fake-gcs.pid"
LOG_FILE="$RUN_DIR/fake-gcs.log"
URL="http://$HOST:$PORT"

log() { echo "[fake-gcs] $*" >&2; }

running_pid() {
  # Prints the pid from the pid file if that process is still alive.
  [ -f "$PID_FILE" ] || return 1
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

answers() {
  # fake-gcs-server answers the bucket listing of the JSON API once it is up.
  if command -v curl >/dev/null 2>&1; then
    curl -fsS -o /dev/null --max-time 2 "$URL/storage/v1/b" 2>/dev/null
  else
    # No curl: settle for the port accepting connections.
    (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null
  fi
}

install() {
  if [ -x "$BIN" ] && [ "$(cat "$VERSION_FILE" 2>/dev/null || true)" = "$VERSION" ]; then
    return 0
  fi
  if ! command -v go >/dev/null 2>&1; then
    log "needs Go to install fake-gcs-server $VERSION (e.g. 'apt-get install golang-go'), or put the binary at $BIN"
    exit 1
  fi
  mkdir -p "$TOOLS_DIR/bin"
  log "installing fake-gcs-server $VERSION into $TOOLS_DIR/bin"
  GOBIN="$TOOLS_DIR/bin" go install "github.com/fsouza/fake-gcs-server@$VERSION"
  echo "$VERSION" > "$VERSION_FILE"
}

start() {
  install
  mkdir -p "$RUN_DIR"
  if pid=$(running_pid); then
    if answers; then
      log "already running (pid $pid) at $URL"
      return 0
    fi
  fi
  if answers; then
    log "something not started by this script already answers at $URL; stop it first"
    exit 1
  fi
  # -backend memory: objects live in memory only, so each start is empty.
  # -external-url: the address written into resumable upload session URLs, so the SDK comes back to us.
  # -public-host: the host the server accepts for XML-API / media requests.
  nohup "$BIN" \
      -scheme http \
      -host "$HOST" \
      -port "$PORT" \
      -external-url "$URL" \
      -public-host "$HOST:$PORT" \
      -backend memory \
      -log-level warn \
      > "$LOG_FILE" 2>&1 < /dev/null &
  echo $! > "$PID_FILE"
  local deadline=$((SECONDS + 60))
  while ! answers; do
    if ! kill -0 "$(cat "$PID_FILE")" 2>/dev/null; then
      log "fake-gcs-server exited during start; last lines of $LOG_FILE:"
      tail -n 30 "$LOG_FILE" >&2 || true
      rm -f "$PID_FILE"
      exit 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "fake-gcs-server did not answer at $URL within 60 s; last lines of $LOG_FILE:"
      tail -n 30 "$LOG_FILE" >&2 || true
      stop || true
      exit 1
    fi
    sleep 0.5
  done
  log "started (pid $(cat "$PID_FILE")) at $URL"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$PID_FILE"
    return 0
  fi
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop within 10 s; killing it"
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE"
  log "stopped"
}

env_() {
  echo "export PERMAFROST_GCS_ENDPOINT=$URL"
  echo "export PERMAFROST_GCS_PROJECT_ID=$PROJECT_ID"
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  env) env_ ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 2
    ;;
esac
