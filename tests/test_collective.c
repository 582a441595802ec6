/* Collectives and flow dependencies: the analytic completion times of ring
 * and halving-doubling all-reduce and of all-to-all on an idle non-blocking
 * fabric, the step schedules and placements, NCCL's bandwidths, a flow file's
 * dependency column in the simulator, and bad input. */
#include "testutil.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "simrun.h"
#include "stats/collective.h"
#include "traffic/collective.h"

/* n hosts, one per leaf, one spine, every link 100 Gbps and 1 us: a
 * non-blocking fabric where every flow takes h = 4 links. cc = none (line
 * rate). `ack` is the ACK interval: with one ACK per flow (a large interval)
 * nothing shares a link with data, so the time is exact. */
static void coll_setup(struct run *r, uint32_t n, const char *algo, const char *size, const char *extra,
                       const char *ack)
{
    char ini[1024];
    snprintf(ini, sizeof ini,
             "[topology]\ntype = leafspine\nleaves = %u\nspines = 1\nhosts_per_leaf = 1\nfabric_link = 100Gbps\n"
             "[transport]\ncc = none\nack_interval = %s\n[traffic]\npattern = collective\ncollective = %s\nsize = %s\n%s",
             n, ack, algo, size, extra);
    run_setup(r, ini);
    run_build(r);
    sim_run(&r->sc.sim);
    run_check_invariants(r);
}

/* One flow of B bytes (a multiple of the 1000 B MTU) on h = 4 links at R =
 * 100 Gbps, d = 1 us, alone: every packet serialised at the NIC with its 48 B
 * of headers, the last one stored and forwarded by 3 switches, 4 propagation
 * delays, then the 60 B ACK back over 4 links. In picoseconds. */
static simtime_t flow_time(uint64_t bytes)
{
    uint64_t p = bytes / 1000;
    simtime_t ser = (simtime_t)((bytes + 48 * p) * 8 * 10); /* 10 ps per bit at 100 Gbps */
    simtime_t fwd = 3 * 1048 * 8 * 10, ack = 4 * 60 * 8 * 10, prop = 8 * T_US;
    return ser + fwd + prop + ack;
}

/* ...until its receiver has the last byte (the next step goes then: D3):
 * no return trip. */
static simtime_t rx_time(uint64_t bytes) { return flow_time(bytes) - 4 * T_US - 4 * 60 * 8 * 10; }
/* A rank that got a step's last byte sends its ACK (60 B, one per flow here)
 * just before the first packet of its next step, on the same link. */
static const simtime_t ACK_TX = 60 * 8 * 10;

static simtime_t iter_time(const struct run *r, uint32_t job, uint32_t iter)
{
    size_t n;
    struct coll_iter *it = coll_iters(&r->sc, &n);
    assert_non_null(it);
    simtime_t t = -1;
    for (size_t k = 0; k < n; k++)
        if (it[k].job == job && it[k].iter == iter) {
            assert_int_equal(it[k].done, it[k].flows);
            t = it[k].end - it[k].start;
        }
    free(it);
    assert_true(t > 0);
    return t;
}

/* Ring all-reduce: 2(n-1) steps of S/n, so 2(n-1)/n * S * (1 + 48/1000) / rate
 * of serialisation plus 2(n-1) times the per-step one-way latency (a step
 * goes when the data of the last one has arrived: D3), and an ACK's
 * serialisation between steps. */
static void test_ring_allreduce_analytic(void **st)
{
    (void)st;
    struct run r;
    const uint32_t n = 4;
    const uint64_t S = 400000;
    coll_setup(&r, n, "ring_allreduce", "400000B", "", "1000000");
    assert_int_equal(r.sc.sim.n_flows, 2 * (n - 1) * n);
    simtime_t want = 2 * (n - 1) * rx_time(S / n) + (2 * (n - 1) - 1) * ACK_TX;
    assert_int_equal(iter_time(&r, 0, 0), want); /* 75 837.12 ns (99 928.32 when a step waited for the ACK) */
    double lat = 2 * (n - 1) * (double)(3 * 1048 * 8 * 10 + 4 * T_US) + (2 * (n - 1) - 1) * (double)ACK_TX;
    double bw = 2.0 * (n - 1) / n * (double)S * 1.048 * 8 * 10; /* ps of serialisation */
    assert_true(fabs((double)want - (bw + lat)) < 1);
    run_free(&r);

    /* An ACK per packet (the default): each host's uplink also carries the
     * ACKs of what it receives, 60 B per 1000 B, while its own data goes out:
     * between the exact time and every ACK taking its slot. */
    coll_setup(&r, n, "ring_allreduce", "400000B", "", "1");
    simtime_t t = iter_time(&r, 0, 0);
    assert_true(t > want);
    assert_true(t <= want + 2 * (n - 1) * (simtime_t)(S / n / 1000) * 60 * 8 * 10);
    run_free(&r);

    /* two iterations with a compute gap: the second starts gap after the first ends */
    coll_setup(&r, n, "ring_allreduce", "400000B", "iterations = 2\ncompute_gap = 10us\n", "1000000");
    assert_int_equal(iter_time(&r, 0, 1), want);
    size_t k;
    struct coll_iter *it = coll_iters(&r.sc, &k);
    assert_int_equal(k, 2);
    assert_int_equal(it[1].start, it[0].end + 10 * T_US);
    /* the critical path runs back through every step of the iteration */
    assert_int_equal(it[0].path_n, 2 * (n - 1));
    assert_int_equal(it[1].path_n, 2 * (n - 1));
    assert_int_equal(it[0].path_paused + it[0].path_rerouted + it[0].path_retx, 0);
    assert_int_equal(it[0].path_inherited, 0); /* symmetric: every host starts each iteration together */
    assert_int_equal(it[1].path_inherited, 0);
    free(it);
    run_free(&r);
}

/* Halving-doubling: steps of S/2, S/4, ..., S/n then back up: the same bytes
 * as the ring in 2 log2 n steps. */
static void test_hd_allreduce_analytic(void **st)
{
    (void)st;
    struct run r;
    const uint32_t n = 8;
    const uint64_t S = 800000, u = S / n;
    coll_setup(&r, n, "hd_allreduce", "800000B", "", "1000000");
    assert_int_equal(r.sc.sim.n_flows, 2 * 3 * n);
    simtime_t want = 5 * ACK_TX;
    for (uint32_t k = 0; k < 3; k++) /* halving: n/2, n/4, n/8 = 1 pieces of u */
        want += rx_time(u * (n >> (k + 1)));
    for (uint32_t j = 0; j < 3; j++)
        want += rx_time(u << j);
    assert_int_equal(iter_time(&r, 0, 0), want);
    /* partners: step 0 is r xor 4 */
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(r.sc.flows.v[i].dst ^ r.sc.flows.v[i].src, r.sc.sim.flows[0].dst ^ r.sc.sim.flows[0].src);
    run_free(&r);
}

