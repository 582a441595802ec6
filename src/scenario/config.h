/* The whole scenario as plain data: what an INI file, an ns-3 HPCC config and
 * --set options all fill in, and what scenario_build() turns into a network.
 * Each section has a param table (config.c) giving every key, default and
 * help line; `rocesim list` prints those tables. */
#ifndef ROCESIM_CONFIG_H
#define ROCESIM_CONFIG_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "core/param.h"
#include "core/simtime.h"
#include "net/cc.h"
#include "topo/topo.h" /* struct cfg_topology: [topology] is what the generators read */

enum recovery { REC_GBN, REC_IRN };
#define RECOVERY_CHOICES "gbn|irn"
enum cnp_mode { CNP_FLAG, CNP_PACKET };
enum reorder_mode { REORDER_GBN, REORDER_BUFFER, REORDER_BITMAP };
#define REORDER_CHOICES "gbn|buffer|bitmap"
#define CNP_CHOICES "flag|packet"
/* on: ACK/NACK in strict-priority queue 0 at NICs and switches; nic: at the
 * sending NIC only, as ns-3 third.cc does with ACK_HIGH_PRIO 1 (it never sets
 * SwitchNode::AckHighPrio, so its switches queue ACKs with the data) */
enum ack_prio { ACK_PRIO_OFF, ACK_PRIO_ON, ACK_PRIO_NIC };
#define ACK_PRIO_CHOICES "off|on|nic"
enum nic_wake { NIC_WAKE_EXACT, NIC_WAKE_NS3, NIC_WAKE_SIMAI };
#define NIC_WAKE_CHOICES "exact|ns3|simai"
enum traffic_pattern { TRAFFIC_POISSON, TRAFFIC_FILE, TRAFFIC_NONE, TRAFFIC_INCAST, TRAFFIC_PERMUTATION, TRAFFIC_BURST,
                       TRAFFIC_COLLECTIVE, TRAFFIC_SIMAI };
#define TRAFFIC_CHOICES "poisson|file|none|incast|permutation|burst|collective|simai"
enum traffic_repeat { REPEAT_OFF, REPEAT_POISSON };
#define REPEAT_CHOICES "off|poisson"
enum cdf_sampling { CDF_LINEAR, CDF_STEP };
/* traffic.load_of: what `load` is a share of */
enum load_of { LOAD_OF_HOST, LOAD_OF_CORE };
#define LOAD_OF_CHOICES "host|core"
#define CDF_SAMPLING_CHOICES "linear|step"

struct cfg_run {
    int64_t seed;
    simtime_t stop; /* 0 = until every flow is done */
    char name[PARAM_STR_MAX];
    bool ns3_timing;
    int64_t ns3_seed; /* ns-3's RngSeed for RED's draws under ns3_timing (run.seed is its RngRun) */
    simtime_t deadlock_timeout; /* 0 = no PFC deadlock detection */
    char watchdog[PARAM_STR_MAX]; /* "auto", "off" or a time: see config.c */
    int64_t partitions;           /* 0 = auto (topo/partition.h) */
    int64_t threads;              /* 1 = the serial loop */
    uint64_t max_memory;          /* bytes a fabric may need to set up; 0 = what the machine has available */
};

/* ECN thresholds for one port rate (ns-3's KMIN_MAP/KMAX_MAP/PMAX_MAP). */
struct ecn_entry {
    uint64_t rate;
    uint64_t kmin, kmax; /* bytes */
    double pmax;
};
#define ECN_MAP_MAX 16

struct cfg_switch {
    uint64_t buffer;
    bool pfc;
    bool ecn;
    uint64_t kmin, kmax; /* bytes, at a 100 Gbps port; scaled linearly by port rate */
    double pmax;
    uint64_t reserve;       /* per (port, queue) */
    uint64_t resume_offset; /* resume when shared + this <= threshold */
    int64_t pfc_shift;      /* alpha = 2^-shift at the host-link rate */
    uint64_t headroom;      /* 0 = auto (see switch.c) */
    uint64_t pfc_threshold; /* static PFC threshold per ingress queue; 0 = dynamic (ns-3) */
    /* Per-rate table from an ns-3 config; when n_ecn_map > 0 it replaces the
     * linear kmin/kmax/pmax rule and every port rate must have an entry. */
    int n_ecn_map;
    struct ecn_entry ecn_map[ECN_MAP_MAX];
};

