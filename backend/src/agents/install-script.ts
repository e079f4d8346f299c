/**
 * The installer behind `printf 'Argus-Enrollment-Key: %s\n' '<key>' | curl -fsSL -H @- '<base>/api/agent/install.sh' | sh`
 * (docs/decisions.md "The agent on its host: root owns what root runs or reads; the enrolment key out of
 * URLs"; `installCommand` in contracts/agents.ts). Plain POSIX sh (dash, busybox ash): no
 * bashisms, no jq. The script served is a small wrapper that pipes the installer proper (a quoted
 * here-document) into `sh` as root, or into `sudo sh` when run by another account: the same command
 * works in a root shell without sudo. Everything runs inside `main`, so a download cut short runs
 * nothing. It changes nothing on the host until the build's checksum and the enrollment key have both
 * been checked; running it again updates the agent, its configuration and its unit.
 *
 * What root runs or reads is root's: the executable and its directory, the configuration (readable by
 * the agent's group), the unit. The installer writes each file as a new file (`mktemp`: O_EXCL) in a
 * directory only root may write, gives it its owner and mode there, then renames it over the old one;
 * it follows no link it did not make, and refuses, naming the path, where one stands in its way. The
 * enrollment key never reaches a URL or a command line: curl and wget read its header from a file.
 */

import { ENROLLMENT_KEY_HEADER } from '../../../contracts/agents.js';

/** An enrollment key as clusters carry them (base64url); anything else is refused before it reaches a script. */
export const ENROLLMENT_KEY_FORMAT = /^[A-Za-z0-9_-]{16,128}$/;