/* All-to-all: pairwise, n-1 steps of S/n; all at once, the NIC serves its
 * n-1 flows in turn, so the last one ends after (n-1) S/n of serialisation. */
static void test_alltoall_analytic(void **st)
{
    (void)st;
    struct run r;
    const uint32_t n = 4;
    const uint64_t S = 400000, u = S / n;
    coll_setup(&r, n, "alltoall", "400000B", "", "1000000");
    assert_int_equal(iter_time(&r, 0, 0), (n - 1) * rx_time(u) + (n - 2) * ACK_TX);
    run_free(&r);
    coll_setup(&r, n, "alltoall", "400000B", "alltoall = all\n", "1000000");
    assert_int_equal(r.sc.sim.n_flows, n * (n - 1));
    assert_int_equal(iter_time(&r, 0, 0), rx_time((n - 1) * u));
    run_free(&r);
    /* pairwise over 8 hosts has 56 queue pairs: the QP table is sized for
     * them (it had 16 slots and looped for ever looking for a free one) */
    coll_setup(&r, 8, "alltoall", "800000B", "", "1000000");
    assert_int_equal(r.sc.sim.n_flows, 8 * 7);
    assert_int_equal(iter_time(&r, 0, 0), 7 * rx_time(100000) + 6 * ACK_TX);
    run_free(&r);
}

/* Chunks pipeline: piece p of a transfer follows piece p-1 back to back
 * (once its last byte left the sender, as a NIC takes a QP's next work
 * request), and piece p of step s waits for piece p of step s-1 at that host.
 * Where serialisation outweighs the per-step latency (1 MB steps against
 * ~8.3 us) a chunked ring then ends within about a step's latency of sending
 * its bytes back to back, well before the unchunked one (measured on this
 * fabric: 552.7 us unchunked, 514.4 us in 4 pieces, 503.0 us of serialisation). */
static void test_chunks(void **st)
{
    (void)st;
    struct run r;
    const uint32_t n = 4, c = 4;
    const uint64_t S = 4000000;
    coll_setup(&r, n, "ring_allreduce", "4MB", "chunks = 4\n", "1000000");
    const struct sim *s = &r.sc.sim;
    assert_int_equal(s->n_flows, c * 2 * (n - 1) * n);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        bytes += s->flows[i].size;
    assert_int_equal(bytes, 2 * (n - 1) * S);
    /* listed step by step, piece by piece, rank by rank */
    for (uint32_t i = 0; i < s->n_flows; i++) {
        uint32_t p = i / n % c;
        const struct qp *f = &s->flows[i], *prev = &s->flows[i - (p ? n : 0)];
        if (p > 0) /* not before the piece ahead of it was on the wire */
            assert_true(f->start >= prev->start + (simtime_t)(prev->size / 1000 - 1) * 1048 * 80);
        if (i >= c * n) /* the previous step's same piece from the upstream rank has arrived */
            assert_true(f->start >= s->flows[i - c * n + (i % n + n - 1) % n - i % n].rcv_done);
    }
    simtime_t t = iter_time(&r, 0, 0), ser = (simtime_t)(2 * (n - 1) * (S / n) * 1.048 * 80);
    simtime_t step_lat = rx_time(S / n) - (simtime_t)((S / n) * 1.048 * 80);
    assert_true(t > ser);
    assert_true(t < ser + 2 * step_lat);
    assert_true(t < 2 * (n - 1) * rx_time(S / n));
    run_free(&r);
}

/* Placement and several jobs: spread puts one rank per leaf; jobs never share hosts. */
static void test_placement(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 4\nspines = 2\nhosts_per_leaf = 4\n"
                  "[traffic]\npattern = collective\ncollective = allgather\ngroup = 4\nplacement = spread\nsize = 4KB\n"
                  "[traffic.b]\npattern = collective\ngroup = 8\nsize = 8KB\n"
                  "[traffic.c]\npattern = collective\ncollective = reducescatter\nplacement = random\ngroup = 4\nsize = 4KB\n");
    const struct flow_list *fl = &r.sc.flows;
    assert_int_equal(fl->n_jobs, 3);
    int owner[16];
    for (int i = 0; i < 16; i++)
        owner[i] = -1;
    uint32_t leaves_a = 0;
    for (size_t i = 0; i < fl->n; i++) {
        uint32_t h = (uint32_t)r.sc.topo.host_index[fl->v[i].src];
        assert_true(owner[h] < 0 || owner[h] == fl->v[i].job);
        owner[h] = fl->v[i].job;
        if (fl->v[i].job == 1)
            leaves_a |= 1u << (h / 4);
    }
    assert_int_equal(leaves_a, 0xf); /* spread: the 4 ranks on 4 leaves */
    assert_int_equal(fl->jobs[0].steps, 3);
    assert_int_equal(fl->jobs[1].steps, 14);
    assert_true(fabs(coll_busbw_factor(COLL_RING_ALLREDUCE, 8) - 1.75) < 1e-12);
    assert_true(fabs(coll_busbw_factor(COLL_ALLGATHER, 8) - 0.875) < 1e-12);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    run_free(&r);
}

/* A flow file's dependency column: flow 2 starts 5 us after flows 0 and 1
 * both finished; its ids survive the start-time sort beside a named flow. */
static void test_flowfile_deps_sim(void **st)
{
    (void)st;
    char path[256];
    run_topo_file(path, sizeof path,
                  "3\n0 1 3 100 100000 0.00001 -\n2 3 3 100 50000 0 -\n4 5 3 100 1000 0 0,1+0.000005\n");
    char ini[600];
    snprintf(ini, sizeof ini, "[transport]\ncc = none\n[traffic]\npattern = file\nfile = %s\n"
                              "[flow.x]\nsrc = 6\ndst = 7\nsize = 1000B\nstart = 1us\n", path);
    struct run r;
    run_setup(&r, ini);
    const struct flow_list *fl = &r.sc.flows;
    /* sorted by start: 2->3 (0), 4->5 (0, waits), x (1 us), 0->1 (10 us) */
    assert_int_equal(fl->v[1].src, 4);
    assert_int_equal(fl->v[1].ndeps, 2);
    assert_int_equal(fl->v[fl->deps[fl->v[1].dep0]].src, 0);
    assert_int_equal(fl->v[fl->deps[fl->v[1].dep0 + 1]].src, 2);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct qp *a = &r.sc.sim.flows[3], *b = &r.sc.sim.flows[0], *c = &r.sc.sim.flows[1];
    simtime_t last = a->finish > b->finish ? a->finish : b->finish;
    assert_int_equal(c->start, last + 5 * T_US);
    run_free(&r);
    unlink(path);
}

