#!/bin/bash
# docs/adding-a-scheme.md followed to the letter: a copy of the tree gets the
# guide's example files (its ```c file=PATH blocks, written as they stand) and
# registry lines (its ```c registry=PATH blocks: the extern line after the
# registry's last extern line, the entry line before the NULL line of its
# *_registry[] array),
# is built, and the examples must run: rocesim list shows their keys, a small
# run with lb.scheme = shortq and transport.cc = halve completes every flow and
# counts ties and cuts, and the copy passes the registry self-test and the
# header and include checks. Costs one build of the copy (ccache makes it
# seconds when the tree was built before).
# usage: guide_example.sh SOURCE_DIR BUILD_DIR
set -u
src=$1
work=$2/guide-example
. "$(dirname "$0")/cli_lib.sh"
guide=$src/docs/adding-a-scheme.md

rm -rf "$work"
mkdir -p "$work"
tar -C "$src" --exclude=./build --exclude='./build-*' --exclude=./results --exclude=./.git -cf - . | tar -C "$work" -xf -
tree=$work

# the blocks: "```c file=PATH" / "```c registry=PATH" up to the closing fence
awk -v dir="$tree" -v list="$work/blocks.txt" '
    /^```c (file|registry)=/ { split($2, kv, "="); kind = kv[1]; path = kv[2]; out = dir "/" path (kind == "registry" ? ".lines" : "");
                               printf "" > out; print kind, path >> list; inblock = 1; next }
    /^```/ && inblock { inblock = 0; close(out); next }
    inblock { print >> out }' "$guide"
check test "$(grep -c '^file ' "$work/blocks.txt")" = 2
check test "$(grep -c '^registry ' "$work/blocks.txt")" = 2
while read -r kind path; do
    [ "$kind" = registry ] || continue
    lines=$tree/$path.lines
    ext=$(sed -n 1p "$lines") entry=$(sed -n 2p "$lines")
    # after the last extern line; before the NULL line of the *_registry[] array
    last=$(grep -n '^extern ' "$tree/$path" | tail -1 | cut -d: -f1)
    sed -i "${last}a\\
$ext" "$tree/$path"
    null=$(awk '/_registry\[\] = \{/ { on = 1 } on && /^    NULL,$/ { print NR; exit }' "$tree/$path")
    check test -n "$null"
    sed -i "${null}i\\
    $entry" "$tree/$path"
    check grep -qxF "$ext" "$tree/$path"
    check grep -qxF "    $entry" "$tree/$path"
    rm "$lines"
done < "$work/blocks.txt"

export CCACHE_NOHASHDIR=1
[ -n "${CCACHE_BASEDIR:-}" ] || export CCACHE_BASEDIR=$(cd "$src/../.." && pwd)
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
# Release (-O2, whose warnings -Werror makes errors) without link-time optimisation: about half the build
if ! cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DROCESIM_LTO=OFF "${launcher[@]}" > "$work/cmake.log" 2>&1 ||
   ! make -C "$tree/build" -j2 rocesim test_registry > "$work/make.log" 2>&1; then
    echo "FAIL: the tree with the guide's examples does not build:"
    grep -E 'error|Error' "$work/make.log" "$work/cmake.log" | head -20
    exit 1
fi
bin=$tree/build/rocesim
"$bin" list > "$work/list"
check grep -q '^    lb.shortq.tie = random ' "$work/list"
check grep -q '^    cc.halve.period = 10us ' "$work/list"
"$bin" run --quiet --set topology.leaves=2 --set topology.spines=4 --set topology.hosts_per_leaf=8 \
    --set switch.buffer=2MB --set traffic.duration=200us --set traffic.load=0.8 \
    --set lb.scheme=shortq --set transport.cc=halve --out "$work/run" || { echo "FAIL: run"; exit 1; }
check grep -q '"flows_unfinished": 0,' "$work/run/summary.json"
check grep -q '"halve_cuts": [1-9]' "$work/run/summary.json"
check grep -q '"scheme": {"ties": [1-9]' "$work/run/summary.json"
check "$tree/build/test_registry" > "$work/registry.log" 2>&1
check "$tree/tests/scheme_headers.sh" "$tree" > /dev/null
check "$tree/tests/include_layers.sh" "$tree" > /dev/null
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && rm -rf "$work"
[ "$fail" -eq 0 ]
