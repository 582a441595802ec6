/* Load-balancing plug-in interface, shaped like cc_ops: one scheme per file
 * in src/lb/, private per-switch state, parameters with defaults, one ops
 * table, listed in lb_registry (lb/registry.c). net/ calls the hooks and
 * names no scheme.
 *
 * The switch-side half: at every switch a packet meets, on_arrival sees it
 * first (the source edge may pin a path: p->lb.path), then, unless it carries
 * a path, choose() picks among the equal-cost egress ports (only asked when
 * there are two or more), on_enqueue may still re-steer it after buffer
 * admission, and on_dequeue sees it leave (stamping, measuring). Per-switch
 * timers and control packets to any node complete the set. By default only
 * data packets reach the hooks; ACK/NACK/CNP and other control traffic take
 * the control balancer (ECMP) unless the scheme sets `all_packets`.
 *
 * The host-side half, for schemes that choose paths at the sender (Hermes):
 * each host has its own struct lb_switch record too (layer LAYER_HOST = 0,
 * edge -1, st = host_state_size zeroed bytes, its own rng and timers:
 * lb_timer_set on it fires on_timer with that record). host_send sees every
 * data packet as the NIC sends it and may set its path word (from the source
 * edge switch on: that switch reads byte 0) or its UDP source port (ECMP's
 * hash); host_ack sees every ACK/NACK back (echo_path, PF_ECN_ECHO, the data's
 * ts); host_timeout every retransmission timeout; lb_probe_send sends a probe
 * along a path that the far host echoes back to host_probe. Per-flow state is
 * flow_state_size either way. A scheme without them costs nothing. */
#ifndef ROCESIM_LB_H
#define ROCESIM_LB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/param.h"
#include "core/rng.h"
#include "core/simtime.h"
#include "net/fabric.h"
#include "net/packet.h"

struct sim;
struct pkt;
struct qp;

#define LB_TIMERS 2 /* timer kinds per switch (and per host) */
#define LB_STATS 8  /* scheme-defined counters in summary.json (lb_ops.stat_names) */

/* One per switch, handed to every hook. */
struct lb_switch {
    uint32_t node;           /* node id */
    uint8_t layer;           /* LAYER_EDGE 1, LAYER_AGG 2, LAYER_CORE 3 */
    int32_t edge;            /* its edge index (it has hosts), or -1 */
    uint32_t port0, nports;  /* its ports: port0 .. port0 + nports - 1 */
    void *st;                /* node_state_size + edges x node_state_per_edge zeroed bytes, 8-aligned */
    struct rng rng;          /* its own random stream, from run.seed and the node id */
    simtime_t timer_at[LB_TIMERS]; /* wanted time, -1 = none */
    simtime_t timer_ev[LB_TIMERS]; /* time of the one heap entry, -1 = none */
    struct lb_holdq *hold;   /* its hold queues (lb_ops.hold_queues), made on first lb_hold */
};

/* One hold queue (net/lbapi.c owns it; a scheme only names it by index). */
struct lb_holdq {
    struct pkt *head, *tail;
    uint32_t n;
    simtime_t at; /* deadline wanted, -1 = none */
    simtime_t ev; /* time of its one heap entry, -1 = none */
};

