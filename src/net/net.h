/* The simulated network: packets, ports, switches, NICs, flows, and the event
 * loop that moves packets between them. Default behaviour follows the ns-3
 * HPCC simulator (see docs/architecture.md for the formulas and where we
 * deliberately differ). Knows no scheme by name: congestion control and load
 * balancing come in through cc_ops / lb_ops. */
#ifndef ROCESIM_NET_H
#define ROCESIM_NET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/eventq.h"
#include "core/mrg32k3a.h"
#include "core/rng.h"
#include "core/simtime.h"
#include "net/packet.h"
#include "net/cc.h"
#include "net/lb.h"

struct pktq {
    struct pkt *head, *tail;
    uint64_t bytes;
    uint32_t n;
    uint32_t paused_left; /* a port's egress queue: see struct port (in the padding, so it costs no space) */
};

/* A port is one end of a link: it owns the egress queues toward its peer and
 * the wire (packets in flight to the peer, in arrival order). On a switch it
 * also holds the MMU's ingress accounting for packets that came in through it.
 * Laid out by what a packet hop reads (the array is 64-byte aligned, so each
 * group is one cache line): line 0 what the ARRIVE and TX paths read on every
 * hop; line 1 the MMU's ingress counters (the port a packet came in by); line
 * 2 the rest of a hop's fields (ingress PFC state, ECN thresholds, rate,
 * transmitted bytes); then the egress queues (a hop touches only its own
 * queue's 32 bytes); then statistics and pause times, which no hop reads. */
struct port {
    /* line 0: every hop */
    struct pktq wire;
    uint32_t node, peer;  /* owning node; global id of the port at the far end */
    simtime_t busy_until; /* end of the current transmission */
    simtime_t tx_at;      /* time of the live TX_DONE event, -1 if none (others are stale) */
    union {
        uint32_t ps_per_byte; /* serialisation time per byte when exact (8e12 % rate == 0), else 0 */
        uint32_t tx_place;    /* run.ns3_timing (whose serialisation is ns3_tx's, line 2): the eventq place
                               * (eventq.h) an unpushed TX_DONE at busy_until would take (at tx_place_down
                               * while the link is down), EV_PLACE_NONE when it holds none (port.c) */
    };
    uint8_t qmask;        /* bit q set while q[q] holds packets */
    uint8_t paused_mask;  /* bit q set while queue q is paused by PFC from the peer */
    uint8_t rr_last;
    bool cut;             /* parallel run: its link joins two partitions, so a packet sent here goes to the
                           * peer's partition as a message (net/shard.c), not onto this wire */
    /* line 1: switch MMU, ingress side */
    _Alignas(64) uint32_t ingress_bytes[NQ];
    uint32_t hdrm_bytes[NQ];
    /* line 2 */
    uint32_t headroom;
    uint8_t pfc_shift;
    bool to_host;         /* the peer is a host (this is a host-facing switch port, or a NIC) */
    bool down;            /* its link has failed (fault.c) */
    bool pause_sent[NQ];
    uint32_t kmin, kmax;  /* switch ECN */
    double pmax;
    uint64_t rate;        /* bps */
    uint64_t tx_bytes;    /* bytes sent, for INT and utilisation */
    simtime_t delay;
    const simtime_t *ns3_tx; /* run.ns3_timing: serialisation at its rate by size, below s->ns3_tx_n bytes
                              * (ns3_tx_table; port_tx_time) */
    /* lines 3-6: egress queues; each queue's paused_left counts the packets
     * at its head that waited through a PAUSE: at RESUME it is set to the
     * queue's length (FIFO, so they are the next to leave), and each of them
     * marks its flow ever_paused as it leaves. O(1) per RESUME and per
     * dequeue instead of a walk of the queue. */
    _Alignas(64) struct pktq q[NQ];
    /* cold: statistics, pause times, and what only rare paths read */
    double loss;          /* port_link's, for the ARRIVE of this port's own link (read only when some link loses) */
    simtime_t tx_place_down; /* run.ns3_timing: while the link is down (busy_until = T_NEVER), the time of
                              * the TX_DONE place still held (fault.c) */
    uint64_t pause_frames_rx;
    simtime_t paused_time; /* total time any queue of this port was paused */
    simtime_t paused_since[NQ];
};
_Static_assert(offsetof(struct port, wire) == 0 && offsetof(struct port, rr_last) < 64 &&
               offsetof(struct port, ingress_bytes) == 64 && offsetof(struct port, hdrm_bytes) + sizeof(uint32_t) * NQ <= 128 &&
               offsetof(struct port, headroom) == 128 && offsetof(struct port, ns3_tx) + sizeof(void *) <= 192 &&
               offsetof(struct port, q) == 192 && sizeof(struct pktq) == 32 && _Alignof(struct port) == 64,
               "struct port: a hop's fields in lines 0-2, each queue in half a line");

