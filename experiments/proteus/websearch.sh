#!/bin/sh
# Proteus sec. V-B (Figs. 10-12) on scenarios/proteus-websearch.ini: every
# balancer at each load, Web Search. Run from the repository root:
#   experiments/proteus/websearch.sh [OUT_DIR] [SEEDS] [LOADS] [SCHEMES] [KEY=VALUE ...]
# e.g. experiments/proteus/websearch.sh results/proteus-ws "1" "0.3 0.5 0.6 0.8"
# Extra KEY=VALUE arguments are passed as --set (and name the folders), e.g.
# switch.buffer=2MB for a variant where PFC pauses happen.
# Prints one line per run: scheme load seed, then fct_stats.sh's columns
# (flows, AFCT us, p99 FCT us, p99 slowdown of flows <= 100 KB, % flows
# HoL-blocked, % packets reordered). A finished run folder is not run again.
set -eu
out=${1:-results/proteus-websearch}
seeds=${2:-1}
loads=${3:-0.3 0.4 0.5 0.6 0.7 0.8}
schemes=${4:-ecmp letflow conga drill proteus}
if [ $# -ge 4 ]; then shift 4; else set --; fi
sets=""
tag=""
for kv in "$@"; do
    sets="$sets --set $kv"
    tag="$tag-$(echo "$kv" | tr '=/' '__')"
done
bin=${ROCESIM:-build/rocesim}
here=$(dirname "$0")
echo "scheme load seed flows afct_us p99_fct_us p99_slowdown_le100KB hol_blocked_pct reordered_pct"
for seed in $seeds; do
    for load in $loads; do
        for s in $schemes; do
            d="$out/$s-$load-$seed$tag"
            if [ ! -s "$d/summary.json" ]; then
                nice -n 10 "$bin" run scenarios/proteus-websearch.ini --set lb.scheme="$s" --set traffic.load="$load" \
                    --set run.seed="$seed" $sets --out "$d" --quiet
            fi
            echo "$s $load $seed $("$here/fct_stats.sh" "$d")"
        done
    done
done
