/* What every scheme may see of the network: the packet, its header fields
 * and flags, and the flow (struct qp). Schemes include net/cc.h or net/lb.h
 * (which include this file), never net/net.h: the rest of the simulator's
 * state is reached only through the helpers those two headers declare, and
 * tests/scheme_headers.sh fails the build's tests if a file in src/cc or
 * src/lb includes net/net.h or net/net_impl.h. */
#ifndef ROCESIM_PACKET_H
#define ROCESIM_PACKET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/simtime.h"

#define CC_TIMERS 3 /* timer kinds available to a CC scheme; one more is the transport's RTO */

#define NQ 8             /* egress queues (priorities) per port */

/* Header bytes as the ns-3 HPCC simulator builds packets. Its PPP header is
 * padded to an Ethernet header's 14 bytes (PppHeader::GetStaticSize). */
#define HDR_L2 14
#define HDR_IP 20
#define HDR_UDP 8
#define HDR_SEQ 6        /* sequence number and priority group */
#define HDR_DATA (HDR_L2 + HDR_IP + HDR_UDP + HDR_SEQ) /* 48, plus the CC's INT bytes */
#define PFC_FRAME_BYTES (9 + HDR_IP + HDR_L2)          /* PauseHeader 9: 43 */
#define INT_MAX_HOPS 5

enum pkt_type {
    PKT_DATA, PKT_ACK, PKT_NACK,
    PKT_CNP,      /* receiver -> sender congestion notification (queue 0) */
    PKT_PFC,
    PKT_FEEDBACK, /* switch -> sender control packet (QCN feedback, PB-FS postcard; queue 0) */
    PKT_CTRL,     /* a load balancer's control packet to a node (p->lb.to_node; queue 0) */
    PKT_PROBE,    /* a sender-side balancer's path probe, in a data class (lb_probe_send) */
};

enum pkt_flag {
    PF_ECN = 1,      /* CE mark set by a switch */
    PF_CNP = 2,      /* on an ACK: the data packet it answers was marked */
    PF_PAUSE = 4,    /* on a PFC frame: pause (else resume) */
    PF_MARK = 8,     /* set by a sender-side scheme (PB-FS marks packets for postcards) */
    PF_CC1 = 16,     /* scheme-defined flags on CNP / feedback packets */
    PF_CC2 = 32,
    PF_ECN_ECHO = 64, /* on an ACK/NACK (or a probe's echo): the data packet (probe) it answers was CE-marked */
    PF_ECHO = 128,    /* on a PKT_PROBE: the echo going back to the prober */
};

#define PATH_NONE UINT32_MAX

/* The load balancer's part of the header (documented fields, all reset by
 * pkt_alloc; an ACK made from its data packet keeps none of the forward path:
 * see reply_with_data). It sits right after the fields forwarding reads, so
 * the path word shares their cache line and the rest shares the next one
 * with ts and aux, which are written anyway. */
struct lb_hdr {
    uint32_t path;      /* source route: byte k is the candidate index at the k-th switch
                         * from the one that set it; PATH_NONE = each switch chooses */
    uint8_t path_hop;   /* switches passed since the path was set */
    uint8_t proto;      /* PKT_CTRL: which message of the scheme */
    uint16_t metric;    /* carried forward along the path (CONGA: CE, the path's max DRE) */
    uint32_t to_node;   /* PKT_CTRL: the node that consumes it (UINT32_MAX otherwise) */
    uint32_t fb;        /* piggybacked feedback, scheme-defined (CONGA: a path and its metric) */
    uint32_t echo_path; /* on an ACK/NACK: the path the data packet it answers carried */
    uint32_t held_out;  /* while parked in a hold queue (lb_hold): the egress it joins at release */
    simtime_t t_enq;    /* when it joined its current switch egress queue (lb_ops.sojourn) */
    simtime_t sojourn;  /* queueing time accumulated at switches so far (lb_ops.sojourn; Proteus's CST) */
    uint8_t b[16];      /* scheme-private */
};

