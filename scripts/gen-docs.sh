#!/bin/bash
# Regenerates the reference pages that come from the binary, so they cannot
# drift from it: docs/configuration.md (every scenario key, its default and
# description) and docs/schemes.md (topologies, CCs, load balancers and
# workloads with their parameters), both from `rocesim list`.
# usage: scripts/gen-docs.sh [ROCESIM_BIN [OUT_DIR]]   (`make docs` runs it)
# tests/docs_generated.sh fails when the committed pages differ from its output.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/rocesim}
out=${2:-$root/docs}
list=$(cd "$root" && ROCESIM_EXPERIMENTS=experiments "$bin" list)
# the parts before "topologies": the keys by section; from there to "optional parts": the schemes
keys=$(sed -n '1,/^topologies /p' <<<"$list" | sed '$d')
schemes=$(sed -n '/^topologies /,/^optional parts/p' <<<"$list" | sed '$d')
{
    cat <<'HEAD'
# Configuration keys

Generated from `rocesim list` by `scripts/gen-docs.sh` (`make docs`); do not edit by hand.
Each key is `section.key = default`, then what it does. Set it in a scenario file
(`[section]` then `key = value`) or on the command line (`--set section.key=value`).
Units: times `ps ns us ms s`; sizes `B KB MB GB` (`K M G` alike, `KiB MiB GiB` powers of 2, KB = 1000 B);
rates `bps Kbps Mbps Gbps Tbps` (`K M G T` alike). A bare number is refused where a unit is expected, except 0.
The schemes' own parameters (`[cc.NAME]`, `[lb.NAME]`) are in [schemes.md](schemes.md).

HEAD
    awk '
        /^\[/ { if (open) print "```\n"; split($0, a, "  "); printf "## %s\n\n", a[1]; rest = substr($0, length(a[1]) + 1);
                sub(/^ +/, "", rest); if (rest != "") print rest "\n"; print "```"; open = 1; next }
        open && NF { print }
        END { if (open) print "```" }' <<<"$keys"
} >"$out/configuration.md"
{
    cat <<'HEAD'
# Schemes, topologies and workloads

Generated from `rocesim list` by `scripts/gen-docs.sh` (`make docs`); do not edit by hand.
Every congestion control (`transport.cc = NAME`) and load balancer (`lb.scheme = NAME`) with
its parameters (`[cc.NAME]` / `[lb.NAME]` keys, default, description), the topology generators
and the shipped workloads. How a scheme is written: [adding-a-scheme.md](adding-a-scheme.md);
the papers behind them and how closely we reproduce them: [reproductions.md](reproductions.md).

HEAD
    awk '
        /^[a-z]/ { if (open) print "```\n"; printf "## %s\n\n```\n", $0; open = 1; next }
        open { print }
        END { if (open) print "```" }' <<<"$schemes"
} >"$out/schemes.md"
