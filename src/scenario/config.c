/* Every scenario key, its default and its one-line help. */
#include "scenario/config.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "net/cc.h"
#include "net/lb.h"
#include "scenario/load.h"
#include "traffic/collective.h"

#define F(S, m) offsetof(struct S, m)

static const struct param run_params[] = {
    {"seed", P_INT, F(cfg_run, seed), "1", "random seed; same inputs and seed give byte-identical outputs", NULL, 0, 9.2e18},
    {"stop", P_TIME, F(cfg_run, stop), "0", "simulated-time limit; 0 = run until every flow has finished", NULL, 0, 0},
    {"name", P_STR, F(cfg_run, name), "", "scenario name (output folder results/NAME); default: the file's base name", NULL, 0, 0},
    {"deadlock_timeout", P_TIME, F(cfg_run, deadlock_timeout), "1ms", "PFC deadlock: a cycle of paused switch ports with nothing leaving them this long stops the run (exit 3); 0 = never check", NULL, 0, 0},
    {"watchdog", P_STR, F(cfg_run, watchdog), "auto", "stop a run (exit 4, outputs written, stuck flows named) when flows are active but no byte is delivered for this long; auto = 100 x the largest RTO or twice the longest backed-off RTO (rto x 2^rto_backoff), whichever is longer: 1.28 s lossless, 128 ms lossy with the default RTOs; off = never", NULL, 0, 0},
    {"threads", P_INT, F(cfg_run, threads), "1", "threads of one run: above 1 the fabric is split into run.partitions partitions run side by side in windows of the smallest delay of a link between them; outputs are byte-identical to run.threads = 1 (docs/parallel.md, which lists what must stay serial)", NULL, 1, 1024},
    {"partitions", P_INT, F(cfg_run, partitions), "0", "partitions of a parallel run (run.threads > 1) and of output.partition_report; more partitions than threads balance the load. 0 = auto: pods of a fattree or clos, else one per edge switch, and for run.threads > 1 at least 4 per thread (groups of edge switches); capped at the edge switches", NULL, 0, 1048576},
    {"max_memory", P_SIZE, F(cfg_run, max_memory), "0", "refuse (exit 2, before building) a fabric whose estimated set-up memory (routing tables, ports, flows; summary.json setup) exceeds this; 0 = what the machine has available (MemAvailable, else its physical memory); a larger size lets a run try anyway", NULL, 0, 0},
    {"ns3_timing", P_BOOL, F(cfg_run, ns3_timing), "off", "truncate serialisation and pacing to whole ns as ns-3 does (its links then run ~1 % fast), start flow-file flows where ns-3 does, and draw RED's random numbers as ns-3 does (MRG32k3a streams from its stream counter; run.seed is then its run number, RngRun); for ns-exact comparisons", NULL, 0, 0},
    {"ns3_seed", P_INT, F(cfg_run, ns3_seed), "1", "under run.ns3_timing: ns-3's global seed (RngSeed) for RED's draws, as NS_GLOBAL_VALUE=RngSeed=N sets it there", NULL, 1, 4294944442.0},
    PARAM_END};

