#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback, for tests and benchmarks.
#   scripts/pg-cluster.sh start DIR   initdb into DIR/data (as a non-root user when run as root),
#                                     start it on a free 127.0.0.1 port with its socket in DIR,
#                                     and print its admin URL (postgres://postgres@127.0.0.1:PORT/postgres)
#   scripts/pg-cluster.sh stop DIR    stop it (DIR can then be removed)
#   scripts/pg-cluster.sh restart DIR `pg_ctl restart -m fast`: every connection is cut
#   scripts/pg-cluster.sh down DIR    stop it (fast), keeping its data and port
#   scripts/pg-cluster.sh up DIR      start it again after `down`, on the same port
#   scripts/pg-cluster.sh standby DIR PRIMARY_DIR
#                                     a streaming standby of the cluster in PRIMARY_DIR
#                                     (pg_basebackup -R), started on a free port; prints its URL
#   scripts/pg-cluster.sh promote DIR promote a standby to primary
# The binaries are found with `pg_config --bindir`, else in /usr/lib/postgresql/*/bin (Debian's
# `postgresql` package), else on PATH. Exits 3 when PostgreSQL is not installed.
set -euo pipefail

bindir() {
    local d
    if command -v pg_config >/dev/null 2>&1; then
        d="$(pg_config --bindir 2>/dev/null || true)"
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
    fi
    local found
    found="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -t/ -k4 -V -r)"
    for d in $found; do
        if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
    done
    if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
        dirname "$(command -v initdb)"; return 0
    fi
    return 1
}

# Runs a command as the cluster's owner: ourselves, or (as root, which initdb refuses) the
# `postgres` user, created if missing.
as_owner() {
    if [ "$(id -u)" -ne 0 ]; then "$@"; return; fi
    if ! id postgres >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
    if command -v runuser >/dev/null 2>&1; then
        runuser -u postgres -- "$@"
    else
        su -s /bin/sh postgres -c "$(printf '%q ' "$@")"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

cmd="${1:-}"
dir="${2:-}"
if [ -z "$cmd" ] || [ -z "$dir" ]; then
    echo "usage: $0 start|stop|restart|down|up|standby|promote DIR [PRIMARY_DIR]" >&2
    exit 2
fi
bin="$(bindir)" || { echo "pg-cluster: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 3; }

# Starts the cluster in DIR on PORT, with PG_CLUSTER_OPTS (more `-c name=value` settings, such
# as TLS) if set, and PG_CLUSTER_ENV (NAME=VALUE words for the server's environment, such as a
# libfaketime clock) if set. fsync off: a test cluster's durability is not under test
# (locker's processes are the ones killed); synchronous_commit stays on.
start_on() {
    local env_words
    read -r -a env_words <<<"${PG_CLUSTER_ENV:-}"
    as_owner env "${env_words[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $1 -k $dir -c listen_addresses=127.0.0.1 -c max_connections=500 -c fsync=off ${PG_CLUSTER_OPTS:-}" start >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
}

case "$cmd" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir" 2>/dev/null || { as_owner true; chown postgres "$dir"; }
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    port="$(free_port)"
    start_on "$port"
    echo "$port" >"$dir/port"
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
restart)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 restart >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    ;;
down)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    ;;
up)
    start_on "$(cat "$dir/port")"
    ;;
standby)
    primary="${3:?standby needs the primary DIR}"
    mkdir -p "$dir"
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir"
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$(cat "$primary/port")" -U postgres \
        -D "$dir/data" -R -X stream >"$dir/basebackup.log" 2>&1 \
        || { cat "$dir/basebackup.log" >&2; exit 1; }
    port="$(free_port)"
    start_on "$port"
    echo "$port" >"$dir/port"
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
promote)
    as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 promote >/dev/null \
        || { cat "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    if [ -d "$dir/data" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    ;;
*)
    echo "usage: $0 start|stop|restart|down|up|standby|promote DIR [PRIMARY_DIR]" >&2; exit 2 ;;
esac
