/* The switch MMU against numbers worked out by hand from DESIGN.md / ns-3
 * HPCC's SwitchMmu: one leaf with 3 ports at 100 Gbps, 1 us links, 1 MB buffer.
 *   headroom/port = 3 * 100e9 * 1us / 8 = 37500 B  -> total 112500
 *   reserve       = 4096 B per port                  -> total 12288
 *   threshold     = (1000000 - 112500 - 12288 - shared) >> 3
 * 1036-byte packets into port 0, queue 3: three fit the reserve; the 4th puts
 * 48 B into shared; then 1036 B each. Packet 98 would take the queue past the
 * threshold (96396 + 1036 > 97352), so it lands in headroom and PAUSE is due.
 * Draining: the first removal empties the headroom, and after the 3rd
 * shared + 3072 = 97396 <= threshold 97611, so RESUME is due — not after 2
 * (98432 > 97481). */
#include "testutil.h"
#include <string.h>
#include "scenario/load.h"
#include "scenario/scenario.h"
#include "simrun.h"

static void test_mmu_thresholds(void **st)
{
    (void)st;
    struct config c;
    struct scenario sc;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    const char *ini = "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                      "[switch]\nbuffer = 1MB\n[traffic]\npattern = none\n";
    if (config_load_ini(&c, ini, "mmu.ini", &e) < 0 || scenario_load(&sc, &c, &e) < 0 || scenario_build(&sc, &e) < 0)
        fail_msg("%s", e.msg);
    struct sim *s = &sc.sim;
    struct node *leaf = &s->nodes[2];
    assert_true(leaf->is_switch);
    assert_int_equal(leaf->nports, 3);
    struct port *in = &s->ports[leaf->port0];
    assert_int_equal(in->headroom, 37500);
    assert_int_equal(in->pfc_shift, 3);
    assert_int_equal(leaf->total_hdrm, 112500);
    assert_int_equal(leaf->total_rsrv, 12288);
    assert_int_equal(mmu_pfc_threshold(s, leaf, in), 875212 >> 3);

    for (int i = 1; i <= 97; i++) {
        assert_true(mmu_admit(s, leaf, in, 3, 1036));
        mmu_add(s, leaf, in, 3, 1036);
        assert_false(mmu_should_pause(s, leaf, in, 3));
        if (i == 3)
            assert_int_equal(leaf->shared_used, 0);
        if (i == 4)
            assert_int_equal(leaf->shared_used, 48);
    }
    assert_int_equal(leaf->shared_used, 96396);
    assert_int_equal(mmu_pfc_threshold(s, leaf, in), 97352);
    mmu_add(s, leaf, in, 3, 1036);
    assert_int_equal(in->hdrm_bytes[3], 1036);
    assert_int_equal(leaf->shared_used, 96396);
    assert_true(mmu_should_pause(s, leaf, in, 3));
    in->pause_sent[3] = true;
    assert_false(mmu_should_pause(s, leaf, in, 3)); /* once */
    /* drop rule: the packet fits neither the headroom nor under the threshold */
    in->hdrm_bytes[3] = 37000;
    assert_false(mmu_admit(s, leaf, in, 3, 1036));
    in->hdrm_bytes[3] = 36000;
    assert_true(mmu_admit(s, leaf, in, 3, 1036));
    in->hdrm_bytes[3] = 1036;

    mmu_remove(s, leaf, in, 3, 1036);
    assert_int_equal(in->hdrm_bytes[3], 0);
    assert_false(mmu_should_resume(s, leaf, in, 3));
    mmu_remove(s, leaf, in, 3, 1036);
    assert_false(mmu_should_resume(s, leaf, in, 3));
    mmu_remove(s, leaf, in, 3, 1036);
    assert_int_equal(leaf->shared_used, 94324);
    assert_int_equal(mmu_pfc_threshold(s, leaf, in), 97611);
    assert_true(mmu_should_resume(s, leaf, in, 3));


    /* the rest drains back to zero */
    for (int i = 0; i < 95; i++)
        mmu_remove(s, leaf, in, 3, 1036);
    assert_int_equal(leaf->shared_used, 0);
    assert_int_equal(in->ingress_bytes[3], 0);
    scenario_free(&sc);
    config_load_free(&c);
    config_free(&c);
}

/* switch.pfc_threshold = 64KB (a static threshold, as FLB's 256KB), same
 * leaf: PAUSE once the ingress queue would hold more than 64000 B, RESUME once
 * it holds at most 64000 - 3072 (resume_offset 3KiB). With 1036-byte packets:
 * 61 fit (63196 B); the 62nd (64232 > 64000) lands in headroom, PAUSE due.
 * Draining: the headroom packet first, then at 60, 59 packets still above
 * 60928 B; at 58 (60088 B) RESUME is due. The threshold does not move with the
 * shared use, but never exceeds what is free in the buffer. */
