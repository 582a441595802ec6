/* Accessors for tests into Proteus's state (lb/proteus.c). */
#ifndef ROCESIM_LB_PROTEUS_H
#define ROCESIM_LB_PROTEUS_H
#include <stdbool.h>
#include <stdint.h>
#include "core/simtime.h"

struct sim;

/* The Table II class of path i from edge switch `node` toward dst_edge as it
 * sees it now (-1: not running Proteus, not an edge, no such path). */
int proteus_path_class(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i);
/* Set what edge `node` knows of path i toward dst_edge, as feedback would. */
void proteus_path_set(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i, simtime_t owd, double util);
/* Summed over the switches: Algorithm 1's moves of a flow to a faster path,
 * Algorithm 2's reroutes, and its decisions to stay for want of an alternative. */
void proteus_counts(const struct sim *s, uint64_t *rtt_moves, uint64_t *reroutes, uint64_t *stays);
/* Path i from edge `node` toward dst_edge is active: not kicked out here (for
 * priority 3, the data's default class) nor reported kicked out further on. */
bool proteus_path_active(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i);

#endif
