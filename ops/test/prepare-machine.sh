#!/usr/bin/env bash
# pretest: make sure what the tests talk to is here and running — Chromium (karma,
# end-to-end), PostgreSQL on 127.0.0.1:5432 (trust for user postgres) and Redis on
# 127.0.0.1:6379. Starts servers that are installed but down; on Debian as root it
# installs what is missing; elsewhere it stops with the exact command to run.
set -euo pipefail

can_install() { [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; }
apt_updated=0
apt_install() {
  if ! can_install; then
    echo "prepare: missing $*. Install it, e.g.: sudo apt-get update && sudo apt-get install -y $*" >&2
    exit 1
  fi
  if [ "$apt_updated" = 0 ]; then
    echo "prepare: apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  echo "prepare: apt-get install -y $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  for _ in $(seq 1 50); do
    port_open "$1" && return 0
    sleep 0.2
  done
  return 1
}

# Chromium for karma and the end-to-end tests (never a downloaded browser)
if [ ! -x /usr/bin/chromium ]; then
  apt_install chromium
fi

# Deployment tools the tests run for real: shellcheck (the agent installer and every *.sh),
# Debian's docker-compose 1.29 (`config` validates the compose file without an engine), yamllint,
# nginx (the reverse-proxy example end to end) and openssl (its test certificate)
missing=()
for tool in shellcheck docker-compose yamllint nginx openssl; do # each Debian package has the tool's name
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}"
fi

# The network checks' tests run real servers and tools: dnsmasq answers a test zone, and ping is
# iputils' (the one the image installs; its package is not named after the tool)
command -v dnsmasq >/dev/null 2>&1 || [ -x /usr/sbin/dnsmasq ] || apt_install dnsmasq-base
command -v ping >/dev/null 2>&1 || apt_install iputils-ping

# The agent's aarch64 build runs under qemu's user-mode emulation: qemu-user-static and
# Debian's arm64 C and C++ runtimes (multiarch), which the Node runtime inside it links against
if [ ! -x /usr/bin/qemu-aarch64-static ] || [ ! -e /lib/ld-linux-aarch64.so.1 ]; then
  if can_install && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
    apt_updated=0
  fi
  apt_install qemu-user-static libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64
fi

# PostgreSQL
if ! port_open 5432; then
  if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    apt_install postgresql
    version=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
    # tests connect over TCP as postgres without a password, as on the service machines
    hba="/etc/postgresql/$version/main/pg_hba.conf"
    sed -i -E 's/^(host\s+all\s+all\s+127\.0\.0\.1\/32\s+)\S+/\1trust/; s/^(host\s+all\s+all\s+::1\/128\s+)\S+/\1trust/' "$hba"
  fi
  version=$(find /etc/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
  echo "prepare: starting PostgreSQL $version"
  pg_ctlcluster --skip-systemctl-redirect "$version" main start
  wait_port 5432 || { echo "prepare: PostgreSQL did not come up on 127.0.0.1:5432" >&2; exit 1; }
fi

# The real TimescaleDB for the storage tests: private clusters preload it (the shared server does not).
# The TimescaleDB build vendored in a folder beside the repository (its install.sh, below) installs its files for
# this PostgreSQL 15; without it the tests that need it fail saying what to install.
pg_lib=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name lib 2>/dev/null | sort -V | tail -n 1)
vendored="$(cd "$(dirname "$0")/../.." && pwd)/../shared/vendor/timescaledb/install.sh"
if [ -n "$pg_lib" ] && ! ls "$pg_lib"/timescaledb-[0-9]*.so >/dev/null 2>&1; then
  if [ -f "$vendored" ] && [ "$(id -u)" = 0 ]; then
    echo "prepare: installing the vendored TimescaleDB"
    sh "$vendored" || echo "prepare: the vendored TimescaleDB did not install; the storage tests will fail" >&2
  else
    echo "prepare: no TimescaleDB for $pg_lib and no vendored build to install; the storage tests will fail" >&2
  fi
fi

# Redis (also needed as a binary: some tests run a private redis-server they can stop)
if ! command -v redis-server >/dev/null 2>&1; then
  apt_install redis-server
fi
if ! port_open 6379; then
  echo "prepare: starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  wait_port 6379 || { echo "prepare: Redis did not come up on 127.0.0.1:6379" >&2; exit 1; }
fi

# A Docker engine for the production stack test (ops/stack): Debian's docker.io, and debootstrap for the
# local base images (no registry is reachable). A machine with an engine of its own (DOCKER_HOST, or the
# default socket) keeps it; otherwise dockerd starts here with its own data root and socket. When it
# cannot start, this says why and goes on: the stack test then fails with the same reason.
for tool in dockerd debootstrap; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || apt_install "$([ "$tool" = dockerd ] && echo docker.io || echo "$tool")"
done
# Podman for the agent's containers through Podman's Docker-compatible socket (agent/test/podman.test.ts):
# the test runs its own `podman system service` with storage of its own, so nothing here is started
command -v podman >/dev/null 2>&1 || apt_install podman
export DOCKER_HOST=${DOCKER_HOST:-unix:///run/argus-docker.sock}
if ! docker info >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "prepare: no Docker engine at $DOCKER_HOST and not root: start dockerd, or set DOCKER_HOST" >&2
  else
    echo "prepare: starting dockerd at $DOCKER_HOST (data root /var/lib/argus-docker, log /var/log/argus-dockerd.log)"
    mkdir -p /var/lib/argus-docker
    setsid nohup dockerd --data-root /var/lib/argus-docker -H "$DOCKER_HOST" --pidfile /run/argus-docker.pid \
      >/var/log/argus-dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
      docker info >/dev/null 2>&1 && break
      sleep 0.5
    done
    if ! docker info >/dev/null 2>&1; then
      echo "prepare: dockerd did not start; the stack test will fail. Its log ends with:" >&2
      tail -n 15 /var/log/argus-dockerd.log >&2
    fi
  fi
fi

echo "prepare: chromium, shellcheck, docker-compose, yamllint, nginx, dnsmasq, ping, qemu (arm64), docker, podman, PostgreSQL and Redis are ready"
