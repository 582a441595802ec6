/* Accessors for tests into CONGA's state (lb/conga.c). */
#ifndef ROCESIM_LB_CONGA_H
#define ROCESIM_LB_CONGA_H
#include <stdbool.h>
#include <stdint.h>

struct sim;

/* Edge switch `node`'s Congestion-To-Leaf (to) or -From-Leaf entry for remote
 * edge `edge`, path i, as a decision would read it now; -1 if that row or
 * path does not exist (or CONGA is not running). */
int conga_table_metric(struct sim *s, uint32_t node, bool to, uint32_t edge, uint32_t i);

#endif