/* "0s": flow 1 starts as flow 0's last packet is handed to host 0's link
 * (packet 100 of 1048 B at 100 Gbps: 99 x 83.84 ns), then follows it back to
 * back; `rocesim flows` writes the suffix back. */
static void test_flowfile_dep_sent(void **st)
{
    (void)st;
    char path[256];
    run_topo_file(path, sizeof path, "2\n0 1 3 100 100000 0 -\n0 2 3 100 100000 0 0s\n");
    char ini[400];
    snprintf(ini, sizeof ini, "[transport]\ncc = none\n[traffic]\npattern = file\nfile = %s\n", path);
    struct run r;
    run_setup(&r, ini);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    flowfile_write(f, &r.sc.flows);
    fclose(f);
    assert_string_equal(buf, "2\n0 1 3 100 100000 0.000000000 -\n0 2 3 100 100000 0.000000000 0s\n");
    free(buf);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct qp *a = &r.sc.sim.flows[0], *b = &r.sc.sim.flows[1];
    assert_int_equal(b->start, 99 * 1048 * 80);
    assert_true(b->finish > a->finish);
    run_free(&r);
    unlink(path);
}

/* "0b": a floor, not a wait. Flow 2 waits for flow 1's completion + 1 us and
 * for flow 0 to have started (20 us): it starts with flow 0, the delay not
 * counted from that. Flow 3 waits for flow 0's start and flow 1's completion
 * + 30 us, which comes later: the floor, met first, changes nothing. The
 * suffix is written back. */
static void test_flowfile_dep_start(void **st)
{
    (void)st;
    char path[256];
    static const char file[] = "4\n0 1 3 100 100000 0.000020000 -\n2 3 3 100 1000 0.000000000 -\n"
                               "4 5 3 100 1000 0.000000000 1,0b+0.000001000000\n"
                               "6 7 3 100 1000 0.000000000 0b,1+0.000030000000\n";
    run_topo_file(path, sizeof path, file);
    char ini[400];
    snprintf(ini, sizeof ini, "[transport]\ncc = none\n[traffic]\npattern = file\nfile = %s\n", path);
    struct run r;
    run_setup(&r, ini);
    const struct flow_list *fl = &r.sc.flows;
    assert_int_equal(fl->deps[fl->v[2].dep0 + 1], 0 | FLOW_DEP_START);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    flowfile_write(f, fl);
    fclose(f);
    assert_string_equal(buf, file);
    free(buf);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct qp *q = r.sc.sim.flows;
    assert_true(q[1].finish + T_US < 20 * T_US);
    assert_int_equal(q[2].start, 20 * T_US);
    assert_int_equal(q[3].start, q[1].finish + 30 * T_US);
    run_free(&r);
    unlink(path);
}

/* Same inputs, same run: two jobs, chunks, background Poisson and per-packet
 * spraying, twice; every flow starts and ends at the same picosecond. */
static void test_deterministic(void **st)
{
    (void)st;
    static const char ini[] =
        "[run]\nseed = 7\n[topology]\ntype = fattree\nk = 4\n[lb]\nscheme = spray\n[transport]\nreorder = buffer\n"
        "[traffic]\nload = 0.3\nduration = 200us\n"
        "[traffic.a]\npattern = collective\ngroup = 8\nplacement = random\nsize = 256KB\nchunks = 2\niterations = 2\n"
        "compute_gap = 5us\n[traffic.b]\npattern = collective\ncollective = alltoall\nalltoall = all\nplacement = spread\n"
        "size = 64KB\n";
    struct run r[2];
    for (int k = 0; k < 2; k++) {
        run_setup(&r[k], ini);
        run_build(&r[k]);
        sim_run(&r[k].sc.sim);
        run_check_invariants(&r[k]);
    }
    assert_int_equal(r[0].sc.sim.n_flows, r[1].sc.sim.n_flows);
    assert_int_equal(r[0].sc.flows.n_jobs, 2);
    for (uint32_t i = 0; i < r[0].sc.sim.n_flows; i++) {
        assert_int_equal(r[0].sc.sim.flows[i].start, r[1].sc.sim.flows[i].start);
        assert_int_equal(r[0].sc.sim.flows[i].finish, r[1].sc.sim.flows[i].finish);
    }
    assert_int_equal(r[0].sc.sim.c.events, r[1].sc.sim.c.events);
    run_free(&r[0]);
    run_free(&r[1]);
}

/* A generated job written as a flow file (`rocesim flows`: the dependency
 * column with its "s" suffixes) and read back runs the same, to the picosecond. */
static void test_flowfile_roundtrip(void **st)
{
    (void)st;
    static const char topo[] = "[topology]\ntype = leafspine\nleaves = 4\nspines = 1\nhosts_per_leaf = 1\n"
                               "[transport]\ncc = none\n";
    char ini[1024], path[256];
    struct run a, b;
    snprintf(ini, sizeof ini, "%s[traffic]\npattern = collective\nsize = 400KB\nchunks = 2\niterations = 2\n"
                              "compute_gap = 3us\n", topo);
    run_setup(&a, ini);
    run_topo_file(path, sizeof path, "");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    flowfile_write(f, &a.sc.flows);
    fclose(f);
    snprintf(ini, sizeof ini, "%s[traffic]\npattern = file\nfile = %s\n", topo, path);
    run_setup(&b, ini);
    assert_int_equal(a.sc.flows.n, b.sc.flows.n);
    assert_int_equal(a.sc.flows.n_deps, b.sc.flows.n_deps);
    assert_memory_equal(a.sc.flows.deps, b.sc.flows.deps, a.sc.flows.n_deps * sizeof *a.sc.flows.deps);
    run_build(&a);
    run_build(&b);
    sim_run(&a.sc.sim);
    sim_run(&b.sc.sim);
    for (uint32_t i = 0; i < a.sc.sim.n_flows; i++) {
        assert_int_equal(a.sc.sim.flows[i].start, b.sc.sim.flows[i].start);
        assert_int_equal(a.sc.sim.flows[i].finish, b.sc.sim.flows[i].finish);
    }
    run_free(&a);
    run_free(&b);
    unlink(path);
}


/* D1: compute_gap once per iteration, before its first piece only. With 8
 * pieces, 2 iterations and a 100 us gap on a symmetric fabric both
 * iterations take the same time (iteration 1 took 964.80 us against 599.19
 * when every later piece of step 0 waited the gap again). */
