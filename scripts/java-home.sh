#!/usr/bin/env bash
# Sourced by the project's scripts: exports JAVA_HOME pointing at a JDK 21 or newer.
# Honors an existing JAVA_HOME when it is new enough; otherwise looks in the usual JVM folders.
# Fails with a clear message when no JDK 21+ is installed.

pf_java_major() {
  # Prints the feature version of the JDK at $1 (e.g. 17, 21, 25), or nothing.
  local home=$1
  [ -x "$home/bin/javac" ] || return 0
  local release="$home/release"
  if [ -f "$release" ]; then
    sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release"
  else
    "$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
  fi
}

pf_find_java_home() {
  local candidate major best="" best_major=0
  if [ -n "${JAVA_HOME:-}" ]; then
    major=$(pf_java_major "$JAVA_HOME")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      echo "$JAVA_HOME"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
      /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$candidate" ] || continue
    major=$(pf_java_major "$candidate")
    [ -n "$major" ] || continue
    # Prefer 21 (the baseline), then the newest above it.
    if [ "$major" -ge 21 ]; then
      if [ "$best_major" -eq 0 ] || { [ "$major" -eq 21 ] && [ "$best_major" -ne 21 ]; } ||
         { [ "$best_major" -ne 21 ] && [ "$major" -gt "$best_major" ]; }; then
        best=$candidate
        best_major=$major
      fi
    fi
  done
  if [ -n "$best" ]; then
    echo "$best"
    return 0
  fi
  return 1
}

if ! PF_JAVA_HOME=$(pf_find_java_home); then
  echo "Permafrost needs a JDK 21 or newer, and none was found (JAVA_HOME='${JAVA_HOME:-}', searched /usr/lib/jvm," >&2
  echo "/usr/local/lib/jvm, /opt/java, /opt/jdk*, ~/.sdkman). Install one (e.g. 'apt-get install openjdk-21-jdk-headless')" >&2
  echo "or point JAVA_HOME at it." >&2
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME=$PF_JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
