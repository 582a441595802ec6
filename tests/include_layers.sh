#!/bin/bash
# The include graph against the layer order of docs/architecture.md ("## Layers":
# one src/DIR/ per line, top layer first; several on one line are one layer).
# A file in src/A may include "A/..." or "B/..." for a layer B listed below A,
# nothing above and nothing beside it. A quoted include naming no src/ directory
# (a generated header) is not a layer edge; a src/ directory the list lacks is an
# error. First shown to fail on a planted upward include, then run on the tree.
# usage: include_layers.sh SOURCE_DIR
set -u
root=$1
. "$(dirname "$0")/cli_lib.sh"

# layer rank of each directory, from the doc (0 = top)
declare -A rank=()
n=0
while read -r line; do
    found=0
    for w in $line; do
        case $w in src/*/) d=${w#src/}; rank[${d%/}]=$n; found=1 ;; esac
    done
    [ $found = 1 ] && n=$((n + 1))
done < <(sed -n '/^## Layers/,/^## /p' "$root/docs/architecture.md" | sed -n '/^```/,/^```/p' | grep -o '^src/[a-z_]*/\( *src/[a-z_]*/\)*')
check test "$n" -ge 5 # the list was found

violations() { # $1 = a src tree: every include that breaks the order
    local src=$1 f d inc id
    for f in "$src"/*/*.[ch]; do
        d=${f#"$src"/}
        d=${d%%/*}
        if [ -z "${rank[$d]:-}" ]; then
            echo "$f: src/$d/ is not in the layer list of docs/architecture.md"
            continue
        fi
        while read -r inc; do
            id=${inc%%/*}
            [ "$inc" = "$id" ] && continue                # no directory: not a layer edge
            [ -d "$src/$id" ] || continue                # not a src/ directory
            [ "$id" = "$d" ] && continue
            if [ -z "${rank[$id]:-}" ] || [ "${rank[$id]}" -le "${rank[$d]}" ]; then
                echo "${f#"$src"/} includes $inc: src/$id/ is not below src/$d/"
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
}

# the check can fail: a copy of the tree with one upward and one sideways include
mkdir -p "$tmp/src"
cp -r "$root/src"/. "$tmp/src"
printf '#include "scenario/config.h"\n' >> "$tmp/src/topo/topo.c"
printf '#include "cc/pbfs.h"\n' >> "$tmp/src/lb/spray.c"
planted=$(violations "$tmp/src")
check grep -q '^topo/topo.c includes scenario/config.h' <<< "$planted"
check grep -q '^lb/spray.c includes cc/pbfs.h' <<< "$planted"

# Inside src/exp/: the files read downward (docs/architecture.md, the exp-order
# block, top first). X.c may include exp/Y.h only when Y.c is X.c or listed
# below it; exp.h is the folder's interface (for cli/), page.c's one exception.
declare -A erank=()
m=0
while read -r f _; do
    erank[${f%.c}]=$m
    m=$((m + 1))
done < <(sed -n '/^```exp-order/,/^```$/p' "$root/docs/architecture.md" | grep -o '^[a-z_]*\.c')
check test "$m" -ge 10
exp_violations() { # $1 = an exp/ folder
    local f b inc h
    for f in "$1"/*.c; do
        b=$(basename "$f" .c)
        if [ -z "${erank[$b]:-}" ]; then
            echo "exp/$b.c is not in the exp-order list of docs/architecture.md"
            continue
        fi
        while read -r inc; do
            h=${inc#exp/}
            h=${h%.h}
            [ "$h" = exp ] && { [ "$b" = exp ] || [ "$b" = page ]; } && continue
            if [ -z "${erank[$h]:-}" ] || [ "${erank[$h]}" -lt "${erank[$b]}" ]; then
                echo "exp/$b.c includes $inc: $h.c is not below $b.c"
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(exp\/[^"]*\)".*/\1/p' "$f")
    done
}
printf '#include "exp/plot.h"\n' >> "$tmp/src/exp/sweep.c"
check grep -q '^exp/sweep.c includes exp/plot.h' <<< "$(exp_violations "$tmp/src/exp")"
check_empty "includes inside src/exp/ against its exp-order list:" "$(exp_violations "$root/src/exp")"

check_empty "includes against the layer order of docs/architecture.md:" "$(violations "$root/src")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