static const struct param topology_params[] = {
    {"type", P_ENUM, F(cfg_topology, type), "leafspine", "topology generator, or an ns-3 HPCC topology file", TOPO_CHOICES, 0, 0},
    {"leaves", P_INT, F(cfg_topology, leaves), "8", "leafspine: leaf (ToR) switches", NULL, 1, 4096},
    {"spines", P_INT, F(cfg_topology, spines), "8", "leafspine, rail: spine switches, each linked to every leaf (rail with planes: per plane, each linked to its plane's leaves)", NULL, 1, 4096},
    {"hosts_per_leaf", P_INT, F(cfg_topology, hosts_per_leaf), "16", "leafspine: hosts under each leaf", NULL, 1, 4096},
    {"k", P_INT, F(cfg_topology, k), "4", "fattree: switch radix k (even); k^3/4 hosts, three tiers", NULL, 2, 128},
    {"senders", P_INT, F(cfg_topology, senders), "2", "dumbbell: hosts on the first switch", NULL, 1, 4096},
    {"receivers", P_INT, F(cfg_topology, receivers), "2", "dumbbell: hosts on the second switch", NULL, 1, 4096},
    {"pods", P_INT, F(cfg_topology, pods), "4", "clos: pods", NULL, 1, 4096},
    {"edges_per_pod", P_INT, F(cfg_topology, edges_per_pod), "2", "clos: edge (ToR) switches per pod, each linked to every aggregation switch of its pod", NULL, 1, 4096},
    {"aggs_per_pod", P_INT, F(cfg_topology, aggs_per_pod), "2", "clos: aggregation switches per pod", NULL, 1, 4096},
    {"hosts_per_edge", P_INT, F(cfg_topology, hosts_per_edge), "2", "clos: hosts under each edge switch", NULL, 1, 4096},
    {"cores", P_INT, F(cfg_topology, cores), "4", "clos: core switches, a multiple of aggs_per_pod; aggregation j of every pod links to cores j*C/A .. (j+1)*C/A-1", NULL, 1, 65536},
    {"oversubscription", P_DOUBLE, F(cfg_topology, oversubscription), "0", "leafspine, clos: hosts per edge switch = this x its uplink capacity / host_link (e.g. 3 with 10 spines at 40G, 40G hosts: 30 hosts per leaf); 0 = use hosts_per_leaf / hosts_per_edge", NULL, 0, 4096},
    {"chain", P_INT, F(cfg_topology, chain), "3", "parkinglot: switches in a chain, s0 - s1 - ... (chain - 1 bottleneck links)", NULL, 2, 4096},
    {"hosts_per_switch", P_INT, F(cfg_topology, hosts_per_switch), "2", "parkinglot: hosts on each switch of the chain", NULL, 1, 4096},
    {"servers", P_INT, F(cfg_topology, servers), "16", "rail: GPU servers", NULL, 1, 65536},
    {"gpus_per_server", P_INT, F(cfg_topology, gpus_per_server), "8", "rail: GPUs per server, each with its own NIC on its own rail (rail i: NIC i of every server, on rail i's leaf); hosts are GPUs, server-major", NULL, 1, 64},
    {"servers_per_leaf", P_INT, F(cfg_topology, servers_per_leaf), "0", "rail: servers under one rail leaf; 0 = all (one leaf per rail), else a divisor of servers: each group of servers has its own G rail leaves", NULL, 0, 65536},
    {"planes", P_INT, F(cfg_topology, planes), "1", "rail: NIC ports per GPU, port p on plane p: each plane is a rail fabric of its own (its leaves and `spines` spines), the planes meet only at the GPUs (SimAI's AlibabaHPN dual-plane: 2); a queue pair takes one port, its GPU's ports in turn (docs/collectives.md)", NULL, 1, 4},
    {"dual_tor", P_BOOL, F(cfg_topology, dual_tor), "off", "rail: each GPU's NIC has two ports on a pair of leaves (ToRs) of one plane, every leaf linked to every spine (SimAI's AlibabaHPN single-plane and DCN+ dual-ToR); a queue pair takes one port, its GPU's ports in turn", NULL, 0, 0},
    {"rail_optimised", P_BOOL, F(cfg_topology, rail_optimised), "on", "rail: on = NIC i of every server on rail i's leaf; off = a server's NICs all on its group's leaf, servers_per_leaf servers a leaf (SimAI's DCN+ layouts)", NULL, 0, 0},
    {"nvlink", P_RATE, F(cfg_topology, nvlink), "3600Gbps", "rail: a GPU's bandwidth to its server's NVSwitch, each way (H100 NVLink 4: 450 GB/s); the NVSwitch is modelled as a non-blocking switch", NULL, 0, 0},
    {"nvlink_delay", P_TIME, F(cfg_topology, nvlink_delay), "1us", "rail: latency of a transfer between two GPUs of one server, end to end (the data's last byte arrives size/nvlink + this after it left)", NULL, 0, 0},
    {"host_link", P_RATE, F(cfg_topology, host_link), "100Gbps", "rate of host-to-switch links", NULL, 0, 0},
    {"fabric_link", P_RATE, F(cfg_topology, fabric_link), "100Gbps", "rate of switch-to-switch links", NULL, 0, 0},
    {"link_delay", P_TIME, F(cfg_topology, link_delay), "1us", "propagation delay of every link", NULL, 0, 0},
    {"loss", P_DOUBLE, F(cfg_topology, loss), "0", "random loss: probability (below 1) that a packet is corrupted on a link (each direction; PFC frames exempt); a file's error-rate column overrides it per link", NULL, 0, 1},
    {"file", P_STR, F(cfg_topology, file), "", "type=file: an ns-3 HPCC topology file", NULL, 0, 0},
    {"link_rate", P_STR, F(cfg_topology, link_rate), "", "per-link rates, e.g. leaf0-spine1:25Gbps, 130-140:10Gbps (node names below, or node ids)", NULL, 0, 0},
    {"fail", P_STR, F(cfg_topology, fail), "", "link failures: A-B@TIME (down from then on) or A-B@DOWN-UP (recovers at UP), comma-separated, e.g. leaf0-spine1@1ms", NULL, 0, 0},
    {"flap", P_STR, F(cfg_topology, flap), "", "flapping links: A-B@FROM-UNTIL:every=PERIOD[:down=TIME]: an outage starts at FROM and every PERIOD after, each TIME long (default PERIOD/2), none after UNTIL, e.g. leaf0-spine1@1ms-2ms:every=100us", NULL, 0, 0},
    {"switch_fail", P_STR, F(cfg_topology, switch_fail), "", "switch failures: SWITCH@TIME or SWITCH@DOWN-UP: every link of the switch fails (and recovers at UP), comma-separated, e.g. spine0@1ms-3ms", NULL, 0, 0},
    {"next_hop_order", P_ENUM, F(cfg_topology, next_hop_order), "id", "order of a switch's equal-cost next hops, which ECMP's hash indexes: id = ascending node id; ns3 = as ns-3 HPCC's third.cc builds them (its BFS visits switches by descending id), so identical inputs take ns-3's paths", HOP_ORDER_CHOICES, 0, 0},
    {"slow", P_STR, F(cfg_topology, slow), "", "slowed links: A-B:RATE@TIME or A-B:RATE@FROM-UNTIL: the link runs at RATE (below its own) from TIME (back at UNTIL); ECN thresholds and PFC shift follow the rate, headroom stays, e.g. leaf0-spine1:25Gbps@1ms", NULL, 0, 0},
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
    {"pfc_threshold", P_SIZE, F(cfg_switch, pfc_threshold), "0", "static PFC threshold per ingress queue: PAUSE once it holds this many bytes, RESUME at this minus resume_offset (FLB: 256KB); 0 = dynamic (pfc_shift)", NULL, 0, 0},
    {"headroom", P_SIZE, F(cfg_switch, headroom), "0", "PFC headroom per port; 0 = auto: max(ns-3's 3*rate*delay, what can arrive after PAUSE)", NULL, 0, 0},
    PARAM_END};

