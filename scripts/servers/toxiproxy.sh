#!/usr/bin/env bash
# Toxiproxy, the TCP proxy the fault tests put between a backend and its server to inject latency, low
# bandwidth, resets, cut responses and silence. Its API is bound to 127.0.0.1 only; the tests create their own
# proxies through it (also on 127.0.0.1).
#
#   scripts/servers/toxiproxy.sh install   build the pinned Toxiproxy into $PERMAFROST_TOOLS_DIR/bin (skipped if there)
#   scripts/servers/toxiproxy.sh start     install if needed, start its API on 127.0.0.1:18474, wait
#   scripts/servers/toxiproxy.sh stop      stop the server started by this script (by its pid file)
#   scripts/servers/toxiproxy.sh env       print the export line the fault tests read
#
# PERMAFROST_TOOLS_DIR defaults to ~/.cache/permafrost-tools; PERMAFROST_RUN_DIR (pid, log) to
# /tmp/permafrost-servers. PERMAFROST_TOXIPROXY_PORT changes the API port, PERMAFROST_TOXIPROXY_LOG_LEVEL the log
# level (default info; trace logs every chunk).
set -euo pipefail

TOXIPROXY_PACKAGE=github.com/Shopify/toxiproxy/v2/cmd/server
TOXIPROXY_VERSION=v2.5.0
HOST=127.0.0.1
PORT=${PERMAFROST_TOXIPROXY_PORT:-18474}
WAIT_SECONDS=30

tools_dir=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
run_dir=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
# 'go install' names the binary after its package directory ("server"): build it into a GOBIN of its own and
# give it an unambiguous name next to the other servers' binaries.
gobin="$tools_dir/toxiproxy-$TOXIPROXY_VERSION/bin"
bin="$tools_dir/bin/toxiproxy-server"
pid_file="$run_dir/toxiproxy.pid"
log_file="$run_dir/toxiproxy.log"
health_url="http://$HOST:$PORT/version"

log() { echo "toxiproxy: $*" >&2; }

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
  # The versioned GOBIN tells which version $bin is (the binary itself reports "git"), so a new pin rebuilds.
  if [ -x "$bin" ] && [ -x "$gobin/server" ] && cmp -s "$gobin/server" "$bin"; then
    return 0
  fi
  if [ ! -x "$gobin/server" ]; then
    if ! command -v go >/dev/null 2>&1; then
      log "building Toxiproxy needs Go (go install $TOXIPROXY_PACKAGE@$TOXIPROXY_VERSION); install Go 1.22+ and retry"
      exit 1
    fi
    mkdir -p "$gobin"
    log "building $TOXIPROXY_PACKAGE@$TOXIPROXY_VERSION into $gobin (once)"
    GOBIN="$gobin" go install "$TOXIPROXY_PACKAGE@$TOXIPROXY_VERSION"
    [ -x "$gobin/server" ] || { log "go install finished but $gobin/server is missing"; exit 1; }
  fi
  mkdir -p "$tools_dir/bin"
  cp "$gobin/server" "$bin.tmp.$$"
  mv -f "$bin.tmp.$$" "$bin"
  log "installed $bin"
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
    log "stop it, or pick another port with PERMAFROST_TOXIPROXY_PORT"
    exit 1
  fi
  install
  mkdir -p "$run_dir"
  log "starting its API on $HOST:$PORT, log in $log_file"
  # Toxiproxy logs every chunk it moves unless told otherwise (LOG_LEVEL): info keeps the log to API calls and
  # connections.
  LOG_LEVEL="${PERMAFROST_TOXIPROXY_LOG_LEVEL:-info}" \
    nohup "$bin" -host "$HOST" -port "$PORT" >"$log_file" 2>&1 </dev/null &
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
  echo "export PERMAFROST_TOXIPROXY_URL=http://$HOST:$PORT"
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
