#include "ccfix.h"
#include "testutil.h"
#include "core/xalloc.h"
#include <stdlib.h>
#include <string.h>

void fix_init_line(struct fix *f, const struct cc_ops *cc, uint64_t line, uint64_t rate)
{
    memset(f, 0, sizeof *f);
    sim_init(&f->s);
    f->s.p.mtu = 1000;
    f->s.n_hosts = 1;
    f->s.nics = calloc(1, sizeof *f->s.nics);
    f->s.n_nodes = 1; /* the host: a rate change may wake its NIC, which asks its node (nic_wake_at) */
    f->s.nodes = xcalloc_aligned(1, sizeof *f->s.nodes, _Alignof(struct node));
    f->s.host_index = calloc(1, sizeof *f->s.host_index);
    f->s.nics[0].wake_at = T_NEVER;
    f->s.now = 100 * T_US;
    f->cc = cc;
    f->par = calloc(1, cc->params_size ? cc->params_size : 1);
    f->st = calloc(1, cc->state_size ? cc->state_size : 1);
    assert_int_equal(param_defaults(cc->params, f->par), 0);
    f->qp.max_rate = line;
    f->qp.rate = rate;
    f->qp.base_rtt = 10 * T_US;
    f->qp.next_avail = f->s.now;
    for (int k = 0; k <= CC_TIMERS; k++)
        f->qp.timer_at[k] = f->qp.timer_ev[k] = -1;
    f->qp.state = FLOW_ACTIVE;
}

void fix_init(struct fix *f, const struct cc_ops *cc, uint64_t rate) { fix_init_line(f, cc, 100000000000ULL, rate); }

void fix_params(struct fix *f, const char *key, const char *val)
{
    const char *why;
    assert_int_equal(param_set(f->cc->params, f->par, key, val, &why), 0);
}

void fix_start(struct fix *f) { f->cc->init(&f->s, &f->qp, f->st, f->par); }

void fix_free(struct fix *f)
{
    free(f->par);
    free(f->st);
    sim_free(&f->s);
}