/** A single-quoted sh word: nothing inside is expanded. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

// Installers from 2.28.1 write StartLimitIntervalSec=0: systemd never gives up
// restarting. It is also a drop-in, which survives a unit file replaced by hand or by a package.
// `#USER` becomes `User=argus-agent` where the installer could create that system user, else goes;
// `#GROUPS` then becomes `SupplementaryGroups=systemd-journal` where that group exists: the journal
// is where the agent reads OOM kills and failed units from (agent/src/events), which needs it.
// StateDirectory= also makes the drop-in metrics' directory (textfile/), the agent's like the rest.
// ExecStartPre's `+` runs as root whatever User= says: the root-owned executable installs an update the
// agent staged in its state directory once its sha256 matches the server's (agent/src/install-update.ts);
// `-`: a build without that step (older than the installer) must not keep the agent from starting.
// MALLOC_ARENA_MAX=1: one malloc arena instead of one per thread (libuv's pool, V8's helpers); the
// agent allocates little outside V8's heap, and it measured ~2 MB less RSS and no more CPU
// (docs/performance.md "The agent's footprint").
const UNIT = `[Unit]
Description=Argus monitoring agent
Wants=network-online.target
After=network-online.target
StartLimitIntervalSec=0

[Service]
Type=simple
ExecStartPre=-+/usr/local/lib/argus-agent/argus-agent install-update --config /etc/argus-agent/config.yaml
ExecStart=/usr/local/bin/argus-agent run --config /etc/argus-agent/config.yaml
Environment=MALLOC_ARENA_MAX=1
#USER
#GROUPS
StateDirectory=argus-agent argus-agent/textfile
StateDirectoryMode=0700
Restart=always
RestartSec=5
# the agent exits 75 to be restarted into an update it installed or staged: a clean stop, restarted
SuccessExitStatus=75
RestartForceExitStatus=75

[Install]
WantedBy=multi-user.target`;

const START_LIMIT_DROP_IN = `[Unit]
StartLimitIntervalSec=0`;

/** The installer proper, run as root (the wrapper below sees to that). */
const INSTALLER = `#!/bin/sh
set -eu

ARGUS_URL=@@BASE@@
ENROLLMENT_KEY=@@KEY@@
# ARGUS_INSTALL_ROOT: install below another root (image builds, tests); empty for this host. There, files
# keep the installing account's owner (nothing is chowned) and no system user is made.
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

# fetch_with_key URL FILE: the enrollment key goes in a header that curl (-H @file) and wget (a wgetrc)
# read from a file of this run's private directory: never in the URL, never on a command line (ps)
fetch_with_key() {
  if [ "$FETCHER" = curl ]; then
    printf '@@HEADER@@: %s\\n' "$ENROLLMENT_KEY" >"$TMP_DIR/key.header"
    curl -fsSL --retry 3 --connect-timeout 15 -H "@$TMP_DIR/key.header" -o "$2" "$1"
  else
    printf 'header = @@HEADER@@: %s\\n' "$ENROLLMENT_KEY" >"$TMP_DIR/key.wgetrc"
    wget -q -T 30 -t 3 --config="$TMP_DIR/key.wgetrc" -O "$2" "$1"
  fi
}

# json_field NAME FILE: the string value of "NAME" in the one-line JSON answer
json_field() {
  sed -n 's/.*"'"$1"'"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p' "$2" | head -n 1
}

# refuse_link PATH: the agent's account may have planted a link where root is about to write
refuse_link() {
  if [ -L "$1" ]; then
    fail "$1 is a symbolic link this installer did not make, and it follows none: remove it and run the installer again"
  fi
}

# own_dir DIR MODE GROUP: DIR a real directory of root's with MODE and GROUP, made where missing (an older
# installer gave some to the agent's user). Its parent is root's, so nothing can swap it once checked.
own_dir() {
  refuse_link "$1"
  if [ -e "$1" ] && [ ! -d "$1" ]; then fail "$1 is not a directory: move it away and run the installer again"; fi
  (umask 022 && mkdir -p "$1")
  if [ -z "$ROOT" ]; then chown "root:$3" "$1"; fi
  chmod "$2" "$1"
}

# install_file SOURCE DIR NAME MODE GROUP: written to a new file (mktemp: O_EXCL) in DIR, which only root
# writes, given its owner and mode there, then renamed over DIR/NAME: a link at NAME is replaced, never
# followed, and a running binary is never half written
install_file() {
  if [ -d "$2/$3" ] && [ ! -L "$2/$3" ]; then fail "$2/$3 is a directory: move it away and run the installer again"; fi
  new=$(mktemp "$2/.$3.XXXXXX")
  cat "$1" >"$new"
  if [ -z "$ROOT" ]; then chown "root:$5" "$new"; fi
  chmod "$4" "$new"
  mv -f "$new" "$2/$3"
}

# create_user: a system account for the service where the host has useradd (the agent reads /proc
# and /sys, which need no root). Sets RUN_AS (the account, or empty: the agent then runs as root) and
# AGENT_GROUP (the group that may read the configuration).
create_user() {
  RUN_AS=
  AGENT_GROUP=root
  if [ -n "$ROOT" ] || [ "$SYSTEMD" = no ] || ! command -v useradd >/dev/null 2>&1; then return 0; fi
  if ! id "$AGENT_USER" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$AGENT_USER" >/dev/null 2>&1 ||
      return 0
  fi
  RUN_AS=$AGENT_USER
  AGENT_GROUP=$(id -gn "$AGENT_USER")
}

# docker_group: with --docker, the group that owns the container engine's socket, which the agent's
# account joins (SupplementaryGroups): reading the socket is root-equivalent, so only when asked.
docker_group() {
  DOCKER_GROUP=
  [ "$DOCKER" = yes ] && [ -n "$RUN_AS" ] || return 0
  socket=$ROOT/var/run/docker.sock
  if [ ! -S "$socket" ]; then
    say "no Docker socket at /var/run/docker.sock: the agent reads no containers until the agent setting containers.socket names one"
    return 0
  fi
  DOCKER_GROUP=$(stat -c %G "$socket" 2>/dev/null || true)
  if [ -z "$DOCKER_GROUP" ] || [ "$DOCKER_GROUP" = root ]; then
    say "the Docker socket belongs to root's group: the agent cannot read it without running as root"
    DOCKER_GROUP=
  fi
}

main() {
  SYSTEMD=yes
  DOCKER=no
  for argument in "$@"; do
    case "$argument" in
      --no-systemd) SYSTEMD=no ;;
      --docker) DOCKER=yes ;;
      *) fail "unknown option: $argument (the options are --no-systemd and --docker)" ;;
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
  fetch_with_key "$ARGUS_URL/api/agent/config" "$TMP_DIR/config.yaml" ||
    fail "the server refused the enrollment key (was it rotated? copy the install command again)"
  grep -q '^webhook_secret:' "$TMP_DIR/config.yaml" || fail "unexpected configuration from the server"

  create_user
  docker_group
  CONF_MODE=0600
  CONF_DIR_MODE=0700
  if [ -n "$RUN_AS" ]; then
    CONF_MODE=0640
    CONF_DIR_MODE=0750
  fi
  # root's, every one, before anything is written in them; the configuration is read by the agent's group
  own_dir "$BIN_DIR" 0755 root
  own_dir "$LIB_DIR" 0755 root
  own_dir "$CONF_DIR" "$CONF_DIR_MODE" "$AGENT_GROUP"
  # script checks: root's executables the agent runs (it refuses a file root does not own)
  own_dir "$CONF_DIR/checks.d" 0755 root
  # what an older installer or the agent's account left where root now writes alone
  rm -rf "$CONF_DIR/config.yaml.new" "$LIB_DIR/argus-agent.new" "$LIB_DIR"/.argus-agent.*.download
  install_file "$TMP_DIR/config.yaml" "$CONF_DIR" config.yaml "$CONF_MODE" "$AGENT_GROUP"
  install_file "$TMP_DIR/argus-agent" "$LIB_DIR" argus-agent 0755 root
  # the command is a link to the executable (it replaces the file an older installer put there)
  ln -s ../lib/argus-agent/argus-agent "$TMP_DIR/command"
  mv -f "$TMP_DIR/command" "$BIN_DIR/argus-agent"

  if [ "$SYSTEMD" = no ]; then
    # drop-in metrics; under systemd the unit's StateDirectory= makes it (the state directory is the agent's)
    (umask 022 && mkdir -p "$ROOT/var/lib/argus-agent/textfile")
    say "argus-agent $VERSION is installed; running it in the foreground"
    exec "$BIN_DIR/argus-agent" run --config "$CONF_DIR/config.yaml"
  fi

  was_active=no
  if systemctl is-active --quiet argus-agent; then was_active=yes; fi
  cat >"$TMP_DIR/argus-agent.service" <<'UNIT'
@@UNIT@@
UNIT
  # the User= line, or no line at all; the journal's group for that user where the group exists
  user_edit='/^#USER$/d'
  groups_edit='/^#GROUPS$/d'
  if [ -n "$RUN_AS" ]; then
    user_edit="s/^#USER\\$/User=$RUN_AS/"
    groups=
    if grep -q '^systemd-journal:' /etc/group 2>/dev/null; then groups=systemd-journal; fi
    if [ -n "$DOCKER_GROUP" ]; then groups="\${groups:+$groups }$DOCKER_GROUP"; fi
    if [ -n "$groups" ]; then groups_edit="s/^#GROUPS\\$/SupplementaryGroups=$groups/"; fi
  fi
  sed -e "$user_edit" -e "$groups_edit" "$TMP_DIR/argus-agent.service" >"$TMP_DIR/unit"
  own_dir "$UNIT_DIR" 0755 root
  install_file "$TMP_DIR/unit" "$UNIT_DIR" argus-agent.service 0644 root
  own_dir "$UNIT_DIR/argus-agent.service.d" 0755 root
  cat >"$TMP_DIR/start-limit.conf" <<'DROPIN'
@@START_LIMIT@@
DROPIN
  install_file "$TMP_DIR/start-limit.conf" "$UNIT_DIR/argus-agent.service.d" 10-start-limit.conf 0644 root
  systemctl daemon-reload
  systemctl enable --now argus-agent
  # enable --now leaves an already running agent on its old binary
  if [ "$was_active" = yes ]; then systemctl restart argus-agent; fi
  say "argus-agent $VERSION is installed and running as \${RUN_AS:-root} (follow it with: journalctl -u argus-agent -f)"
}

main "$@"
`;