struct lb_ops {
    const char *name;
    const char *help;
    const struct param *params;  /* keys of [lb.NAME] */
    size_t params_size;
    size_t node_state_size;      /* per switch, zeroed before init */
    /* More zeroed bytes per switch, this many for every edge switch of the
     * topology, at (char *)sw->st + node_state_size (keep that a multiple of
     * the entries' alignment): tables indexed by the destination's edge,
     * lb_host_edge(s, p->dst), sized by the topology, not the scheme. */
    size_t node_state_per_edge;
    /* Per flow, zeroed: state a source edge switch keeps for its flows
     * (flowlet tables). Hardware would hash flows into a table and collide;
     * indexing by flow id is the collision-free idealisation. */
    size_t flow_state_size;
    /* The per-flow state has a half the destination edge writes (ConWeave's
     * reorder side): a queue pair's next message, which copies its
     * predecessor's state at the sender (SIM_DEP_QP, transport.c), would then
     * read what another partition writes, so a parallel run refuses QP chains. */
    bool flow_state_at_dst;
    uint32_t hdr_bytes;          /* LB header bytes added to every data packet on the wire */
    bool all_packets;            /* hooks see every packet, not only data */
    bool sojourn;                /* switches accumulate p->lb.sojourn (queueing time so far) */
    /* For statistics: the flowlet gap of the scheme's parameters (fct.csv's
     * flowlets column counts gaps at least this long at the first switch);
     * NULL or 0 = the default 100 us. */
    simtime_t (*flowlet_gap)(const void *par);
    /* Hold queues per switch (NULL or 0 = none): FIFOs in which a scheme may
     * park packets at a switch and release them later into normal forwarding
     * (a destination switch's reorder queues). See lb_hold below. */
    uint32_t (*hold_queues)(const void *par);
    /* NULL when the scheme runs in a partitioned run (run.threads > 1,
     * docs/parallel.md): a switch's hooks touch only that switch's state, a
     * host's only that host's, per-flow state is written at one place (or in
     * disjoint fields at two) and feedback travels in packets. Else one line
     * naming the state two partitions share, which the configuration quotes
     * when it refuses run.threads > 1. */
    const char *serial_only;

    void (*init)(struct sim *s, struct lb_switch *sw, const void *par);
    void (*on_arrival)(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t in_port);
    /* Index into ports[0..n-1], n >= 2; p carries no path (or it ran out). */
    int (*choose)(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n);
    /* After admission, before p joins egress *out at queue q (the ingress
     * accounting does not depend on the egress, so *out may change). */
    void (*on_enqueue)(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t *out, int q);
    void (*on_dequeue)(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, uint32_t port, int q);
    void (*on_timer)(struct sim *s, struct lb_switch *sw, const void *par, int kind);
    /* A PKT_CTRL addressed to this switch (p->lb.to_node), p->in_port the port it came in by
     * (UINT32_MAX if sent by this switch itself); freed after the call. */
    void (*on_ctrl)(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p);
    /* Flow `flow` starts as the next message of `prev`'s queue pair (SIM_DEP_QP), at
     * its sender: its per-flow state is a copy of prev's (transport.c qp_carry_over).
     * A scheme undoes here what belonged to prev's message alone. NULL: keep the copy. */
    void (*on_qp_next)(struct sim *s, const void *par, uint32_t prev, uint32_t flow);

    /* ---- the host side (sender NIC); `h` is the sending host's record */
    size_t host_state_size; /* per host, zeroed, at h->st */
    void (*host_init)(struct sim *s, struct lb_switch *h, const void *par);
    /* f's data packet p is leaving the NIC (after the CC's on_send): set
     * p->lb.path (a word of lb_path_word(src edge, dst edge); path_hop 0) or
     * p->sport. retx: it carries bytes sent before. Must not send (no probe). */
    void (*host_send)(struct sim *s, struct lb_switch *h, const void *par, struct qp *f, struct pkt *p, bool retx);
    /* An ACK/NACK of f reached its sender, after snd_una moved and before the
     * CC sees it (f->snd_una >= f->size: this one completes the flow). It
     * echoes the data's path (lb.echo_path), CE mark (PF_ECN_ECHO) and ts. */
    void (*host_ack)(struct sim *s, struct lb_switch *h, const void *par, struct qp *f, const struct pkt *ack);
    /* f's retransmission timeout fired: it goes back to snd_una now. */
    void (*host_timeout)(struct sim *s, struct lb_switch *h, const void *par, struct qp *f);
    /* The echo of a probe this host sent (lb_probe_send): lb.echo_path, PF_ECN_ECHO
     * and ts as on an ACK, src = the probed host. Freed after the call. */
    void (*host_probe)(struct sim *s, struct lb_switch *h, const void *par, const struct pkt *echo);
    /* Names of up to LB_STATS counters (lb_stat_add), NULL-terminated; they
     * appear in summary.json's lb_stats under "scheme". NULL: none. */
    const char *const *stat_names;
    /* Hold queue k reached its deadline and was released (its packets are
     * in their egress queues now, in the order they were held). */
    void (*on_release)(struct sim *s, struct lb_switch *sw, const void *par, uint32_t k);
};

