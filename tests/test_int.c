/* HPCC's INT records against the switch's own counters. Stop a run while
 * packets are in flight and look at every data packet on a switch's wire: its
 * last hop record was stamped by that port when the packet left its queue,
 * i.e. when its transmission started. So ts = the transmission start (its
 * arrival time minus the link delay minus its serialisation), tx_bytes = the
 * bytes the port had sent before it (all it has sent minus this packet and
 * the ones behind it on the wire), rate = the port's rate, and the queue it
 * reported cannot exceed the buffer. */
#include "testutil.h"
#include "simrun.h"

static void test_int_matches_port_counters(void **st)
{
    (void)st;
    struct run r;
    run_setup(&r, "[topology]\ntype = dumbbell\nsenders = 4\nreceivers = 1\n"
                  "[transport]\ncc = hpcc\nwindow = bdp\nvar_win = on\n[traffic]\npattern = none\n");
    for (uint32_t h = 0; h < 4; h++)
        run_add_flow(&r, h, 4, 2000000, 0);
    run_build(&r);
    struct sim *s = &r.sc.sim;
    int checked = 0, multi = 0;
    for (simtime_t stop = 20 * T_US; stop <= 200 * T_US; stop += 20 * T_US) {
        s->p.stop = stop;
        sim_run(s);
        for (uint32_t pid = 0; pid < s->n_ports; pid++) {
            const struct port *pt = &s->ports[pid];
            if (!s->nodes[pt->node].is_switch)
                continue;
            uint64_t behind = 0; /* bytes of this packet and those after it on the wire */
            for (const struct pkt *x = pt->wire.head; x; x = x->next)
                behind += x->size;
            for (const struct pkt *x = pt->wire.head; x; x = x->next) {
                if (x->type == PKT_DATA) {
                    assert_true(x->nhop >= 1);
                    const struct int_hop *h = &x->hop[x->nhop - 1];
                    assert_int_equal(h->ts, x->t_arrive - pt->delay - tx_time(x->size, pt->rate));
                    assert_int_equal(h->tx_bytes, pt->tx_bytes - behind);
                    assert_int_equal(h->rate, pt->rate);
                    assert_true(h->qlen <= s->nodes[pt->node].buffer);
                    multi += x->nhop >= 2;
                    checked++;
                }
                behind -= x->size;
            }
        }
    }
    print_message("checked %d stamped packets (%d with two or more hops)\n", checked, multi);
    assert_true(checked > 100);
    assert_true(multi > 0); /* S0 then S1: records accumulate hop by hop */
    s->p.stop = 0;
    sim_run(s);
    run_check_invariants(&r);
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_matches_port_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
