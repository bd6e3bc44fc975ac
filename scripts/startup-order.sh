#!/usr/bin/env bash
# Regenerates scripts/startup-order.txt: the functions the CLI's commands run, in the order the
# linker lays them out at the front of the binary's code (build.rs hands the file to lld as
# `--symbol-ordering-file` for a release build on x86_64 Linux).
#
# Why: a process maps the binary's code a 64 KiB window at a time, one page fault per window it
# touches, and on this machine (a guest under nested virtualisation) a fault costs about 4 µs.
# The 17 MB of code hold the server, MCP, TLS and PostgreSQL beside the CLI, and the functions a
# `locker append` runs were spread over about 130 windows; laid out together they take a tenth
# of that (docs/performance.md, stop 46).
#
# How: the release binary is linked once more with a link map (which names each function's
# section and address in exactly this build: the names' hashes depend on the profile and the
# target), then each command below runs under callgrind, which records every instruction it
# executes; each instruction's address is looked up in the map. The functions of `locker
# append` come first, then those the other commands add. This is done for both builds: the
# dynamically linked one of `cargo build --release`, and the static one of the release archives
# (scripts/build-static.sh), whose `--target` gives its functions other names; the file lists
# the first build's names, then the second's that differ, and each build's linker finds its own.
# A name the build no longer has (the code changed since) is skipped by the linker, so a stale
# file costs speed, never a build: run this again after large changes.
#
# Usage: scripts/startup-order.sh          (needs valgrind and python3; about ten minutes: two builds)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command -v valgrind >/dev/null || { echo "startup-order: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "startup-order: needs python3" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
target_dir="$(cargo metadata --format-version 1 --no-deps --locked | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
bin="$target_dir/release/locker"

echo "startup-order: linking the release binary with a map" >&2
mkdir -p "$work/dynamic" "$work/static"
cargo rustc --release --locked --quiet --bin locker -- -C "link-arg=-Wl,-Map=$work/dynamic/locker.map" -C link-arg=-Wl,--no-demangle
echo "startup-order: building the static binary with a map" >&2
static_bin="$("$root/scripts/build-static.sh" --map "$work/static/locker.map")"

# Each command as a user runs it, in a repository of its own, with nothing from this shell's
# environment but PATH.
trace() { # KIND BINARY: runs the commands under callgrind in $work/KIND, lists what they ran
    local dir="$work/$1" bin="$2"
    run() { # NAME ARGS...
        local name="$1"
        shift
        env -i PATH="$PATH" HOME="$dir/home" \
            valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no \
            --callgrind-out-file="$dir/$name.cg" "$bin" -R "$dir/repo" "$@" >"$dir/$name.out" 2>"$dir/$name.err" \
            || { echo "startup-order: locker $* failed:" >&2; cat "$dir/$name.err" >&2; exit 1; }
    }
    plain() { env -i PATH="$PATH" HOME="$dir/home" "$bin" -R "$dir/repo" "$@"; }
    mkdir -p "$dir/home"
    plain -q init
    local pad id key ticket envelope
    pad="$(plain --json pad create --max-blocks 64 --ttl 3600)"
    id="$(printf '%s' "$pad" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pad_id"])')"
    key="$(printf '%s' "$pad" | python3 -c 'import json,sys; print(json.load(sys.stdin)["write_key"])')"
    ticket="$(printf '%s' "$pad" | python3 -c 'import json,sys; print(json.load(sys.stdin)["read_ticket"])')"
    envelope='{"schema":"locker.handoff.v1","task_id":"t-1","from_agent":"a","to_agent":"b","constraints":[],"artifacts":[],"budget_usd":1}'
    plain -q append "$id" --key "$key" --data "$envelope" >/dev/null
    plain -q append "$id" --key "$key" --data warm-up >/dev/null
    echo "startup-order: running the commands under callgrind ($1 build)" >&2
    # `append` first: the bench's CLI row, and what agents that shell out run most.
    run 1-append append "$id" --key "$key" --data "$(printf 'x%.0s' $(seq 200))"
    run 2-append-json --json append "$id" --key "$key" --data second
    run 3-read pad read "$id" --ticket "$ticket"
    run 4-status status
    run 5-create --json pad create --max-blocks 8 --ttl 60
    run 6-seal seal "$id" --key "$key"
    run 7-log log -n 5
    run 8-verify verify
    run 9-version --version
    python3 "$work/names.py" "$dir" "$bin" "$dir/names"
}

cat >"$work/names.py" <<'EOF'
# The functions one build's commands ran, in order: DIR (the map and the callgrind files),
# BINARY, OUT (one name a line after a first line that says how many and how much code).
import bisect, glob, os, re, sys

work, binary, out = sys.argv[1], sys.argv[2], sys.argv[3]

# The map: each input section placed in the output `.text`, with its address, size and the
# symbols defined in it (lld's map: VMA LMA Size Align Out In Symbol).
sections = []  # (start, end, first symbol)
in_text = False
current = None
line_re = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s(\s*)(.*)$")
for line in open(os.path.join(work, "locker.map")):
    m = line_re.match(line)
    if not m:
        continue
    start, size, indent, rest = int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)
    depth = len(line) - len(line.lstrip(" "))
    if rest.startswith(".") and " " not in rest and ":(" not in rest:
        in_text = rest == ".text"  # an output section
        current = None
        continue
    if not in_text:
        continue
    if ":(" in rest:  # an input section
        current = [start, start + size, None]
        sections.append(current)
    elif current is not None and current[2] is None and rest and not rest.startswith("<"):
        current[2] = rest.strip()  # its first symbol
sections = [s for s in sections if s[2] and s[1] > s[0]]
sections.sort()
starts = [s[0] for s in sections]

order, seen = [], set()
for cg in sorted(glob.glob(os.path.join(work, "*.cg"))):
    ours = False
    for line in open(cg):
        if line.startswith("ob="):
            ours = os.path.realpath(line[3:].strip()) == os.path.realpath(binary)
            continue
        if not ours or not line.startswith("0x"):
            continue
        addr = int(line.split()[0], 16)
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0 or addr >= sections[i][1]:
            continue
        name = sections[i][2]
        if name not in seen:
            seen.add(name)
            order.append(name)

size = sum(e - s for s, e, n in sections if n in seen)
with open(out, "w") as f:
    f.write("%d functions, %d KiB of code\n" % (len(order), size // 1024))
    f.write("\n".join(order) + "\n")
EOF
trace dynamic "$bin"
trace static "$static_bin"
python3 - "$work" "$root/scripts/startup-order.txt" <<'EOF'
import sys
work, out = sys.argv[1], sys.argv[2]
lists = {}
for kind in ("dynamic", "static"):
    lines = open("%s/%s/names" % (work, kind)).read().splitlines()
    lists[kind] = (lines[0], lines[1:])
names, seen = [], set()
for kind in ("dynamic", "static"):
    for n in lists[kind][1]:
        if n not in seen:
            seen.add(n)
            names.append(n)
with open(out, "w") as f:
    f.write("# The functions the CLI runs, laid out first (scripts/startup-order.sh writes this file;\n")
    f.write("# build.rs hands it to the linker): `cargo build --release` runs %s,\n" % lists["dynamic"][0])
    f.write("# the static build (scripts/build-static.sh) %s; %d names in all.\n" % (lists["static"][0], len(names)))
    f.write("\n".join(names) + "\n")
print("startup-order: %d names written to %s (dynamic build: %s; static: %s)"
      % (len(names), out, lists["dynamic"][0], lists["static"][0]), file=sys.stderr)
EOF