static void test_chunks_gap_iterations(void **st)
{
    (void)st;
    struct run r;
    coll_setup(&r, 8, "ring_allreduce", "4MB", "chunks = 8\niterations = 2\ncompute_gap = 100us\n", "1000000");
    size_t k;
    struct coll_iter *it = coll_iters(&r.sc, &k);
    assert_int_equal(k, 2);
    assert_int_equal(it[1].end - it[1].start, it[0].end - it[0].start);
    assert_int_equal(it[1].start, it[0].end + 100 * T_US);
    /* nccl-tests' time per iteration over the job's span, less the gap (D4) */
    simtime_t per, span = coll_job_span(&r.sc, it, k, 0, &per);
    assert_int_equal(span, it[1].end - it[0].start);
    assert_int_equal(per, it[0].end - it[0].start);
    free(it);
    run_free(&r);
}

/* D4: iterations overlap across hosts when the ring is not symmetric (some
 * of its edges cross the spine): the spans of the iterations add up to more
 * than the job took, and the job's time per iteration is its span over the
 * iterations (less the gaps), not their mean span. */
static void test_job_span(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"
                  "[transport]\ncc = none\nack_interval = 1000000\n"
                  "[traffic]\npattern = collective\nsize = 4MB\ngroup = 8\nplacement = spread\niterations = 3\n"
                  "compute_gap = 10us\nchunks = 4\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    size_t k;
    struct coll_iter *it = coll_iters(&r.sc, &k);
    assert_int_equal(k, 3);
    simtime_t sum = 0, per, span = coll_job_span(&r.sc, it, k, 0, &per);
    for (size_t i = 0; i < k; i++)
        sum += it[i].end - it[i].start;
    assert_true(it[1].start < it[0].end + 10 * T_US); /* a host went on before the slowest was done */
    assert_true(sum + 2 * 10 * T_US > span);
    assert_true(per * 3 + 2 * 10 * T_US <= span && span - (per * 3 + 2 * 10 * T_US) < 3);
    assert_true(per < sum / 3);
    free(it);
    run_free(&r);
}

/* D5: halving-doubling with pieces maps bytes, not piece numbers. n = 4, 2
 * pieces: step 3 (the second doubling step, 2u) sends the rank's own block
 * (what it sent in step 2) then the block it received in step 2; so its
 * piece 1 waits for both halves of what arrived in step 2, and its piece 0
 * for both pieces it sent in step 2. */
static void test_hd_chunks_bytes(void **st)
{
    (void)st;
    struct run r;
    coll_setup(&r, 4, "hd_allreduce", "400000B", "chunks = 2\n", "1000000");
    const struct flow_list *fl = &r.sc.flows;
    const struct sim *s = &r.sc.sim;
    uint32_t checked = 0;
    for (uint32_t i = 0; i < fl->n; i++) {
        const struct flow_spec *f = &fl->v[i];
        if (f->step != 3)
            continue;
        uint32_t piece = i % 8 >= 4; /* 8 flows a step, listed piece by piece, 4 ranks each */
        uint32_t recv = 0, sent = 0;
        for (uint32_t k = 0; k < f->ndeps; k++) {
            uint32_t d = fl->deps[f->dep0 + k], id = d & FLOW_DEP_ID;
            if (fl->v[id].step != 2)
                continue;
            if (d & FLOW_DEP_RECV) {
                assert_int_equal(fl->v[id].dst, f->src);
                recv++;
            } else if (d & FLOW_DEP_SENT) {
                assert_int_equal(fl->v[id].src, f->src);
                sent++;
            }
        }
        assert_int_equal(recv, piece ? 2 : 0);
        assert_int_equal(sent, piece ? 0 : 2);
        /* and it did not go before those bytes were there */
        for (uint32_t k = 0; k < f->ndeps; k++)
            if (fl->deps[f->dep0 + k] & FLOW_DEP_RECV)
                assert_true(s->flows[i].start >= s->flows[fl->deps[f->dep0 + k] & FLOW_DEP_ID].rcv_done);
        checked++;
    }
    assert_int_equal(checked, 8);
    run_free(&r);
}

/* Persistent queue pairs (D2): every message between two ranks on one
 * channel keeps the QP's source port, and so its ECMP path, for the whole
 * job; channels are distinct QPs with distinct ports. 4 leaves of one host,
 * 4 spines: each QP picks one spine by hash and keeps it. */
static void test_persistent_qps(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 1\n"
                  "[transport]\ncc = dcqcn\n[lb]\nscheme = ecmp\n"
                  "[traffic]\npattern = collective\nsize = 1MB\nchunks = 4\nchannels = 2\niterations = 3\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const struct sim *s = &r.sc.sim;
    assert_int_equal(s->n_flows, 3 * 6 * 2 * 4 * 4);
    /* the first message of each QP: step 0, iteration 0, piece 0 (ranks 0..3, channels 0, 1) */
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i];
        uint32_t ch = i / 4 % 2, first = ch * 4 + (uint32_t)r.sc.topo.host_index[f->src];
        const struct qp *q = &s->flows[first];
        assert_int_equal(f->src, q->src);
        assert_int_equal(f->sport, q->sport);
        assert_int_equal(f->lb_out, q->lb_out); /* the same spine all job long */
        assert_int_equal(f->path_switches, 0);
        if (i < 4)
            assert_true(s->flows[i + 4].sport != f->sport); /* channel 1's QP: its own port */
    }
    run_free(&r);
}


/* GPU servers, hierarchical all-reduce (hierarchy = server) on an idle rail
 * fabric: 4 servers of 2 GPUs, 1 channel. Phase 1 is one reduce-scatter step
 * inside each server (S/2 over NVLink: S/2 / nvlink + nvlink_delay), phase 2
 * a ring all-reduce of S/2 across the 4 servers on each rail (6 steps of S/8
 * over 2 links: no spine; an ACK's serialisation between steps, as above),
 * phase 3 one all-gather step inside each server. */