/* What every process knows of every port, whoever runs it: where its link
 * goes. struct port keeps its own copy of node, peer, rate, delay and loss for the
 * hop's cache lines; across MPI ranks a rank sets up (and so holds in memory)
 * only its own partitions' ports, and code that may meet another rank's port
 * (a path's hops, a cut link's far end, what rank 0 writes of every port)
 * reads this instead: sim_port_node, sim_port_peer, sim_peer_node. */
struct port_link {
    uint32_t node, peer; /* owning node; global id of the port at the far end */
    simtime_t delay;
    uint64_t rate;       /* bps as set up (a slowdown changes the port's own, fault.c) */
    double loss;         /* probability a packet sent here is corrupted on the link (fault.c);
                          * read only when some link loses (s->loss_rng) */
};

struct node { /* one cache line: a parallel run's partitions each write their own nodes (net/shard.c) */
    _Alignas(64) bool is_switch;
    uint8_t layer;
    bool lazy;              /* its ports' transmission ends (a NIC's wake-ups) run by catch-up, not as events (port.c) */
    uint32_t port0, nports; /* ports port0 .. port0+nports-1 */
    /* switch */
    uint64_t buffer, shared_used, total_hdrm, total_rsrv;
    /* host */
    uint32_t ip;
    simtime_t lz_next;      /* lazy: the earliest pending end of its ports (maybe stale: earlier), T_NEVER if none */
};
_Static_assert(sizeof(struct node) == 64, "struct node: one cache line");

/* A lazy node's pending transmission ends and NIC wake-ups (port.c): a
 * min-heap of (time, event handle), each valid while the port's tx_at (the
 * NIC's wake_at) still says that time, and the deadline event that makes
 * sure they run before anything they push is due. */
struct lz_end {
    simtime_t t;
    uint32_t handle; /* EV_TX_DONE << 28 | port, or EV_NIC_WAKE << 28 | host index */
};
struct lazy_node {
    _Alignas(64) struct lz_end *h; /* (one line each: a parallel run's partitions write their own nodes) */
    uint32_t n, cap;
    simtime_t dl_at;   /* the live deadline event's time, -1 if none */
    simtime_t slack;   /* the least delay of its links: an end at t pushes nothing before t + slack */
};

/* Per-host NIC: a high-priority queue for ACK/NACK/CNP, and the active QPs
 * served round-robin. */
struct nic {
    uint32_t node, port;
    struct pktq ackq;
    uint32_t *qps;     /* active flow ids (nic_wake = ns3: and finished ones until a scan passes them) */
    uint32_t nqps, cap, rr_last;
    uint32_t ndone;    /* nic_wake = ns3: finished QPs still in qps[] (nic.c, nic_qp_done) */
    uint32_t nstale;   /* entries in stale[] (in what was padding) */
    simtime_t wake_at; /* pending NIC_WAKE event time, or T_NEVER */
    /* run.ns3_timing: the times of queued NIC_WAKE events that a newer
     * wake-up superseded, one entry per event (ns-3 cancels them: nic.c) */
    simtime_t *stale;
    uint32_t capstale;
};

