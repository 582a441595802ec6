#!/usr/bin/env python3
"""Mutation check of tests/test_simai.c against the SimAI workload parser.

Each mutant changes one thing in src/traffic/simai.c (a column read from the
wrong field, a communicator or type decoded wrongly, a check of a bad line
left out, an error naming the wrong line), rebuilds test_simai, runs it and
restores the file. A mutant is "killed" when test_simai fails (an assertion,
or a crash that cmocka reports). Every mutant must be killed: one that
survives is a column or a bad-line case the unit test does not check.

Not part of `make test` (it rebuilds once per mutant: about a minute in all).
Usage: tests/mutation/simai.py [BUILD_DIR]   (default: build, from the source root)
"""
import os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src/traffic/simai.c")
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))

COLS = "const char *ct = tok[2 + 3 * ph], *ty = tok[3 + 3 * ph], *sz = tok[4 + 3 * ph], *why;"
def col(name, var, ph, other):
    """phase ph reads column `var` from the field `other` (another phase's)"""
    base = {"ct": "2 + 3 * ph", "ty": "3 + 3 * ph", "sz": "4 + 3 * ph"}[var]
    return (name, COLS, COLS.replace("%s = tok[%s]" % (var, base), "%s = tok[ph == %d ? %d : %s]" % (var, ph, other, base)))

def skip_check(name, cond, ph):
    """the check of phase ph's field left out (the field still read): a bad value there is taken"""
    return (name, "if (%s) {" % cond, "if (%s && ph != %d) {" % (cond, ph))

COMPUTE = "!parse_whole(ct, UINT64_MAX / 1000000, &c->compute)"
TYPE = "comm_type(ty, ph, &c->type, &c->group, &why) < 0"
SIZE = "!parse_whole(sz, UINT64_MAX >> 8, &c->size)"

