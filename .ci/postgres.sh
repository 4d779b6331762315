#!/usr/bin/env bash
# Install (Debian package `postgresql`), start, and prepare a PostgreSQL server for the gradebook
# tests; prints the database URL for them. Idempotent; run as root (as CI does).
#   export ATTNLAB_POSTGRES_URL=$(bash .ci/postgres.sh)
set -euo pipefail
{
  if ! command -v pg_lsclusters >/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
  fi
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  if ! pg_lsclusters -h | awk '{print $1, $2}' | grep -qx "$version main"; then
    pg_createcluster "$version" main
  fi
  if ! pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $4}' | grep -qx online; then
    pg_ctlcluster "$version" main start
  fi
  port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $3}')
  for _ in $(seq 1 30); do
    su postgres -c "psql -p $port -tAc 'select 1'" >/dev/null 2>&1 && break
    sleep 1
  done
  su postgres -c "psql -p $port -v ON_ERROR_STOP=1 -tAc \"DO \\\$\\\$ BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'attnlab') THEN
      CREATE ROLE attnlab LOGIN CREATEDB PASSWORD 'attnlab';
    END IF; END \\\$\\\$;\""
  if ! su postgres -c "psql -p $port -tAc \"SELECT 1 FROM pg_database WHERE datname = 'attnlab'\"" | grep -qx 1; then
    su postgres -c "createdb -p $port -O attnlab attnlab"
  fi
} >&2
echo "postgresql://attnlab:attnlab@127.0.0.1:${port}/attnlab"
