#!/usr/bin/env bash
# The operator-UI tests drive Debian's headless Chromium (Playwright with executablePath); install it
# when missing and we can (root with apt). Test tools never download a browser build of their own.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing Debian chromium and chromium-driver for the browser tests..."
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  echo "chromium is not installed and cannot be installed here (not root): the browser tests will be skipped." >&2
fi
