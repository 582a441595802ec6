/* Partitioning a topology for a parallel run (docs/parallel.md): every node
 * gets a partition; links whose ends lie in different partitions are cut, and
 * the smallest delay over them is the lookahead of conservative
 * synchronisation (a packet sent on a cut link at t arrives at >= t + delay).
 *
 * The rule, for every topology (generated or read from an ns-3 file):
 *   1. Units are the edge switches (layer 1) in node-id order, each with the
 *      hosts below it. P partitions take contiguous runs of them: edge i of
 *      E goes to partition i * P / E. Generated fat-trees and Clos number
 *      edges pod-major, so P = pods puts each pod's edges together.
 *   2. Every other switch, by layer (agg before core) then id, joins the
 *      partition holding most of its already placed neighbours; a tie (a core
 *      switch sees every pod once) goes to the tied partition with the fewest
 *      switches of that layer so far, then the lowest number. So an
 *      aggregation switch stays in its pod and core switches (and leaf-spine
 *      spines) are spread round-robin over the partitions.
 *   3. A host follows the switch at the other end of its link (a host linked
 *      only to a host goes to partition 0).
 *   4. A GPU server (topo.gpus_per_server) whose GPUs lie in several
 *      partitions (a rail fabric's: GPU i on rail i's leaf) is split: its
 *      NVSwitch is cut like a link of delay nvlink_delay, a transfer's stage
 *      for the other GPU a message that comes that much ahead (net/nvswitch.c).
 * P = 0 (auto) is the number of pods for fattree and clos, else the number of
 * edge switches; P is capped at the number of edge switches, so P > pods
 * splits pods into groups of edge switches (their aggregation switches are
 * then spread over those groups by rule 2). */
#ifndef ROCESIM_PARTITION_H
#define ROCESIM_PARTITION_H
#include <stdint.h>
#include "core/err.h"
#include "core/simtime.h"
#include "topo/topo.h"

struct partition {
    uint32_t n_parts;
    uint32_t *part;       /* node id -> partition 0 .. n_parts-1 */
    uint32_t n_cut;
    uint32_t *cut;        /* indices of cut links, ascending */
    simtime_t lookahead;  /* smallest delay over cut links and split servers' NVSwitches; T_NEVER when nothing is cut */
    uint32_t n_split_servers; /* GPU servers whose GPUs lie in several partitions (rule 4) */
    uint32_t *nodes;      /* nodes per partition, n_parts entries */
    uint32_t *hosts;      /* hosts per partition */
};

/* Partition t into `want` partitions (0 = auto, see above). -1 with e set if
 * the topology has no edge switch (nothing to group by). */
int topo_partition(struct partition *pt, const struct topo *t, uint32_t want, struct err *e);
void partition_free(struct partition *pt);

#endif