struct sim_params {
    uint32_t mtu;
    uint32_t ack_interval;
    uint64_t chunk;
    bool back_to_zero;
    bool ack_high_prio;        /* NIC: the ACK queue waits only for a PAUSE of class 0 */
    bool ack_high_prio_switch; /* switches: ACK/NACK in queue 0 (ns-3 never does this) */
    bool cnp_packets;
    bool pfc, ecn;
    uint64_t reserve, resume_offset;
    uint32_t pfc_static;      /* static PFC threshold beyond the reserve (bytes); 0 = dynamic */
    simtime_t nack_interval;
    simtime_t rto;
    uint32_t rto_backoff;     /* go-back-N: consecutive timeouts double the RTO at most this many times */
    bool irn;                 /* selective repeat instead of go-back-N */
    simtime_t rto_low, rto_high;
    uint32_t irn_n;           /* RTO_low while at most this many packets are in flight */
    uint32_t irn_bits;        /* ring bitmap size in packets (power of two) */
    bool var_win;
    bool sojourn;             /* the LB reads p->lb.sojourn: switches keep it */
    bool reorder;             /* receiver reorder buffer instead of go-back-N on every gap */
    uint64_t reorder_bytes;   /* its capacity per flow */
    simtime_t reorder_timeout; /* a gap older than this is NACKed */
    bool bitmap;              /* bounded-window receiver (MP-RDMA): take packets within ooo_window, ACK each */
    uint32_t ooo_window;      /* ...in packets beyond rcv_nxt; a packet beyond is dropped and NACKed */
    bool rings;               /* irn, reorder or bitmap: each end of a flow keeps a ring of irn_bits (transport.c) */
    simtime_t flowlet_gap;    /* statistics: fct.csv's flowlets column */
    bool ns3_timing;      /* serialisation and pacing truncated to whole ns, as ns-3 does */
    bool nic_wake_ns3;    /* NIC wake-ups as ns-3's QbbNetDevice schedules them (nic.c) */
    bool nic_wake_sent;   /* ...and, as ns-3-alibabacloud's, counting QPs whose data is all sent */
    simtime_t stop;       /* 0 = none */
};

#define MAX_COMPANIONS CC_COMPANIONS_MAX

/* Why a lossless switch dropped a packet (switch_receive): the ingress
 * (port, class) had no room left in its PFC headroom, and */
enum lossless_drop_cause {
    LDROP_ACK_PAUSED,       /* an ACK/NACK came in on a class already PAUSEd: its sender does not hold ACKs for it */
    LDROP_DATA_PAUSED_HOST, /* data from a host after the PAUSE */
    LDROP_DATA_PAUSED_SW,   /* data from a switch after the PAUSE */
    LDROP_NOT_PAUSED,       /* no PAUSE outstanding on that class */
    LDROP_CAUSES
};
struct sim_counters {
    uint64_t events, packet_hops;
    uint64_t bytes_sent, bytes_delivered, bytes_retx;
    uint64_t packets_dropped, drops_lossless;
    uint64_t drops_lossless_cause[LDROP_CAUSES]; /* drops_lossless by enum lossless_drop_cause */
    uint64_t packets_corrupted; /* of packets_dropped: lost on a link with loss > 0 (fault.c) */
    uint64_t pfc_pause_frames, pfc_resume_frames;
    uint64_t pfc_pause_by_layer[4]; /* PAUSE frames by the layer of the node that sent them (LAYER_*) */
    uint64_t data_packets, acks, nacks, cnps, ecn_marks, feedback_packets;
    uint64_t timeouts;
    uint64_t packets_lost_link;     /* on a link's wire or in its ports' queues when it failed */
    uint64_t link_changes;          /* link failures, recoveries and rate changes that happened */
    uint64_t flows_completed;
    struct cc_stat_block {      /* the CC's and the companions' own counters (cc_ops.stat_names), */
        const struct cc_ops *ops; /* each block taken by the first cc_stat_add of its scheme */
        uint64_t v[CC_STATS];
    } cc_stat[MAX_COMPANIONS + 1];
    uint64_t lb_ctrl_packets;   /* control packets load balancers sent */
    uint64_t lb_probes;         /* probes sender-side balancers sent (lb_probe_send) */
    uint64_t lb_stat[LB_STATS]; /* the balancer's own counters (lb_ops.stat_names) */
    uint64_t reorder_peak_bytes; /* largest reorder buffer any flow held */
    uint64_t lb_held, lb_held_peak; /* packets parked in LB hold queues (lb_hold); most held at once */
    uint64_t ooo_window_drops;   /* bitmap receiver: data packets beyond its window, dropped there */
};

