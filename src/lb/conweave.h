/* Accessors for tests into ConWeave's state (lb/conweave.c). */
#ifndef ROCESIM_LB_CONWEAVE_H
#define ROCESIM_LB_CONWEAVE_H
#include <stdint.h>
#include "core/simtime.h"

struct sim;

/* Counters summed over the switches (all 0 when ConWeave is not running). */
struct conweave_counts {
    uint64_t reroutes, replies_timely, clears, notifies_sent, notifies_rx, held, queue_full, flushes_by_tail,
        flushes;
};
void conweave_counts(const struct sim *s, struct conweave_counts *c);
/* Whether a NOTIFY keeps path i from edge switch `node` to edge `de` paused
 * now (-1: no such row or path). */
int conweave_path_paused(struct sim *s, uint32_t node, uint32_t de, uint32_t i);
/* The times derived for edge switch `node` (0 before its first packet):
 * t[0] tx_expiry, t[1] voq_flush_extra, t[2] voq_default_wait. */
void conweave_derived(struct sim *s, uint32_t node, simtime_t t[3]);

#endif
