#!/usr/bin/env bash
# The official Python Elasticsearch client (with elasticsearch.dsl) and pytest, for the examples' Python client suite
# and the Python example of docs/elasticsearch-api.md: a virtual environment made with the machine's python3 (3.9+)
# from examples/src/test/python/requirements.txt, from PyPI. Not a server: the tests run its python themselves.
#
#   scripts/servers/python-clients.sh install   make the virtual environment (once per requirements file)
#   scripts/servers/python-clients.sh start     install if needed (nothing runs)
#   scripts/servers/python-clients.sh stop      nothing to stop
#   scripts/servers/python-clients.sh env       print the export line the tests read (PERMAFROST_PYTHON)
#
# The environment lives in $PERMAFROST_TOOLS_DIR (default ~/.cache/permafrost-tools), named after the requirements
# file's digest, so a new pin makes a new one. PERMAFROST_PYTHON, if set, names another python with the same
# packages (and nothing is installed).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
requirements="$root/examples/src/test/python/requirements.txt"
tools_dir=${PERMAFROST_TOOLS_DIR:-$HOME/.cache/permafrost-tools}
digest=$(sha256sum "$requirements" | cut -c1-12)
venv="$tools_dir/python-clients-$digest"
python=${PERMAFROST_PYTHON:-$venv/bin/python}

log() { echo "python-clients: $*" >&2; }

install() {
  if [ -n "${PERMAFROST_PYTHON:-}" ] || [ -f "$venv/.complete" ]; then
    return 0
  fi
  if ! command -v python3 >/dev/null 2>&1; then
    log "python3 is missing: install Python 3.9+ (with its venv module) and retry, or point PERMAFROST_PYTHON at a"
    log "python that has the packages of $requirements"
    exit 1
  fi
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    # Debian's python3 comes without its venv module (package python3-venv)
    if ! command -v apt-get >/dev/null 2>&1; then
      log "python3 has no venv module: install it (Debian: python3-venv) and retry"
      exit 1
    fi
    log "installing Debian's python3-venv (once)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >&2
  fi
  log "making $venv from $requirements (once)"
  # .complete marks a finished environment: one a failed or cut install left behind is made again.
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
  "$venv/bin/python" -c 'import elasticsearch, elasticsearch.dsl, pytest' \
    || { log "made $venv, but it cannot import elasticsearch, elasticsearch.dsl and pytest"; exit 1; }
  touch "$venv/.complete"
  log "installed: $("$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -E '^(elasticsearch|pytest) ' | tr -s ' ' | paste -sd ',')"
}

case "${1:-}" in
  install|start) install ;;
  stop) ;;
  env) echo "export PERMAFROST_PYTHON=$python" ;;
  *)
    echo "usage: $0 install|start|stop|env" >&2
    exit 2
    ;;
esac
