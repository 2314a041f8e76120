#!/usr/bin/env bash
# Stop the throwaway PostgreSQL server scripts/start_postgres.sh started with AWM_TEST_PG_DATA=<dir>, and remove
# its files. Quiet and harmless when there is no server there (already stopped, or it never started).
#   usage: scripts/stop_postgres.sh <dir>
set -uo pipefail
DATA="${1:?usage: scripts/stop_postgres.sh <the AWM_TEST_PG_DATA directory>}"
if [ -f "$DATA/db/postmaster.pid" ]; then
  PGBIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  RUN_AS=()
  [ "$(id -u)" = "0" ] && RUN_AS=(runuser -u postgres --)
  "${RUN_AS[@]}" "$PGBIN/pg_ctl" -D "$DATA/db" -m fast -w stop >/dev/null 2>&1 || true
fi
rm -rf "$DATA"