extern const struct lb_ops *const lb_registry[]; /* NULL-terminated */
const struct lb_ops *lb_find(const char *name);
int lb_index(const char *name);

/* ns-3 HPCC's ECMP hash: MurmurHash3 (32-bit) over `len` bytes with `seed`. */
uint32_t ecmp_hash(const uint8_t *key, size_t len, uint32_t seed);
/* ECMP's choice among n >= 2 candidates at switch sw: the hash of p's source
 * and destination IPs and UDP ports, seeded with the switch's node id (ns-3's
 * SwitchNode::GetOutDev). The one fallback for packets a scheme does not route. */
int lb_ecmp_pick(const struct sim *s, const struct lb_switch *sw, const struct pkt *p, int n);

/* ---- helpers a scheme may call (net/lbapi.c) */
simtime_t lb_now(const struct sim *s);
void *lb_flow_state(struct sim *s, uint32_t flow);
/* Zeroed memory owned by the simulation (freed with it), for state whose size
 * depends on the topology (per-port estimators, per edge-pair tables). Meant
 * for init or first use of a pair, not per packet. */
void *lb_alloc(struct sim *s, size_t bytes);
/* Per-switch timers, one heap entry per (switch, kind) as for flow timers. */
void lb_timer_set(struct sim *s, struct lb_switch *sw, int kind, simtime_t at);
/* A control packet from switch `from` to node `to` (a host, or an edge switch:
 * it is routed toward a host below it and consumed there by on_ctrl). Fill
 * p->lb.b[] / p->lb.fb, then lb_ctrl_send: it enters `from` at queue 0 after
 * the current hook returns (never re-entrantly). */
struct pkt *lb_ctrl_packet(struct sim *s, uint32_t from, uint32_t to, uint8_t proto, uint32_t size);
void lb_ctrl_send(struct sim *s, struct pkt *p);
/* Route control packet p hop by hop over `ports` (the egress port at each
 * switch it crosses, at most 4, from the sender on; p's last hop must end at
 * its destination edge switch), as a source route: each must be one of that
 * switch's shortest next hops toward p's destination. Returns false (and
 * leaves p to ECMP) if one is not. */
bool lb_ctrl_route(struct sim *s, struct pkt *p, const uint32_t *ports, int n);
/* Hold queues. In on_enqueue (the packet is admitted: its bytes count in its
 * ingress port's buffer and PFC accounting) a scheme may park it:
 * lb_hold(s, sw, k, p, *out, deadline) and then *out = LB_HELD. It stays
 * counted there while held, so a lossless fabric stays lossless (a full
 * buffer PAUSEs upstream as for any queued byte), and joins egress `out` when
 * queue k is released: at once by lb_hold_release, or at the queue's
 * deadline (then on_release is called). Every non-empty queue has a finite
 * deadline, so no packet stays held past it and a run never ends with held
 * packets (they count in sim_packets_in_network and keep the run going).
 * The deadline is set by the first lb_hold into an empty queue and moved
 * (either way) by lb_hold_deadline; one in the past means now. A queue is
 * released in FIFO order; a packet whose egress link failed while it was
 * held is lost there (counted as packets_lost_link). */
#define LB_HELD UINT32_MAX
void lb_hold(struct sim *s, struct lb_switch *sw, uint32_t k, struct pkt *p, uint32_t out, simtime_t deadline);
/* The same, but the packet leaves the buffer and PFC accounting while held
 * (which may RESUME its ingress port) and is admitted again at its release,
 * as if it arrived then by the same ingress port (dropped if there is no
 * room): the ConWeave artifact's VOQs, which sit beside its switch MMU. */
void lb_hold_outside(struct sim *s, struct lb_switch *sw, uint32_t k, struct pkt *p, uint32_t out, simtime_t deadline);
void lb_hold_deadline(struct sim *s, struct lb_switch *sw, uint32_t k, simtime_t at);
void lb_hold_release(struct sim *s, struct lb_switch *sw, uint32_t k);
uint32_t lb_hold_count(const struct lb_switch *sw, uint32_t k); /* packets in hold queue k */
simtime_t lb_hold_at(const struct lb_switch *sw, uint32_t k);   /* its deadline, -1 = none */

