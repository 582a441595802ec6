/* The edge-pair path tables (src/lb/pathtab.c) on their own, on a 2-leaf,
 * 4-spine leaf-spine with 2 us links: rows made once per pair with each
 * path's word, uplink and base delay; the path cap; the destination edge's
 * feedback order (changed entries first, else round robin, entries without a
 * value skipped unless fb_always); the feedback word; where a packet stands
 * in its edge pair (pt_role). The schemes' use of it is pinned by
 * tests/cli_golden_lb.sh (CONGA, Proteus, ConWeave, FLB byte for byte). */
#include "testutil.h"
#include <string.h>
#include "simrun.h"
#include "lb/pathtab.h"

struct tent {
    struct pt_path p;
    int extra;
};
struct trow {
    struct pt_row pt;
    struct tent e[];
};
struct tfb {
    struct pt_fb fb;
    int v;
};
struct tfrow {
    struct pt_row pt;
    struct tfb e[];
};

static int made_calls;
static void made(struct sim *s, void *owner, struct pt_row *r, uint32_t here, uint32_t de)
{
    (void)s;
    (void)here;
    (void)de;
    made_calls++;
    assert_int_equal(*(int *)owner, 42);
    for (uint32_t i = 0; i < r->n; i++)
        ((struct trow *)r)->e[i].extra = (int)i + 1;
}

static simtime_t hop_ns(const struct sim *s, uint32_t port)
{
    (void)s;
    (void)port;
    return 1000;
}

#define SPEC(...)                                                                                                    \
    {.to_row = offsetof(struct trow, e), .to_entry = sizeof(struct tent), .from_row = offsetof(struct tfrow, e),     \
     .from_entry = sizeof(struct tfb), .fb_shift = 8, .fb_imask = 0xffff, __VA_ARGS__}

static void setup(struct run *r)
{
    run_setup(r, "[topology]\ntype = leafspine\nleaves = 2\nspines = 4\nhosts_per_leaf = 2\nlink_delay = 2us\n"
                 "[traffic]\npattern = none\n");
    run_build(r);
}

static void test_rows(void **st)
{
    (void)st;
    struct run r;
    setup(&r);
    struct sim *s = &r.sc.sim;
    uint32_t leaf0 = run_edge_switch(s, 0);
    const struct lb_switch *sw = &s->lbsw[leaf0];
    int owner = 42;
    static const struct pt_spec spec = SPEC(.max_paths = 255, .hop = hop_ns, .made = made);
    struct pathtab t;
    pt_init(s, sw, &t, &spec, &owner);
    assert_non_null(t.to);
    assert_null(t.to[1]); /* lazily: nothing before the pair's first use */
    made_calls = 0;
    struct trow *row = (struct trow *)pt_to(s, &t, 0, 1);
    assert_int_equal(row->pt.n, 4); /* one path per spine */
    assert_int_equal(made_calls, 1);
    assert_ptr_equal(pt_to(s, &t, 0, 1), row); /* made once */
    assert_int_equal(made_calls, 1);
    bool seen[8] = {false};
    for (uint32_t i = 0; i < 4; i++) {
        const struct tent *e = &row->e[i];
        assert_int_equal(e->p.word, lb_path_word(s, 0, 1, i));
        assert_int_equal(s->ports[e->p.port].node, leaf0); /* the first hop leaves this leaf... */
        assert_false(s->ports[e->p.port].to_host);          /* ...by an uplink */
        assert_false(seen[e->p.port - s->nodes[leaf0].port0]); /* a different one per path */
        seen[e->p.port - s->nodes[leaf0].port0] = true;
        assert_int_equal(e->p.base, 2 * (2 * T_US + 1000)); /* two links of 2 us, 1 ns per hop */
        assert_int_equal(e->extra, (int)i + 1);             /* the scheme's part, from made() */
    }
    int hops = 0;
    assert_int_equal(pt_walk(s, 0, 1, row->e[0].p.word, NULL, &hops), 4 * T_US); /* propagation only */
    assert_int_equal(hops, 2);

    /* the cap: the first max_paths, or none (the scheme falls back to ECMP) */
    static const struct pt_spec three = SPEC(.max_paths = 3), none = SPEC(.max_paths = 3, .over_none = true);
    struct pathtab t3, t0;
    pt_init(s, sw, &t3, &three, NULL);
    pt_init(s, sw, &t0, &none, NULL);
    assert_int_equal(pt_to(s, &t3, 0, 1)->n, 3);
    assert_int_equal(((struct trow *)pt_to(s, &t3, 0, 1))->e[2].p.word, lb_path_word(s, 0, 1, 2));
    assert_int_equal(pt_to(s, &t0, 0, 1)->n, 0);
    assert_int_equal(pt_from(s, &t0, 1, 0)->n, 0);

    /* a spine is no edge: no tables */
    struct pathtab ts;
    uint32_t spine = s->ports[s->ports[row->e[0].p.port].peer].node;
    assert_true(s->lbsw[spine].edge < 0);
    pt_init(s, &s->lbsw[spine], &ts, &spec, NULL);
    assert_null(ts.to);
    run_free(&r);
}