/* [transport]: these rows, then one `NAME = on|off` row per companion of
 * cc_companions[] (transport_rows fills them in before main runs, so every
 * user of cfg_sections sees them), then nic_wake. */
static const struct param transport_head[] = {
    {"cc", P_STR, F(cfg_transport, cc), "dcqcn", "congestion control (see the cc list)", NULL, 0, 0},
    {"mtu", P_BYTES, F(cfg_transport, mtu), "1000", "payload bytes per packet (ns-3 PACKET_PAYLOAD_SIZE); 9000 or 9000B", NULL, 64, 9000},
    {"ack_interval", P_INT, F(cfg_transport, ack_interval), "1", "receiver ACKs every this many in-order data packets (1 = every packet, as ns-3 does)", NULL, 1, 1e9},
    {"recovery", P_ENUM, F(cfg_transport, recovery), "gbn", "loss recovery: go-back-N, or IRN selective repeat (lossy)", RECOVERY_CHOICES, 0, 0},
    {"window", P_WINDOW, F(cfg_transport, window), "off", "in-flight cap: off, bdp (ns-3 HAS_WIN), or bytes; IRN caps at bdp when off", NULL, 0, 0},
    {"var_win", P_BOOL, F(cfg_transport, var_win), "off", "scale the window with the current rate (ns-3 VAR_WIN)", NULL, 0, 0},
    {"window_global", P_BOOL, F(cfg_transport, window_global), "on", "bdp window and base RTT from the largest host pair (ns-3 GLOBAL_T)", NULL, 0, 0},
    {"ack_high_prio", P_ENUM, F(cfg_transport, ack_high_prio), "off", "ACK/NACK in the strict-priority queue 0: on = at NICs and switches; nic = at the sending NIC only, as ns-3 does with ACK_HIGH_PRIO 1 (its switches keep ACKs in the data's queue)", ACK_PRIO_CHOICES, 0, 0},
    {"cnp", P_ENUM, F(cfg_transport, cnp), "flag", "ECN echo as a CNP flag on the ACK (ns-3), or as separate CNP packets", CNP_CHOICES, 0, 0},
    {"nack_interval", P_TIME, F(cfg_transport, nack_interval), "500us", "minimum gap between NACKs for the same expected sequence", NULL, 0, 0},
    {"chunk", P_BYTES, F(cfg_transport, chunk), "0", "also ACK at every multiple of this many bytes; 0 = off (ns-3 L2_CHUNK_SIZE)", NULL, 0, 1e12},
    {"back_to_zero", P_BOOL, F(cfg_transport, back_to_zero), "off", "go back to the chunk start on loss (ns-3 L2_BACK_TO_ZERO)", NULL, 0, 0},
    {"rto", P_TIME, F(cfg_transport, rto), "0", "retransmission timeout; 0 = auto: 10ms lossless (safety net), 1ms lossy", NULL, 0, 0},
    {"rto_backoff", P_INT, F(cfg_transport, rto_backoff), "6", "go-back-N: each timeout without progress since the last doubles the RTO, at most this many times (RFC 6298 5.5); progress resets it; 0 = fixed RTO", NULL, 0, 16},
    {"pg", P_INT, F(cfg_transport, pg), "3", "priority group (egress queue) of generated flows", NULL, 1, 7},
    {"rto_low", P_TIME, F(cfg_transport, rto_low), "100us", "IRN: timeout while at most irn_n packets are in flight", NULL, 1, 1e15},
    {"rto_high", P_TIME, F(cfg_transport, rto_high), "320us", "IRN: timeout otherwise (ns-3-based work: 320us; the IRN paper: 3ms)", NULL, 1, 1e15},
    {"irn_n", P_INT, F(cfg_transport, irn_n), "3", "IRN: in-flight packets up to which rto_low applies", NULL, 0, 1e9},
    {"reorder", P_ENUM, F(cfg_transport, reorder), "gbn", "receiver on an out-of-order packet: NACK and go back N, hold it in a reorder buffer, or take it within ooo_window and ACK every packet (MP-RDMA's bitmap); IRN keeps its own", REORDER_CHOICES, 0, 0},
    {"reorder_bytes", P_SIZE, F(cfg_transport, reorder_bytes), "1MB", "reorder buffer: bytes held per flow at most; beyond, go-back-N", NULL, 1, 1e12},
    {"reorder_timeout", P_TIME, F(cfg_transport, reorder_timeout), "1ms", "reorder buffer: a gap open this long is NACKed (go-back-N); lossless fabrics only reorder, so long", NULL, 1, 1e15},
    {"ooo_window", P_INT, F(cfg_transport, ooo_window), "64", "reorder = bitmap: packets beyond the next expected one the receiver takes (MP-RDMA's L, 64 as its public simulators), beyond dropped and NACKed; 0 = auto: 64 doubled until it holds the largest BDP (cc.mprdma.profile = bdp)", NULL, 0, 65536},
    PARAM_END};
