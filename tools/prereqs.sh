#!/bin/sh
# What a make target needs from the machine, beyond what it installs itself: one line naming
# whatever is missing (README.md, "Prerequisites"), exit 1; silent when all is there.
# Arguments: the needs to check (python compiler icu debian java maven node go apt).
# Cheap on purpose (no network, one short run of each tool): it runs before every target.
PYTHON_VERSION=${PYTHON_VERSION:-3.13}
PYTHON=${PYTHON:-python$PYTHON_VERSION}
GO=${GO:-go}
missing=""
add() { missing="${missing:+$missing, }$1"; }
has() { command -v "$1" >/dev/null 2>&1; }

for need in "$@"; do
  case $need in
    python)
      if ! has "$PYTHON"; then add "Python $PYTHON_VERSION ($PYTHON)"
      elif ! "$PYTHON" -I -S -c 'import sys, os, ensurepip; v = "%d.%d" % sys.version_info[:2]; sys.exit(v != sys.argv[1] or not os.path.exists(os.path.join(sys.base_prefix, "include", "python" + v, "Python.h")))' "$PYTHON_VERSION" 2>/dev/null
      then add "Python $PYTHON_VERSION with venv and headers ($PYTHON: python$PYTHON_VERSION-venv, python$PYTHON_VERSION-dev)"; fi ;;
    compiler)
      has c++ || has g++ || add "a C++ compiler (g++, to build PyICU)" ;;
    icu)
      if ! has pkg-config; then add "pkg-config"
      elif ! pkg-config --exists icu-i18n; then add "ICU headers (libicu-dev)"; fi ;;
    debian)
      has dpkg-query || add "dpkg-query and apt-get (a Debian or Ubuntu machine)" ;;
    java)
      if ! has java; then add "JDK 17+ (java)"
      else
        major=$(java -version 2>&1 | sed -n '1s/[^"]*"\([0-9]*\).*/\1/p')
        [ "${major:-0}" -ge 17 ] 2>/dev/null || add "JDK 17+ (java is ${major:-unknown})"
      fi ;;
    maven)
      has mvn || add "Maven (mvn, fetches the Kafka jars once)" ;;
    node)
      if ! has node || ! has npm; then add "Node 20+ with npm (promptfoo)"
      else
        major=$(node --version 2>/dev/null | sed 's/^v\([0-9]*\).*/\1/')
        [ "${major:-0}" -ge 20 ] 2>/dev/null || add "Node 20+ (node is v${major:-unknown})"
      fi ;;
    go)
      has "$GO" || add "Go (go, builds helm for the chart tests)" ;;
    apt)
      has apt-get || add "apt-get (promtool comes from Debian's prometheus package)" ;;
    *)
      echo "prereqs.sh: unknown need $need" >&2; exit 2 ;;
  esac
done

if [ -n "$missing" ]; then
  echo "make: this machine lacks $missing (README.md, Prerequisites)" >&2
  exit 1
fi
