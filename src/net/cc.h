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
#include "net/fabric.h"
#include "net/packet.h"

struct sim;
struct qp;
struct pkt;

/* A named set of values a scheme's `profile` key ([cc.NAME] profile = NAME,
 * a P_ENUM whose choices are the profiles' names in this order) selects:
 * "section.key=value" settings, the scheme's own keys as cc.NAME.key and any
 * scenario key the scheme depends on (DCQCN: the switches' ECN thresholds).
 * The scenario applies each one to a key the input did not set itself, so an
 * explicit key always wins. The first profile is the defaults (set = NULL). */
struct cc_profile {
    const char *name;
    const char *const *set; /* NULL-terminated */
};

struct cc_ops {
    const char *name;
    const char *help;            /* one line: paper / what it is */
    const struct param *params;  /* keys of [cc.NAME] */
    size_t params_size;          /* sizeof the scheme's parameter struct */
    size_t state_size;           /* per-flow private state, zeroed before init */
    bool companion;              /* runs beside the CC (transport.NAME = on; listed in cc_companions), not as transport.cc */
    bool flowlet_lb;             /* needs a load balancer with a flowlet timeout (lb_ops.flowlet_gap; HF2T) */
    uint32_t int_bytes;          /* extra header on data and ACKs (HPCC 42, TIMELY 8) */
    bool int_stamp;              /* switches push an INT hop record at dequeue (HPCC) */
    /* Spreads one flow over many ECMP paths by the UDP source port it sets in
     * on_send (the ACK echoes it in its dport): the run needs lb.scheme = ecmp
     * and the bounded-window receiver (transport.reorder = bitmap), which the
     * configuration implies or refuses to contradict. */
    bool multipath;
    /* The load balancer (lb_ops.name) whose switches send this CC the
     * messages it reads in on_feedback (flbrc: "flb"'s CNMs); that balancer
     * asks lb_cc_paired() instead of knowing the CC by name. NULL: none. */
    const char *lb_pair;
    /* Names of up to CC_STATS counters (cc_stat_add), NULL-terminated. Every
     * registered scheme's counters appear in summary.json, 0 when it did not
     * run (the keys do not depend on the configuration); a name "GROUP/KEY"
     * joins the neighbouring counters of one GROUP into an object
     * "GROUP": {"KEY": n, ...}. NULL: none. */
    const char *const *stat_names;
    /* Named bundles of values for the `profile` key; NULL-terminated by name,
     * NULL when the scheme has none. */
    const struct cc_profile *profiles;
    /* NULL when the scheme runs in a partitioned run (run.threads > 1,
     * docs/parallel.md): every hook touches only state of the partition it
     * runs on (the sender's record and timers at the source host's, a port's
     * state at its switch's) and what crosses partitions is a packet. Else
     * one line naming the state that two partitions share, which the
     * configuration quotes when it refuses run.threads > 1. */
    const char *serial_only;

    void (*init)(struct sim *s, struct qp *qp, void *st, const void *par);
    /* Every ACK or NACK that reaches the sender, after the transport updated
     * snd_una. `ack` is valid only during the call. */
    void (*on_ack)(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack);
    /* Congestion notification: an ACK with the CNP flag or a CNP packet.
     * A companion gets only CNP packets here (it sees a flagged ACK in on_ack). */
    void (*on_cnp)(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *p);
    /* A timer set with cc_timer_set() fired (kind 0..CC_TIMERS-1). */
    void (*on_timer)(struct sim *s, struct qp *qp, void *st, const void *par, int kind);
    /* Bit k set: timer kind k runs at the receiver (PCN's CNP period), not
     * at the sender; the partition report counts its events there
     * (docs/parallel.md). It fires after the sender completed too (the
     * receiver cannot know that in time): the scheme ends it by not setting
     * it again, and while it is set the run does not end. */
    uint8_t rx_timers;
    /* Per-flow state of the receiver's side (zeroed bytes, apart from
     * state_size's record): on_rx_data and the rx_timers get it as `st`, the
     * sender's hooks never see it, so each end writes only its own record
     * (PCN's NP). 0: those hooks get the flow's one record. */
    size_t rx_state_size;

