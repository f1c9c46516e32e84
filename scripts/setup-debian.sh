#!/usr/bin/env bash
# The system prerequisites of tinygpt's commands, on Debian 12 or Ubuntu 24.04: checked fast, and
# installed only when missing. `npm start` and `npm test` run it first (scripts/prepare.mjs).
#
#   scripts/setup-debian.sh [start|test] [--dry-run]
#
#   start   what `npm start` needs: CMake, make, Emscripten (the page's wasm builds)
#   test    (default) what `npm test` needs: the above and g++, Chromium, a CJK font for the
#           screenshots, python3 with PyTorch (the python/ package's parity tests), clang++ with
#           libFuzzer (the sanitizer tree and the fuzzers: tests/sanitize.sh, tests/fuzz)
#
# Everything present: prints nothing, exits 0, takes a few tens of milliseconds (command -v, file
# tests and one interpreter start for `import torch`'s spec; nothing is reinstalled).
# Something missing: installs it with apt-get when run as root, with `sudo -n apt-get` when sudo
# works without a password, and otherwise stops with one message naming the command to run.
# --dry-run: prints what is missing and the plan, changes nothing (exit 0 nothing missing,
# 3 something would be installed, 1 this user or no package can provide it).
# Node.js 20.19+ with npm must already be there (Debian 12's and Ubuntu 24.04's own nodejs is 18).
#
# Environment: TINYGPT_PYTHON (the interpreter whose torch the tests use; default /usr/bin/python3),
# CHROMIUM (a Chromium binary), TINYGPT_SETUP_ROOT (a directory standing for / when reading
# etc/os-release, the font file and usr/bin/python3: tests/test_prerequisites.py).
set -uo pipefail

target=test
dry_run=0
for arg in "$@"; do
  case "$arg" in
    start | test) target=$arg ;;
    --dry-run) dry_run=1 ;;
    -h | --help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "setup-debian.sh: unknown argument '$arg' (start, test, --dry-run)" >&2; exit 2 ;;
  esac
done
root=${TINYGPT_SETUP_ROOT:-}
system_python=$root/usr/bin/python3
python=${TINYGPT_PYTHON:-$system_python}
here=${BASH_SOURCE[0]%/*}
[ "$here" = "${BASH_SOURCE[0]}" ] && here=.

# ---- the distribution ----------------------------------------------------------------------------
distro=unknown
distro_name="an unknown system"
if [ -r "$root/etc/os-release" ]; then
  while IFS='=' read -r key value; do
    value=${value%\"}; value=${value#\"}
    case "$key" in
      ID) distro=$value ;;
      PRETTY_NAME) distro_name=$value ;;
    esac
  done < "$root/etc/os-release"
fi

# ---- checks: one line per component ---------------------------------------------------------------
have() { command -v "$1" > /dev/null 2>&1; }
chromium_found() {
  if [ -n "${CHROMIUM:-}" ]; then [ -x "$CHROMIUM" ]; return; fi
  have chromium || have chromium-browser || [ -x "$root/snap/bin/chromium" ]
}
# libFuzzer's runtime: llvm-14 keeps it in lib/linux/, newer LLVMs in lib/<target triple>/
fuzzer_found() {
  local f
  for f in "$root"/usr/lib/llvm-*/lib/clang/*/lib/*/libclang_rt.fuzzer*.a; do
    [ -f "$f" ] && return 0
  done
  return 1
}
torch_found() {
  [ -x "$python" ] || have "$python" || return 1
  "$python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("torch") is None)' > /dev/null 2>&1
}

missing=()  # human names
packages=()        # installed without recommends
packages_full=()   # installed with recommends (Chromium)
blocked=()  # missing, with no package on this system: what to do instead

need() {  # need NAME PACKAGE|- [full]
  missing+=("$1")
  if [ "$2" = - ]; then return; fi
  if [ "${3:-}" = full ]; then packages_full+=("$2"); else packages+=("$2"); fi
}

if ! have node || ! have npm; then
  echo "tinygpt needs Node.js 20.19 or newer with npm, which is not on PATH. Debian 12's and Ubuntu" >&2
  echo "24.04's own nodejs package is 18, too old for Vite 8: install Node.js 20+ (e.g. from NodeSource or nvm)." >&2
  exit 1