static const struct param transport_tail[] = {
    {"nic_wake", P_ENUM, F(cfg_transport, nic_wake), "exact", "when an idle NIC wakes for a paced QP: exact = at the earliest time any QP may send; ns3 = as ns-3 HPCC's QbbNetDevice (one pending wake-up, none while a window-bound or paused QP is already due; a rate change only moves a pending one earlier; a finished QP leaves the round robin only when a scan passes it), so paced QPs beside a window-bound one wait for ACKs; simai = as SimAI's ns-3-alibabacloud, which also counts QPs that have sent all their data and wait for its ACKs, so a paced QP beside one of those waits for the next ACK too (a SimAI.conf sets it)", NIC_WAKE_CHOICES, 0, 0},
    PARAM_END};
#define NROWS(t) (sizeof t / sizeof *t - 1)
static struct param transport_params[NROWS(transport_head) + CC_COMPANIONS_MAX + NROWS(transport_tail) + 1];

__attribute__((constructor)) static void transport_rows(void)
{
    size_t n = 0;
    for (size_t i = 0; i < NROWS(transport_head); i++)
        transport_params[n++] = transport_head[i];
    for (int k = 0; k < CC_COMPANIONS_MAX && cc_companions[k]; k++)
        transport_params[n++] = (struct param){cc_companions[k]->name, P_BOOL,
                                               offsetof(struct cfg_transport, companion) + (size_t)k * sizeof(bool), "off",
                                               cc_companions[k]->help, NULL, 0, 0};
    for (size_t i = 0; i < NROWS(transport_tail); i++)
        transport_params[n++] = transport_tail[i];
    transport_params[n] = (struct param)PARAM_END;
}

static const struct param lb_params[] = {
    {"scheme", P_STR, F(cfg_lb, scheme), "ecmp", "load balancing at switches (see the lb list)", NULL, 0, 0},
    {"flowlet_gap", P_TIME, F(cfg_lb, flowlet_gap), "0", "statistics: fct.csv counts a new flowlet after a gap this long at the first switch; 0 = the scheme's flowlet timeout, else 100us", NULL, 0, 1e15},
    PARAM_END};

