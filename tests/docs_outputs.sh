#!/bin/bash
# docs/outputs.md documents every summary.json key: the keys (and the keys of
# nested objects) of a plain run, a parallel one, a collective and a PFC
# deadlock each appear on the page as `key`. Exempt: the children of "config"
# (every scenario key: docs/configuration.md), of lb_stats.scheme (a
# balancer's own counters, named in the page per scheme) and numeric keys
# (pbfs_postcards_by_hops' hop counts). First shown to fail on a planted key.
# usage: docs_outputs.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
page=$src/docs/outputs.md
check test -f "$page"
tiny=$src/tests/data/sweep-tiny.ini
"$bin" run "$tiny" --quiet --out "$tmp/plain" || check false run plain
"$bin" run "$tiny" --quiet --set run.threads=2 --out "$tmp/par" || check false run parallel
printf '[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\n[traffic]\npattern = collective\nsize = 40KB\niterations = 2\n' >"$tmp/coll.ini"
"$bin" run "$tmp/coll.ini" --quiet --out "$tmp/coll" || check false run collective
(cd "$src" && "$bin" run scenarios/deadlock-ring.ini --quiet --out "$tmp/dead" >/dev/null 2>&1)
check test -s "$tmp/dead/summary.json"
# every key of a summary.json, one a line, nested ones too (not config's, not scheme's, not numbers)
keys() {
    # the "config" object is last and one section a line: cut it; drop a scheme's own counters
    sed -e '/^  "config": {/,$d' -e 's/"scheme": {[^}]*}//' "$1" | grep -o '"[A-Za-z_][A-Za-z0-9_]*":' | tr -d '":'
}
missing() { # $1 = the page: keys of the runs it lacks
    local k
    for d in plain par coll dead; do keys "$tmp/$d/summary.json"; done | sort -u | while read -r k; do
        grep -q "\`$k\`" "$1" || echo "$k"
    done
}
# the check can fail: a page without `max_bdp_bytes` lacks it
sed 's/`max_bdp_bytes`/max_bdp_bytes/g' "$page" >"$tmp/planted.md"
check grep -qx 'max_bdp_bytes' <<<"$(missing "$tmp/planted.md")"
check test "$(keys "$tmp/coll/summary.json" | grep -c '^busbw_GBps$')" -eq 1
check_empty "summary.json keys docs/outputs.md does not document (as \`key\`):" "$(missing "$page")"
echo "docs_outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
