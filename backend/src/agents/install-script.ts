/**
 * The installer behind `curl -fsSL '<base>/api/agent/install.sh?key=…' | sudo sh`
 * (contracts.md "Agent protocol"). Plain POSIX sh (dash, busybox ash): no
 * bashisms, no jq. Everything runs inside `main`, so a download cut short
 * runs nothing. It changes nothing on the host until the build's checksum and
 * the enrollment key have both been checked; running it again updates the
 * agent, its configuration and its unit.
 */

/** An enrollment key as clusters carry them (base64url); anything else is refused before it reaches a script. */
export const ENROLLMENT_KEY_FORMAT = /^[A-Za-z0-9_-]{16,128}$/;

/** A single-quoted sh word: nothing inside is expanded. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

// Installers from 2.28.1 write StartLimitIntervalSec=0 (spec "Versioning"): systemd never gives up
// restarting. It is also a drop-in, which survives a unit file replaced by hand or by a package.
// `#USER` becomes `User=argus-agent` where the installer could create that system user, else goes;
// `#GROUPS` then becomes `SupplementaryGroups=systemd-journal` where that group exists: the journal
// is where the agent reads OOM kills and failed units from (agent/src/events), which needs it.
const UNIT = `[Unit]
Description=Argus monitoring agent
Wants=network-online.target
After=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
ExecStart=/usr/local/bin/argus-agent run --config /etc/argus-agent/config.yaml
#USER
#GROUPS
StateDirectory=argus-agent
StateDirectoryMode=0700
Restart=always
RestartSec=5
# the agent exits 75 to be restarted into an update it installed: a clean stop, restarted
SuccessExitStatus=75
RestartForceExitStatus=75

[Install]
WantedBy=multi-user.target`;

const START_LIMIT_DROP_IN = `[Unit]
StartLimitIntervalSec=0`;

const SCRIPT = `#!/bin/sh
# Argus agent installer. Run it as root:
#   curl -fsSL @@INSTALL_URL@@ | sudo sh
# Installs /usr/local/lib/argus-agent/argus-agent (linked from /usr/local/bin;
# owned by the service's user, so the agent can update itself), writes /etc/argus-agent/config.yaml
# (mode 0600: it holds the webhook secret), creates the system user argus-agent
# where useradd exists, and installs the systemd unit argus-agent.service (with
# the unlimited start-limit drop-in), then enables and starts it. Run it again to
# update. In a container without systemd:
#   curl -fsSL @@INSTALL_URL@@ | sh -s -- --no-systemd
# installs the same and runs the agent in the foreground.
set -eu

ARGUS_URL=@@BASE@@
ENROLLMENT_KEY=@@KEY@@
# ARGUS_INSTALL_ROOT: install below another root (image builds, tests); empty for this host
ROOT=\${ARGUS_INSTALL_ROOT:-}
BIN_DIR=$ROOT/usr/local/bin
LIB_DIR=$ROOT/usr/local/lib/argus-agent
CONF_DIR=$ROOT/etc/argus-agent
UNIT_DIR=$ROOT/etc/systemd/system
AGENT_USER=argus-agent

say() { printf 'argus-agent install: %s\\n' "$*"; }
fail() {
  printf 'argus-agent install: %s\\n' "$*" >&2
  exit 1
}

detect_arch() {
  machine=$(uname -m)
  case "$machine" in
    x86_64 | amd64) ARCH=x86_64 ;;
    aarch64 | arm64) ARCH=aarch64 ;;
    *) fail "unsupported architecture: $machine (agent builds exist for x86_64 and aarch64)" ;;
  esac
}

choose_fetcher() {
  if command -v curl >/dev/null 2>&1; then
    FETCHER=curl
  elif command -v wget >/dev/null 2>&1; then
    FETCHER=wget
  else
    fail "curl or wget is required"
  fi
}

# fetch URL FILE
fetch() {
  if [ "$FETCHER" = curl ]; then
    curl -fsSL --retry 3 --connect-timeout 15 -o "$2" "$1"
  else
    wget -q -T 30 -t 3 -O "$2" "$1"
  fi
}

# json_field NAME FILE: the string value of "NAME" in the one-line JSON answer
json_field() {
  sed -n 's/.*"'"$1"'"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p' "$2" | head -n 1
}

# install_file SOURCE TARGET MODE: replaced by a rename, so a running binary is never half written
install_file() {
  cp "$1" "$2.new"
  chmod "$3" "$2.new"
  mv -f "$2.new" "$2"
}

# create_user: a system account for the service where the host has useradd (the agent reads /proc
# and /sys, which need no root); echoes the unit's User= line, or nothing (it then runs as root)
create_user() {
  if [ -n "$ROOT" ] || ! command -v useradd >/dev/null 2>&1; then return 0; fi
  if ! id "$AGENT_USER" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$AGENT_USER" >/dev/null 2>&1 ||
      return 0
  fi
  printf 'User=%s\n' "$AGENT_USER"
}

main() {
  SYSTEMD=yes
  for argument in "$@"; do
    case "$argument" in
      --no-systemd) SYSTEMD=no ;;
      *) fail "unknown option: $argument (the only one is --no-systemd)" ;;
    esac
  done
  [ "$(id -u)" = 0 ] || fail "run this as root (for example with sudo)"
  [ -n "$ARGUS_URL" ] || fail "the Argus server does not know its public address (set PUBLIC_URL there)"
  if [ "$SYSTEMD" = yes ]; then
    command -v systemctl >/dev/null 2>&1 || fail "systemd is required (in a container: sh -s -- --no-systemd)"
  fi
  command -v sha256sum >/dev/null 2>&1 || fail "sha256sum is required"
  detect_arch
  choose_fetcher

  mkdir -p "$BIN_DIR" "$LIB_DIR" "$UNIT_DIR"
  umask 077
  TMP_DIR=$(mktemp -d)
  trap 'rm -rf "$TMP_DIR"' EXIT
  trap 'exit 1' HUP INT TERM

  say "asking $ARGUS_URL for the newest agent build for $ARCH"
  fetch "$ARGUS_URL/api/agent/version?arch=$ARCH" "$TMP_DIR/version.json" ||
    fail "no agent build for $ARCH is available from $ARGUS_URL"
  VERSION=$(json_field version "$TMP_DIR/version.json")
  DOWNLOAD_URL=$(json_field url "$TMP_DIR/version.json")
  SHA256=$(json_field sha256 "$TMP_DIR/version.json")
  if [ -z "$VERSION" ] || [ -z "$DOWNLOAD_URL" ] || [ "$(printf '%s' "$SHA256" | wc -c)" -ne 64 ]; then
    fail "unexpected answer from $ARGUS_URL/api/agent/version"
  fi

  say "downloading argus-agent $VERSION"
  fetch "$DOWNLOAD_URL" "$TMP_DIR/argus-agent" || fail "downloading $DOWNLOAD_URL failed"
  ACTUAL=$(sha256sum "$TMP_DIR/argus-agent" | cut -d ' ' -f 1)
  [ "$ACTUAL" = "$SHA256" ] || fail "checksum mismatch for $DOWNLOAD_URL (expected $SHA256, got $ACTUAL)"

  say "fetching the agent configuration"
  fetch "$ARGUS_URL/api/agent/config?key=$ENROLLMENT_KEY" "$TMP_DIR/config.yaml" ||
    fail "the server refused the enrollment key (was it rotated? copy the install command again)"
  grep -q '^webhook_secret:' "$TMP_DIR/config.yaml" || fail "unexpected configuration from the server"

  mkdir -p "$CONF_DIR"
  chmod 0700 "$CONF_DIR"
  install_file "$TMP_DIR/config.yaml" "$CONF_DIR/config.yaml" 0600
  install_file "$TMP_DIR/argus-agent" "$LIB_DIR/argus-agent" 0755
  # the command is a link (it replaces the file an older installer put there): the agent updates the
  # file in its own directory, which its user may write, never anything in /usr/local/bin
  ln -sf ../lib/argus-agent/argus-agent "$BIN_DIR/argus-agent.new"
  mv -f "$BIN_DIR/argus-agent.new" "$BIN_DIR/argus-agent"

  if [ "$SYSTEMD" = no ]; then
    say "argus-agent $VERSION is installed; running it in the foreground"
    exec "$BIN_DIR/argus-agent" run --config "$CONF_DIR/config.yaml"
  fi

  user_line=$(create_user)
  # the agent replaces its own executable when Argus offers an update (and writes its download beside it)
  if [ -n "$user_line" ]; then
    chown "$AGENT_USER" "$CONF_DIR" "$CONF_DIR/config.yaml" "$LIB_DIR" "$LIB_DIR/argus-agent"
  fi
  was_active=no
  if systemctl is-active --quiet argus-agent; then was_active=yes; fi
  cat >"$TMP_DIR/argus-agent.service" <<'UNIT'
@@UNIT@@
UNIT
  # the User= line, or no line at all; the journal's group for that user where the group exists
  groups_line=
  if [ -n "$user_line" ] && grep -q '^systemd-journal:' /etc/group 2>/dev/null; then
    groups_line='SupplementaryGroups=systemd-journal'
  fi
  user_edit='/^#USER$/d'
  if [ -n "$user_line" ]; then user_edit="s/^#USER\\$/$user_line/"; fi
  groups_edit='/^#GROUPS$/d'
  if [ -n "$groups_line" ]; then groups_edit="s/^#GROUPS\\$/$groups_line/"; fi
  sed -e "$user_edit" -e "$groups_edit" "$TMP_DIR/argus-agent.service" >"$TMP_DIR/unit"
  install_file "$TMP_DIR/unit" "$UNIT_DIR/argus-agent.service" 0644
  mkdir -p "$UNIT_DIR/argus-agent.service.d"
  cat >"$TMP_DIR/start-limit.conf" <<'DROPIN'
@@START_LIMIT@@
DROPIN
  install_file "$TMP_DIR/start-limit.conf" "$UNIT_DIR/argus-agent.service.d/10-start-limit.conf" 0644
  systemctl daemon-reload
  systemctl enable --now argus-agent
  # enable --now leaves an already running agent on its old binary
  if [ "$was_active" = yes ]; then systemctl restart argus-agent; fi
  say "argus-agent $VERSION is installed and running (follow it with: journalctl -u argus-agent -f)"
}

main "$@"
`;

/**
 * The installer for one enrollment key. `base` is the public URL (PUBLIC_URL,
 * else AUTH_URL; '' when neither is set: the script then stops with a message);
 * `key` must already match ENROLLMENT_KEY_FORMAT.
 */
export function renderInstallScript({ base, key }: { base: string; key: string }): string {
  if (!ENROLLMENT_KEY_FORMAT.test(key)) throw new Error('enrollment key has an unexpected format');
  const values: Record<string, string> = {
    '@@BASE@@': shQuote(base),
    '@@KEY@@': shQuote(key),
    '@@INSTALL_URL@@': shQuote(`${base}/api/agent/install.sh?key=${key}`),
    '@@UNIT@@': UNIT,
    '@@START_LIMIT@@': START_LIMIT_DROP_IN,
  };
  return SCRIPT.replace(/@@[A-Z_]+@@/g, (token) => values[token] ?? token);
}