const struct param cfg_traffic_params[] = {
    {"pattern", P_ENUM, F(cfg_traffic, pattern), "poisson", "poisson arrivals at a load, an ns-3 flow file, none, incast, permutation, burst, a collective job (README: Collectives), or simai: a SimAI training workload (docs/simai.md)", TRAFFIC_CHOICES, 0, 0},
    {"cdf", P_STR, F(cfg_traffic, cdf), "web_search", "flow-size CDF: a name from workloads/ (see below) or a path (.cdf or ns-3 percent format)", NULL, 0, 0},
    {"cdf_sampling", P_ENUM, F(cfg_traffic, cdf_sampling), "linear", "sample between CDF points (ns-3 traffic_gen) or at the points", CDF_SAMPLING_CHOICES, 0, 0},
    {"load", P_DOUBLE, F(cfg_traffic, load), "0.5", "poisson: offered load as a share of each host link; incast with repeat=poisson: share of the total host capacity (see load_of)", NULL, 0.000001, 1},
    {"load_of", P_ENUM, F(cfg_traffic, load_of), "host", "what load is a share of: host = the host links (above); core = the fabric's core capacity, the smallest total capacity of the links between two switch layers (leaf-spine: the leaves' uplinks), spread evenly over the hosts: each host offers load x core / total host capacity of its link (1:1 fabrics: the same as host)", LOAD_OF_CHOICES, 0, 0},
    {"start", P_TIME, F(cfg_traffic, start), "0", "poisson, repeated incast: time of the first possible arrival; else when the flows start", NULL, 0, 0},
    {"duration", P_TIME, F(cfg_traffic, duration), "5ms", "poisson, repeated incast and bursts: generated during [start, start+duration)", NULL, 0, 0},
    {"file", P_STR, F(cfg_traffic, file), "", "pattern=file: an ns-3 flow file; an optional 7th field lists the flow ids it waits for, e.g. 0,3+0.000002 (2 us after both finished; 3s: once its last byte left the sender), or -; pattern=simai: the SimAI workload file (AICB format)", NULL, 0, 0},
    {"intra_rack", P_DOUBLE, F(cfg_traffic, intra_rack), "-1", "poisson: share of destinations in the sender's rack (ToR), e.g. 0.25 for 1:3 intra:inter; -1 = uniform over all other hosts", NULL, -1, 1},
    {"incast_ratio", P_STR, F(cfg_traffic, incast_ratio), "1", "poisson: senders per arrival, N or LO-HI (uniform): each arrival at a receiver brings that many distinct senders, one CDF-sized flow each, and load is the share of each receiver's link (PCN sec. 7.4: 1-15); 1 = sender-driven arrivals, one flow each", NULL, 0, 0},
    {"fan_in", P_INT, F(cfg_traffic, fan_in), "16", "incast: distinct random senders (< number of hosts); burst: random senders when senders is empty", NULL, 1, 1e7},
    {"size", P_SIZE, F(cfg_traffic, size), "64KB", "incast, permutation, burst: bytes of every flow; collective: S, the per-host buffer", NULL, 1, 1e15},
    {"repeat", P_ENUM, F(cfg_traffic, repeat), "off", "incast: once at start, or a Poisson process offering `load` of the total host capacity until start+duration", REPEAT_CHOICES, 0, 0},
    {"senders", P_STR, F(cfg_traffic, senders), "", "burst: sender host ids, e.g. 2-15 or 2,3,4 or 0-3,8; empty = fan_in random hosts", NULL, 0, 0},
    {"receiver", P_INT, F(cfg_traffic, receiver), "-1", "incast, burst: receiver host id; -1 = random (incast: a new one per incast)", NULL, -1, 4294967294.0},
    {"count", P_INT, F(cfg_traffic, count), "1", "burst: flows each sender starts per burst", NULL, 1, 1e7},
    {"interval", P_TIME, F(cfg_traffic, interval), "0", "burst: repeat every interval while before start+duration; 0 = once", NULL, 0, 0},
    {"pg", P_INT, F(cfg_traffic, pg), "0", "priority group of this generator's flows; 0 = transport.pg", NULL, 0, 7},
    {"collective", P_ENUM, F(cfg_traffic, collective), "ring_allreduce", "pattern=collective: the algorithm; size is NCCL's S, the per-host buffer (README: Collectives)", COLL_CHOICES, 0, 0},
    {"group", P_INT, F(cfg_traffic, group), "0", "collective: hosts in the job; 0 = every host not in an earlier job", NULL, 0, 1e7},
    {"iterations", P_INT, F(cfg_traffic, iterations), "1", "collective: times the collective runs, each after the previous one ended at that host plus compute_gap; simai: training iterations (SimAI runs 1)", NULL, 1, 1e6},
    {"compute_gap", P_TIME, F(cfg_traffic, compute_gap), "0", "collective: compute time between a host's last flow of an iteration and its first of the next", NULL, 0, 0},
    {"placement", P_ENUM, F(cfg_traffic, placement), "contiguous", "collective: ranks on the lowest free host ids, on random free hosts, spread one per ToR in turn (the most spine crossings: a stress case, not a rail-optimised placement), or rail: whole free GPU servers, rank r on GPU r mod G (topology.type = rail)", COLL_PLACE_CHOICES, 0, 0},
    {"chunks", P_INT, F(cfg_traffic, chunks), "1", "collective: pieces (NCCL's slices) each transfer of a channel is cut into and pipelined: a piece follows the one before on its queue pair back to back, and goes once the bytes it carries have arrived; also each collective of a simai job", NULL, 1, 1024},
    {"channels", P_INT, F(cfg_traffic, channels), "1", "collective: NCCL channels: each transfer split over this many queue pairs per peer, each with its own fixed source port (so ECMP spreads them) kept for the whole job", NULL, 1, 64},
    {"hierarchy", P_ENUM, F(cfg_traffic, hierarchy), "flat", "collective on GPU servers (topology.type = rail; ranks filling whole servers): flat = every channel one ring in rank order; rail = NCCL's rail-aligned rings (channel c enters server m at GPU (c-m) mod G, crosses it over NVLink, leaves by the GPU before: every hop between servers stays on one rail); server = hierarchical all-reduce: reduce-scatter inside each server, a ring all-reduce across servers per rail, all-gather inside; for alltoall (MoE): an all-to-all inside each server gathering on GPU g what goes to GPU g of every server, then across servers on each rail", COLL_HIER_CHOICES, 0, 0},
    {"alltoall", P_ENUM, F(cfg_traffic, alltoall), "pairwise", "collective=alltoall: n-1 pairwise steps (r -> r+s), or all n(n-1) flows at once", COLL_A2A_CHOICES, 0, 0},
    {"gap_dist", P_ENUM, F(cfg_traffic, gap_dist), "fixed", "collective stragglers: each rank's compute gap before each iteration after the first: compute_gap, or drawn per rank and iteration from the seed: uniform on compute_gap +- gap_spread, normal (sigma = gap_spread), compute_gap + exponential (mean gap_spread); below 0 is 0", COLL_GAP_DIST_CHOICES, 0, 0},
    {"gap_spread", P_TIME, F(cfg_traffic, gap_spread), "0", "collective: the spread of gap_dist (uniform: half-width; normal: sigma; exponential: mean of the extra)", NULL, 0, 0},
    {"slow_rank", P_INT, F(cfg_traffic, slow_rank), "-1", "collective: a straggler rank (0 .. ranks-1, in rank order): its compute gap is multiplied by slow_factor and its NIC runs at slow_nic; -1 = none", NULL, -1, 1e7},
    {"slow_factor", P_DOUBLE, F(cfg_traffic, slow_factor), "1", "collective: slow_rank's compute gap (after gap_dist) times this", NULL, 0, 1e6},
    {"slow_nic", P_STR, F(cfg_traffic, slow_nic), "", "collective: slow_rank's NIC (its host link, both ways) at this rate, e.g. 25Gbps, set after the traffic is built; empty = unchanged", NULL, 0, 0},
    {"a2a_zipf", P_DOUBLE, F(cfg_traffic, a2a_zipf), "0", "collective=alltoall (MoE token routing): Zipf exponent of the destinations' shares of S: the k-th most popular rank (a seeded order) gets 1/k^a2a_zipf of the weight; 0 = even (S/n each)", NULL, 0, 20},
    {"a2a_weights", P_STR, F(cfg_traffic, a2a_weights), "", "collective=alltoall: each destination rank's share of S as weights in rank order, e.g. 4,1,1,1 or 4*2,1*6 (W*N: N ranks of weight W); empty = a2a_zipf", NULL, 0, 0},
    {"hosts", P_STR, F(cfg_traffic, hosts), "", "collective: the group's host ids in rank order, e.g. 0-7 or 3,9,12; empty = group and placement; simai: the GPUs (their NIC host ids) in rank order; empty = the lowest free GPUs", NULL, 0, 0},
    PARAM_END};

