#!/bin/bash
# The scheme contract (docs/adding-a-scheme.md): a file in src/cc or src/lb
# sees the simulator only through net/cc.h, net/lb.h and net/packet.h, never
# through net/net.h (struct sim, ports, nodes) or net/net_impl.h, nor any
# header of src/engine/ (the parallel run's engine, which lies below net/ and
# is the model's business, not a scheme's), directly or through another
# header it includes. First the check is shown to fail on planted offenders,
# then it runs on the tree.
# usage: scheme_headers.sh SOURCE_DIR
set -u
src=$1/src
. "$(dirname "$0")/cli_lib.sh"

# every header file reaches, following "..." includes (resolved against src/)
reach() { # $1 = file; prints the closure of its quoted includes
    local -A seen=()
    local todo=("$1") f inc
    while [ ${#todo[@]} -gt 0 ]; do
        f=${todo[0]}
        todo=("${todo[@]:1}")
        while read -r inc; do
            [ -f "$root/$inc" ] || continue
            [ -n "${seen[$inc]:-}" ] && continue
            seen[$inc]=1
            echo "$inc"
            todo+=("$root/$inc")
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
}
offenders() { # $1 = src root: files of cc/ and lb/ that reach net/net.h, net/net_impl.h or engine/
    root=$1
    for f in "$root"/cc/*.[ch] "$root"/lb/*.[ch]; do
        [ -f "$f" ] || continue
        if reach "$f" | grep -qx 'net/net\.h\|net/net_impl\.h\|engine/.*'; then
            echo "${f#"$root"/}"
        fi
    done
}

# the check can fail: a copy of the tree with one scheme reaching in through a header
mkdir -p "$tmp/src"
cp -r "$src"/. "$tmp/src"
printf '#include "net/net.h"\n' > "$tmp/src/lb/planted.h"
printf '#include "lb/planted.h"\n' > "$tmp/src/cc/planted.c"
printf '#include "engine/engine.h"\n' > "$tmp/src/cc/planted_eng.h"
printf '#include "cc/planted_eng.h"\n' > "$tmp/src/lb/planted_eng.c"
planted=$(offenders "$tmp/src")
check grep -qx cc/planted.c <<< "$planted"
check grep -qx lb/planted.h <<< "$planted"
check grep -qx cc/planted_eng.h <<< "$planted"
check grep -qx lb/planted_eng.c <<< "$planted"

check_empty "these scheme files include net/net.h, net/net_impl.h or engine/ (use net/cc.h, net/lb.h and their helpers):" \
    "$(offenders "$src")"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
