#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the production-profile tests, installing
# Debian's package if the machine lacks it. Prints the connection URL on stdout (last line).
#   usage: eval "export AWM_TEST_PG_URL=$(scripts/start_postgres.sh)"
# With AWM_TEST_PG_DATA set (an empty directory), the server keeps its files there, so the caller can stop it and
# remove them: scripts/stop_postgres.sh "$AWM_TEST_PG_DATA" (what .ci/run does when it exits).
set -euo pipefail
PORT="${AWM_TEST_PG_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}"
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  echo "installing postgresql from Debian's packages" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
DATA="${AWM_TEST_PG_DATA:-$(mktemp -d /tmp/awm-pg.XXXXXX)}"
RUN_AS=()
if [ "$(id -u)" = "0" ]; then  # the server refuses to run as root
  id postgres >/dev/null 2>&1 || useradd --system --home "$DATA" postgres
  chown postgres "$DATA"
  RUN_AS=(runuser -u postgres --)
fi
"${RUN_AS[@]}" "$PGBIN/initdb" -D "$DATA/db" -A trust -U awm >/dev/null
"${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$DATA/db" -l "$DATA/server.log" -w \
  -o "-p $PORT -k $DATA -c listen_addresses=127.0.0.1 -c fsync=off" start >&2
"$PGBIN/createdb" -h 127.0.0.1 -p "$PORT" -U awm awm
echo "postgresql+psycopg2://awm@127.0.0.1:$PORT/awm"