const struct param cfg_flow_params[] = {
    {"src", P_INT, F(cfg_flow, src), "-1", "sender host node id (required)", NULL, -1, 4294967294.0},
    {"dst", P_INT, F(cfg_flow, dst), "-1", "receiver host node id (required)", NULL, -1, 4294967294.0},
    {"size", P_SIZE, F(cfg_flow, size), "0", "bytes (required)", NULL, 0, 1e15},
    {"start", P_TIME, F(cfg_flow, start), "0", "start time", NULL, 0, 0},
    {"pg", P_INT, F(cfg_flow, pg), "0", "priority group; 0 = transport.pg", NULL, 0, 7},
    PARAM_END};

static const struct param output_params[] = {
    {"dir", P_STR, F(cfg_output, dir), "", "output folder; default results/<scenario name>", NULL, 0, 0},
    {"queue_ports", P_STR, F(cfg_output, queue_ports), "", "queue.csv: egress queue bytes of these ports (node:port,... | node:* | layer:edge|agg|core|host | all); empty = off", NULL, 0, 0},
    {"queue_interval", P_TIME, F(cfg_output, queue_interval), "1us", "queue.csv sampling interval", NULL, 0, 0},
    {"queue_by_priority", P_BOOL, F(cfg_output, queue_by_priority), "off", "queue.csv: also one column per priority (q0..q7)", NULL, 0, 0},
    {"util_ports", P_STR, F(cfg_output, util_ports), "", "util.csv: link utilisation of these ports (same syntax as queue_ports); empty = off", NULL, 0, 0},
    {"util_interval", P_TIME, F(cfg_output, util_interval), "10us", "util.csv interval", NULL, 0, 0},
    {"flows", P_STR, F(cfg_output, flows), "", "flow_rate.csv: receive throughput and sender pacing rate of these flows: ids, ranges FIRST-LAST, [flow.NAME] names; empty = off", NULL, 0, 0},
    {"flow_interval", P_TIME, F(cfg_output, flow_interval), "10us", "flow_rate.csv interval", NULL, 0, 0},
    {"paused_interval", P_TIME, F(cfg_output, paused_interval), "0", "paused.csv: paused ports and paused paths every this often; 0 = off", NULL, 0, 0},
    {"partition_report", P_BOOL, F(cfg_output, partition_report), "off", "partition.csv and partition.json: how a parallel run would split this one (run.partitions): per window of the lookahead, events per partition and messages over cut links, with the thread load model of docs/parallel.md; slows the run a little, outputs otherwise unchanged", NULL, 0, 0},
    {"imbalance_interval", P_TIME, F(cfg_output, imbalance_interval), "0", "imbalance.csv: per edge switch, (max - min) / mean of its uplinks' bytes in each window of this length (ConWeave: 100us); 0 = off", NULL, 0, 0},
    PARAM_END};