static void test_mmu_static_threshold(void **st)
{
    (void)st;
    struct config c;
    struct err e;
    struct run r;
    run_setup(&r, "[topology]\ntype = leafspine\nleaves = 1\nspines = 1\nhosts_per_leaf = 2\n"
                  "[switch]\nbuffer = 1MB\npfc_threshold = 64KB\n[traffic]\npattern = none\n");
    run_build(&r);
    struct sim *s = &r.sc.sim;
    struct node *leaf = &s->nodes[2];
    struct port *in = &s->ports[leaf->port0];
    assert_int_equal(mmu_pfc_threshold(s, leaf, in), 64000 - 4096);
    for (int i = 1; i <= 61; i++) {
        assert_true(mmu_admit(s, leaf, in, 3, 1036));
        mmu_add(s, leaf, in, 3, 1036);
        assert_false(mmu_should_pause(s, leaf, in, 3));
        assert_int_equal(mmu_pfc_threshold(s, leaf, in), 59904);
    }
    assert_int_equal(in->ingress_bytes[3], 63196);
    assert_int_equal(in->hdrm_bytes[3], 0);
    mmu_add(s, leaf, in, 3, 1036);
    assert_int_equal(in->hdrm_bytes[3], 1036);
    assert_true(mmu_should_pause(s, leaf, in, 3));
    in->pause_sent[3] = true;
    for (int left = 61; left >= 58; left--) {
        mmu_remove(s, leaf, in, 3, 1036);
        assert_int_equal(in->ingress_bytes[3], 1036 * left);
        if (left > 58)
            assert_false(mmu_should_resume(s, leaf, in, 3));
    }
    assert_int_equal(in->ingress_bytes[3], 60088);
    assert_true(mmu_should_resume(s, leaf, in, 3));
    /* a nearly full buffer caps it: 5000 B free */
    uint64_t used = leaf->shared_used;
    leaf->shared_used = 875212 - 5000;
    assert_int_equal(mmu_pfc_threshold(s, leaf, in), 5000);
    leaf->shared_used = used;
    for (int i = 0; i < 58; i++)
        mmu_remove(s, leaf, in, 3, 1036);
    assert_int_equal(leaf->shared_used, 0);
    assert_int_equal(in->ingress_bytes[3], 0);
    run_free(&r);

    /* a threshold inside the reserve can never be reached: rejected */
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load_ini(&c, "[switch]\npfc_threshold = 4KB\n", "bad.ini", &e), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    assert_non_null(strstr(e.msg, "bad.ini:2: switch.pfc_threshold (4KB) must exceed switch.reserve"));
    config_load_free(&c);
    config_free(&c);
}

/* ns-3's alpha shift: 3 at the NIC rate, one less per doubling (400G -> 1). */
static void test_pfc_shift_by_rate(void **st)
{
    (void)st;
    struct config c;
    struct scenario sc;
    struct err e;
    assert_int_equal(config_init(&c), 0);
    const char *ini = "[topology]\ntype = leafspine\nleaves = 2\nspines = 1\nhosts_per_leaf = 1\nfabric_link = 400Gbps\n"
                      "[traffic]\npattern = none\n";
    if (config_load_ini(&c, ini, "shift.ini", &e) < 0 || scenario_load(&sc, &c, &e) < 0 || scenario_build(&sc, &e) < 0)
        fail_msg("%s", e.msg);
    struct sim *s = &sc.sim;
    for (uint32_t p = 0; p < s->n_ports; p++) {
        const struct port *pt = &s->ports[p];
        if (!s->nodes[pt->node].is_switch)
            continue;
        assert_int_equal(pt->pfc_shift, pt->rate == 400000000000ULL ? 1 : 3);
        /* kmin/kmax scale with the port rate from their 100 Gbps values */
        assert_int_equal(pt->kmin, pt->rate == 400000000000ULL ? 1600000 : 400000);
    }
    scenario_free(&sc);
    config_load_free(&c);
    config_free(&c);
}

/* A switch that never marks ECN (topo.h no_ecn: a SimAI NVSwitch, as SimAI's
 * NVSwitchNode) keeps not marking at every rate: its ports are set up
 * without ECN, and a slowdown of one of its links (topology.slow, which sets
 * each switch end's thresholds for the new rate) leaves them so, while a
 * fabric switch gets the rate's thresholds. topo_8g.txt: GPU 0's NVLink host
 * 18 on NVSwitch 8, its NIC 0 on switch 9. */
static void test_no_ecn_switch(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = file\nfile = " ROCESIM_SOURCE_DIR "/tests/data/simai/topo_8g.txt\n"
                  "slow = 18-8:1000Gbps@10us-20us, 0-9:200Gbps@10us-20us\n[traffic]\npattern = none\n");
    run_build(&r);
    const struct sim *s = &r.sc.sim;
    assert_true(r.sc.topo.nodes[8].no_ecn);
    assert_false(r.sc.topo.nodes[9].no_ecn);
    const struct port *nv = &s->ports[run_port_to(s, 8, 18)], *sw = &s->ports[run_port_to(s, 9, 0)];
    assert_int_equal(nv->kmin, UINT32_MAX);
    assert_int_equal(nv->kmax, UINT32_MAX);
    assert_true(nv->pmax == 0);
    assert_int_equal(sw->kmin, 1600000); /* 400 KB at 100 Gbps, scaled to 400 Gbps */
    assert_int_equal(s->n_link_ev, 4);
    uint32_t seen = 0;
    for (uint32_t i = 0; i < s->n_link_ev; i++) {
        const struct sim_link_event *ev = &s->link_ev[i];
        for (int j = 0; j < 2; j++) {
            uint32_t node = sim_port_node(s, j ? sim_port_peer(s, ev->port) : ev->port);
            if (node == 8) { /* the NVSwitch's end, slowed and restored: still no ECN */
                assert_int_equal(ev->kmin[j], UINT32_MAX);
                assert_int_equal(ev->kmax[j], UINT32_MAX);
                seen++;
            } else if (node == 9) { /* the fabric switch: the rate's thresholds */
                assert_int_equal(ev->kmin[j], ev->rate == 200000000000ULL ? 800000 : 1600000);
                seen++;
            }
        }
    }
    assert_int_equal(seen, 4);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mmu_thresholds),
        cmocka_unit_test(test_pfc_shift_by_rate),
        cmocka_unit_test(test_mmu_static_threshold),
        cmocka_unit_test(test_no_ecn_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
