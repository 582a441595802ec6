#!/bin/bash
# The generated reference pages (docs/configuration.md, docs/schemes.md) are
# what `rocesim list` says now: scripts/gen-docs.sh run again into a scratch
# folder gives the same files. When a key, default or description changes,
# `make docs` regenerates them. First shown to fail on a page with a key
# left out, then run on the tree.
# usage: docs_generated.sh ROCESIM_BIN SOURCE_DIR
set -u
bin=$1
src=$2
. "$(dirname "$0")/cli_lib.sh"
"$src/scripts/gen-docs.sh" "$bin" "$tmp" || check false gen-docs
# the check can fail: a page missing one key differs
sed '/run.seed = /d' "$tmp/configuration.md" >"$tmp/stale.md"
check test -n "$(diff "$tmp/stale.md" "$tmp/configuration.md")"
# every key of `rocesim list` is on the page
check grep -q 'transport.cc = dcqcn' "$tmp/configuration.md"
check grep -q 'cc.hpcc.u_target = ' "$tmp/schemes.md"
for f in configuration.md schemes.md; do
    if diff -u "$src/docs/$f" "$tmp/$f" >"$tmp/$f.diff"; then
        pass=$((pass + 1))
    else
        echo "FAIL: docs/$f is not what \`rocesim list\` says now; run \`make docs\`:"
        head -30 "$tmp/$f.diff"
        fail=$((fail + 1))
    fi
done
echo "docs_generated: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