static const struct param simai_params[] = {
    {"conf", P_STR, F(cfg_simai, conf), "", "a SimAI.conf (ns-3-alibabacloud's network config): its keys are applied where this key is set, so keys set after it override it (docs/simai.md lists which are read, warned about and ignored)", NULL, 0, 0},
    {"channels", P_INT, F(cfg_simai, channels), "0", "pattern=simai: rings (channels) of a ring collective whose GPUs fill several servers alike, each ring entering and leaving a server on one rail (NCCL-like), the bytes split evenly; 0 = the GPUs per server in it; 1 = one ring", NULL, 0, 64},
    {"ring_order", P_ENUM, F(cfg_simai, ring_order), "simai", "pattern=simai, rings across servers: simai = SimAI's order (every server visited alike: ring c leaves a server from GPU c-1, enters the next at GPU c, another rail); rail = every other server reversed, so a ring leaves and enters on one rail (NCCL on rail-optimised fabrics)", SIMAI_RING_CHOICES, 0, 0},
    {"qp", P_ENUM, F(cfg_simai, qp), "flow", "pattern=simai: flow = every flow a new queue pair that starts when the flow its data came in on has completed (its sender has the last ACK, as SimAI's frontend notifies the receiver), so a GPU's successive ring steps to one peer can be in flight together (SimAI's MockNccl flows); channel = one queue pair per channel and peer, its messages back to back (NCCL, and pattern=collective), each step starting when its data arrived", SIMAI_QP_CHOICES, 0, 0},
    {"recv_hold", P_BOOL, F(cfg_simai, recv_hold), "on", "pattern=simai, qp = flow: a GPU's ring step to a peer starts no earlier than its previous step to that peer, even when its data came first (SimAI's frontend holds a flow until its receive is posted, and a GPU posts step s's receive when it issues its step-s send); off = each step as soon as its data is in", NULL, 0, 0},
    {"send_lat", P_TIME, F(cfg_simai, send_lat), "0", "pattern=simai: delay before every flow of the job, SimAI's AS_SEND_LAT (its docs: 6us)", NULL, 0, 1e15},
    {"endpoint_delay", P_TIME, F(cfg_simai, endpoint_delay), "10ns", "pattern=simai: a further delay before every flow of the job, SimAI's system-layer endpoint-delay (Sys communication_delay: 10 ns unless a SimAI system config sets endpoint-delay)", NULL, 0, 1e15},
    PARAM_END};

const struct cfg_section cfg_sections[] = {
    {"run", run_params, offsetof(struct config, run)},
    {"topology", topology_params, offsetof(struct config, topology)},
    {"switch", switch_params, offsetof(struct config, sw)},
    {"transport", transport_params, offsetof(struct config, transport)},
    {"lb", lb_params, offsetof(struct config, lb)},
    {"traffic", cfg_traffic_params, offsetof(struct config, traffic)},
    {"output", output_params, offsetof(struct config, output)},
    {"simai", simai_params, offsetof(struct config, simai)},
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
    config_load_free(c); /* where each key was set, if a loader recorded it */
    for (size_t i = 0; c->cc_params && cc_registry[i]; i++)
        free(c->cc_params[i]);
    for (size_t i = 0; c->lb_params && lb_registry[i]; i++)
        free(c->lb_params[i]);
    free(c->cc_params);
    free(c->lb_params);
    c->cc_params = c->lb_params = NULL;
    free(c->traffic_x);
    free(c->flows);
    c->traffic_x = NULL;
    c->flows = NULL;
    c->n_traffic_x = c->n_flows = 0;
}

int config_dynamic_section(const char *section, const struct param **tab, const char **why)
{
    const char *name;
    if (strncmp(section, "traffic.", 8) == 0) {
        name = section + 8;
        *tab = cfg_traffic_params;
    } else if (strncmp(section, "flow.", 5) == 0) {
        name = section + 5;
        *tab = cfg_flow_params;
    } else {
        return 0;
    }
    size_t n = strlen(name);
    if (n == 0 || n >= CFG_NAME_MAX || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n) {
        *why = "a section name is 1 to 31 letters, digits, '_' or '-'";
        return -1;
    }
    return 1;
}