static void test_feedback_order(void **st)
{
    (void)st;
    struct run r;
    setup(&r);
    struct sim *s = &r.sc.sim;
    const struct lb_switch *sw = &s->lbsw[run_edge_switch(s, 0)];
    static const struct pt_spec spec = SPEC(.max_paths = 255);
    struct pathtab t;
    pt_init(s, sw, &t, &spec, NULL);
    assert_int_equal(pt_fb_pick(&t, 1), UINT32_MAX); /* no row yet */
    struct pt_row *fr = pt_from(s, &t, 1, 0);
    assert_int_equal(fr->n, 4);
    assert_int_equal(pt_fb_pick(&t, 1), UINT32_MAX); /* nothing measured yet */
    pt_fb_note(&t, fr, 2, true);
    assert_int_equal(pt_fb_pick(&t, 1), 2);
    assert_int_equal(pt_fb_pick(&t, 1), 2); /* the only one with a value */
    pt_fb_note(&t, fr, 0, true);
    pt_fb_note(&t, fr, 3, true);
    pt_fb_note(&t, fr, 3, true); /* already changed: counted once */
    assert_int_equal(fr->nchanged, 2);
    /* changed first, from the round robin's place (after 2): 3, then 0 */
    assert_int_equal(pt_fb_pick(&t, 1), 3);
    assert_int_equal(pt_fb_pick(&t, 1), 0);
    assert_int_equal(fr->nchanged, 0);
    /* then round robin over those with a value (1 has none) */
    assert_int_equal(pt_fb_pick(&t, 1), 2);
    assert_int_equal(pt_fb_pick(&t, 1), 3);
    pt_fb_note(&t, fr, 2, false); /* same value again: not changed */
    assert_int_equal(fr->nchanged, 0);
    pt_fb_note(&t, fr, 3, true); /* changed: jumps the queue */
    assert_int_equal(pt_fb_pick(&t, 1), 3);
    assert_int_equal(pt_fb_pick(&t, 1), 0);
    assert_int_equal(pt_fb_pick(&t, 1), 2);

    /* fb_always: every entry has a value from the start (CONGA, FLB) */
    static const struct pt_spec always = SPEC(.max_paths = 255, .fb_always = true);
    struct pathtab ta;
    pt_init(s, sw, &ta, &always, NULL);
    pt_from(s, &ta, 1, 0);
    for (uint32_t k = 0; k < 6; k++)
        assert_int_equal(pt_fb_pick(&ta, 1), k % 4);

    /* the word: valid bit, index above fb_shift bits of value */
    uint32_t w = pt_fb_word(&t, 3, 0x7f);
    assert_int_equal(w, PT_FB_VALID | 3u << 8 | 0x7f);
    assert_int_equal(pt_fb_index(&t, w), 3);
    assert_int_equal(pt_fb_value(&t, w), 0x7f);
    assert_int_equal(pt_fb_index(&t, 0), UINT32_MAX);
    run_free(&r);
}

static void test_role(void **st)
{
    (void)st;
    struct run r;
    setup(&r);
    struct sim *s = &r.sc.sim;
    uint32_t l0 = run_edge_switch(s, 0), l1 = run_edge_switch(s, 1);
    uint32_t h0 = lb_host_node(s, 0), h1 = lb_host_node(s, 1), h2 = lb_host_node(s, 2);
    assert_int_equal(lb_host_edge(s, h0), 0);
    assert_int_equal(lb_host_edge(s, h1), 0);
    assert_int_equal(lb_host_edge(s, h2), 1);
    uint32_t from_h0 = run_port_to(s, l0, h0), up1 = UINT32_MAX;
    for (uint32_t k = 0; k < s->nodes[l1].nports; k++)
        if (!s->ports[s->nodes[l1].port0 + k].to_host)
            up1 = s->nodes[l1].port0 + k;
    uint32_t spine = s->ports[s->ports[up1].peer].node;
    struct pkt p;
    memset(&p, 0, sizeof p);
    p.src = h0;
    p.dst = h2;
    uint32_t se, de;
    for (int type = 0; type < 2; type++) {
        p.type = type ? PKT_ACK : PKT_DATA;
        assert_int_equal(pt_role(s, &s->lbsw[l0], &p, from_h0, &se, &de), PT_SOURCE);
        assert_int_equal(se, 0);
        assert_int_equal(de, 1);
        assert_int_equal(pt_role(s, &s->lbsw[l1], &p, up1, &se, &de), PT_DEST);
        assert_int_equal(pt_role(s, &s->lbsw[spine], &p, s->ports[up1].peer, &se, &de), PT_PASS);
        assert_int_equal(se, UINT32_MAX);
    }
    p.type = PKT_CTRL;
    assert_int_equal(pt_role(s, &s->lbsw[l0], &p, from_h0, &se, &de), PT_PASS);
    p.type = PKT_DATA;
    p.dst = h1; /* within one leaf */
    assert_int_equal(pt_role(s, &s->lbsw[l0], &p, from_h0, &se, &de), PT_PASS);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_feedback_order),
        cmocka_unit_test(test_role),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