/* At `at`, the link of port `port` (and its peer) goes down or comes back;
 * or, with rate > 0, runs at `rate` from then on (topology.slow), each end
 * (0: `port`, 1: its peer) taking the ECN thresholds and PFC shift the setup
 * gives a port of that rate (fault.c). */
struct sim_link_event {
    simtime_t at;
    uint32_t port;
    bool up;
    uint64_t rate;
    uint32_t kmin[2], kmax[2];
    uint8_t pfc_shift[2];
};

/* PFC deadlock (deadlock.c): a cycle of switch egress queues, each paused by
 * its peer, whose packets wait behind the next one in the cycle, all paused
 * without a break for `timeout`. hop[i] waits for hop[i+1] (and the last
 * for the first). Checked only while some switch port is paused. */
#define DEADLOCK_MAX_HOPS 64
struct deadlock_hop {
    uint32_t port;    /* global port id of the paused egress port */
    uint8_t prio;
    simtime_t since;  /* paused without a break since */
};
struct deadlock {
    simtime_t timeout;   /* 0 = off */
    simtime_t check_at;  /* pending check, or -1 */
    uint64_t checks;     /* checks run (tests: the detector did look) */
    uint64_t blocked;    /* queues found paused for the whole timeout, over all checks */
    simtime_t found_at;  /* when the cycle was found; the run stops there */
    uint32_t n;          /* hops in the cycle; 0 = no deadlock */
    struct deadlock_hop hop[DEADLOCK_MAX_HOPS];
    int32_t *scratch;    /* per (port, prio) work space, allocated at the first check */
};

struct sim;
/* Observers the stats layer attaches (may be NULL). */
struct sim_hooks {
    void *ctx;
    void (*pfc)(void *ctx, const struct sim *s, uint32_t port, int prio, bool pause);
    void (*flow_done)(void *ctx, const struct sim *s, const struct qp *f);
    /* Every 65536 events; returning true ends sim_run there (an interrupt). */
    bool (*progress)(void *ctx, const struct sim *s);
    /* Periodic monitors (stats/monitor.c). Runs at the time given to
     * sim_monitor_start, then at each time it returns (T_NEVER: stop), as one
     * EV_MONITOR event that is not rescheduled once every flow is done or
     * nothing else is pending. NULL = no monitor: no event, no cost. */
    simtime_t (*sample)(void *ctx, const struct sim *s);
    /* sample reads ports and flows anywhere (the monitors; not the watchdog,
     * which reads counters): across MPI ranks their state is gathered to
     * rank 0 for each call (net/shard.c) */
    bool sample_reads_fabric;
    /* Every event, before it runs (s->now is its time): the node it acts on
     * (an ARRIVE's receiving node, a TX_DONE's port's node, a NIC wake's
     * host, a flow timer's or a flow start's source host, a balancer timer's
     * or hold queue's switch; SIM_NODE_GLOBAL for monitors, link changes and
     * the deadlock check) and, for an ARRIVE that delivers a packet, the
     * sending node and whether it is a PFC frame (else from =
     * SIM_NODE_GLOBAL). The partition report (stats/partrep.c) counts with
     * it. NULL = none: sim_run then runs the loop compiled without the call. */
    void (*event)(void *ctx, const struct sim *s, uint32_t node, uint32_t from, bool pfc);
};
#define SIM_NODE_GLOBAL UINT32_MAX

