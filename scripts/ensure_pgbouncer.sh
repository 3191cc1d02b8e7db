#!/usr/bin/env bash
# The connection-pooler tests (tests/config/test_pgbouncer.py) and `brain_bench context --pooler` start Debian's
# PgBouncer in front of the embedded PostgreSQL; install it when missing and we can (root with apt).
set -euo pipefail
if command -v pgbouncer >/dev/null 2>&1 || [ -x /usr/sbin/pgbouncer ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian pgbouncer for the connection-pooler tests..."
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
else
  echo "pgbouncer is not installed and cannot be installed here (not root): the pooler tests will be skipped." >&2
fi