/**
 * What is served: the installer in a quoted here-document, piped into a root shell. `sh -s` reads it
 * from the pipe, so nothing of it (the key) reaches a command line; sudo asks on the terminal.
 */
const WRAPPER = `#!/bin/sh
# Argus agent installer. Run it as root, or as an account that may use sudo (it asks for it then):
#   printf '@@HEADER@@: %s\\n' '<enrollment key>' | curl -fsSL -H @- @@INSTALL_URL@@ | sh
# Installs /usr/local/lib/argus-agent/argus-agent (linked from /usr/local/bin), writes
# /etc/argus-agent/config.yaml (it holds the webhook secret: readable by root and the agent's group only),
# creates the system user argus-agent where useradd exists and runs the agent as that user, and installs
# the systemd unit argus-agent.service (with the unlimited start-limit drop-in), then enables and starts it.
# Everything root runs or reads stays root's: updates the agent downloads are installed by the unit's
# root start step once their sha256 matches the server's. Run it again to update. In a container
# without systemd, end the command with:
#   | sh -s -- --no-systemd
# which installs the same and runs the agent in the foreground. To let the agent read the Docker
# engine's containers, add --docker (its account joins the socket's group: that is root-equivalent;
# a read-only socket proxy named in the agent setting containers.socket is the safer way).
set -eu

installer() {
  cat <<'ARGUS_INSTALLER_END'
@@INSTALLER@@
ARGUS_INSTALLER_END
}

if [ "$(id -u)" = 0 ]; then
  installer | sh -s -- "$@"
elif command -v sudo >/dev/null 2>&1; then
  printf 'argus-agent install: %s\\n' 'not running as root: asking sudo to run the installer' >&2
  installer | sudo sh -s -- "$@"
else
  printf 'argus-agent install: %s\\n' 'run this as root (this host has no sudo: log in as root, or use su)' >&2
  exit 1
fi
`;

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/@@[A-Z_]+@@/g, (token) => values[token] ?? token);
}

/** The installer proper for one key (what the wrapper runs as root; tests shellcheck it apart). */
export function renderInstaller({ base, key }: { base: string; key: string }): string {
  if (!ENROLLMENT_KEY_FORMAT.test(key)) throw new Error('enrollment key has an unexpected format');
  return fill(INSTALLER, {
    '@@BASE@@': shQuote(base),
    '@@KEY@@': shQuote(key),
    '@@HEADER@@': ENROLLMENT_KEY_HEADER,
    '@@UNIT@@': UNIT,
    '@@START_LIMIT@@': START_LIMIT_DROP_IN,
  });
}

/**
 * The installer for one enrollment key. `base` is the public URL (PUBLIC_URL,
 * else AUTH_URL; '' when neither is set: the script then stops with a message);
 * `key` must already match ENROLLMENT_KEY_FORMAT.
 */
export function renderInstallScript({ base, key }: { base: string; key: string }): string {
  return fill(WRAPPER, {
    '@@HEADER@@': ENROLLMENT_KEY_HEADER,
    '@@INSTALL_URL@@': shQuote(`${base}/api/agent/install.sh`),
    '@@INSTALLER@@': renderInstaller({ base, key }).trimEnd(),
  });
}