/* One INT hop record, stamped at switch dequeue (HPCC). */
struct int_hop {
    simtime_t ts;
    uint64_t tx_bytes;
    uint32_t qlen;
    uint64_t rate;
};

/* "Lines" below are the packet's 64-byte parts: a packet is 288 bytes and its
 * pool chunk starts 16 bytes past a cache line, so each part lies across two
 * cache lines (aligning them measured no faster: bench/README.md, App. R). */
struct pkt {
    struct pkt *next;    /* FIFO link (queue, wire, free list) */
    simtime_t t_arrive;  /* when it reaches the far end of its current link */
    uint64_t seq;        /* data: first byte; ACK/NACK: next expected byte */
    uint32_t flow;       /* flow id (the QP number a real BTH would carry) */
    uint32_t src, dst;   /* host node ids */
    uint32_t size;       /* bytes on the wire */
    uint32_t place;      /* run.ns3_timing: while behind a wire's head, its ARRIVE's eventq place (at t_arrive,
                          * eventq.h; port.c), in the first line, which the ARRIVE that pushes it reads; else
                          * EV_PLACE_NONE */
    uint32_t in_port;    /* global port id it entered the current switch by */
    uint16_t sport, dport;
    uint8_t type, prio, flags, nhop;
    struct lb_hdr lb;
    simtime_t ts;        /* sender timestamp, for delay-based schemes */
    uint64_t aux;        /* scheme-defined value on CNP / feedback packets */
    union {
        struct int_hop hop[INT_MAX_HOPS]; /* data and ACKs: INT records */
        uint64_t fb[8];                   /* feedback packets: scheme-defined fields */
    };
};
_Static_assert(offsetof(struct pkt, lb) == 56 && offsetof(struct pkt, aux) < 128,
               "forwarding fields and the path in the first cache line, the rest of lb with ts/aux in the second");

struct sim;
/* A data packet's payload bytes: its size less the run's data header. Not a
 * field: make_data, where every data packet is made, sets size = payload +
 * that header, and nothing changes a data packet's size after. (Its 4 bytes
 * in the first cache line hold the ns-3 timing place instead.) */
uint32_t pkt_payload(const struct sim *s, const struct pkt *p);

/* A flow is one queue pair: sender state at the source NIC, receiver state at
 * the destination NIC. The packet carries the flow id, so neither side needs a
 * lookup. */
enum flow_state { FLOW_PENDING, FLOW_ACTIVE, FLOW_DONE };

