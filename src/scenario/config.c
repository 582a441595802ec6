/* Every scenario key, its default and its one-line help. */
#include "scenario/config.h"
#include <stdlib.h>
#include <string.h>
#include "net/cc.h"
#include "net/lb.h"

#define F(S, m) offsetof(struct S, m)

static const struct param run_params[] = {
    {"seed", P_INT, F(cfg_run, seed), "1", "random seed; same inputs and seed give byte-identical outputs", NULL, 0, 9.2e18},
    {"stop", P_TIME, F(cfg_run, stop), "0", "simulated-time limit; 0 = run until every flow has finished", NULL, 0, 0},
    {"name", P_STR, F(cfg_run, name), "", "scenario name (output folder results/NAME); default: the file's base name", NULL, 0, 0},
    PARAM_END};

static const struct param topology_params[] = {
    {"type", P_ENUM, F(cfg_topology, type), "leafspine", "topology generator, or an ns-3 HPCC topology file", TOPO_CHOICES, 0, 0},
    {"leaves", P_INT, F(cfg_topology, leaves), "8", "leafspine: leaf (ToR) switches", NULL, 1, 4096},
    {"spines", P_INT, F(cfg_topology, spines), "8", "leafspine: spine switches, each linked to every leaf", NULL, 1, 4096},
    {"hosts_per_leaf", P_INT, F(cfg_topology, hosts_per_leaf), "16", "leafspine: hosts under each leaf", NULL, 1, 4096},
    {"k", P_INT, F(cfg_topology, k), "4", "fattree: switch radix k (even); k^3/4 hosts, three tiers", NULL, 2, 128},
    {"senders", P_INT, F(cfg_topology, senders), "2", "dumbbell: hosts on the first switch", NULL, 1, 4096},
    {"receivers", P_INT, F(cfg_topology, receivers), "2", "dumbbell: hosts on the second switch", NULL, 1, 4096},
    {"host_link", P_RATE, F(cfg_topology, host_link), "100Gbps", "rate of host-to-switch links", NULL, 0, 0},
    {"fabric_link", P_RATE, F(cfg_topology, fabric_link), "100Gbps", "rate of switch-to-switch links", NULL, 0, 0},
    {"link_delay", P_TIME, F(cfg_topology, link_delay), "1us", "propagation delay of every link", NULL, 0, 0},
    {"file", P_STR, F(cfg_topology, file), "", "type=file: an ns-3 HPCC topology file", NULL, 0, 0},
    PARAM_END};

static const struct param switch_params[] = {
    {"buffer", P_SIZE, F(cfg_switch, buffer), "32MiB", "shared buffer per switch", NULL, 1, 1e12},
    {"pfc", P_BOOL, F(cfg_switch, pfc), "on", "PFC lossless mode; off = lossy, drop when the buffer rule says drop", NULL, 0, 0},
    {"ecn", P_BOOL, F(cfg_switch, ecn), "on", "ECN marking at dequeue (RED on the egress queue)", NULL, 0, 0},
    {"kmin", P_SIZE, F(cfg_switch, kmin), "400KB", "RED kmin for a 100 Gbps port; scaled linearly with port rate", NULL, 0, 0},
    {"kmax", P_SIZE, F(cfg_switch, kmax), "1600KB", "RED kmax for a 100 Gbps port; scaled linearly with port rate", NULL, 0, 0},
    {"pmax", P_DOUBLE, F(cfg_switch, pmax), "0.2", "RED marking probability at kmax", NULL, 0, 1},
    {"reserve", P_SIZE, F(cfg_switch, reserve), "4KiB", "guaranteed buffer per (ingress port, queue)", NULL, 0, 0},
    {"resume_offset", P_SIZE, F(cfg_switch, resume_offset), "3KiB", "send RESUME once shared use + this <= PFC threshold", NULL, 0, 0},
    {"pfc_shift", P_INT, F(cfg_switch, pfc_shift), "3", "dynamic PFC threshold = free >> shift at host-link rate (one less per doubling)", NULL, 0, 16},
    {"headroom", P_SIZE, F(cfg_switch, headroom), "0", "PFC headroom per port; 0 = auto: max(ns-3's 3*rate*delay, what can arrive after PAUSE)", NULL, 0, 0},
    PARAM_END};

static const struct param transport_params[] = {
    {"cc", P_STR, F(cfg_transport, cc), "dcqcn", "congestion control (see the cc list)", NULL, 0, 0},
    {"mtu", P_INT, F(cfg_transport, mtu), "1000", "payload bytes per packet (ns-3 PACKET_PAYLOAD_SIZE)", NULL, 64, 9000},
    {"ack_interval", P_INT, F(cfg_transport, ack_interval), "1", "receiver ACKs every this many in-order data packets (1 = every packet, as ns-3 does)", NULL, 1, 1e9},
    {"recovery", P_ENUM, F(cfg_transport, recovery), "gbn", "loss recovery: go-back-N, or IRN selective repeat (lossy)", RECOVERY_CHOICES, 0, 0},
    {"window", P_WINDOW, F(cfg_transport, window), "off", "in-flight cap: off, bdp (ns-3 HAS_WIN), or bytes", NULL, 0, 0},
    {"var_win", P_BOOL, F(cfg_transport, var_win), "off", "scale the window with the current rate (ns-3 VAR_WIN)", NULL, 0, 0},
    {"window_global", P_BOOL, F(cfg_transport, window_global), "on", "bdp window and base RTT from the largest host pair (ns-3 GLOBAL_T)", NULL, 0, 0},
    {"ack_high_prio", P_BOOL, F(cfg_transport, ack_high_prio), "off", "ACK/NACK in the strict-priority queue 0 (ns-3 ACK_HIGH_PRIO)", NULL, 0, 0},
    {"cnp", P_ENUM, F(cfg_transport, cnp), "flag", "ECN echo as a CNP flag on the ACK (ns-3), or as separate CNP packets", CNP_CHOICES, 0, 0},
    {"nack_interval", P_TIME, F(cfg_transport, nack_interval), "500us", "minimum gap between NACKs for the same expected sequence", NULL, 0, 0},
    {"chunk", P_INT, F(cfg_transport, chunk), "0", "also ACK at every multiple of this many bytes; 0 = off (ns-3 L2_CHUNK_SIZE)", NULL, 0, 1e12},
    {"back_to_zero", P_BOOL, F(cfg_transport, back_to_zero), "off", "go back to the chunk start on loss (ns-3 L2_BACK_TO_ZERO)", NULL, 0, 0},
    {"rto", P_TIME, F(cfg_transport, rto), "0", "retransmission timeout; 0 = auto: 10ms lossless (safety net), 1ms lossy", NULL, 0, 0},
    {"pg", P_INT, F(cfg_transport, pg), "3", "priority group (egress queue) of generated flows", NULL, 1, 7},
    PARAM_END};

