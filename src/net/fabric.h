/* The fabric facts: what any scheme may read about a port (a global port id;
 * at a switch, an egress port), the same set for a balancer's hooks and a
 * CC's switch-side hooks (so they are named lb_port_* wherever they are
 * called). Schemes get this through net/lb.h and net/cc.h. Implemented in
 * net/lbapi.c; cheap enough to call per packet.
 * The link's facts (lb_port_peer_node, lb_port_peer, lb_port_delay,
 * lb_port_node) hold for any port of the fabric, a path's far hops included;
 * the rest are the state of a port of the switch or host calling: in a
 * parallel run another partition's ports change elsewhere, and across MPI
 * ranks another rank's are not even set up. */
#ifndef ROCESIM_FABRIC_H
#define ROCESIM_FABRIC_H
#include <stdbool.h>
#include <stdint.h>
#include "core/simtime.h"

struct sim;

uint64_t lb_port_queue_bytes(const struct sim *s, uint32_t port, int q);
uint64_t lb_port_bytes(const struct sim *s, uint32_t port); /* all queues */
uint64_t lb_port_rate(const struct sim *s, uint32_t port);
uint64_t lb_port_tx_bytes(const struct sim *s, uint32_t port); /* bytes sent so far (utilisation = its rate of change) */
bool lb_port_paused(const struct sim *s, uint32_t port, int q);
simtime_t lb_port_paused_since(const struct sim *s, uint32_t port, int q); /* T_NEVER when not paused */
/* Predicted queueing delay of a packet joining queue q now: the bytes ahead
 * of it at the port's rate; T_NEVER while q is paused. */
simtime_t lb_port_predicted_delay(const struct sim *s, uint32_t port, int q);
/* lb_port_predicted_delay(s, port, q) == T_NEVER (paused, or its link down), without computing the delay. */
bool lb_port_blocked(const struct sim *s, uint32_t port, int q);
uint32_t lb_port_peer_node(const struct sim *s, uint32_t port);
uint32_t lb_port_peer(const struct sim *s, uint32_t port); /* the port at the link's far end */
simtime_t lb_port_delay(const struct sim *s, uint32_t port);   /* its link's propagation delay */
bool lb_port_to_host(const struct sim *s, uint32_t port);      /* its peer is a host */
uint32_t lb_port_queue_packets(const struct sim *s, uint32_t port, int q); /* packets in queue q */
uint32_t lb_port_node(const struct sim *s, uint32_t port); /* the node (switch or host) it belongs to */

#endif
