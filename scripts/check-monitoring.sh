#!/usr/bin/env bash
# Checks the monitoring files for `locker serve`'s GET /metrics:
#   deploy/prometheus/alerts.yml       `promtool check rules`: valid rules and PromQL
#   deploy/prometheus/alerts.test.yml  `promtool test rules`: each alert fires when it should,
#                                      and not in the healthy cases
#   deploy/prometheus/prometheus.yml   `promtool check config` (from its own directory, where
#                                      rule_files: [alerts.yml] resolves), and again with its
#                                      commented --require-token example uncommented
#   deploy/grafana/locker.json         valid JSON (`python3 -m json.tool`); every panel has a
#                                      target with a non-empty expression (rows, which only hold
#                                      panels, excepted); every expression is valid PromQL
#                                      (`promtool check rules` on them, Grafana's $variables
#                                      replaced)
# With --metrics, also that every locker_* and process_* metric the rules and the dashboard name
# is in that exposition (a histogram's _bucket, _sum and _count count as named by its # TYPE
# line). Run it against a server whose every family is present: SQLite (the disk gauges are
# absent on PostgreSQL) and a --witness.
#
# Installs Debian's prometheus package (for promtool) if promtool is missing. Prints one
# PASS/FAIL line per check; exits 1 if any failed.
#
# Usage: scripts/check-monitoring.sh [--metrics FILE|URL]
#   --metrics  a Prometheus text exposition of `locker serve`: a file saved from GET /metrics, or
#              the URL itself (fetched with curl, without credentials: for a server started with
#              --require-token, save it with `curl -H "Authorization: Bearer $TOKEN"` first)
set -euo pipefail

root="$(CDPATH='' cd -P -- "$(dirname -- "$0")/.." && pwd)"
metrics=''
while [ "$#" -gt 0 ]; do
    case "$1" in
        --metrics) metrics="${2:?--metrics needs a value}"; shift 2 ;;
        --metrics=*) metrics="${1#*=}"; shift ;;
        -h | --help) awk 'NR > 1 { if (!/^#/) exit; sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "check-monitoring: unknown argument: $1 (try --help)" >&2; exit 2 ;;
    esac
done
cd "$root"
if ! command -v promtool >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends prometheus
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
prom=deploy/prometheus
dashboard=deploy/grafana/locker.json

failed=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    /'; failed=1; }
# Runs a command (in a subshell); PASS or FAIL with its output.
check() {
    local what="$1" out
    shift
    if out="$("$@" 2>&1)"; then pass "$what"; else fail "$what" "$out"; fi
}
# Runs a command in a directory (inside check's subshell: the script's directory stays).
in_dir() { cd "$1" && shift && "$@"; }

check "promtool check rules $prom/alerts.yml" promtool check rules "$prom/alerts.yml"
check "promtool test rules $prom/alerts.test.yml" \
    in_dir "$prom" promtool test rules alerts.test.yml
check "promtool check config $prom/prometheus.yml" \
    in_dir "$prom" promtool check config prometheus.yml

# The commented bearer-token example, uncommented, with a token file that exists.
mkdir "$tmp/token"
cp "$prom/alerts.yml" "$tmp/token/"
echo 'a-token' > "$tmp/token/locker.token"
sed -e 's|^    # authorization:$|    authorization:|' \
    -e 's|^    #   type: Bearer$|      type: Bearer|' \
    -e "s|^    #   credentials_file: .*|      credentials_file: $tmp/token/locker.token|" \
    "$prom/prometheus.yml" > "$tmp/token/prometheus.yml"
if ! grep -q "^      credentials_file: $tmp/token/locker.token\$" "$tmp/token/prometheus.yml"; then
    fail "$prom/prometheus.yml has a commented authorization: credentials_file: example"
else
    check "promtool check config $prom/prometheus.yml with its --require-token example" \
        in_dir "$tmp/token" promtool check config prometheus.yml
fi

if out="$(python3 -m json.tool "$dashboard" 2>&1 >/dev/null)"; then
    pass "$dashboard is JSON"
    # Every panel's expressions, one per line as `panel-title<TAB>refId<TAB>expr` (JSON-quoted),
    # or the panels without any.
    if out="$(python3 - "$dashboard" "$tmp/exprs" <<'EOF'