struct pkt_pool {
    struct pkt *free;
    void **chunks;
    size_t nchunks, capchunks;
    uint64_t in_use, peak;
    uint64_t owned; /* a parallel run's partition: packets on its free list or in use here (net/shard.c hands
                     * packets between partitions of one process by reference, so a pool's own chunks say nothing) */
};

#define NS3_TXC 128 /* a power of two */
struct sim {
    simtime_t now;
    struct eventq evq;
    struct pkt_pool pool;
    struct sim_params p;
    struct sim_counters c;
    struct sim_hooks hooks;
    struct rng *red_rng;       /* per port, its RED marking draws (switch.c red_mark); NULL without ECN */
    struct ns3_streams *red_ns3; /* run.ns3_timing with ECN: RED draws ns-3's instead, from its stream counter,
                                  * which PFC frames move too (switch.c); NULL otherwise */
    struct rng *loss_rng;      /* per port, its link's loss draws; NULL when no link loses */

    uint32_t n_nodes, n_ports, n_hosts;
    struct node *nodes;
    struct lazy_node *lz;      /* per node when switch ports' ends run lazily (port.c lazy_init), else NULL */
    struct port *ports;        /* across MPI ranks: only this rank's are set up (node_here) */
    struct port_link *plink;   /* per port, every port's */
    const uint8_t *node_here;  /* across MPI ranks, per node: 1 if this rank runs it; NULL: every node */
    struct nic *nics;          /* indexed by host index */
    int32_t *host_index;       /* node id -> host index or -1 */
    /* routing, per destination edge switch (every host hangs off one):
     * for switch n and edge index e (not n itself), candidate egress ports
     * route_ports[route_off[(n-route_row0)*E+e] .. +route_cnt[..]) (rows for
     * the span of node ids holding the switches, route_rows); at the edge switch of
     * host h, the port to h is host_port[h]. */
    uint32_t n_edges, route_row0, route_rows;
    uint32_t *route_off;
    uint16_t *route_cnt;
    uint32_t *route_ports;
    uint32_t *edge_node;       /* edge index -> switch node id */
    uint32_t *host_edge;       /* host index -> edge index, UINT32_MAX if its link goes to a host */
    uint32_t *host_port;       /* host index -> egress port at its edge switch toward it */

    struct qp *flows;
    uint32_t n_flows;
    uint32_t *start_order;     /* flow ids sorted by start time */
    uint32_t n_starts;         /* entries in start_order: n_flows, or a partition's own flows (net/shard.c) */
    uint32_t next_start;       /* cursor into start_order */
    uint32_t n_src;            /* flows whose source is here: n_flows, or a partition's (net/shard.c) */
    uint32_t rx_armed;         /* receivers' timers armed here (cc_ops.rx_timers): they keep the run going */
    struct par *par;           /* a parallel run's model side (net/shard.c, over engine/); NULL in the serial loop */
    bool is_shard;             /* this sim is one partition of a parallel run (net/shard.c) */
    const uint32_t *port_peer; /* ...then each port's peer, and where the packets on its link wait */
    struct pktq **port_wire;   /* (its own wire, or for a cut link the receiving port's), read-only copies */
    struct sim_deps *deps;     /* flows that wait for others (deps.c); NULL if none does */
    struct {                   /* GPU servers' NVSwitches: transfers inside a server (qp.local; nvswitch.c) */
        uint64_t rate;         /* a GPU's port, bps each way */
        simtime_t delay;       /* end to end */
        simtime_t *free;       /* per host, when its port is free out (2 h) and in (2 h + 1); NULL without local flows */
    } nvs;

