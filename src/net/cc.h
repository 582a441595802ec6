/* Congestion-control plug-in interface, after Linux's tcp_congestion_ops.
 * One scheme per file in src/cc/, each with a private state struct, static
 * functions and one `const struct cc_ops`, listed in cc_registry (cc/registry.c).
 * A scheme sees only its flow (struct qp), its own state and parameters, the
 * packet that triggered the call, and the helpers below. It sets qp->rate
 * (pacing) and/or qp->win; the NIC does the rest. */
#ifndef ROCESIM_CC_H
#define ROCESIM_CC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/param.h"
#include "core/simtime.h"

struct sim;
struct qp;
struct pkt;

struct cc_ops {
    const char *name;
    const char *help;            /* one line: paper / what it is */
    const struct param *params;  /* keys of [cc.NAME] */
    size_t params_size;          /* sizeof the scheme's parameter struct */
    size_t state_size;           /* per-flow private state, zeroed before init */
    uint32_t int_bytes;          /* extra header on data and ACKs (HPCC 42, TIMELY 8) */
    bool int_stamp;              /* switches push an INT hop record at dequeue (HPCC) */

    void (*init)(struct sim *s, struct qp *qp, void *st, const void *par);
    /* Every ACK or NACK that reaches the sender, after the transport updated
     * snd_una. `ack` is valid only during the call. */
    void (*on_ack)(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack);
    /* Congestion notification: an ACK with the CNP flag or a CNP packet. */
    void (*on_cnp)(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *p);
    /* A timer set with cc_timer_set() fired (kind 0..CC_TIMERS-1). */
    void (*on_timer)(struct sim *s, struct qp *qp, void *st, const void *par, int kind);
};

#define CC_TIMERS 3 /* timer kinds available to a scheme; one more is the transport's RTO */

extern const struct cc_ops *const cc_registry[]; /* NULL-terminated */
const struct cc_ops *cc_find(const char *name);
int cc_index(const char *name);

/* Helpers a scheme may call. */
simtime_t cc_now(const struct sim *s);
/* Payload bytes per full packet (transport.mtu). */
uint32_t cc_mtu(const struct sim *s);
void cc_timer_set(struct sim *s, struct qp *qp, int kind, simtime_t at);
void cc_timer_cancel(struct sim *s, struct qp *qp, int kind);
/* Change the pacing rate the way ns-3 HPCC's ChangeRate does: the next send
 * time is moved by the difference in the last packet's serialisation time. */
void cc_change_rate(struct sim *s, struct qp *qp, uint64_t new_rate);

#endif
