#!/usr/bin/env bash
# Installs Table Companion as a systemd service (called by `setup.sh --service`).
#
#   systemd/install-service.sh             install to /opt/companion and start at boot
#   systemd/install-service.sh --in-place  run from this checkout instead of a copy in /opt/companion
#   systemd/install-service.sh --dry-run   print what would be done, change nothing
#
# Creates the user `companion` (groups video and gpio), keeps state in /var/lib/companion,
# installs and enables systemd/companion.service. Safe to run again.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APP_DIR="${COMPANION_APP_DIR:-/opt/companion}"
STATE_DIR=/var/lib/companion
SERVICE_USER=companion
UNIT_NAME=companion.service
UNIT_DIR="${COMPANION_UNIT_DIR:-/etc/systemd/system}"
dry_run=0
in_place=0

for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=1 ;;
    --in-place) in_place=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-service.sh: unknown option '$arg' (try --help)" >&2; exit 64 ;;
  esac
done

say() { printf '\033[1mservice:\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31mservice install failed:\033[0m %s\n' "$*" >&2; exit 1; }
run() {
  if [ "$dry_run" = 1 ]; then printf '  would run: %s\n' "$*"; else "$@"; fi
}

if [ "$in_place" = 1 ]; then APP_DIR="$here"; fi

if [ "$dry_run" = 0 ]; then
  [ "$(id -u)" = 0 ] || fail "run as root (sudo ./setup.sh --service)"
  command -v systemctl >/dev/null || fail "systemctl not found: this machine does not run systemd"
fi

# ---- the user ----------------------------------------------------------------
groups=()
for group in video gpio; do
  if getent group "$group" >/dev/null; then
    groups+=("$group")
  else
    say "group '$group' does not exist here (not Raspberry Pi OS?): the camera or GPIO may be out of reach"
  fi
done
group_list="$(IFS=,; echo "${groups[*]:-}")"

if id "$SERVICE_USER" >/dev/null 2>&1; then
  say "user $SERVICE_USER exists"
  if [ -n "$group_list" ]; then run usermod -a -G "$group_list" "$SERVICE_USER"; fi
else
  say "creating the system user $SERVICE_USER${group_list:+ (groups $group_list)}"
  run useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home --shell /usr/sbin/nologin \
    ${group_list:+--groups "$group_list"} "$SERVICE_USER"
fi

# ---- the program ---------------------------------------------------------------
if [ "$APP_DIR" != "$here" ]; then
  say "copying the companion from $here to $APP_DIR"
  run mkdir -p "$APP_DIR"
  # The checkout's own files, not its .venv, caches or data.
  if [ "$dry_run" = 1 ]; then
    printf '  would run: tar -C %s --exclude=.venv --exclude=.git --exclude=__pycache__ -cf - . | tar -C %s -xf -\n' "$here" "$APP_DIR"
  else
    tar -C "$here" --exclude=.venv --exclude=.git --exclude=__pycache__ --exclude='*.pyc' -cf - . | tar -C "$APP_DIR" -xf -
  fi
  say "building $APP_DIR/.venv"
  run "$APP_DIR/setup.sh"
fi
[ "$dry_run" = 1 ] || [ -x "$APP_DIR/.venv/bin/companion" ] \
  || fail "$APP_DIR/.venv/bin/companion is missing: run $APP_DIR/setup.sh first"

# ---- the state -------------------------------------------------------------------
run install -d -m 0750 -o "$SERVICE_USER" -g "$SERVICE_USER" "$STATE_DIR"

# ---- the unit ------------------------------------------------------------------
unit_source="$here/systemd/$UNIT_NAME"
[ -r "$unit_source" ] || fail "$unit_source is missing"
unit_text="$(sed "s#/opt/companion#$APP_DIR#g" "$unit_source")"
if [ -n "$group_list" ]; then
  unit_text="$(printf '%s\n' "$unit_text" | sed "s/^SupplementaryGroups=.*/SupplementaryGroups=${group_list//,/ }/")"
else
  unit_text="$(printf '%s\n' "$unit_text" | sed '/^SupplementaryGroups=/d')"
fi
case "$APP_DIR" in
  /home/*|/root/*)
    # ProtectHome=yes would hide a checkout in a home folder from the service.
    unit_text="$(printf '%s\n' "$unit_text" | sed 's/^ProtectHome=yes$/ProtectHome=read-only/')" ;;
esac
target="$UNIT_DIR/$UNIT_NAME"
if [ -f "$target" ] && [ "$(cat "$target")" = "$unit_text" ]; then
  say "$target is up to date"
else
  say "installing $target"
  if [ "$dry_run" = 1 ]; then
    printf '  would write %s (ExecStart=%s/.venv/bin/companion run)\n' "$target" "$APP_DIR"
  else
    printf '%s\n' "$unit_text" > "$target.new"
    mv "$target.new" "$target"
  fi
fi

run systemctl daemon-reload
run systemctl enable "$UNIT_NAME"
# restart, not start: a running service must pick up a new unit or a new version.
run systemctl restart "$UNIT_NAME"
say "installed. Status: systemctl status companion; log: journalctl -u companion -f; check: $APP_DIR/.venv/bin/companion doctor"
