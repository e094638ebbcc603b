#!/usr/bin/env bash
# Installs Table Companion on a fresh Debian 12 or Raspberry Pi OS machine.
#
#   ./setup.sh            system packages, .venv and the companion
#   ./setup.sh --test     the same plus the test tools (pytest, hypothesis, chromium, playwright, shellcheck)
#   ./setup.sh --service  the same plus the systemd service (Raspberry Pi OS; see README)
#   ./setup.sh --dry-run  print what would be done, change nothing
#
# Safe to run again: every step checks first and only does what is missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3}"
want_test=0
want_service=0
dry_run=0

for arg in "$@"; do
  case "$arg" in
    --test) want_test=1 ;;
    --service) want_service=1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (try --help)" >&2; exit 64 ;;
  esac
done

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31msetup failed:\033[0m %s\n' "$*" >&2; exit 1; }
run() {
  if [ "$dry_run" = 1 ]; then printf '  would run: %s\n' "$*"; else "$@"; fi
}

on_pi=0
if [ -r /proc/device-tree/model ] && grep -qa "Raspberry Pi" /proc/device-tree/model; then
  on_pi=1
fi
if [ "${COMPANION_ASSUME_PI:-0}" = 1 ]; then on_pi=1; fi

# ---- system packages -------------------------------------------------------
packages=(libzbar0)
if [ "$on_pi" = 1 ]; then
  # picamera2 and lgpio only exist as apt packages matched to the Pi's libcamera and kernel;
  # OpenCV and numpy come from apt too, because pip's numpy 2 breaks apt's picamera2.
  packages+=(python3-venv python3-picamera2 python3-lgpio python3-opencv python3-numpy)
fi
if [ "$want_test" = 1 ]; then
  # Browser tests drive Debian's chromium; Playwright never downloads a browser. shellcheck checks
  # the service installer (tests/test_systemd.py), which runs as root on the Pi.
  packages+=(chromium shellcheck)
fi
if [ "$want_service" = 1 ]; then
  packages+=(systemd)
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  say "installing system packages: ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || fail "need root or sudo to install ${missing[*]}"
    sudo_cmd=(sudo)
  fi
  run "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
    || fail "apt-get update failed: check the network and /etc/apt/sources.list"
  run "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || fail "apt-get could not install ${missing[*]}"
else
  say "system packages present: ${packages[*]}"
fi

# ---- Python environment ----------------------------------------------------
"$python" - <<'PY' || fail "Python 3.11 or newer is needed (found $("$python" --version 2>&1)); set PYTHON=/path/to/python3.11"
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if [ ! -x "$venv/bin/python" ]; then
  venv_args=()
  if [ "$on_pi" = 1 ]; then venv_args+=(--system-site-packages); fi
  say "creating $venv ${venv_args[*]:-}"
  run "$python" -m venv "${venv_args[@]}" "$venv" || fail "could not create $venv (is python3-venv installed?)"
fi

extras=""
if [ "$want_test" = 1 ]; then extras="[test]"; fi
pip_args=(--disable-pip-version-check --quiet)
if [ "$on_pi" = 1 ]; then pip_args+=(-c "$here/constraints-pi.txt"); fi

stamp="$venv/.installed$extras"
if [ -f "$stamp" ] && [ "$stamp" -nt "$here/pyproject.toml" ] && [ "$stamp" -nt "$here/setup.sh" ]; then
  say "companion$extras already installed in $venv"
else
  say "installing the companion$extras into $venv"
  run "$venv/bin/python" -m pip install "${pip_args[@]}" -e "$here$extras" \
    || fail "pip could not install the companion (see the messages above)"
  if [ "$dry_run" = 0 ]; then touch "$stamp"; fi
fi

if [ "$dry_run" = 0 ]; then
  "$venv/bin/python" -c "import cv2, zxingcpp, pyzbar.pyzbar, gpiozero, flask, segno" \
    || fail "the companion's libraries do not import in $venv (see the error above)"
fi

if [ "$want_service" = 1 ]; then
  "$here/systemd/install-service.sh" $([ "$dry_run" = 1 ] && echo --dry-run)
fi

say "done. Run the companion with: $venv/bin/companion run"