struct cfg_transport {
    char cc[64];
    int64_t mtu;           /* payload bytes per packet (ns-3 PACKET_PAYLOAD_SIZE) */
    int64_t ack_interval;  /* ACK every this many in-order data packets */
    int recovery;
    uint64_t window;       /* 0 off, PARAM_WIN_BDP, or bytes */
    bool var_win;
    bool window_global;    /* bdp of the largest pair (ns-3 GLOBAL_T=1) vs per pair */
    int ack_high_prio;     /* enum ack_prio */
    int cnp;               /* CNP as an ACK flag (ns-3) or as separate packets */
    simtime_t nack_interval;
    int64_t chunk;         /* L2_CHUNK_SIZE, 0 = off */
    bool back_to_zero;
    simtime_t rto;         /* 0 = auto */
    int64_t rto_backoff;   /* go-back-N: doublings of the RTO at most, 0 = fixed */
    int64_t pg;            /* priority group of generated flows */
    bool companion[CC_COMPANIONS_MAX]; /* transport.NAME = on for cc_companions[k]: it runs beside the CC */
    simtime_t rto_low, rto_high; /* IRN timeouts */
    int64_t irn_n;         /* IRN uses rto_low while at most this many packets are in flight */
    int reorder;           /* receiver on a gap: go-back-N NACK, or hold in a reorder buffer */
    uint64_t reorder_bytes;
    simtime_t reorder_timeout;
    int64_t ooo_window;    /* bitmap receiver: packets beyond rcv_nxt it takes (MP-RDMA's L) */
    int nic_wake;          /* enum nic_wake */
};

struct cfg_lb {
    char scheme[64];
    simtime_t flowlet_gap; /* statistics only; 0 = the scheme's flowlet timeout, else 100 us */
};

struct cfg_traffic {
    int pattern;
    char cdf[PARAM_STR_MAX];
    int cdf_sampling;
    double load;
    int load_of;                 /* enum load_of: each host link (and the hosts' total), or the fabric's core */
    simtime_t start;
    simtime_t duration;
    char file[PARAM_STR_MAX];
    double intra_rack;           /* poisson: share of destinations in the sender's rack; < 0 = uniform */
    char incast_ratio[PARAM_STR_MAX]; /* poisson: senders per arrival, "1" (sender-driven) or "LO-HI" */
    int64_t fan_in;              /* incast senders; burst: random senders when `senders` is empty */
    uint64_t size;               /* bytes per flow: incast, permutation, burst */
    int repeat;                  /* incast: once at start, or a Poisson process at `load` */
    char senders[PARAM_STR_MAX]; /* burst: host ids "2-15,18"; empty = fan_in random hosts */
    int64_t receiver;            /* incast, burst: host node id; -1 = random */
    int64_t count;               /* burst: flows per sender per burst */
    simtime_t interval;          /* burst: repeat every interval until start+duration; 0 = once */
    int64_t pg;                  /* priority group of this generator's flows; 0 = transport.pg */
    /* pattern = collective (traffic/collective.h) */
    int collective;              /* enum coll_algo */
    int64_t group;               /* hosts; 0 = all not taken by earlier jobs */
    int64_t iterations;
    simtime_t compute_gap;
    int placement;               /* enum coll_place */
    int64_t chunks;
    int64_t channels;
    int hierarchy;
    int alltoall;                /* enum coll_a2a */
    char hosts[PARAM_STR_MAX];   /* explicit group (rank order); empty = placement */
    int gap_dist;                /* enum coll_gap_dist: stragglers (collective.h) */
    simtime_t gap_spread;
    int64_t slow_rank;           /* -1: none */
    double slow_factor;
    char slow_nic[PARAM_STR_MAX]; /* a rate; empty: unchanged */
    double a2a_zipf;             /* MoE all-to-all skew */
    char a2a_weights[PARAM_STR_MAX];
};

/* [traffic.NAME]: one more generator, with the keys of [traffic]. */
#define CFG_NAME_MAX 32
struct cfg_traffic_sec {
    char name[CFG_NAME_MAX];
    struct cfg_traffic t;
};

/* [flow.NAME]: one explicit flow. */
struct cfg_flow {
    char name[CFG_NAME_MAX];
    int64_t src, dst; /* host node ids; -1 = not given */
    uint64_t size;    /* 0 = not given */
    simtime_t start;
    int64_t pg;       /* 0 = transport.pg */
};
#define CFG_MAX_TRAFFIC_SECTIONS 256
#define CFG_MAX_FLOW_SECTIONS 65536

struct cfg_output {
    char dir[PARAM_STR_MAX];
    /* monitors (stats/monitor.c), all off by default: port lists "node:port,...",
     * "node:*", "layer:edge|agg|core|host" or "all"; flows: flow ids */
    char queue_ports[PARAM_STR_MAX];
    simtime_t queue_interval;
    bool queue_by_priority;
    char util_ports[PARAM_STR_MAX];
    simtime_t util_interval;
    char flows[PARAM_STR_MAX];
    simtime_t flow_interval;
    simtime_t paused_interval; /* 0 = off */
    simtime_t imbalance_interval; /* 0 = off */
    bool partition_report;        /* partition.csv / partition.json (stats/partrep.c) */
};