static const struct param lb_params[] = {
    {"scheme", P_STR, F(cfg_lb, scheme), "ecmp", "load balancing at switches (see the lb list)", NULL, 0, 0},
    PARAM_END};

static const struct param traffic_params[] = {
    {"pattern", P_ENUM, F(cfg_traffic, pattern), "poisson", "poisson arrivals at a load, an ns-3 flow file, or none", TRAFFIC_CHOICES, 0, 0},
    {"cdf", P_STR, F(cfg_traffic, cdf), "web_search", "flow-size CDF: a name from workloads/ (see below) or a path (.cdf or ns-3 percent format)", NULL, 0, 0},
    {"cdf_sampling", P_ENUM, F(cfg_traffic, cdf_sampling), "linear", "sample between CDF points (ns-3 traffic_gen) or at the points", CDF_SAMPLING_CHOICES, 0, 0},
    {"load", P_DOUBLE, F(cfg_traffic, load), "0.5", "offered load as a share of each host link", NULL, 0.000001, 1},
    {"start", P_TIME, F(cfg_traffic, start), "0", "time of the first possible arrival", NULL, 0, 0},
    {"duration", P_TIME, F(cfg_traffic, duration), "5ms", "arrivals are generated during [start, start+duration)", NULL, 0, 0},
    {"file", P_STR, F(cfg_traffic, file), "", "pattern=file: an ns-3 flow file", NULL, 0, 0},
    PARAM_END};

static const struct param output_params[] = {
    {"dir", P_STR, F(cfg_output, dir), "", "output folder; default results/<scenario name>", NULL, 0, 0},
    PARAM_END};

const struct cfg_section cfg_sections[] = {
    {"run", run_params, offsetof(struct config, run)},
    {"topology", topology_params, offsetof(struct config, topology)},
    {"switch", switch_params, offsetof(struct config, sw)},
    {"transport", transport_params, offsetof(struct config, transport)},
    {"lb", lb_params, offsetof(struct config, lb)},
    {"traffic", traffic_params, offsetof(struct config, traffic)},
    {"output", output_params, offsetof(struct config, output)},
    {NULL, NULL, 0},
};

int config_init(struct config *c)
{
    memset(c, 0, sizeof *c);
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        if (param_defaults(s->params, (char *)c + s->offset) < 0)
            return -1;
    size_t ncc = 0, nlb = 0;
    while (cc_registry[ncc])
        ncc++;
    while (lb_registry[nlb])
        nlb++;
    c->cc_params = calloc(ncc + 1, sizeof *c->cc_params);
    c->lb_params = calloc(nlb + 1, sizeof *c->lb_params);
    if (!c->cc_params || !c->lb_params)
        return -1;
    for (size_t i = 0; i < ncc; i++) {
        c->cc_params[i] = calloc(1, cc_registry[i]->params_size ? cc_registry[i]->params_size : 1);
        if (!c->cc_params[i] || param_defaults(cc_registry[i]->params, c->cc_params[i]) < 0)
            return -1;
    }
    for (size_t i = 0; i < nlb; i++) {
        c->lb_params[i] = calloc(1, lb_registry[i]->params_size ? lb_registry[i]->params_size : 1);
        if (!c->lb_params[i] || param_defaults(lb_registry[i]->params, c->lb_params[i]) < 0)
            return -1;
    }
    strcpy(c->source, "(built-in default)");
    return 0;
}

void config_free(struct config *c)
{
    for (size_t i = 0; c->cc_params && cc_registry[i]; i++)
        free(c->cc_params[i]);
    for (size_t i = 0; c->lb_params && lb_registry[i]; i++)
        free(c->lb_params[i]);
    free(c->cc_params);
    free(c->lb_params);
    c->cc_params = c->lb_params = NULL;
}

int config_set(struct config *c, const char *section, const char *key, const char *val, const char **why)
{
    if (strncmp(section, "cc.", 3) == 0) {
        int i = cc_index(section + 3);
        if (i < 0) {
            *why = "unknown congestion control in section name";
            return -1;
        }
        return param_set(cc_registry[i]->params, c->cc_params[i], key, val, why);
    }
    if (strncmp(section, "lb.", 3) == 0) {
        int i = lb_index(section + 3);
        if (i < 0) {
            *why = "unknown load balancer in section name";
            return -1;
        }
        return param_set(lb_registry[i]->params, c->lb_params[i], key, val, why);
    }
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        if (strcmp(s->name, section) == 0)
            return param_set(s->params, (char *)c + s->offset, key, val, why);
    *why = "unknown section";
    return -1;
}