static void test_hier_allreduce_analytic(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = rail\nservers = 4\ngpus_per_server = 2\nspines = 2\nnvlink = 800Gbps\n"
                  "nvlink_delay = 500ns\n[transport]\ncc = none\nack_interval = 1000000\n"
                  "[traffic]\npattern = collective\nsize = 800000B\nplacement = rail\nhierarchy = server\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    const uint64_t S = 800000, u1 = S / 2, u2 = S / 8;
    assert_int_equal(r.sc.flows.jobs[0].steps, 2 * (2 - 1) + 2 * (4 - 1));
    simtime_t nv = (simtime_t)(u1 * 8 * 5 / 4) + 500 * T_NS; /* 1.25 ps per bit at 800 Gbps: 4.5 us */
    simtime_t rail = (simtime_t)((u2 + 48 * (u2 / 1000)) * 80) + 1048 * 80 + 2 * T_US; /* 2 links: 1 switch */
    simtime_t want = 2 * nv + 6 * rail + 5 * ACK_TX; /* 71.830 us */
    assert_int_equal(iter_time(&r, 0, 0), want);
    for (uint32_t i = 0; i < r.sc.sim.n_flows; i++) { /* inside a server: NVLink; across: on the rail's leaf */
        const struct qp *f = &r.sc.sim.flows[i];
        assert_int_equal(f->local, f->src / 2 == f->dst / 2);
        if (!f->local)
            assert_int_equal(f->src % 2, f->dst % 2);
    }
    run_free(&r);
}

/* The "done means": a ring all-reduce of 64 MB over 16 servers of 8
 * GPUs (128 ranks) on an idle rail fabric with NCCL's rail-aligned rings, 8
 * channels. NCCL's bus bandwidth for it is the NIC's: each channel's ring
 * leaves a server through one NIC, on its own rail, so every NIC carries one
 * ring at line rate and busbw = G x 12.5 GB/s x payload share of a packet
 * (4000 / 4048) = 8 x 12.5 x 0.98814 = 98.81 GB/s; NVLink hops are 9x faster.
 * Measured within 5 % (98.5). Every QP keeps its source port, and with it its
 * path, for the whole job. */
static void test_rail_ring_busbw(void **st)
{
    (void)st;
    struct run r;
    double busbw = run_job_busbw(&r, "[topology]\ntype = rail\nservers = 16\ngpus_per_server = 8\nspines = 16\n"
                                     "[transport]\ncc = none\nmtu = 4000\nack_interval = 16\n"
                                     "[traffic]\npattern = collective\nsize = 64MB\nplacement = rail\nhierarchy = rail\n"
                                     "channels = 8\niterations = 2\n", 64e6, COLL_RING_ALLREDUCE, 128);
    double nccl = 8 * 12.5 * 4000.0 / 4048.0;
    assert_true(busbw <= nccl && busbw > 0.95 * nccl);
    const struct sim *s = &r.sc.sim;
    uint32_t across = 0;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *f = &s->flows[i];
        assert_int_equal(f->path_switches, 0);
        if (!f->local) { /* between servers: on one rail (its leaf), no spine */
            assert_int_equal(f->src % 8, f->dst % 8);
            across++;
        }
    }
    assert_int_equal(across, 2 * 254 * 8 * 16); /* per iteration, step and channel: one hop between servers each */
    /* one port per QP all job long: flows of one (src, dst) pair and channel share it */
    for (uint32_t i = 0; i < s->n_flows; i++)
        for (uint32_t j = i + 1; j < s->n_flows && j < i + 2048; j++)
            if (s->flows[j].src == s->flows[i].src && s->flows[j].dst == s->flows[i].dst &&
                r.sc.flows.v[j].iter == r.sc.flows.v[i].iter && (j - i) % (8 * 128) == 0)
                assert_int_equal(s->flows[j].sport, s->flows[i].sport);
    run_free(&r);
}


/* The API a workload builder uses (collective.h): a second collective chained
 * after the first, rank by rank (its first messages wait for the rank's last
 * arrival of the first job, plus a compute phase); each job knows its flows. */
static void test_chain_api(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 4\nspines = 1\nhosts_per_leaf = 1\n"
                  "[traffic]\npattern = none\n");
    struct flow_list fl = {0};
    struct rng g;
    rng_seed(&g, 1, 0);
    struct err e = {{0}};
    struct coll_opts a = {.name = "a", .algo = COLL_ALLGATHER, .group = 4, .size = 4000, .iterations = 1};
    assert_int_equal(traffic_collective(&fl, &r.sc.topo, &a, &g, &e), 0);
    assert_int_equal(fl.jobs[0].first_flow, 0);
    assert_int_equal(fl.jobs[0].n_flows, 12);
    uint32_t after[4];
    for (uint32_t k = 0; k < 4; k++) /* rank k's last arrival in job a: step 2's flow into it */
        after[k] = (uint32_t)(8 + (k + 3) % 4) | FLOW_DEP_RECV;
    struct coll_opts b = {.name = "b", .algo = COLL_RING_ALLREDUCE, .group = 4, .size = 4000, .iterations = 1,
                          .channels = 2, .after = after, .after_delay = 5 * T_US};
    assert_int_equal(traffic_collective(&fl, &r.sc.topo, &b, &g, &e), 0);
    assert_int_equal(fl.jobs[1].first_flow, 12);
    for (size_t i = 12; i < 12 + 8; i++) { /* step 0, both channels */
        const struct flow_spec *f = &fl.v[i];
        assert_int_equal(f->ndeps, 1);
        uint32_t d = fl.deps[f->dep0];
        assert_int_equal(d, after[(i - 12) % 4]);
        assert_int_equal(fl.v[d & FLOW_DEP_ID].dst, f->src);
        assert_int_equal(f->dep_delay, 5 * T_US);
    }
    uint32_t bad[4] = {999, 999, 999, 999};
    b.after = bad;
    assert_int_equal(traffic_collective(&fl, &r.sc.topo, &b, &g, &e), -1);
    assert_non_null(strstr(e.msg, "not listed yet"));
    flow_list_free(&fl);
    run_free(&r);
}

/* Stragglers (item 5). A ring all-reduce of 4 ranks, 2 iterations, 10 us
 * apart: rank 1's compute gap times 6 makes it start iteration 1 X = 50 us
 * after the others. On an idle fabric the ring's last step depends through
 * its data on every rank's first one (max-plus: the step-s send of rank r
 * waits for r-1's step s-1), so the job ends exactly X later: X exceeds the
 * n-1 steps in which rank 1 still gets undelayed data, so no ACK of its
 * lands among its delayed packets (with a smaller X some do: X = 5 us adds
 * 5.029 us, 25 us adds 25.005 us). The
 * job's critical path crosses the iteration boundary at rank 1's gap: it
 * names rank 1, 50 us of gap beyond compute_gap, and the time per iteration
 * without it is the even job's exactly. */
