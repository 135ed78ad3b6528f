#!/bin/sh
# Initialises the cluster on first start: with POSTGRES_PASSWORD, clients authenticate with it
# (scram-sha-256); without it, trust (a test or a trial on one machine only).
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    pwfile=$(mktemp); printf '%s' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb -D "$PGDATA" -U postgres --auth=scram-sha-256 --pwfile="$pwfile" >/dev/null
    rm -f "$pwfile"
  else
    initdb -D "$PGDATA" -U postgres --auth=trust >/dev/null
  fi
  echo "host all all 0.0.0.0/0 $( [ -n "${POSTGRES_PASSWORD:-}" ] && echo scram-sha-256 || echo trust )" >> "$PGDATA/pg_hba.conf"
fi
exec postgres -D "$PGDATA" -p "$PGPORT" -c listen_addresses='*' -c max_connections="${POSTGRES_MAX_CONNECTIONS:-300}"