/* The edge index of the switch a host hangs off, and the host's edge. */
uint32_t lb_host_edge(const struct sim *s, uint32_t host_node);
uint32_t lb_edge_node(const struct sim *s, uint32_t edge);
uint32_t lb_edge_count(const struct sim *s);
/* Nodes, hosts (index 0 .. lb_host_count - 1 -> node id) and flows of the run. */
uint32_t lb_node_count(const struct sim *s);
uint32_t lb_host_count(const struct sim *s);
uint32_t lb_host_node(const struct sim *s, uint32_t host_index);
uint32_t lb_flow_count(const struct sim *s);
/* The record of switch `node` (NULL if the node is a host): for test
 * accessors and statistics that look at one switch from outside the hooks. */
struct lb_switch *lb_switch_of(const struct sim *s, uint32_t node);
/* The running balancer's parameters if it is `ops`, else NULL. */
const void *lb_running_params(const struct sim *s, const struct lb_ops *ops);
/* Switch `node`'s shared buffer in bytes. */
uint64_t lb_switch_buffer(const struct sim *s, uint32_t node);
/* PFC is on (the fabric is lossless). */
bool lb_lossless(const struct sim *s);
/* The run's CC declared this balancer its pair (cc_ops.lb_pair): it reads
 * the messages the balancer's switches send it (FLB's CNMs for flbrc). */
bool lb_cc_paired(const struct sim *s);
/* Host side: flows the host is sending now (its NIC's active QPs). */
uint32_t lb_host_active_flows(const struct sim *s, uint32_t host_node);
/* A probe (PKT_PROBE, an ACK's size) from host `from` to host `to` along path
 * word `path` (PATH_NONE: ECMP), in traffic class `prio`, so it meets the
 * data's queues and RED marking; it leaves by the NIC's control queue and the
 * far NIC echoes it at once, as it would an ACK, to host_probe. Call it from
 * on_timer, host_ack or host_probe (never from host_send). */
void lb_probe_send(struct sim *s, uint32_t from, uint32_t to, uint32_t path, uint8_t prio);
/* Add n to the scheme's counter i (< LB_STATS; see stat_names); read it. */
void lb_stat_add(struct sim *s, int i, uint64_t n);
uint64_t lb_stat(const struct sim *s, int i);

/* Paths as values. Between two edge switches (edge indices) the equal-cost
 * paths are enumerated once, on first use: path i is a word with one byte per
 * switch hop, the index into that hop's sorted candidate list (CONGA's and
 * ConWeave's packing; up to 4 switch hops before the destination edge). */
uint32_t lb_path_count(struct sim *s, uint32_t src_edge, uint32_t dst_edge);
uint32_t lb_path_word(struct sim *s, uint32_t src_edge, uint32_t dst_edge, uint32_t i);
/* The egress ports along a path word from src_edge; returns how many (<= max). */
int lb_path_ports(struct sim *s, uint32_t src_edge, uint32_t dst_edge, uint32_t word, uint32_t *ports, int max);
/* Changes whenever the path sets are enumerated anew (a link failed or came
 * back): state a scheme keeps per path index must then be mapped by word. */
uint32_t lb_path_epoch(const struct sim *s);

/* Fabric facts about a port (lb_port_*): net/fabric.h. */

/* Re-steer packets already waiting in egress queue q of switch port `port`
 * (a rerouting decision taken while they wait, e.g. when a PAUSE outlasts a
 * packet's budget). `to` sees each packet in FIFO order and returns another
 * egress port of the same switch (the packet joins its queue q at the tail,
 * keeping t_enq, so its sojourn counts from its first enqueue) or UINT32_MAX
 * to leave it where it is. The ingress accounting depends only on the ingress
 * port, so the MMU is unchanged; a CC's sw_enqueue is not called again (it saw
 * the packet once). For rare events (timers), not per packet: it walks the
 * queue. Returns how many packets moved. */
uint32_t lb_port_requeue(struct sim *s, uint32_t port, int q,
                         uint32_t (*to)(struct sim *s, void *ctx, struct pkt *p), void *ctx);

#endif