static void test_straggler_slow_rank(void **st)
{
    (void)st;
    struct run r;
    size_t k;
    simtime_t per0, span0;
    coll_setup(&r, 4, "ring_allreduce", "400000B", "iterations = 2\ncompute_gap = 10us\n", "1000000");
    struct coll_iter *it = coll_iters(&r.sc, &k);
    span0 = coll_job_span(&r.sc, it, k, 0, &per0);
    struct coll_jpath p;
    coll_job_path(&r.sc, it, k, 0, &p);
    assert_int_equal(p.straggler_host, UINT32_MAX); /* nothing beyond compute_gap on the path */
    assert_int_equal(p.gap_excess + p.nic, 0);
    assert_int_equal(p.compute, 10 * T_US);
    assert_int_equal(p.per_without, per0);
    free(it);
    run_free(&r);

    coll_setup(&r, 4, "ring_allreduce", "400000B", "iterations = 2\ncompute_gap = 10us\nslow_rank = 1\nslow_factor = 6\n",
               "1000000");
    const simtime_t X = 50 * T_US;
    it = coll_iters(&r.sc, &k);
    simtime_t per, span = coll_job_span(&r.sc, it, k, 0, &per);
    assert_int_equal(span, span0 + X);
    assert_int_equal(it[1].end - it[1].start, it[0].end - it[0].start + X); /* 125.837 us */
    assert_int_equal(it[1].path_inherited, X); /* the iteration's own path starts at rank 1's late first flow */
    coll_job_path(&r.sc, it, k, 0, &p);
    assert_int_equal(p.straggler_rank, 1);
    assert_int_equal(p.straggler_host, r.sc.flows.jobs[0].hosts[1]);
    assert_int_equal(p.gap_excess, X);
    assert_int_equal(p.straggler_time, X);
    assert_int_equal(p.compute, 60 * T_US);
    assert_int_equal(p.per_without, per0);
    free(it);
    run_free(&r);
}

/* Per-rank gap distributions: drawn per rank and iteration from the seed
 * (the same seed the same draws, another seed others), within their range,
 * the same on every channel of a rank; iteration 0 has none. */
static void test_gap_dist(void **st)
{
    (void)st;
    static const char *const dist[] = {"uniform", "normal", "exponential"};
    for (int d = 0; d < 3; d++) {
        simtime_t first[2][2 * 8 * 3];
        uint32_t differ = 0;
        for (int seed = 0; seed < 3; seed++) {
            struct run r;
            char extra[256];
            snprintf(extra, sizeof extra, "iterations = 4\ncompute_gap = 20us\ngap_dist = %s\ngap_spread = 5us\n"
                     "channels = 2\n[run]\nseed = %d\n", dist[d], seed < 2 ? 1 : 2);
            coll_setup(&r, 8, "ring_allreduce", "800000B", extra, "1000000");
            const struct flow_list *fl = &r.sc.flows;
            uint32_t m = 0;
            simtime_t lo = T_NEVER, hi = 0;
            for (size_t i = 0; i < fl->n; i++) {
                const struct flow_spec *f = &fl->v[i];
                if (f->step != 0 || f->iter == 0 || !f->ndeps || f->dep_delay == 0 || f->size != 50000)
                    continue; /* an iteration's first piece (channel 1's may ride its QP: dep_delay too) */
                if (seed < 2 && m < 2 * 8 * 3)
                    first[seed][m] = f->dep_delay;
                else if (m < 2 * 8 * 3)
                    differ += first[0][m] != f->dep_delay;
                lo = f->dep_delay < lo ? f->dep_delay : lo;
                hi = f->dep_delay > hi ? f->dep_delay : hi;
                m++;
            }
            assert_int_equal(m, 2 * 8 * 3); /* 2 channels x 8 ranks x 3 later iterations */
            if (d == 0)
                assert_true(lo >= 15 * T_US && hi <= 25 * T_US);
            if (d == 2)
                assert_true(lo >= 20 * T_US);
            assert_true(hi > lo);
            for (size_t i = 0; i < fl->n; i++) /* both channels of a rank wait the same */
                for (size_t j = i + 1; j < fl->n && d == 0; j++)
                    if (fl->v[i].iter == fl->v[j].iter && fl->v[i].iter && fl->v[i].step == 0 && fl->v[j].step == 0 &&
                        fl->v[i].src == fl->v[j].src && fl->v[i].ndeps && fl->v[j].ndeps && fl->v[i].dep_delay &&
                        fl->v[j].dep_delay && fl->v[i].size == 50000 && fl->v[j].size == 50000)
                        assert_int_equal(fl->v[i].dep_delay, fl->v[j].dep_delay);
            run_free(&r);
        }
        assert_memory_equal(first[0], first[1], sizeof first[0]); /* the same seed: the same draws */
        assert_true(differ > 0);                                  /* another seed: others */
    }
}

/* A slow NIC: rank 1's host link at 25 Gbps (both ways) once the job is
 * placed. The job's critical path carries its flows' extra serialisation,
 * payload x 8 x (1/25G - 1/100G), and names rank 1. */
static void test_slow_nic(void **st)
{
    (void)st;
    struct run r;
    coll_setup(&r, 4, "ring_allreduce", "400000B", "slow_rank = 1\nslow_nic = 25Gbps\n[switch]\npfc = on\n", "1000000");
    const struct coll_job *jb = &r.sc.flows.jobs[0];
    uint32_t h = jb->hosts[1], links = 0;
    for (uint32_t li = 0; li < r.sc.topo.n_links; li++)
        if (r.sc.topo.links[li].a == h || r.sc.topo.links[li].b == h) {
            assert_int_equal(r.sc.topo.links[li].rate, 25000000000ULL);
            links++;
        } else {
            assert_int_equal(r.sc.topo.links[li].rate, 100000000000ULL);
        }
    assert_int_equal(links, 1);
    assert_int_equal(jb->nic_nominal, 100000000000ULL);
    size_t k;
    struct coll_iter *it = coll_iters(&r.sc, &k);
    struct coll_jpath p;
    coll_job_path(&r.sc, it, k, 0, &p);
    assert_int_equal(p.straggler_rank, 1);
    assert_int_equal(p.straggler_host, h);
    assert_int_equal(p.gap_excess, 0);
    /* each path flow at rank 1 (it sends or gets 100000 B) costs 100000 x 8 x 30 ps more */
    assert_true(p.nic > 0 && p.nic % (100000 * 8 * 30) == 0);
    assert_true(it[0].end - it[0].start > 2 * 3 * rx_time(100000)); /* slower than the even ring */
    assert_true(p.per_without < p.per);
    free(it);
    run_free(&r);
}

/* MoE all-to-all (item 6): skewed shares. Weights 1,2,3,4: every rank sends
 * destination d S w_d / 10 (not to itself), so d receives 3 S w_d / 10 in
 * all; Zipf: the k-th most popular of 8 ranks gets 1/k of the weight, the
 * order drawn from the seed. */