    /* The CC and the companions running beside it with the same hooks
     * (transport.NAME = on), one slot each: slot 0 is the CC (transport.cc),
     * then the companions in cc_companions[] order. A hook they share is
     * called slot by slot; the CC's own (sw_mark, int_stamp, on_timer, on_cnp
     * for a flagged ACK) read slot 0 only. */
    struct cc_slot {
        const struct cc_ops *ops;
        const void *par;
        uint8_t *state, *pstate;  /* per flow (n_flows x stride), per port (n_ports x pstride, switch side) */
        uint8_t *rx_state;        /* per flow, the receiver's side (n_flows x rx_stride; cc_ops.rx_state_size) */
        size_t stride, pstride, rx_stride;
    } slot[1 + MAX_COMPANIONS];
    uint32_t n_slot;
    uint32_t n_hold;           /* schemes with tx_hold (the NIC asks only if some) */
    const struct lb_ops *lb;   /* data packets */
    const void *lb_par;
    const struct lb_ops *lb_ctl; /* everything else, unless lb->all_packets (ECMP) */
    const void *lb_ctl_par;
    struct lb_switch *lbsw;    /* per node (used for switches) */
    uint8_t *lb_nstate;        /* per-switch scheme state, lb_nstride each, switches only */
    size_t lb_nstride;
    uint8_t *lb_fstate;        /* per-flow scheme state, lb_fstride each */
    size_t lb_fstride;
    struct pktq ctrl_pending;  /* control packets waiting to enter their switch (EV_CTRL) */
    struct lb_paths *paths;    /* per edge pair, enumerated on first use (net/paths.c) */
    uint32_t paths_epoch;      /* bumped whenever they are dropped (routes changed) */
    struct lb_mem *lb_mem;     /* blocks a scheme took with lb_alloc, freed with the simulation */
    uint32_t lb_nhold;         /* hold queues per switch (lb_ops.hold_queues), known at the first lb_hold */
    uint64_t lb_held_now;      /* packets in hold queues now */
    uint64_t seed;

    /* Link failures and recoveries (fault.c), each one EV_LINK event; the
     * scenario's reroute hook recomputes the routing tables after each. */
    struct sim_link_event *link_ev;
    uint32_t n_link_ev;
    void (*reroute)(void *ctx, struct sim *s, uint32_t port, bool up);
    void *reroute_ctx;

    uint32_t data_hdr, ack_size; /* wire overheads, from the CC's INT size */
    bool stopped;
    /* run.ns3_timing: ns3_tx_time(bytes, bps) as computed before (it costs a
     * double division and a double-to-128-bit conversion, per transmission
     * and per pacing gap); direct-mapped by size and rate (net_impl.h). */
    struct ns3_txc {
        uint64_t bps;
        simtime_t t;
        uint32_t bytes;
    } ns3_txc[NS3_TXC];
    /* run.ns3_timing: ports' serialisation times, one table per port rate
     * (ns3_tx_table), each of ns3_tx_n sizes */
    struct ns3_txtab {
        uint64_t bps;
        simtime_t *t;
    } *ns3_tx_tabs;
    uint32_t n_ns3_tx_tabs, ns3_tx_n;
    struct deadlock dl;
};

/* Flow dependencies (deps.c): a gated flow is skipped by the start order
 * and starts delay[i] after the last of its wait[i] prerequisites is met (not
 * before its own start). succ[succ_off[i] .. succ_off[i+1]) are the flows
 * waiting for flow i to finish; sent[sent_off[i] .. sent_off[i+1]) those
 * waiting only for its last byte to leave the sender. Costs one event per
 * gated flow, and one compare per new data packet (nic.c) while deps exist. */
struct sim_deps {
    uint8_t *gated;
    uint32_t *wait;
    simtime_t *delay;
    uint32_t *succ_off, *succ;  /* waiting for a flow's completion */
    uint32_t *sent_off, *sent;  /* ...for its last byte to leave the sender (SIM_DEP_SENT, SIM_DEP_QP) */
    uint32_t *recv_off, *recv;  /* ...for its receiver to have the last byte (SIM_DEP_RECV) */
    uint32_t *start_off, *start; /* ...for it to start (SIM_DEP_START) */
    uint8_t *floor;             /* per flow: it has a SIM_DEP_START prerequisite (its start floor is kept as each is met) */
    uint32_t *qp_prev;          /* per flow: the message it continues the queue pair of (UINT32_MAX: none) */
    char why[200];              /* deps_parallel_refusal's reason */
};
/* Builds s->deps for s->n_flows flows from per-flow prerequisite lists
 * (pre[off[i] .. off[i+1]) are flow indices with at most one flag: SIM_DEP_SENT
 * "after its last byte was sent", SIM_DEP_RECV "after its receiver had the
 * last byte", SIM_DEP_QP "after the previous message on the same queue pair
 * was sent, continuing that QP", SIM_DEP_START "not before it started"
 * (the delay does not count from this one); none: after it completed) and delays. */
