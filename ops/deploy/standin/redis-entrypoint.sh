#!/bin/sh
# Entrypoint of the local Redis stand-in (ops/deploy/offline-images.sh), as the official image's:
# without a configuration file, protected mode is off (Debian's redis-server otherwise refuses
# clients from other containers), and the server runs as user redis.
set -eu

if [ "${1#-}" != "$1" ]; then
  set -- redis-server "$@"
fi

if [ "$1" = redis-server ]; then
  case "${2:-}" in
    *.conf) ;;
    *)
      set -- "$@" --protected-mode no
      ;;
  esac
  if [ "$(id -u)" = 0 ]; then
    exec setpriv --reuid=redis --regid=redis --init-groups "$@"
  fi
fi

exec "$@"