static uint64_t rx_bytes(const struct run *r, uint32_t dst)
{
    uint64_t b = 0;
    for (size_t i = 0; i < r->sc.flows.n; i++)
        b += r->sc.flows.v[i].dst == dst ? r->sc.flows.v[i].size : 0;
    return b;
}

static void test_a2a_shares(void **st)
{
    (void)st;
    struct run r;
    coll_setup(&r, 4, "alltoall", "450000B", "a2a_weights = 1,2,3*2\nchunks = 2\nchannels = 2\n", "1000000");
    static const uint64_t w[] = {1, 2, 3, 3};
    for (uint32_t d = 0; d < 4; d++)
        assert_int_equal(rx_bytes(&r, r.sc.flows.jobs[0].hosts[d]), 3 * 450000 * w[d] / 9);
    run_free(&r);
    coll_setup(&r, 4, "alltoall", "400000B", "a2a_weights = 1,2,3,4\nalltoall = all\n", "1000000");
    for (uint32_t d = 0; d < 4; d++)
        assert_int_equal(rx_bytes(&r, r.sc.flows.jobs[0].hosts[d]), 3 * 400000 * (d + 1) / 10);
    run_free(&r);

    uint64_t got[3][8];
    for (int seed = 0; seed < 3; seed++) {
        char extra[128];
        snprintf(extra, sizeof extra, "a2a_zipf = 1\nalltoall = all\n[run]\nseed = %d\n", seed < 2 ? 5 : 6);
        coll_setup(&r, 8, "alltoall", "840000B", extra, "1000000");
        uint64_t sum = 0;
        for (uint32_t d = 0; d < 8; d++)
            sum += got[seed][d] = rx_bytes(&r, r.sc.flows.jobs[0].hosts[d]) / 7;
        assert_int_equal(sum, 840000);
        uint64_t s[8];
        memcpy(s, got[seed], sizeof s);
        for (int i = 1; i < 8; i++) /* sort, most popular first */
            for (int j = i; j > 0 && s[j] > s[j - 1]; j--) {
                uint64_t t = s[j];
                s[j] = s[j - 1];
                s[j - 1] = t;
            }
        for (uint32_t kk = 0; kk < 8; kk++) /* 840000 / H(8) / (k+1), H(8) = 761/280 */
            assert_true(llabs((long long)s[kk] - (long long)(840000.0 * 280 / 761 / (kk + 1))) <= 1);
        run_free(&r);
    }
    assert_memory_equal(got[0], got[1], sizeof got[0]);
    assert_memory_not_equal(got[0], got[2], sizeof got[0]);
}

/* Hierarchical all-to-all on an idle rail fabric, 4 servers x 2 GPUs, S =
 * 800 KB (u = S/8 = 100 KB a pair): phase 1 over NVLink, M u = 400 KB to the
 * other GPU of the server (4 us at 800 Gbps, + 0.5 us); phase 2 on each
 * rail, G u = 200 KB to each other server: pairwise 3 steps of (200 KB with
 * 48 B a 1000 B packet, one store and forward, 2 links) and an ACK between
 * steps; all at once the NIC sends its 3 flows in turn. Skewed (weights
 * 1..8, S = 720 KB: 20 KB a unit), the bytes a destination gets across
 * servers are G (M-1) times its share. */
static void test_hier_a2a_analytic(void **st)
{
    (void)st;
    const char *base = "[topology]\ntype = rail\nservers = 4\ngpus_per_server = 2\nspines = 2\nnvlink = 800Gbps\n"
                       "nvlink_delay = 500ns\n[transport]\ncc = none\nack_interval = 1000000\n"
                       "[traffic]\npattern = collective\ncollective = alltoall\nplacement = rail\nhierarchy = server\n";
    const simtime_t nv = (simtime_t)(400000 * 8 * 5 / 4) + 500 * T_NS;
    const simtime_t rail = (simtime_t)((200000 + 48 * 200) * 80) + 1048 * 80 + 2 * T_US;
    char ini[1024];
    struct run r;
    for (int all = 0; all < 2; all++) {
        snprintf(ini, sizeof ini, "%ssize = 800000B\nalltoall = %s\n", base, all ? "all" : "pairwise");
        run_setup(&r, ini);
        run_build(&r);
        sim_run(&r.sc.sim);
        run_check_invariants(&r);
        assert_int_equal(r.sc.flows.jobs[0].steps, all ? 2 : 1 + 3);
        simtime_t want = all ? nv + 3 * (rail - 1048 * 80 - 2 * T_US) + 1048 * 80 + 2 * T_US /* 56.888 us */
                             : nv + 3 * rail + 2 * ACK_TX;                                    /* 61.065 us */
        assert_int_equal(iter_time(&r, 0, 0), want);
        for (uint32_t i = 0; i < r.sc.sim.n_flows; i++) { /* NVLink inside a server; across, on the rail */
            const struct qp *f = &r.sc.sim.flows[i];
            assert_int_equal(f->local, f->src / 2 == f->dst / 2);
            assert_int_equal(f->size, f->local ? 400000 : 200000);
            if (!f->local)
                assert_int_equal(f->src % 2, f->dst % 2);
        }
        run_free(&r);
    }
    snprintf(ini, sizeof ini, "%ssize = 720000B\na2a_weights = 1,2,3,4,5,6,7,8\n", base);
    run_setup(&r, ini);
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    for (uint32_t d = 0; d < 8; d++) {
        uint64_t across = 0;
        for (uint32_t i = 0; i < r.sc.sim.n_flows; i++)
            across += !r.sc.sim.flows[i].local && r.sc.sim.flows[i].dst == d ? r.sc.sim.flows[i].size : 0;
        assert_int_equal(across, 2 * 3 * 720000 * (d + 1) / 36);
    }
    run_free(&r);
}

/* FLB under a skewed MoE all-to-all with persistent queue pairs (the
 * rail-lb study's point that crashed): a QP's next message takes over FLB's
 * per-flow state, its isolation-table flag and index included, while the
 * table holds the earlier message's id; a RELEASE for the new message then
 * dropped another entry and, the table empty, ran its count below zero
 * (SIGSEGV in flb.c iso_drop). The run must finish, lossless. */
static void test_flb_qp_isolation(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[run]\nseed = 2\n[topology]\ntype = rail\nservers = 16\ngpus_per_server = 8\nspines = 16\n"
                  "[switch]\npfc = on\n[transport]\ncc = flbrc\nmtu = 4000\nack_interval = 16\n[lb]\nscheme = flb\n"
                  "[traffic]\npattern = collective\ncollective = alltoall\nalltoall = all\nsize = 16MB\niterations = 2\n"
                  "compute_gap = 20us\nplacement = rail\na2a_zipf = 0.5\n");
    run_build(&r);
    sim_run(&r.sc.sim);
    run_check_invariants(&r);
    run_free(&r);
}