MUTANTS = [
    # every column read from a wrong field
    ("name from depen", 'snprintf(L->name, sizeof L->name, "%s", tok[0]);', 'snprintf(L->name, sizeof L->name, "%s", tok[1]);'),
    ("depen from fwd_compute", "long long d = strtoll(tok[1], &end, 10);", "long long d = strtoll(tok[2], &end, 10);"),
    col("fwd_compute from ig_compute", "ct", 0, 5),
    col("fwd_type from ig_type", "ty", 0, 6),
    col("fwd_size from ig_size", "sz", 0, 7),
    col("ig_compute from wg_compute", "ct", 1, 8),
    col("ig_type from wg_type", "ty", 1, 9),
    col("ig_size from wg_size", "sz", 1, 10),
    col("wg_compute from fwd_compute", "ct", 2, 2),
    col("wg_type from fwd_type", "ty", 2, 3),
    col("wg_size from fwd_size", "sz", 2, 4),
    ("wg_update from wg_compute", "parse_whole(tok[11], UINT64_MAX / 1000000, &L->wg_update)",
     "parse_whole(tok[8], UINT64_MAX / 1000000, &L->wg_update)"),
    ("layer line ignores blank lines", "L->line = line;", "L->line = (int)got + 3;"),
    # header keys
    ("tp read as ep", "w->tp = (uint32_t)tp,", "w->tp = (uint32_t)(tp * ep),"),
    ("ep: stored in pp", "dst = &ep;", "dst = &pp;"),
    ("pp: stored in vpp", "dst = &pp;", "dst = &vpp;"),
    ("vpp: stored in ga", "dst = &vpp;", "dst = &ga;"),
    ("ga: stored in ep", "dst = &ga;", "dst = &ep;"),
    ("all_gpus halved", "w->all_gpus = (uint32_t)all;", "w->all_gpus = (uint32_t)all / 2;"),
    ("pp_comm dropped", "dst = &w->pp_comm, min = 0;", "dst = &v, min = 0;"),
    ("pp_comm without colon not read", 'strcmp(k, "pp_comm") == 0 || strcmp(k, "pp_comm:") == 0', 'strcmp(k, "pp_comm:") == 0'),
    ("default ep 2", "uint64_t tp = 0, ep = 1,", "uint64_t tp = 0, ep = 2,"),
    ("default pp 2", "ep = 1, pp = 1,", "ep = 1, pp = 2,"),
    ("default vpp 2", "pp = 1, vpp = 1,", "pp = 1, vpp = 2,"),
    ("default ga 2", "vpp = 1, ga = 1,", "vpp = 1, ga = 2,"),
    # communication types and communicators
    ("plain wg type on TP", "*group = phase == SIMAI_WG ? SIMAI_G_DP : SIMAI_G_TP;", "*group = phase == SIMAI_WG ? SIMAI_G_TP : SIMAI_G_TP;"),
    ("plain fwd/ig type on DP", "*group = phase == SIMAI_WG ? SIMAI_G_DP : SIMAI_G_TP;", "*group = phase == SIMAI_WG ? SIMAI_G_DP : SIMAI_G_DP;"),
    ("_EP on DP_EP", "*group = SIMAI_G_EP;", "*group = SIMAI_G_DP_EP;"),
    ("_DP_EP on EP", "*group = SIMAI_G_DP_EP;", "*group = SIMAI_G_EP;"),
    ("ALLREDUCE read as ALLTOALL", '{"ALLREDUCE", SIMAI_ALLREDUCE}', '{"ALLREDUCE", SIMAI_ALLTOALL}'),
    ("ALLTOALL read as ALLREDUCE", '{"ALLTOALL", SIMAI_ALLTOALL}', '{"ALLTOALL", SIMAI_ALLREDUCE}'),
    ("ALLGATHER read as REDUCESCATTER", '{"ALLGATHER", SIMAI_ALLGATHER}', '{"ALLGATHER", SIMAI_REDUCESCATTER}'),
    ("REDUCESCATTER read as ALLGATHER", '{"REDUCESCATTER", SIMAI_REDUCESCATTER}', '{"REDUCESCATTER", SIMAI_ALLGATHER}'),
    # (The order of the prefix tests is not mutated: no word starts with two of the four prefixes, so
    # swapping them changes nothing; such a mutant cannot be killed.)
    ("policies swapped", '{"HYBRID_TRANSFORMER_FWD_IN_BCKWD", SIMAI_TRANSFORMER_FIB},',
     '{"HYBRID_TRANSFORMER_FWD_IN_BCKWD", SIMAI_TRANSFORMER},'),
    # bad lines: each check left out, or naming the wrong line
    ("other policies taken", "if (other) {", "if (0) {"),
    ("header field limit left out", "if (nt > 64) {", "if (nt > 64 && 0) {"),
    ("checkpoints > 0 taken", "if (v > 0) {", "if (v > 1000) {"),
    ("header minimum left out", "|| *v < min)", ")"),
    ("all_gpus: optional", "if (!have_tp || !have_all) {", "if (!have_tp || (!have_all && 0)) {"),
    ("all_gpus multiple of TP x pp unchecked", "if (all % (tp * pp)) {", "if (all % tp) {"),
    ("ep divides DP unchecked", "if ((all / tp) % ep) {", "if (0) {"),
    ("layer count: extra tokens taken", "if (nt != 1 || !parse_whole(tok[0], 1u << 20, &v) || v == 0)",
     "if (!parse_whole(tok[0], 1u << 20, &v) || v == 0)"),
    ("layer count: 0 taken", "if (nt != 1 || !parse_whole(tok[0], 1u << 20, &v) || v == 0)",
     "if (nt != 1 || !parse_whole(tok[0], 1u << 20, &v))"),
    ("missing line 2 named line 1", '"%s:2: missing: the number of layers"', '"%s:1: missing: the number of layers"'),
    ("13 fields taken", "if (nt != 12) {", "if (nt < 12) {"),
    ("field count names the previous line", "fname, line, nt);", "fname, line - 1, nt);"),
    ("depen: trailing junk taken", "if (*end || end == tok[1] || errno) {", "if (end == tok[1] || errno) {"),
    skip_check("fwd_compute unchecked", COMPUTE, 0),
    skip_check("ig_compute unchecked", COMPUTE, 1),
    skip_check("wg_compute unchecked", COMPUTE, 2),
    skip_check("fwd_type unchecked", TYPE, 0),
    skip_check("ig_type unchecked", TYPE, 1),
    skip_check("wg_type unchecked", TYPE, 2),
    ("unknown suffix taken as TP/DP", '*why = "SimAI reads this as a collective with no communicator', '*group = SIMAI_G_TP; return 0; *why = "'),
    skip_check("fwd_size unchecked", SIZE, 0),
    skip_check("ig_size unchecked", SIZE, 1),
    skip_check("wg_size unchecked", SIZE, 2),
    ("wg_update unchecked", "if (!parse_whole(tok[11],", "if (0 && !parse_whole(tok[11],"),
    ("too many layers names the next line", '"%s:%d: more layers than the %" PRIu32 " line 2 announces", fname, line,',
     '"%s:%d: more layers than the %" PRIu32 " line 2 announces", fname, line + 1,'),
    ("too few layers taken", "if (got < w->n_layers) {", "if (got < w->n_layers && 0) {"),
]

def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)

def main():
    orig = open(SRC).read()
    killed = survived = 0
    try:
        for name, old, new in MUTANTS:
            n = orig.count(old)
            if n != 1:
                print("BAD MUTANT %-45s (%d matches for %r)" % (name, n, old))
                survived += 1
                continue
            open(SRC, "w").write(orig.replace(old, new))
            b = run(["cmake", "--build", BUILD, "--target", "test_simai", "-j2"])
            if b.returncode != 0:
                print("killed   %-45s (does not build)" % name)
                killed += 1
                continue
            t = run([os.path.join(BUILD, "test_simai")], timeout=60)
            if t.returncode != 0:
                failed = [l.split("]")[-1].strip() for l in t.stdout.splitlines() if l.startswith("[  FAILED  ] test_")]
                print("killed   %-45s by %s" % (name, ", ".join(sorted(set(failed))) or "a crash"))
                killed += 1
            else:
                print("SURVIVED %-45s" % name)
                survived += 1
    finally:
        open(SRC, "w").write(orig)
        run(["cmake", "--build", BUILD, "--target", "test_simai", "-j2"])
    print("%d mutants: %d killed, %d survived" % (killed + survived, killed, survived))
    return 1 if survived else 0

if __name__ == "__main__":
    sys.exit(main())
