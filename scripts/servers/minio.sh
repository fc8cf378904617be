#!/usr/bin/env bash
# MinIO, the S3-compatible server the S3 backend's tests run against, bound to 127.0.0.1 only.
#
#   scripts/servers/minio.sh install   build the pinned MinIO into $PERMAFROST_TOOLS_DIR/bin (skipped if there)
#   scripts/servers/minio.sh start     install if needed, start on 127.0.0.1:19000 with a fresh data dir, wait
#   scripts/servers/minio.sh stop      stop the server started by this script (by its pid file)
#   scripts/servers/minio.sh env       print the export lines the S3 tests read
#
# PERMAFROST_TOOLS_DIR defaults to ~/.cache/permafrost-tools; PERMAFROST_RUN_DIR (pid, log, data) to
# /tmp/permafrost-servers. The root user and password are fixed test values, never real credentials.
set -euo pipefail

MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=v0.0.0-20260212201848-7aac2a2c5b7c
HOST=127.0.0.1
PORT=${PERMAFROST_MINIO_PORT:-19000}
CONSOLE_PORT=${PERMAFROST_MINIO_CONSOLE_PORT:-19001}
ACCESS_KEY=permafrost
SECRET_KEY=permafrost-secret-key
WAIT_SECONDS=60

tools_dir=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
run_dir=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
bin="$tools_dir/bin/minio"
pid_file="$run_dir/minio.pid"
log_file="$run_dir/minio.log"
data_dir="$run_dir/minio-data"
health_url="http://$HOST:$PORT/minio/health/live"

log() { echo "minio: $*" >&2; }

is_running() {
  [ -f "$pid_file" ] || return 1
  local pid
  pid=$(cat "$pid_file" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

answers() {
  curl -fsS -o /dev/null --max-time 2 "$health_url" 2>/dev/null
}

install() {
  if [ -x "$bin" ]; then
    return 0
  fi
  if ! command -v go >/dev/null 2>&1; then
    log "building MinIO needs Go (go install $MINIO_MODULE@$MINIO_VERSION); install Go 1.24+ and retry"
    exit 1
  fi
  mkdir -p "$tools_dir/bin"
  log "building $MINIO_MODULE@$MINIO_VERSION into $tools_dir/bin (takes a few minutes, once)"
  GOBIN="$tools_dir/bin" go install "$MINIO_MODULE@$MINIO_VERSION"
  [ -x "$bin" ] || { log "go install finished but $bin is missing"; exit 1; }
}

start() {
  if is_running; then
    if answers; then
      log "already running (pid $(cat "$pid_file")) on $HOST:$PORT"
      return 0
    fi
    log "pid $(cat "$pid_file") is alive but does not answer on $health_url; restarting it"
    stop
  fi
  if answers; then
    log "something not started by this script (no live pid in $pid_file) already answers on $HOST:$PORT;"
    log "stop it, or pick another port with PERMAFROST_MINIO_PORT"
    exit 1
  fi
  install
  mkdir -p "$run_dir"
  rm -rf "$data_dir"
  mkdir -p "$data_dir"
  log "starting on $HOST:$PORT (console $HOST:$CONSOLE_PORT), data in $data_dir, log in $log_file"
  MINIO_ROOT_USER="$ACCESS_KEY" MINIO_ROOT_PASSWORD="$SECRET_KEY" MINIO_BROWSER=off MINIO_PROMETHEUS_AUTH_TYPE=public \
    MINIO_UPDATE=off MINIO_CI_CD=1 \
    nohup "$bin" server --quiet --address "$HOST:$PORT" --console-address "$HOST:$CONSOLE_PORT" "$data_dir" \
    >"$log_file" 2>&1 </dev/null &
  echo $! >"$pid_file"
  local waited=0
  while ! answers; do
    if ! is_running; then
      log "exited during startup; last lines of $log_file:"
      tail -n 30 "$log_file" >&2 || true
      rm -f "$pid_file"
      exit 1
    fi
    if [ "$waited" -ge "$WAIT_SECONDS" ]; then
      log "did not answer on $health_url within ${WAIT_SECONDS}s; last lines of $log_file:"
      tail -n 30 "$log_file" >&2 || true
      stop
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  log "ready (pid $(cat "$pid_file"))"
}

stop() {
  if [ ! -f "$pid_file" ]; then
    return 0
  fi
  local pid
  pid=$(cat "$pid_file" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null; do
      if [ "$waited" -ge 150 ]; then
        log "pid $pid did not stop after 15s; killing it"
        kill -9 "$pid" 2>/dev/null || true
        break
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
    log "stopped (pid $pid)"
  fi
  rm -f "$pid_file"
}

env_lines() {
  echo "export PERMAFROST_S3_ENDPOINT=http://$HOST:$PORT"
  echo "export PERMAFROST_S3_ACCESS_KEY=$ACCESS_KEY"
  echo "export PERMAFROST_S3_SECRET_KEY=$SECRET_KEY"
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