int config_section_add(struct config *c, const char *section, const char **why)
{
    const struct param *tab;
    int k = config_dynamic_section(section, &tab, why);
    if (k <= 0) {
        if (k == 0)
            *why = "not a [traffic.NAME] or [flow.NAME] section";
        return -1;
    }
    bool traffic = section[0] == 't';
    const char *name = section + (traffic ? 8 : 5);
    int n = traffic ? c->n_traffic_x : c->n_flows;
    for (int i = 0; i < n; i++)
        if (strcmp(traffic ? c->traffic_x[i].name : c->flows[i].name, name) == 0)
            return i;
    if (n >= (traffic ? CFG_MAX_TRAFFIC_SECTIONS : CFG_MAX_FLOW_SECTIONS)) {
        *why = traffic ? "too many [traffic.NAME] sections (at most 256)" : "too many [flow.NAME] sections (at most 65536)";
        return -1;
    }
    /* Grow by doubling; n is the count, a power of two or 0 marks a full array. */
    if ((n & (n - 1)) == 0) {
        size_t cap = n ? 2 * (size_t)n : 1, sz = traffic ? sizeof *c->traffic_x : sizeof *c->flows;
        void *v = realloc(traffic ? (void *)c->traffic_x : (void *)c->flows, cap * sz);
        if (!v) {
            *why = "out of memory";
            return -1;
        }
        if (traffic)
            c->traffic_x = v;
        else
            c->flows = v;
    }
    char *sec;
    if (traffic) {
        struct cfg_traffic_sec *t = &c->traffic_x[n];
        memset(t, 0, sizeof *t);
        strcpy(t->name, name);
        sec = (char *)&t->t;
    } else {
        struct cfg_flow *f = &c->flows[n];
        memset(f, 0, sizeof *f);
        strcpy(f->name, name);
        sec = (char *)f;
    }
    if (param_defaults(tab, sec) < 0) {
        *why = "internal: bad defaults";
        return -1;
    }
    if (traffic)
        c->n_traffic_x++;
    else
        c->n_flows++;
    return n;
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
    const struct param *tab;
    int dyn = config_dynamic_section(section, &tab, why);
    if (dyn < 0)
        return -1;
    if (dyn > 0) { /* [traffic.NAME] / [flow.NAME]: created by its first valid key */
        if (!param_find(tab, key)) {
            *why = PARAM_UNKNOWN;
            return -1;
        }
        int i = config_section_add(c, section, why);
        if (i < 0)
            return -1;
        void *base = section[0] == 't' ? (void *)&c->traffic_x[i].t : (void *)&c->flows[i];
        return param_set(tab, base, key, val, why);
    }
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        if (strcmp(s->name, section) == 0)
            return param_set(s->params, (char *)c + s->offset, key, val, why);
    *why = "unknown section";
    return -1;
}

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void section_json(FILE *f, const char *name, const struct param *tab, const void *base, int indent, bool *first)
{
    char val[PARAM_STR_MAX + 8];
    fprintf(f, "%s\n%*s", *first ? "" : ",", indent + 2, "");
    *first = false;
    json_string(f, name);
    fputs(": {", f);
    for (const struct param *p = tab; p && p->name; p++) {
        param_value_str(p, base, val, sizeof val);
        fprintf(f, "%s", p == tab ? "" : ", ");
        json_string(f, p->name);
        fputs(": ", f);
        json_string(f, val);
    }
    fputc('}', f);
}

bool config_cc_selected(const struct config *c, const struct cc_ops *ops)
{
    if (strcmp(ops->name, c->transport.cc) == 0)
        return true;
    for (int k = 0; k < CC_COMPANIONS_MAX && cc_companions[k]; k++)
        if (cc_companions[k] == ops)
            return c->transport.companion[k];
    return false;
}

const char *config_serial_only_reason(const struct config *c)
{
    const struct cc_ops *cc = cc_find(c->transport.cc);
    if (cc && cc->serial_only)
        return cc->serial_only;
    for (int k = 0; k < CC_COMPANIONS_MAX && cc_companions[k]; k++)
        if (c->transport.companion[k] && cc_companions[k]->serial_only)
            return cc_companions[k]->serial_only;
    const struct lb_ops *lb = lb_find(c->lb.scheme);
    if (lb && lb->serial_only)
        return lb->serial_only;
    const struct lb_ops *ctl = lb && lb->all_packets ? lb : lb_find("ecmp");
    return ctl ? ctl->serial_only : NULL;
}

void config_write_json(FILE *f, const struct config *c, int indent)
{
    bool first = true;
    char name[96];
    fputc('{', f);
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        section_json(f, s->name, s->params, (const char *)c + s->offset, indent, &first);
    for (int i = 0; cc_registry[i]; i++)
        if (config_cc_selected(c, cc_registry[i])) {
            snprintf(name, sizeof name, "cc.%s", cc_registry[i]->name);
            section_json(f, name, cc_registry[i]->params, c->cc_params[i], indent, &first);
        }
    for (int i = 0; lb_registry[i]; i++)
        if (strcmp(lb_registry[i]->name, c->lb.scheme) == 0) {
            snprintf(name, sizeof name, "lb.%s", lb_registry[i]->name);
            section_json(f, name, lb_registry[i]->params, c->lb_params[i], indent, &first);
        }
    for (int i = 0; i < c->n_traffic_x; i++) {
        snprintf(name, sizeof name, "traffic.%s", c->traffic_x[i].name);
        section_json(f, name, cfg_traffic_params, &c->traffic_x[i].t, indent, &first);
    }
    for (int i = 0; i < c->n_flows; i++) {
        snprintf(name, sizeof name, "flow.%s", c->flows[i].name);
        section_json(f, name, cfg_flow_params, &c->flows[i], indent, &first);
    }
    if (c->sw.n_ecn_map > 0) { /* an ns-3 config's KMIN/KMAX/PMAX_MAP, which replaces switch.kmin/kmax/pmax */
        fprintf(f, ",\n%*s\"switch.ecn_map\": [", indent + 2, "");
        for (int i = 0; i < c->sw.n_ecn_map && i < ECN_MAP_MAX; i++)
            fprintf(f, "%s{\"rate_bps\": %llu, \"kmin_bytes\": %llu, \"kmax_bytes\": %llu, \"pmax\": %g}", i ? ", " : "",
                    (unsigned long long)c->sw.ecn_map[i].rate, (unsigned long long)c->sw.ecn_map[i].kmin,
                    (unsigned long long)c->sw.ecn_map[i].kmax, c->sw.ecn_map[i].pmax);
        fputc(']', f);
    }
    fprintf(f, "\n%*s}", indent, "");
}
