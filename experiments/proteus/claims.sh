#!/bin/sh
# claims.sh WEBSEARCH_OUTPUT: Proteus's change of AFCT and p99 FCT against each
# other scheme, per load (negative = Proteus lower), and the largest reduction
# over the loads, beside the paper's "up to" claims (sec. V-B, Web Search:
# AFCT -35/31/28/22 %, p99 -46/42/34/29 % vs CONGA/DRILL/Hermes/MP-RDMA).
# Uses seed 1 rows only.
set -eu
printf '%-8s %-6s %9s %9s\n' vs load dAFCT_% dp99_%
awk '
$3 == 1 && NR > 1 { afct[$1, $2] = $5; p99[$1, $2] = $6; loads[$2] = 1; sch[$1] = 1 }
END {
    paper_a["conga"] = -35; paper_a["drill"] = -31; paper_a["hermes"] = -28; paper_a["mprdma"] = -22
    paper_p["conga"] = -46; paper_p["drill"] = -42; paper_p["hermes"] = -34; paper_p["mprdma"] = -29
    for (s in sch) {
        if (s == "proteus") continue
        besta = 1e9; bestp = 1e9
        for (l in loads) if ((s, l) in afct && ("proteus", l) in afct) {
            da = 100 * (afct["proteus", l] / afct[s, l] - 1); dp = 100 * (p99["proteus", l] / p99[s, l] - 1)
            printf "%-8s %-6s %9.1f %9.1f\n", s, l, da, dp
            if (da < besta) besta = da
            if (dp < bestp) bestp = dp
        }
        pa = (s in paper_a) ? sprintf("%d", paper_a[s]) : "-"; pp = (s in paper_p) ? sprintf("%d", paper_p[s]) : "-"
        printf "%-8s %-6s %9.1f %9.1f   paper: AFCT %s %%, p99 %s %%\n", s, "best", besta, bestp, pa, pp
    }
}' "$1" | sort -k1,1 -k2,2