/* [simai]: SimAI inputs (docs/simai.md). */
enum simai_ring { SIMAI_RING_SIMAI, SIMAI_RING_RAIL };
#define SIMAI_RING_CHOICES "simai|rail"
enum simai_qp { SIMAI_QP_FLOW, SIMAI_QP_CHANNEL };
#define SIMAI_QP_CHOICES "flow|channel"
struct cfg_simai {
    char conf[PARAM_STR_MAX]; /* SimAI.conf, read where this key is set */
    simtime_t send_lat;       /* SimAI's AS_SEND_LAT: before every flow of a SimAI job */
    simtime_t endpoint_delay; /* SimAI's system endpoint-delay: also before every flow */
    int64_t channels;         /* rings per collective across servers; 0 = the GPUs per server in it */
    int ring_order;           /* enum simai_ring */
    int qp;                   /* enum simai_qp */
    bool recv_hold;           /* qp = flow: a GPU's ring step not before its previous one (SimAI's posted receives) */
};

/* Settings that exist only because the scenario came from an ns-3 config. */
struct cfg_ns3 {
    bool active;
    char fct_file[PARAM_STR_MAX]; /* FCT_OUTPUT_FILE as written in the config */
    char pfc_file[PARAM_STR_MAX];
    double error_rate;
    /* QLEN_MON_FILE / _START / _END: third.cc's monitor_buffer histograms */
    char qlen_mon_file[PARAM_STR_MAX]; /* empty = off */
    simtime_t qlen_mon_start, qlen_mon_end;
    /* LINK_DOWN t a b: link a-b fails at 2 s + t µs (HPCC's third.cc); 0 = none */
    uint64_t link_down_us;
    uint32_t link_down_a, link_down_b;
};

struct config {
    struct cfg_run run;
    struct cfg_topology topology;
    struct cfg_switch sw;
    struct cfg_transport transport;
    struct cfg_lb lb;
    struct cfg_traffic traffic;
    struct cfg_output output;
    struct cfg_simai simai;
    struct cfg_ns3 ns3;
    /* [cc.NAME] / [lb.NAME] sections: each registered scheme's parameter
     * block, allocated by config_init, indexed like cc_registry[]/lb_registry[]. */
    void **cc_params;
    void **lb_params;
    /* [traffic.NAME] and [flow.NAME] sections, in the order they first appear
     * (file order, then --set); created by config_set / config_section_add. */
    struct cfg_traffic_sec *traffic_x;
    int n_traffic_x;
    struct cfg_flow *flows;
    int n_flows;
    char source[PARAM_STR_MAX]; /* the scenario file, or "(built-in default)" */
    void *origins; /* where each key was set ("file:line" / "--set ..."); owned by scenario/load_ini.c */
    bool sweep_point; /* validated as one point of a sweep: the sweep, not each point, warns of unused scheme keys */
};

/* Section tables, for the loader and for `rocesim list`. */
struct cfg_section {
    const char *name;
    const struct param *params;
    size_t offset; /* of the section struct inside struct config */
};
extern const struct cfg_section cfg_sections[]; /* NULL-terminated */
extern const struct param cfg_traffic_params[]; /* [traffic] and every [traffic.NAME] */
extern const struct param cfg_flow_params[];    /* [flow.NAME] */

/* Defaults everywhere (the built-in default scenario). */
int config_init(struct config *c);
/* Frees everything hung off c, the loaders' record of where keys were set included. */
void config_free(struct config *c);
/* Set "section.key" (section may be "cc.NAME" or "lb.NAME") to text.
 * Returns 0 or -1 with a message (no location; the caller adds it). */
int config_set(struct config *c, const char *section, const char *key, const char *val, const char **why);
/* Sections with a name: "traffic.NAME" / "flow.NAME" (NAME: 1..31 of
 * [A-Za-z0-9_-]). config_dynamic_section returns 0 if `section` is not of
 * that kind, else 1 with its key table, or -1 with *why for a bad name.
 * config_section_add finds or creates the section (defaults filled) and
 * returns its index in traffic_x / flows, or -1 with *why. */
int config_dynamic_section(const char *section, const struct param **tab, const char **why);
int config_section_add(struct config *c, const char *section, const char **why);

/* The effective scenario as one JSON object, {"section": {"key": "value"}},
 * every key of every section in use (values as a user writes them, so each
 * can be given back as --set section.key=value): the fixed sections, the
 * selected [cc.NAME]s (config_cc_selected) and [lb.NAME], every
 * [traffic.NAME] and [flow.NAME]. `indent` spaces before each line but the first. */
void config_write_json(FILE *f, const struct config *c, int indent);
/* The run uses [cc.NAME] of `ops`: it is transport.cc, or a companion that is on. */
bool config_cc_selected(const struct config *c, const struct cc_ops *ops);
/* Partitioned runs (docs/parallel.md): the first reason transport.cc, a
 * companion that is on, lb.scheme or the control balancer (ECMP unless the
 * scheme takes all packets) gives for running serially (cc_ops.serial_only,
 * lb_ops.serial_only); NULL when all may run partitioned, or when a name is
 * unknown (config_validate says so). */
const char *config_serial_only_reason(const struct config *c);
/* s as a JSON string, quoted and escaped. */
void json_string(FILE *f, const char *s);

#endif
