/* FLB's interface beyond its lb_ops (lb/flb.c): the CNM its source edge
 * switch forwards to a sender, which FLB's minimal rate control reads
 * (cc/flbrc.c, which declares `.lb_pair = "flb"`: FLB forwards CNMs when
 * lb_cc_paired()), and accessors for tests. */
#ifndef ROCESIM_LB_FLB_H
#define ROCESIM_LB_FLB_H
#include <stdbool.h>
#include <stdint.h>
#include "core/simtime.h"

struct sim;

/* The forwarded CNM is a PKT_FEEDBACK made with cc_switch_packet for the
 * congested flow. p->fb[0]: FLBRC_CONGESTED or FLBRC_RELEASE; p->aux: n, the
 * number of congested flows at the congested egress port; p->fb[1]: that
 * port's rate C (bps). The sender's next rate is C / n. */
enum { FLBRC_RELEASE = 0, FLBRC_CONGESTED = 1 };
#define FLBRC_MSG_BYTES 64 /* a QCN-sized CNM (802.1Qau frames are 64 B) */

/* For tests. Switch `node`'s isolation threshold on its port `port` (global
 * id), its congested-flow count there, and whether a source edge has `port`
 * isolated; the number of isolated uplinks and of table entries at an edge;
 * the first hop of the path flow `flow` last took at its source edge `node`. */
uint64_t flb_k(struct sim *s, uint32_t node, uint32_t port);
uint32_t flb_port_congested(struct sim *s, uint32_t node, uint32_t port);
bool flb_isolated(struct sim *s, uint32_t node, uint32_t port);
uint32_t flb_n_isolated(struct sim *s, uint32_t node);
uint32_t flb_n_table(struct sim *s, uint32_t node);
uint32_t flb_flow_uplink(struct sim *s, uint32_t node, uint32_t flow);
/* The port the latest CNM about `flow` came into its source edge by
 * (UINT32_MAX: none yet, or sent by that edge itself). */
uint32_t flb_cnm_in(struct sim *s, uint32_t flow);
/* Set the one-way delay edge `node` knows for path i toward dst_edge, as feedback would. */
bool flb_path_set(struct sim *s, uint32_t node, uint32_t dst_edge, uint32_t i, simtime_t owd);

#endif
