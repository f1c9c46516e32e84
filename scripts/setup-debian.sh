#!/usr/bin/env bash
# Installs what tinygpt needs on a fresh Debian 12 machine (run as root, once):
# the C++ toolchain and Catch2, Emscripten, Chromium for the end-to-end tests, python3 for the
# docs checker. Node.js 20 with npm is expected on the machine (Debian 12's own nodejs is 18,
# too old for Vite 8).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends cmake g++ make catch2 emscripten python3 ca-certificates
# the end-to-end tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core;
# a small CJK font makes the screenshots of the Chinese-text test legible
apt-get install -y chromium
apt-get install -y --no-install-recommends fonts-wqy-microhei
if ! command -v node >/dev/null; then
  echo "Node.js 20 or newer with npm is needed (Debian 12's nodejs package is 18)" >&2
  exit 1
fi
