#!/usr/bin/env bash
# Installs what the interoperability tests need, idempotently, under target/test-deps/:
#   venv/                    a Python virtual environment with lockermcp==0.1.5 (agent-locker's
#                            MCP server and daemon) and the `mcp` client package
#   sdist/lockermcp-0.1.5/   the unpacked sdist, for scripts/inspect_pad.py and demo_handoff.py
#   env                      KEY=VALUE lines the tests read (LOCKER_TEST_PYTHON, LOCKER_TEST_SDIST)
# The tests look for target/test-deps/env, or for the directory named by LOCKER_TEST_DEPS.
# Run it again at any time: it only does what is missing.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
deps="${LOCKER_TEST_DEPS:-$root/target/test-deps}"
version="0.1.5"
python="${PYTHON:-python3}"

mkdir -p "$deps"
venv="$deps/venv"
if ! "$venv/bin/python" -c 'import lockermcp, mcp' >/dev/null 2>&1 \
   || [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("lockermcp"))' 2>/dev/null)" != "$version" ]; then
    echo "test-deps: creating $venv" >&2
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        "lockermcp==$version" "mcp>=2,<3" httpx
fi

sdist_dir="$deps/sdist"
src="$sdist_dir/lockermcp-$version"
if [ ! -f "$src/demo_handoff.py" ] || [ ! -f "$src/scripts/inspect_pad.py" ]; then
    echo "test-deps: downloading the lockermcp $version sdist" >&2
    mkdir -p "$sdist_dir"
    "$venv/bin/python" -m pip download --quiet --disable-pip-version-check \
        --no-binary :all: --no-deps "lockermcp==$version" -d "$sdist_dir"
    tar -xzf "$sdist_dir/lockermcp-$version.tar.gz" -C "$sdist_dir"
fi

tmp="$deps/env.tmp"
{
    echo "LOCKER_TEST_PYTHON=$venv/bin/python"
    echo "LOCKER_TEST_LOCKERMCP=$venv/bin/lockermcp"
    echo "LOCKER_TEST_SDIST=$src"
} > "$tmp"
mv "$tmp" "$deps/env"

echo "python:    $venv/bin/python"
echo "lockermcp: $venv/bin/lockermcp"
echo "sdist:     $src"
echo "env file:  $deps/env"