fi
have cmake || need CMake cmake
have make || need make make
{ have emcc && have em++ && have emcmake; } || need "Emscripten (emcc, em++, emcmake)" emscripten
if [ "$target" = test ]; then
  have g++ || need g++ g++
  if ! chromium_found; then
    if [ "$distro" = ubuntu ]; then
      # Ubuntu's chromium-browser deb installs the snap (needs snapd); set CHROMIUM if it lives elsewhere
      need "Chromium (chromium-browser, the snap)" chromium-browser full
    else
      need Chromium chromium full
    fi
  fi
  [ -f "$root/usr/share/fonts/truetype/wqy/wqy-microhei.ttc" ] || need "a CJK font (fonts-wqy-microhei)" fonts-wqy-microhei
  { have clang++-14 || have clang++; } || need "clang++ (clang)" clang
  fuzzer_found || need "libFuzzer (libclang-rt-dev)" libclang-rt-dev
  if [ ! -x "$python" ] && ! have "$python"; then
    if [ "$python" = "$system_python" ]; then need python3 python3; else blocked+=("TINYGPT_PYTHON=$python is not an interpreter"); fi
  fi
  if ! torch_found; then
    if [ "$python" != "$system_python" ]; then
      blocked+=("PyTorch for $python: $python -m pip install torch numpy")
    elif [ "$distro" = ubuntu ]; then
      # Ubuntu 24.04 has no python3-torch package
      blocked+=("PyTorch (not packaged for Ubuntu 24.04): python3 -m venv ~/.venvs/tinygpt && ~/.venvs/tinygpt/bin/pip install torch numpy, then run with TINYGPT_PYTHON=~/.venvs/tinygpt/bin/python3")
      missing+=("PyTorch")
    else
      need "PyTorch (python3-torch)" python3-torch
    fi
  fi
fi

if [ ${#missing[@]} -eq 0 ] && [ ${#blocked[@]} -eq 0 ]; then exit 0; fi

# ---- a plan -----------------------------------------------------------------------------------------
list() { local out="" x; for x in "$@"; do out+="${out:+, }$x"; done; echo "$out"; }
if [ ${#missing[@]} -gt 0 ]; then echo "tinygpt ($target): missing $(list "${missing[@]}")"; fi
if [ ${#blocked[@]} -gt 0 ]; then
  echo "tinygpt ($target) needs what no package here provides:" >&2
  for b in "${blocked[@]}"; do echo "  - $b" >&2; done
  if [ ${#packages[@]} -eq 0 ] && [ ${#packages_full[@]} -eq 0 ]; then exit 1; fi
fi
if [ "$distro" != debian ] && [ "$distro" != ubuntu ]; then
  echo "tinygpt: this is $distro_name; scripts/setup-debian.sh installs packages on Debian 12 and Ubuntu 24.04 only." >&2
  echo "Install these yourself: ${packages[*]} ${packages_full[*]}" >&2
  exit 1
fi

sudo_prefix=""
if [ "$(id -u)" != 0 ]; then
  if have sudo && sudo -n true > /dev/null 2>&1; then
    sudo_prefix="sudo -n "
  else
    echo "tinygpt needs system packages that are not installed ($(list "${packages[@]}" "${packages_full[@]}")). Install them with:" >&2
    echo "    sudo scripts/setup-debian.sh $target" >&2
    exit 1
  fi
fi
commands=("${sudo_prefix}apt-get update")
[ ${#packages[@]} -gt 0 ] && commands+=("${sudo_prefix}apt-get install -y --no-install-recommends ${packages[*]}")
[ ${#packages_full[@]} -gt 0 ] && commands+=("${sudo_prefix}apt-get install -y ${packages_full[*]}")
if [ $dry_run = 1 ]; then
  for c in "${commands[@]}"; do echo "plan: $c"; done
  [ ${#blocked[@]} -eq 0 ] && exit 3 || exit 1
fi
export DEBIAN_FRONTEND=noninteractive
for c in "${commands[@]}"; do
  echo "tinygpt: $c"
  $c || { echo "tinygpt: '$c' failed" >&2; exit 1; }
done
# what was installed must now be found (a broken mirror, a package that moved, a snap that failed)
"$BASH" "$here/setup-debian.sh" "$target" --dry-run > /dev/null 2>&1
case $? in
  0) ;;
  3) echo "tinygpt: still missing after installing:" >&2
     "$BASH" "$here/setup-debian.sh" "$target" --dry-run >&2
     exit 1 ;;
  *) exit 1 ;;  # what no package provides was named above
esac