#define SIM_DEP_SENT 0x80000000u
#define SIM_DEP_RECV 0x40000000u
#define SIM_DEP_QP 0x20000000u
#define SIM_DEP_START 0x10000000u
#define SIM_DEP_ID 0x0fffffffu
void sim_deps_set(struct sim *s, const uint32_t *off, const uint32_t *pre, const simtime_t *delay);
/* Why the dependencies keep a run split into partitions (part: node ->
 * partition) serial (NULL: every release is met in the partition that runs the
 * released flow's source, so it is made there when the serial run makes it;
 * deps.c, docs/parallel.md). */
const char *deps_parallel_refusal(const struct sim *s, const uint32_t *part);
/* GPU servers (nvswitch.c): a flow between two hosts of one server (gpus
 * consecutive host indices, gpus > 1) goes over its NVSwitch, a port of
 * `rate` bps per GPU each way and `delay` end to end, with no packets
 * (qp.local, its ideal FCT). After the flows are set; -1 if there are too
 * many flows for its events' ids (2 per flow). */
int nvs_setup(struct sim *s, uint32_t gpus, uint64_t rate, simtime_t delay);

/* Packets */
struct pkt *pkt_alloc(struct sim *s);
void pkt_free(struct sim *s, struct pkt *p);

/* Life cycle: scenario/ fills nodes, ports, routes and flows, then calls
 * sim_start; sim_run processes events until none are left or until p.stop
 * (then it may be called again with a later p.stop to continue). */
int sim_init(struct sim *s);
void sim_start(struct sim *s);
void sim_run(struct sim *s);
/* The same run over `parts` partitions (part[node], 0 .. parts-1) on
 * `threads` threads, in windows of `lookahead` (the smallest delay of a link
 * between partitions): byte-identical outputs to sim_run (docs/parallel.md).
 * The caller has checked that nothing in the run must stay serial
 * (sim_parallel_refusal). */
struct eng_comm;  /* engine/engine.h: a run across MPI ranks; NULL in one process */
struct eng_stats;
void sim_run_parallel(struct sim *s, const uint32_t *part, uint32_t parts, uint32_t threads, simtime_t lookahead,
                      const struct eng_comm *comm);
/* false unless the run was parallel; part_events[0 .. n) gets the events each partition ran. */
bool sim_parallel_stats(const struct sim *s, struct eng_stats *st, uint64_t *part_events, uint32_t n);
/* A parallel run: the packets its partitions' pools allocated in this process (their memory: x sizeof(struct pkt)). */
uint64_t sim_parallel_pool_packets(const struct sim *s);
/* Why this run cannot be split (a NUL-terminated reason), or NULL; its flow
 * dependencies are asked once the partitions are known (deps_parallel_refusal). */
const char *sim_parallel_refusal(const struct sim *s);
void sim_free(struct sim *s);
/* Free the routing tables (route_*, edge_node, host_edge, host_port), so the
 * scenario can fill them anew after a link change. */
void sim_routes_free(struct sim *s);
/* Schedule the first hooks.sample call (after the hooks are set). */
void sim_monitor_start(struct sim *s, simtime_t first);
/* Take a link (given by either of its ports) down or bring it back now; the
 * EV_LINK events call this, and so may tests. */
void sim_link_set(struct sim *s, uint32_t port, bool up);
/* Apply one link event: sim_link_set, or a rate change (fault.c). */
void sim_link_event(struct sim *s, const struct sim_link_event *ev);

/* Partitioned runs (docs/parallel.md): the first reason the CC, a running
 * companion, or the data or control balancer gives for running serially
 * (cc_ops.serial_only, lb_ops.serial_only); NULL when all of them may run
 * partitioned. config_serial_only_reason (scenario/config.h) says the same
 * from a configuration. */