struct qp {
    /* Laid out by who writes it, so that in a parallel run (net/shard.c) the
     * sender's partition and the receiver's, often on other threads, do not
     * write the same cache line: line 0 is set before the flow starts and
     * read by both (finish and state change once, at completion); then the
     * sender's fields; then, from a line of their own, the receiver's; then
     * the flags switches anywhere set (relaxed atomics, net_impl.h). */
    uint32_t id, src, dst;
    uint64_t size;
    simtime_t start, finish;
    uint16_t sport, dport;
    uint8_t pg, state;
    uint8_t hops;             /* links on the path (Swift scales its target by it) */
    bool local;               /* between two GPUs of one server: over its NVSwitch, not the network (nvswitch.c) */
    simtime_t ideal_fct;
    uint64_t max_rate;        /* line rate, bps */
    /* sender */
    _Alignas(64) uint64_t snd_nxt, snd_una, snd_high; /* snd_high: highest byte ever sent */
    uint64_t rate;            /* pacing rate, bps */
    uint64_t win;             /* in-flight cap in bytes; 0 = none */
    simtime_t next_avail;
    simtime_t base_rtt;
    uint32_t last_pkt_size;
    simtime_t timer_at[CC_TIMERS + 1]; /* CC timers, then the RTO; -1 = none */
    simtime_t timer_ev[CC_TIMERS + 1]; /* time of the timer's one heap entry; -1 = none */
    simtime_t last_progress;
    uint64_t *irn_tx;         /* IRN sender: packets SACKed beyond snd_una (transport.c: each end owns its ring) */
    uint64_t retx_next;       /* next byte to consider for retransmission */
    uint64_t sack_high;       /* end of the highest SACKed packet: holes below it are lost */
    uint64_t recovery_end;    /* snd_nxt when recovery began; it ends when snd_una passes it */
    bool in_recovery;
    /* sender statistics (the first switch, which does flowlets and path
     * switches, is in the sender's partition) */
    uint32_t flowlets;        /* at the first switch: 1 + gaps of at least the LB's flowlet gap */
    uint32_t path_switches;   /* times the first switch sent it out of another port than before */
    uint32_t lb_out;          /* that port, UINT32_MAX before the first packet */
    simtime_t lb_last;        /* its last packet there, -1 before the first */
    simtime_t last_tx;        /* sender: when its previous data packet left the NIC queue (-1: none) */
    uint32_t gaps, gaps_rtt[3]; /* inter-packet gaps at the sender, and those >= 1, 2, 3 base RTTs (HF2T's Table 1) */
    simtime_t gap_min, gap_max;
    uint32_t held;            /* sender: packets a scheme held back (tx_hold) */
    simtime_t held_time;      /* ...for this long in all */
    simtime_t hold_until;
    uint32_t tx_path;  /* sender: the path word its last packet carried, when the sender sets it (lb host_send) */
    bool host_path;    /* ...it does: path_switches counts tx_path changes, not first-switch port changes */
    uint32_t timeouts; /* retransmission timeouts that fired */
    uint64_t rto_recover; /* go-back-N: snd_high at the last timeout; an ACK beyond it ends the backoff */
    uint8_t rto_backoff; /* go-back-N: times the RTO is doubled now (timeouts since data sent once was last ACKed) */
    bool tx_paused;    /* sender: stopped by its CC (cc_pause), next_avail = T_NEVER until cc_resume */
    uint32_t paths_used;   /* host-side multipath: distinct paths (UDP source ports) the sender put packets on */
    uint32_t paths_pruned; /* ...and times it dropped a path from use */
    /* receiver */
    _Alignas(64) uint64_t rcv_nxt;
    simtime_t rcv_done;       /* when the receiver had every byte (T_NEVER: not yet) */
    uint32_t rcv_since_ack;
    simtime_t nack_timer;
    uint64_t last_nack;
    /* IRN selective repeat, the reorder buffer, the bitmap receiver: a ring
     * bitmap over packet numbers, the receiver's own (taken at its first data
     * packet, freed once it holds every byte: transport.c). */
    uint64_t *irn_rx;         /* receiver: packets held beyond rcv_nxt */
    uint32_t ooo;             /* data packets that arrived out of order */
    uint32_t ooo_max;         /* largest out-of-order degree: packets between the expected one and an arrival (FLB's OOD) */
    uint64_t held_bytes;      /* receiver reorder buffer (transport.reorder = buffer): bytes held */
    simtime_t gap_since;      /* ...since when the oldest gap below them is open */
    simtime_t nv_sent;        /* qp.local: when its last byte left the sender's GPU, until the receiver's NVSwitch
                               * port takes it in; then -1 (nvswitch.c) */
    /* set by switches and links anywhere (FLOW_FLAG_SET, FLOW_COUNT) */
    _Alignas(64) bool ever_paused; /* sender NIC paused while active, or a packet waited in a paused switch queue */
    bool sw_paused;   /* a packet of it waited through a PAUSE in a switch egress queue (not at its NIC) */
    bool culprit;     /* a packet of it joined a congestion port: an unpaused switch egress queue holding
                       * no packet that waited through a PAUSE and at least the PFC threshold (victim = sw_paused && !culprit) */
    uint32_t lost;     /* its packets (data, ACKs, CNPs) dropped by a switch, corrupted on a link or lost on a failed one */
};

#endif