    /* Optional hooks beyond the sender's ACK clock (NULL = not used). */
    /* Sender: a data packet is about to leave the NIC; may set p->flags (PF_MARK). */
    void (*on_send)(struct sim *s, struct qp *qp, void *st, const void *par, struct pkt *p);
    /* Sender: the NIC would send the QP's next packet now (window, pacing and
     * PFC allow it); return a later time to hold it until then (HF2T's gap
     * elongation), or anything <= now to let it go. The QP keeps its place in
     * the round robin; the NIC asks again when the time comes. */
    simtime_t (*tx_hold)(struct sim *s, struct qp *qp, void *st, const void *par);
    /* Receiver: a data packet of the flow arrived (after the transport took it). */
    void (*on_rx_data)(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *p);
    /* Sender: a companion set the flow's rate from outside the CC
     * (cc_rate_override: PB-FS's cut, from `old_rate` to qp->rate). Adopt it as
     * the CC's own current rate, so that the CC's next update starts from it
     * (HPCC's Rc, TIMELY's current rate; DCQCN takes it as one of its own
     * cuts). NULL: the CC keeps no rate besides qp->rate. */
    void (*on_rate_override)(struct sim *s, struct qp *qp, void *st, const void *par, uint64_t old_rate);
    /* Sender: a PKT_FEEDBACK a switch sent with cc_switch_send (QCN, PB-FS). */
    void (*on_feedback)(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *p);
    /* Switch side. Each egress port has port_state_size zeroed bytes for the
     * scheme (`pst`). sw_enqueue: packet p was queued at egress port `port`,
     * queue q. sw_mark: the ECN decision at dequeue (replaces RED when set).
     * sw_resume: the port's queue q was resumed by a PFC RESUME. */
    size_t port_state_size;
    void (*sw_enqueue)(struct sim *s, uint32_t port, void *pst, const void *par, struct pkt *p, int q);
    bool (*sw_mark)(struct sim *s, uint32_t port, void *pst, const void *par, const struct pkt *p, int q);
    void (*sw_resume)(struct sim *s, uint32_t port, void *pst, const void *par, int q);
};



#define CC_STATS 16 /* scheme-defined counters per scheme (cc_ops.stat_names) */

extern const struct cc_ops *const cc_registry[]; /* NULL-terminated */
/* The companions (cc_ops.companion), each also in cc_registry: a run switches
 * one on with transport.NAME = on; their hooks run after the CC's in this
 * order, and their keys appear in [transport] in this order. */
#define CC_COMPANIONS_MAX 4
extern const struct cc_ops *const cc_companions[]; /* NULL-terminated */
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
/* A companion's rate for the flow (PB-FS): cc_change_rate, then the running
 * CC's on_rate_override, so the CC holds the new rate as its own. */
void cc_rate_override(struct sim *s, struct qp *qp, uint64_t new_rate);
/* Stop the QP's transmissions until cc_resume (FLB's minimal rate control
 * pauses a flow on a CNM; a rate of 0 would divide by zero in the pacing).
 * Packets already sent are unaffected; cc_change_rate while paused only sets
 * the rate it resumes at. */
void cc_pause(struct sim *s, struct qp *qp);
void cc_resume(struct sim *s, struct qp *qp);
bool cc_paused(const struct qp *qp);
/* The CC opened its window outside an ACK (a timer of its own): the
 * sender's NIC tries to send now, as it does after every ACK. */
void cc_kick(struct sim *s, struct qp *qp);
/* Receiver side: send a CNP for this flow back to its sender (queue 0), with
 * `flags` and a scheme-defined value in p->aux (PCN's receiving rate). */
void cc_send_cnp(struct sim *s, struct qp *qp, uint8_t flags, uint64_t aux);
/* Switch side: a control packet from switch `sw` to the sender of flow
 * `flow`. Fill p->aux / p->fb[], then cc_switch_send routes it at high
 * priority (queue 0); the sender's scheme gets it in on_feedback. */
struct pkt *cc_switch_packet(struct sim *s, uint32_t sw, uint32_t flow, uint8_t flags, uint32_t size);
void cc_switch_send(struct sim *s, uint32_t sw, struct pkt *p);
/* Facts a switch-side hook may read about egress port `port`: net/fabric.h (lb_port_*). */
/* A companion's per-flow state for `flow` (for its switch-side hooks, which
 * get the port's state); NULL if that companion is not running. */
void *cc_companion_state(struct sim *s, const struct cc_ops *ops, uint32_t flow);
void *cc_companion_port_state(struct sim *s, const struct cc_ops *ops, uint32_t port);
/* The port of a host's NIC, and the load balancer's flowlet timeout (0 when
 * it has none): host-side schemes that work with flowlet switching. */
uint32_t cc_host_port(const struct sim *s, uint32_t host_node);
simtime_t cc_flowlet_timeout(const struct sim *s);
/* The flow with this id (for switch-side hooks that answer a flow). */
struct qp *cc_flow(struct sim *s, uint32_t flow);
/* Add n to scheme `ops`'s counter i (< CC_STATS; see stat_names); read it
 * (0 if the scheme never counted). */
void cc_stat_add(struct sim *s, const struct cc_ops *ops, int i, uint64_t n);
uint64_t cc_stat(const struct sim *s, const struct cc_ops *ops, int i);
/* Run facts: run.seed (for a scheme's own random streams), run.ns3_timing
 * (whole-ns arithmetic as ns-3 does), the bounded-window receiver's window in
 * packets (transport.ooo_window), and the header bytes of a data packet
 * (HDR_DATA plus the CC's INT bytes). */
uint64_t cc_seed(const struct sim *s);
bool cc_ns3_timing(const struct sim *s);
uint32_t cc_ooo_window(const struct sim *s);
uint32_t cc_data_hdr(const struct sim *s);
/* Links from switch node `sw` to host node `host` along the routing tables
 * (first candidate at each step): 1 at the host's own edge switch, 0 when
 * unreachable. A walk: for rare events, not per packet. */
uint32_t cc_hops_to_host(const struct sim *s, uint32_t sw, uint32_t host);

#endif
