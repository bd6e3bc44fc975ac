#!/usr/bin/env bash
# Installs the real clients the `locker mcp` and `locker skill` tests drive (tests/cli/mcp.rs,
# tests/cli/skill.rs), under target/test-deps/mcp-clients/:
#   - the Python `mcp` SDK (PyPI) in a venv:     venv/bin/python
#   - Node 22, the MCP Inspector CLI and the Agent Skills validator `skills-ref` (npm registry):
#     npm/node_modules/.bin/{node,mcp-inspector,skills-ref}
# Idempotent: a second run with everything in place changes nothing and takes a second.
# The tests find the tools at these paths (or LOCKER_TEST_DEPS=DIR); without them they fail
# unless LOCKER_SKIP_INTEROP=1.
set -euo pipefail
cd "$(dirname "$0")/.."

MCP_PY_VERSION="2.3.0"
NODE_VERSION="22.23.3"
INSPECTOR_VERSION="2.12.0"
SKILLS_REF_VERSION="0.1.5"

deps="${LOCKER_TEST_DEPS:-target/test-deps}/mcp-clients"
mkdir -p "$deps"

# Python: a venv with mcp==$MCP_PY_VERSION.
venv="$deps/venv"
py="$venv/bin/python"
if ! "$py" -c "import mcp, importlib.metadata as m; assert m.version('mcp') == '$MCP_PY_VERSION'" \
    >/dev/null 2>&1; then
    echo "== python mcp==$MCP_PY_VERSION into $venv"
    python3 -m venv "$venv"
    "$py" -m pip install --quiet --disable-pip-version-check "mcp==$MCP_PY_VERSION"
fi
"$py" -c "import importlib.metadata as m; print('python mcp', m.version('mcp'))"

# Node 22 (the `node` package ships the binary) and the Inspector CLI, in a private prefix.
npm_dir="$deps/npm"
bin="$npm_dir/node_modules/.bin"
want_node="v$NODE_VERSION"
have_node="$("$bin/node" --version 2>/dev/null || true)"
have_insp="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
    "$npm_dir/node_modules/@modelcontextprotocol/inspector/package.json" 2>/dev/null | head -n1 || true)"
have_skills="$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' \
    "$npm_dir/node_modules/skills-ref/package.json" 2>/dev/null | head -n1 || true)"
if [ "$have_node" != "$want_node" ] || [ "$have_insp" != "$INSPECTOR_VERSION" ] \
    || [ "$have_skills" != "$SKILLS_REF_VERSION" ]; then
    echo "== node@$NODE_VERSION, @modelcontextprotocol/inspector@$INSPECTOR_VERSION and" \
        "skills-ref@$SKILLS_REF_VERSION into $npm_dir"
    mkdir -p "$npm_dir"
    if [ ! -f "$npm_dir/package.json" ]; then
        (cd "$npm_dir" && npm init -y >/dev/null)
    fi
    (cd "$npm_dir" && npm install --no-fund --no-audit --loglevel=error \
        "node@$NODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
        "skills-ref@$SKILLS_REF_VERSION")
fi
echo "node $("$bin/node" --version)"
test -x "$bin/mcp-inspector" || { echo "mcp-inspector is missing from $bin" >&2; exit 1; }
test -x "$bin/skills-ref" || { echo "skills-ref is missing from $bin" >&2; exit 1; }
echo "mcp-inspector $INSPECTOR_VERSION, skills-ref $SKILLS_REF_VERSION"