const char *sim_serial_only_reason(const struct sim *s);
/* Enumerate the path sets of every pair of edge switches now (net/paths.c),
 * which lb_path_* otherwise do on a pair's first use: with them built,
 * partitions only read s->paths. Call it before the threads start (for
 * balancers that use paths) and again after each reroute, which drops them.
 * Memory: edges^2 entries, a word per path. */
void lb_paths_build(struct sim *s);

static inline uint32_t sim_port_node(const struct sim *s, uint32_t pid) { return s->plink[pid].node; }
static inline uint32_t sim_port_peer(const struct sim *s, uint32_t pid) { return s->plink[pid].peer; }
static inline uint32_t sim_peer_node(const struct sim *s, uint32_t pid) { return s->plink[s->plink[pid].peer].node; }
/* Whether this process runs node n / port pid (always, but across MPI ranks). */
static inline bool sim_node_here(const struct sim *s, uint32_t n) { return !s->node_here || s->node_here[n]; }
static inline bool sim_port_here(const struct sim *s, uint32_t pid) { return sim_node_here(s, s->plink[pid].node); }
static inline bool port_paused(const struct port *pt, int q) { return pt->paused_mask >> q & 1; }

/* Switch `node`'s entry toward edge index e in route_off[] / route_cnt[]. */
static inline size_t sim_route_entry(const struct sim *s, uint32_t node, uint32_t e)
{
    return (size_t)(node - s->route_row0) * s->n_edges + e;
}
/* Candidate egress ports of switch `node` toward host index `hi` (n = 0:
 * unreachable). */
static inline const uint32_t *sim_route(const struct sim *s, uint32_t node, uint32_t hi, int *n)
{
    uint32_t e = s->host_edge[hi];
    if (e == UINT32_MAX) {
        *n = 0;
        return s->host_port;
    }
    if (s->edge_node[e] == node) {
        *n = 1;
        return &s->host_port[hi];
    }
    size_t ri = sim_route_entry(s, node, e);
    *n = s->route_cnt[ri];
    return s->route_ports + s->route_off[ri];
}

static inline void *slot_state(const struct cc_slot *c, uint32_t flow) { return c->state + (size_t)flow * c->stride; }
/* The record the receiver's hooks (on_rx_data, rx_timers) get: its own when
 * the scheme keeps one, else the flow's one record. */
static inline void *slot_rx_state(const struct cc_slot *c, uint32_t flow)
{
    return c->rx_stride ? c->rx_state + (size_t)flow * c->rx_stride : slot_state(c, flow);
}
static inline void *slot_pstate(const struct cc_slot *c, uint32_t port) { return c->pstate + (size_t)port * c->pstride; }
/* The CC's (slot 0's) state of a flow and of a port. */
static inline void *sim_cc_state(const struct sim *s, uint32_t flow) { return slot_state(&s->slot[0], flow); }
static inline void *sim_cc_pstate(const struct sim *s, uint32_t port) { return slot_pstate(&s->slot[0], port); }

/* Switch MMU, exposed for unit tests: the ns-3 HPCC formulas. */
uint32_t mmu_pfc_threshold(const struct sim *s, const struct node *sw, const struct port *in);
uint32_t mmu_shared_used(const struct sim *s, const struct port *in, int q);
bool mmu_admit(struct sim *s, struct node *sw, struct port *in, int q, uint32_t size);
void mmu_add(struct sim *s, struct node *sw, struct port *in, int q, uint32_t size);
void mmu_remove(struct sim *s, struct node *sw, struct port *in, int q, uint32_t size);
bool mmu_should_pause(const struct sim *s, const struct node *sw, const struct port *in, int q);
bool mmu_should_resume(const struct sim *s, const struct node *sw, const struct port *in, int q);

/* Invariant check after a run: no packet left anywhere, pool balanced.
 * Returns the number of packets still queued or in flight. */
uint64_t sim_packets_in_network(const struct sim *s);

#endif
