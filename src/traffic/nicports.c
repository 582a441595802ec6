/* Which NIC port a queue pair takes, on a fabric whose GPUs have NICs with
 * several ports (topology.type = rail with planes > 1 or dual_tor; topo.h:
 * port p of GPU g is host p * N + g, hosts 0 .. N-1 stand for the GPUs).
 *
 * Traffic names GPUs. A flow between two GPUs of one server stays on them
 * (the NVSwitch). Any other is a message of a queue pair: the first message
 * of a QP (no FLOW_DEP_QP prerequisite) opens it on its sender GPU's next
 * port in turn, round-robin over the QPs that GPU opens in flow-list order,
 * as a RoCE NIC whose ports are bonded hands each new QP the next port
 * (Linux mlx5's RoCE LAG transmit affinity); a message that continues a QP
 * keeps the QP's port. Both ends use the same port number: on a dual-plane
 * fabric the only one that reaches (plane p meets plane p), on a dual-ToR
 * fabric a choice (SimAI's switches could deliver to either ToR of the
 * receiver; here a QP's packets always reach its port-p side). SimAI picks a
 * QP's port by hashing its 5-tuple (RdmaHw::GetNicIdxOfQp, b5ff47c);
 * round-robin keeps C channels on C ports spread evenly, which a hash does
 * only on average. */
#include "traffic/traffic.h"
#include <inttypes.h>
#include <stdlib.h>
#include "topo/topo.h"

int traffic_nic_ports(struct flow_list *fl, const struct topo *t, struct err *e)
{
    uint32_t P = t->nic_ports, N = t->gpu_hosts, G = t->gpus_per_server ? t->gpus_per_server : 1;
    if (P < 2 || fl->n == 0)
        return 0;
    for (size_t i = 0; i < fl->n; i++) {
        const struct flow_spec *f = &fl->v[i];
        uint32_t a = (uint32_t)t->host_index[f->src], b = (uint32_t)t->host_index[f->dst];
        if (a >= N || b >= N) {
            uint32_t h = a >= N ? a : b;
            return errf(e, "flow %zu: host %" PRIu32 " is port %" PRIu32 " of GPU %" PRIu32 "'s NIC: on a fabric with "
                        "multi-port NICs (topology.planes, dual_tor) traffic names GPUs (hosts 0 to %" PRIu32 ") and "
                        "each queue pair takes a port; Poisson and pattern traffic, which draw from every host, are not "
                        "modelled here (use a collective or a flow file)", i, t->hosts[h], h / N, h % N, N - 1);
        }
    }
    uint8_t *port = malloc(fl->n);
    uint32_t *next = calloc(N, sizeof *next), *prev = malloc(fl->n * sizeof *prev);
    if (!port || !next || !prev) {
        free(port), free(next), free(prev);
        return errf(e, "out of memory");
    }
    for (size_t i = 0; i < fl->n; i++) {
        const struct flow_spec *f = &fl->v[i];
        prev[i] = UINT32_MAX;
        for (uint32_t k = 0; k < f->ndeps; k++)
            if (fl->deps[f->dep0 + k] & FLOW_DEP_QP)
                prev[i] = fl->deps[f->dep0 + k] & FLOW_DEP_ID;
    }
    for (size_t i = 0; i < fl->n; i++) { /* QPs between servers open in flow-list order */
        uint32_t a = (uint32_t)t->host_index[fl->v[i].src], b = (uint32_t)t->host_index[fl->v[i].dst];
        port[i] = 0;
        if (prev[i] == UINT32_MAX && a / G != b / G)
            port[i] = (uint8_t)(next[a]++ % P);
    }
    for (size_t i = 0; i < fl->n; i++) {
        uint32_t x = (uint32_t)i;
        while (prev[x] != UINT32_MAX) /* (chains are acyclic; a chain's root holds its port) */
            x = prev[x];
        port[i] = port[x];
        for (uint32_t y = (uint32_t)i; prev[y] != UINT32_MAX;) { /* shortcut the chain to its root */
            uint32_t z = prev[y];
            prev[y] = x;
            y = z;
        }
    }
    for (size_t i = 0; i < fl->n; i++) {
        struct flow_spec *f = &fl->v[i];
        uint32_t a = (uint32_t)t->host_index[f->src], b = (uint32_t)t->host_index[f->dst];
        if (a / G == b / G)
            continue; /* one server: its NVSwitch */
        f->src = t->hosts[port[i] * N + a];
        f->dst = t->hosts[port[i] * N + b];
    }
    free(port), free(next), free(prev);
    return 0;
}