static void bad(const char *ini, const char *sub)
{
    struct config c;
    struct scenario sc;
    struct err e = {{0}};
    memset(&sc, 0, sizeof sc);
    assert_int_equal(config_init(&c), 0);
    int rc = config_load_ini(&c, ini, "t.ini", &e);
    if (rc == 0)
        rc = config_validate(&c, &e);
    if (rc == 0)
        rc = scenario_load(&sc, &c, &e);
    if (rc == 0)
        fail_msg("accepted:\n%s", ini);
    if (!strstr(e.msg, sub))
        fail_msg("message '%s'\n  wanted '%s'", e.msg, sub);
    scenario_free(&sc);
    config_load_free(&c);
    config_free(&c);
}

static void test_bad_input(void **st)
{
    (void)st;
    bad("[traffic]\npattern = collective\ncollective = hd_allreduce\ngroup = 6\n",
        "t.ini:4: traffic.group: hd_allreduce (recursive halving-doubling) needs a power-of-two group, not 6 hosts");
    bad("[traffic]\npattern = collective\ngroup = 1\n", "t.ini:3: traffic.group: a collective needs at least 2 hosts");
    bad("[traffic]\npattern = collective\nhosts = 0,1,0\n", "t.ini:3: traffic.hosts: bad host list");
    bad("[traffic]\npattern = collective\nhosts = 0-3\ngroup = 3\n", "traffic.group: 3 does not match the 4 hosts");
    bad("[traffic]\npattern = collective\nhosts = 0,130\n", "traffic.hosts: node 130 is a switch");
    bad("[traffic]\npattern = collective\ncollective = ring\n", "t.ini:3: ");
    bad("[traffic]\npattern = collective\nsize = 10B\ngroup = 8\nchunks = 4\n", "leaves empty pieces");
    bad("[topology]\nleaves = 2\nspines = 1\nhosts_per_leaf = 2\n[traffic]\npattern = collective\ngroup = 3\n"
        "[traffic.b]\npattern = collective\ngroup = 2\n",
        "[traffic.b] traffic.group: 2 hosts wanted, 1 are free");
    bad("[topology]\nleaves = 8\nspines = 1\nhosts_per_leaf = 16\n[traffic]\npattern = collective\ncollective = alltoall\n"
        "alltoall = all\niterations = 10000\n", "traffic.iterations: this job is");
    bad("[traffic]\npattern = collective\nplacement = rail\n", "traffic.placement: rail needs GPU servers");
    bad("[traffic]\npattern = collective\nhierarchy = server\n", "traffic.hierarchy: server needs GPU servers");
    bad("[topology]\ntype = rail\nservers = 2\ngpus_per_server = 4\n[traffic]\npattern = collective\ngroup = 6\n"
        "placement = rail\n", "traffic.group: placement = rail takes whole servers: 6 is not a multiple of 4");
    bad("[topology]\ntype = rail\nservers = 2\ngpus_per_server = 4\n[traffic]\npattern = collective\n"
        "collective = allgather\nhierarchy = server\n", "or all-to-all (alltoall), not allgather");
    bad("[topology]\ntype = rail\nservers = 2\ngpus_per_server = 4\n[traffic]\npattern = collective\n"
        "placement = random\nhierarchy = rail\n", "(ranks must fill whole servers in GPU order: placement = rail)");
    bad("[topology]\ntype = rail\nservers = 6\nservers_per_leaf = 4\n", "topology.servers_per_leaf: 6 servers do not split");
    /* stragglers and MoE shares */
    bad("[traffic]\npattern = collective\ngroup = 4\nslow_rank = 4\n",
        "t.ini:4: traffic.slow_rank: rank 4 of a job of 4 ranks (0 to 3, or -1: none)");
    bad("[traffic]\npattern = collective\nslow_nic = 25Gbps\n", "t.ini:3: traffic.slow_nic: whose NIC? set traffic.slow_rank");
    bad("[traffic]\npattern = collective\nslow_rank = 1\nslow_nic = 25GB\n", "t.ini:4: traffic.slow_nic: '25GB': unknown rate unit");
    bad("[traffic]\npattern = collective\ngap_dist = gauss\n", "t.ini:3: ");
    bad("[traffic]\npattern = collective\na2a_zipf = 1\n", "t.ini:3: traffic.a2a_zipf: skewed shares are for collective = alltoall");
    bad("[traffic]\npattern = collective\ncollective = alltoall\ngroup = 4\na2a_weights = 1,2,3\n",
        "t.ini:5: traffic.a2a_weights: 3 weights for 4 ranks");
    bad("[traffic]\npattern = collective\ncollective = alltoall\na2a_weights = 1,0,1\n",
        "t.ini:4: traffic.a2a_weights: '1,0,1': each weight is a number above 0");
    bad("[traffic]\npattern = collective\ncollective = alltoall\na2a_weights = 2*0\n", "W*N needs a count N");
    bad("[traffic]\npattern = collective\ncollective = alltoall\na2a_weights = 1;2\n", "separated by commas");
    bad("[traffic]\npattern = collective\ncollective = alltoall\na2a_weights = 1\na2a_zipf = 1\n",
        "set either a2a_zipf or a2a_weights, not both");
    bad("[traffic]\npattern = collective\ncollective = alltoall\nsize = 100KB\ngroup = 64\na2a_zipf = 4\n",
        "fewer than channels x chunks (1): raise size or lower the skew");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_allreduce_analytic),
        cmocka_unit_test(test_hd_allreduce_analytic),
        cmocka_unit_test(test_alltoall_analytic),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_flowfile_deps_sim),
        cmocka_unit_test(test_flowfile_dep_sent),
        cmocka_unit_test(test_flowfile_dep_start),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_flowfile_roundtrip),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_chunks_gap_iterations),
        cmocka_unit_test(test_job_span),
        cmocka_unit_test(test_hd_chunks_bytes),
        cmocka_unit_test(test_persistent_qps),
        cmocka_unit_test(test_hier_allreduce_analytic),
        cmocka_unit_test(test_rail_ring_busbw),
        cmocka_unit_test(test_chain_api),
        cmocka_unit_test(test_straggler_slow_rank),
        cmocka_unit_test(test_gap_dist),
        cmocka_unit_test(test_slow_nic),
        cmocka_unit_test(test_a2a_shares),
        cmocka_unit_test(test_hier_a2a_analytic),
        cmocka_unit_test(test_flb_qp_isolation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
