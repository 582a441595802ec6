/* One flow and a bare simulator, for driving a cc_ops directly: the sim
 * gives the clock (set s.now by hand), the timer queue and the one NIC that
 * cc_change_rate wakes. The flow: host 0, line rate `line`, base RTT 10 us. */
#ifndef ROCESIM_CCFIX_H
#define ROCESIM_CCFIX_H
#include "net/net.h"

struct fix {
    struct sim s;
    struct qp qp;
    const struct cc_ops *cc;
    void *par, *st;
};

void fix_init_line(struct fix *f, const struct cc_ops *cc, uint64_t line, uint64_t rate);
/* At 100 Gbps. */
void fix_init(struct fix *f, const struct cc_ops *cc, uint64_t rate);
void fix_params(struct fix *f, const char *key, const char *val);
void fix_start(struct fix *f);
void fix_free(struct fix *f);

#endif