import json, sys

def panels(ps):
    for p in ps:
        if p.get("type") == "row":
            yield from panels(p.get("panels", []))
        else:
            yield p

dash = json.load(open(sys.argv[1]))
bad, exprs = [], []
for p in panels(dash.get("panels", [])):
    title = p.get("title") or "panel %s" % p.get("id")
    targets = p.get("targets") or []
    if not targets or any(not str(t.get("expr", "")).strip() for t in targets):
        bad.append(title)
    exprs += [(title, t.get("refId", "?"), t["expr"]) for t in targets if str(t.get("expr", "")).strip()]
with open(sys.argv[2], "w") as f:
    for e in exprs:
        f.write("\t".join(json.dumps(x) for x in e) + "\n")
if not exprs:
    bad.append("(the dashboard has no panels)")
if bad:
    print("without a target expression: " + ", ".join(bad))
    sys.exit(1)
print("%d expressions" % len(exprs))
EOF
    )"; then
        pass "every panel of $dashboard has a target expression ($out)"
    else
        fail "every panel of $dashboard has a target expression" "$out"
    fi
    # The expressions as recording rules, Grafana's variables replaced: $__rate_interval and the
    # like by a duration, others ($job, $instance) by a plain value.
    python3 - "$tmp/exprs" "$tmp/dashboard-rules.yml" <<'EOF'
import json, re, sys

def plain(expr):
    expr = re.sub(r"\$\{?__(rate_interval|interval|range)\}?", "5m", expr)
    return re.sub(r"\$\{?(\w+)(:\w+)?\}?", "x", expr)

with open(sys.argv[2], "w") as out:
    out.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, line in enumerate(open(sys.argv[1])):
        title, ref, expr = (json.loads(x) for x in line.rstrip("\n").split("\t"))
        out.write("      # %s %s\n" % (json.dumps(title), ref))
        out.write("      - record: dashboard:expr_%d\n" % i)
        out.write("        expr: %s\n" % json.dumps(plain(expr)))
EOF
    check "every expression of $dashboard is valid PromQL" \
        promtool check rules "$tmp/dashboard-rules.yml"
else
    fail "$dashboard is JSON" "$out"
fi

fetch() {
    case "$1" in
        http://* | https://*) curl -fsS --max-time 10 -o "$2" "$1" ;;
        *) cp "$1" "$2" ;;
    esac
}
if [ -n "$metrics" ] && ! out="$(fetch "$metrics" "$tmp/exposition" 2>&1)"; then
    fail "every metric named by the rules and the dashboard is exposed: cannot read $metrics" "$out"
elif [ -n "$metrics" ]; then
    touch "$tmp/exprs"   # the dashboard's expressions, written above when it is JSON
    if out="$(python3 - "$tmp/exposition" "$prom/alerts.yml" "$tmp/exprs" <<'EOF'
import json, re, sys

exposed = set()
for line in open(sys.argv[1]):
    m = re.match(r"# TYPE (\S+) (\S+)", line)
    if m:
        name, kind = m.groups()
        exposed.add(name)
        if kind == "histogram":
            exposed |= {name + "_bucket", name + "_sum", name + "_count"}
        elif kind == "summary":
            exposed |= {name + "_sum", name + "_count"}
        elif kind == "counter" and not name.endswith("_total"):
            exposed.add(name + "_total")
        continue
    m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", line)
    if m and not line.startswith("#"):
        exposed.add(m.group(1))

name = re.compile(r"\b(?:locker|process)_[a-z][a-z0-9_]*")
named = set(name.findall(open(sys.argv[2]).read()))
for line in open(sys.argv[3]):
    named |= set(name.findall(json.loads(line.rstrip("\n").split("\t")[2])))
missing = sorted(named - exposed)
if missing:
    print("not in the exposition: " + " ".join(missing))
    sys.exit(1)
print("%d names" % len(named))
EOF
    )"; then
        pass "every metric named by the rules and the dashboard is exposed ($out)"
    else
        fail "every metric named by the rules and the dashboard is exposed" "$out"
    fi
fi

[ "$failed" -eq 0 ] || exit 1
echo "check-monitoring: all checks passed"
