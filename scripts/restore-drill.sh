#!/usr/bin/env bash
# Restore drill: a base backup (pg_basebackup, plain format) plus archived WAL, recovered to a point in time
# into a scratch cluster on a spare port, then `gateway ledger verify` against it. The production cluster is
# never touched. Prints the verify report (JSON) and exits with its status.
#
#   scripts/restore-drill.sh BASE_BACKUP_DIR WAL_ARCHIVE_DIR 'TARGET_TIME' SCRATCH_DIR PORT [DATABASE]
#
# TARGET_TIME is any timestamptz PostgreSQL reads ('2026-01-31 14:05:00-03'); SCRATCH_DIR must not exist.
# PG_BIN names the server binaries of the backup's major version (default: Debian's PostgreSQL 15). As root,
# the server runs as the `postgres` user. KEEP=1 leaves the restored server running for a look inside. Needs
# the built gateway (`npm run build`: it runs dist/bundle/main.mjs, as `npm start` does).
set -euo pipefail

if [ $# -lt 5 ]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
base=$(realpath "$1") archive=$(realpath "$2") target=$3 scratch=$4 port=$5 database=${6:-gateway}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
here=$(cd "$(dirname "$0")/.." && pwd)

as_server_user() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

mkdir -p "$scratch"
scratch=$(realpath "$scratch")
cp -a "$base/." "$scratch/"
rm -f "$scratch/postmaster.pid" "$scratch/standby.signal"
touch "$scratch/recovery.signal"
cat >> "$scratch/postgresql.auto.conf" <<EOF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$scratch'
archive_mode = off
synchronous_standby_names = ''
primary_conninfo = ''
restore_command = 'cp "$archive/%f" "%p"'
recovery_target_time = '$target'
recovery_target_action = 'promote'
EOF
[ "$(id -u)" = 0 ] && chown -R postgres: "$scratch"
chmod 700 "$scratch"

as_server_user "$PG_BIN/pg_ctl" -D "$scratch" -l "$scratch/restore.log" -w -t 120 start >/dev/null
stop() { [ "${KEEP:-}" = 1 ] || as_server_user "$PG_BIN/pg_ctl" -D "$scratch" -m fast -w stop >/dev/null; }
trap stop EXIT
# recovery is over when the server accepts writes (it promotes itself at the target)
for _ in $(seq 1 600); do
  state=$(as_server_user "$PG_BIN/psql" -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()' 2>/dev/null || true)
  [ "$state" = f ] && break
  sleep 0.2
done
[ "$state" = f ] || { echo "restore-drill: recovery did not finish (see $scratch/restore.log)" >&2; exit 1; }

DATABASE_URL="postgres://postgres@127.0.0.1:$port/$database" node "$here/dist/bundle/main.mjs" ledger verify --json
