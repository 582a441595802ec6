/* Monitors over time (queue.csv, util.csv, flow_rate.csv, paused.csv, ns-3's
 * QLEN_MON_FILE) and pfc_ports.csv (the lists they watch: monlist.c). One
 * EV_MONITOR event at a time drives them all: each sample returns the
 * earliest time any monitor is due next. */
#include "stats/monitor.h"
#include "stats/output.h"
#include "core/xalloc.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo/topo.h"

enum { M_QUEUE, M_UTIL, M_FLOW, M_PAUSED, M_IMBAL, M_QLEN, M_N };

struct mon {
    bool on;
    FILE *f;
    char path[1024]; /* as opened, for a write error's message */
    simtime_t iv;   /* sampling interval */
    simtime_t next; /* next sample time, T_NEVER when done */
    simtime_t last; /* last sample time, -1 before the first */
    uint32_t n;
    uint32_t *id;   /* ports or flows */
    uint64_t *prev; /* util / flow: tx_bytes / rcv_nxt at the last sample */
};

struct hist {
    uint32_t *cnt; /* cnt[k]: samples with k KB (1000 B) queued */
    uint32_t n;
};

struct monitors {
    struct mon m[M_N];
    bool by_prio;
    /* paused paths: for every destination edge switch, the switches that
     * reach it through the fabric, nearest first */
    uint32_t n_edge;
    uint32_t *edge, *edge_host; /* node id, and the host index of one host under it */
    uint32_t *order_off, *order;
    uint64_t *P, *U; /* per node scratch: all paths / paths with no paused hop */
    /* ns-3 monitor_buffer */
    simtime_t qlen_end;
    struct hist *hist; /* per global port id */
    uint32_t n_hist;
    bool *is_edge;     /* per node */
};

#define QLEN_INTERVAL (100 * T_NS)         /* third.cc qlen_mon_interval */
#define QLEN_DUMP (100000000LL * T_NS)     /* third.cc qlen_dump_interval */

const char *layer_name(unsigned layer)
{
    static const char *const names[] = {"host", "edge", "agg", "core"};
    return layer < 4 ? names[layer] : "?";
}

/* ---------------------------------------------------------------- paths */

static inline bool port_any_paused(const struct port *pt) { return pt->paused_mask != 0; }

/* (Node and peer from s->plink: across MPI ranks rank 0 samples every rank's
 * ports, whose state the others lend it (net/shard.c), on copies it never set up.) */
static inline uint32_t peer_node(const struct sim *s, uint32_t pid) { return sim_peer_node(s, pid); }

/* For every edge switch B: the switches from which B is reachable through
 * switches, in BFS order from B (so each one's next hops toward B come
 * earlier). Routes only ever expand through switches, so BFS distance here is
 * the routing distance. */
static void paths_init(struct monitors *m, const struct sim *s)
{
    m->edge = xcalloc(s->n_nodes, sizeof *m->edge);
    m->edge_host = xcalloc(s->n_nodes, sizeof *m->edge_host);
    m->is_edge = xcalloc(s->n_nodes, sizeof *m->is_edge);
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        const struct node *nd = &s->nodes[n];
        if (!nd->is_switch)
            continue;
        for (uint32_t k = 0; k < nd->nports; k++) {
            uint32_t v = peer_node(s, nd->port0 + k);
            if (!s->nodes[v].is_switch) {
                m->is_edge[n] = true;
                m->edge[m->n_edge] = n;
                m->edge_host[m->n_edge++] = (uint32_t)s->host_index[v];
                break;
            }
        }
    }
    m->order_off = xcalloc(m->n_edge + 1, sizeof *m->order_off);
    m->order = xcalloc((size_t)m->n_edge * (s->n_nodes - s->n_hosts) + 1, sizeof *m->order);
    int32_t *dist = xcalloc(s->n_nodes, sizeof *dist);
    uint32_t *bfs = xcalloc(s->n_nodes, sizeof *bfs);
    uint32_t at = 0;
    for (uint32_t b = 0; b < m->n_edge; b++) {
        m->order_off[b] = at;
        for (uint32_t n = 0; n < s->n_nodes; n++)
            dist[n] = -1;
        uint32_t head = 0, tail = 0;
        bfs[tail++] = m->edge[b];
        dist[m->edge[b]] = 0;
        while (head < tail) {
            uint32_t u = bfs[head++];
            const struct node *nd = &s->nodes[u];
            for (uint32_t k = 0; k < nd->nports; k++) {
                uint32_t v = peer_node(s, nd->port0 + k);
                if (s->nodes[v].is_switch && dist[v] < 0) {
                    dist[v] = dist[u] + 1;
                    bfs[tail++] = v;
                    int nr;
                    sim_route(s, v, m->edge_host[b], &nr);
                    if (nr)
                        m->order[at++] = v;
                }
            }
        }
    }
    m->order_off[m->n_edge] = at;
    free(dist);
    free(bfs);
    m->P = xcalloc(s->n_nodes, sizeof *m->P);
    m->U = xcalloc(s->n_nodes, sizeof *m->U);
}

/* Paths between ordered pairs of distinct edge switches along the routing
 * tables (every ECMP choice), counted with at least one switch-to-switch hop
 * whose egress port has a paused priority. */
static uint64_t paused_paths(struct monitors *m, const struct sim *s)
{
    uint64_t total = 0;
    for (uint32_t b = 0; b < m->n_edge; b++) {
        uint32_t hb = m->edge_host[b];
        m->P[m->edge[b]] = m->U[m->edge[b]] = 1;
        for (uint32_t i = m->order_off[b]; i < m->order_off[b + 1]; i++) {
            uint32_t n = m->order[i];
            int nc;
            const uint32_t *cand = sim_route(s, n, hb, &nc);
            uint64_t p = 0, u = 0;
            for (int c = 0; c < nc; c++) {
                uint32_t v = peer_node(s, cand[c]);
                p += m->P[v];
                if (!port_any_paused(&s->ports[cand[c]]))
                    u += m->U[v];
            }
            m->P[n] = p;
            m->U[n] = u;
        }
        for (uint32_t i = m->order_off[b]; i < m->order_off[b + 1]; i++) {
            uint32_t n = m->order[i];
            if (m->is_edge[n])
                total += m->P[n] - m->U[n];
        }
    }
    return total;
}

/* ---------------------------------------------------------------- samples */

static long long t_ns(simtime_t t) { return (long long)(t / T_NS); }

static void sample_queue(struct monitors *m, struct mon *mo, const struct sim *s)
{
    for (uint32_t i = 0; i < mo->n; i++) {
        const struct port *pt = &s->ports[mo->id[i]];
        uint32_t node = sim_port_node(s, mo->id[i]);
        const struct node *nd = &s->nodes[node];
        uint64_t b[NQ] = {0}, total = 0;
        if (nd->is_switch) {
            for (int q = 0; q < NQ; q++)
                total += b[q] = pt->q[q].bytes;
        } else { /* a NIC queues only ACK/NACK/CNP; data waits in the QPs */
            total = b[0] = s->nics[s->host_index[node]].ackq.bytes;
        }
        fprintf(mo->f, "%lld,%u,%u,%llu", t_ns(s->now), node, mo->id[i] - nd->port0, (unsigned long long)total);
        if (m->by_prio)
            for (int q = 0; q < NQ; q++)
                fprintf(mo->f, ",%llu", (unsigned long long)b[q]);
        fprintf(mo->f, ",%u\n", peer_node(s, mo->id[i])); /* the neighbour this port sends to */
    }
}

static void sample_util(struct mon *mo, const struct sim *s)
{
    simtime_t dt = s->now - mo->last;
    for (uint32_t i = 0; i < mo->n; i++) {
        const struct port *pt = &s->ports[mo->id[i]];
        /* the first sample is at or before the first flow's start
         * (monitors_open), when no port has sent a byte: its baseline stays
         * 0, so a transmission starting at that same time (before or after
         * the sample by the event order) counts in the first row */
        if (mo->last < 0)
            continue;
        uint64_t d = pt->tx_bytes - mo->prev[i];
        mo->prev[i] = pt->tx_bytes;
        if (dt <= 0)
            continue;
        /* (a port that sent nothing: 0, whatever its rate; across ranks one
         * that never sent was never lent, so rank 0's copy has no rate) */
        double u = d ? (double)d * 8.0 * (double)T_SEC / ((double)pt->rate * (double)dt) : 0.0;
        uint32_t node = sim_port_node(s, mo->id[i]);
        fprintf(mo->f, "%lld,%u,%u,%.6f,%u\n", t_ns(s->now), node, mo->id[i] - s->nodes[node].port0, u,
                peer_node(s, mo->id[i]));
    }
}

static void sample_flow(struct mon *mo, const struct sim *s)
{
    simtime_t dt = s->now - mo->last;
    for (uint32_t i = 0; i < mo->n; i++) {
        const struct qp *f = &s->flows[mo->id[i]];
        uint64_t d = f->rcv_nxt - mo->prev[i];
        mo->prev[i] = f->rcv_nxt;
        if (mo->last < 0 || dt <= 0)
            continue;
        /* then the sender's pacing rate (the CC's rate law over time; 0 unless the flow is active) */
        fprintf(mo->f, "%lld,%u,%.6f,%.6f\n", t_ns(s->now), mo->id[i], (double)d * 8.0 * 1000.0 / (double)dt,
                f->state == FLOW_ACTIVE ? (double)f->rate / 1e9 : 0.0);
    }
}

static void sample_paused(struct monitors *m, struct mon *mo, const struct sim *s)
{
    uint32_t ports = 0, fabric = 0;
    for (uint32_t i = 0; i < s->n_ports; i++)
        if (port_any_paused(&s->ports[i])) {
            ports++;
            if (s->nodes[sim_port_node(s, i)].is_switch && s->nodes[peer_node(s, i)].is_switch)
                fabric++;
        }
    fprintf(mo->f, "%lld,%u,%llu\n", t_ns(s->now), ports, (unsigned long long)(fabric ? paused_paths(m, s) : 0));
}

/* ConWeave's imbalance metric: for each edge switch with two or more
 * uplinks, (max - min) / mean of the bytes its uplinks sent in the window;
 * windows in which they sent nothing are skipped. id[] holds the uplinks
 * grouped by switch (node order), so one pass finds each group. */
static void sample_imbalance(struct mon *mo, const struct sim *s)
{
    for (uint32_t i = 0; i < mo->n;) {
        uint32_t node = sim_port_node(s, mo->id[i]), j = i;
        uint64_t lo = UINT64_MAX, hi = 0, sum = 0;
        for (; j < mo->n && sim_port_node(s, mo->id[j]) == node; j++) {
            uint64_t d = s->ports[mo->id[j]].tx_bytes - mo->prev[j];
            mo->prev[j] = s->ports[mo->id[j]].tx_bytes;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
            sum += d;
        }
        if (mo->last >= 0 && j - i >= 2 && sum > 0)
            fprintf(mo->f, "%lld,%u,%.6f\n", t_ns(s->now), node, (double)(hi - lo) * (double)(j - i) / (double)sum);
        i = j;
    }
}

/* third.cc's monitor_buffer: per switch port, a histogram of the bytes in its
 * egress queues 1..7 (what ns-3's MMU counts in egress_bytes), by whole KB;
 * all histograms dumped whenever the time is a multiple of 100 ms. */
static void sample_qlen(struct monitors *m, struct mon *mo, const struct sim *s)
{
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        const struct node *nd = &s->nodes[n];
        if (!nd->is_switch)
            continue;
        for (uint32_t k = 0; k < nd->nports; k++) {
            const struct port *pt = &s->ports[nd->port0 + k];
            uint64_t size = 0;
            for (int q = 1; q < NQ; q++)
                size += pt->q[q].bytes;
            uint32_t kb = (uint32_t)(size / 1000);
            struct hist *h = &m->hist[nd->port0 + k];
            if (kb >= h->n) {
                uint32_t nn = kb + 1 > 2 * h->n ? kb + 1 : 2 * h->n;
                uint32_t *c = xrealloc(h->cnt, nn * sizeof *c);
                memset(c + h->n, 0, (nn - h->n) * sizeof *c);
                h->cnt = c;
                h->n = nn;
            }
            h->cnt[kb]++;
        }
    }
    if (s->now % QLEN_DUMP != 0)
        return;
    fprintf(mo->f, "time: %lld\n", t_ns(s->now));
    for (uint32_t n = 0; n < s->n_nodes; n++) {
        const struct node *nd = &s->nodes[n];
        if (!nd->is_switch)
            continue;
        for (uint32_t k = 0; k < nd->nports; k++) {
            const struct hist *h = &m->hist[nd->port0 + k];
            uint32_t len = h->n; /* ns-3's vector ends at the largest KB seen */
            while (len && !h->cnt[len - 1])
                len--;
            fprintf(mo->f, "%u %u", n, k + 1);
            for (uint32_t i = 0; i < len; i++)
                fprintf(mo->f, " %u", h->cnt[i]);
            fputc('\n', mo->f);
        }
    }
    fflush(mo->f);
}

static void take(struct monitors *m, int k, const struct sim *s)
{
    struct mon *mo = &m->m[k];
    switch (k) {
    case M_QUEUE: sample_queue(m, mo, s); break;
    case M_UTIL: sample_util(mo, s); break;
    case M_FLOW: sample_flow(mo, s); break;
    case M_PAUSED: sample_paused(m, mo, s); break;
    case M_IMBAL: sample_imbalance(mo, s); break;
    case M_QLEN: sample_qlen(m, mo, s); break;
    }
    mo->last = s->now;
}

simtime_t monitors_sample(struct monitors *m, const struct sim *s)
{
    simtime_t next = T_NEVER;
    for (int k = 0; k < M_N; k++) {
        struct mon *mo = &m->m[k];
        if (!mo->on)
            continue;
        if (mo->next <= s->now) {
            take(m, k, s);
            if (k == M_QLEN) /* as third.cc: reschedule while now < end */
                mo->next = s->now < m->qlen_end ? s->now + QLEN_INTERVAL : T_NEVER;
            else
                mo->next += mo->iv;
        }
        if (mo->next < next)
            next = mo->next;
    }
    return next;
}

/* ---------------------------------------------------------------- open */

static FILE *open_csv(const char *dir, const char *name, const char *header, char *path, size_t np, struct err *e)
{
    if (name[0] == '/' || !dir)
        snprintf(path, np, "%s", name);
    else
        snprintf(path, np, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        errf(e, "%s: cannot write: %s", path, strerror(errno));
        return NULL;
    }
    if (header)
        fputs(header, f);
    return f;
}

static int need_interval(const char *key, simtime_t iv, const char *list_key, struct err *e)
{
    if (iv <= 0)
        return errf(e, "%s: must be > 0 when %s is set", key, list_key);
    return 0;
}

/* A list key (ports, or flows) and its interval key: the monitor's ids
 * and interval; nothing when the list is empty. */
static int open_list(struct mon *mo, const struct scenario *sc, const char *list_key, const char *spec,
                     const char *iv_key, simtime_t iv, bool flows, struct err *e)
{
    if (!spec[0])
        return 0;
    int n;
    if (need_interval(iv_key, iv, list_key, e) < 0 ||
        (n = flows ? monitor_parse_flows(sc, list_key, spec, &mo->id, e)
                   : monitor_parse_ports(&sc->sim, list_key, spec, &mo->id, e)) < 0)
        return -1;
    mo->n = (uint32_t)n;
    mo->iv = iv;
    return 0;
}

int monitors_open(struct monitors **out, const struct scenario *sc, const char *dir, const char *qlen_path,
                  simtime_t *first, struct err *e)
{
    const struct config *cfg = sc->cfg;
    const struct cfg_output *oc = &cfg->output;
    const struct sim *s = &sc->sim;
    *out = NULL;
    bool any = oc->queue_ports[0] || oc->util_ports[0] || oc->flows[0] || oc->paused_interval > 0 ||
               oc->imbalance_interval > 0 ||
               (qlen_path && *qlen_path);
    if (!any)
        return 0;
    struct monitors *m = xcalloc(1, sizeof *m);
    m->by_prio = oc->queue_by_priority;
    for (int k = 0; k < M_N; k++)
        m->m[k].last = -1;
    if (open_list(&m->m[M_QUEUE], sc, "output.queue_ports", oc->queue_ports, "output.queue_interval",
                  oc->queue_interval, false, e) < 0 ||
        open_list(&m->m[M_UTIL], sc, "output.util_ports", oc->util_ports, "output.util_interval", oc->util_interval,
                  false, e) < 0 ||
        open_list(&m->m[M_FLOW], sc, "output.flows", oc->flows, "output.flow_interval", oc->flow_interval, true, e) < 0)
        goto fail;
    if (oc->paused_interval > 0) {
        m->m[M_PAUSED].iv = oc->paused_interval;
        paths_init(m, s);
    }
    if (oc->imbalance_interval > 0) {
        struct mon *mo = &m->m[M_IMBAL];
        mo->iv = oc->imbalance_interval;
        mo->id = xcalloc(s->n_ports + 1, sizeof *mo->id);
        for (uint32_t i = 0; i < s->n_ports; i++) /* ports are numbered node by node */
            if (monitor_is_uplink(s, i))
                mo->id[mo->n++] = i;
        if (!mo->n) {
            errf(e, "output.imbalance_interval: the topology has no edge switch with uplinks");
            goto fail;
        }
    }
    simtime_t start = s->n_flows && s->start_order ? s->flows[s->start_order[0]].start : 0;
    *first = T_NEVER;
    static const char *const names[M_N] = {"queue.csv", "util.csv", "flow_rate.csv", "paused.csv", "imbalance.csv",
                                           NULL};
    /* peer (the node at the far end of the port) comes last, so earlier columns keep their places */
    char qhdr[160] = "time_ns,node,port,bytes,peer\n";
    if (m->by_prio)
        snprintf(qhdr, sizeof qhdr, "time_ns,node,port,bytes,q0,q1,q2,q3,q4,q5,q6,q7,peer\n");
    const char *headers[M_N] = {qhdr, "time_ns,node,port,utilisation,peer\n", "time_ns,flow_id,gbps,rate_gbps\n",
                                "time_ns,paused_ports,paused_paths\n", "time_ns,node,imbalance\n", NULL};
    for (int k = 0; k < M_QLEN; k++) {
        struct mon *mo = &m->m[k];
        if (mo->iv <= 0)
            continue;
        mo->on = true;
        mo->next = start / mo->iv * mo->iv; /* on the interval grid, from the first flow's start */
        if (!(mo->f = open_csv(dir, names[k], headers[k], mo->path, sizeof mo->path, e)))
            goto fail;
        mo->prev = xcalloc(mo->n, sizeof *mo->prev);
        if (mo->next < *first)
            *first = mo->next;
    }
    if (qlen_path && *qlen_path) {
        struct mon *mo = &m->m[M_QLEN];
        mo->on = true;
        mo->iv = QLEN_INTERVAL;
        mo->next = cfg->ns3.qlen_mon_start;
        m->qlen_end = cfg->ns3.qlen_mon_end;
        m->hist = xcalloc(s->n_ports, sizeof *m->hist);
        m->n_hist = s->n_ports;
        if (!(mo->f = open_csv(NULL, qlen_path, NULL, mo->path, sizeof mo->path, e)))
            goto fail;
        if (mo->next < *first)
            *first = mo->next;
    }
    *out = m;
    return 0;
fail:
    monitors_free(m);
    return -1;
}

int monitors_finish(struct monitors *m, const struct sim *s, struct err *e)
{
    if (!m)
        return 0;
    int rc = 0;
    for (int k = 0; k < M_N; k++) {
        struct mon *mo = &m->m[k];
        if (!mo->on)
            continue;
        /* closing sample at the end of the run (not in ns-3's format, which dumps on its grid only) */
        if (k != M_QLEN && (mo->last < s->now || k == M_QUEUE || k == M_PAUSED))
            take(m, k, s);
        struct err later; /* the first error is the one reported */
        if (output_fclose(mo->f, mo->path, rc == 0 ? e : &later) < 0)
            rc = -1;
        mo->f = NULL;
    }
    return rc;
}

void monitors_free(struct monitors *m)
{
    if (!m)
        return;
    for (int k = 0; k < M_N; k++) {
        if (m->m[k].f)
            fclose(m->m[k].f);
        free(m->m[k].id);
        free(m->m[k].prev);
    }
    free(m->edge);
    free(m->edge_host);
    free(m->order_off);
    free(m->order);
    free(m->P);
    free(m->U);
    for (uint32_t i = 0; m->hist && i < m->n_hist; i++)
        free(m->hist[i].cnt);
    free(m->hist);
    free(m->is_edge);
    free(m);
}

/* ---------------------------------------------------------------- pfc_ports */

int pfc_ports_write(const struct sim *s, const char *dir, struct err *e)
{
    char path[2048];
    FILE *f = open_csv(dir, "pfc_ports.csv", "node,port,layer,pause_frames_received,paused_us\n", path, sizeof path, e);
    if (!f)
        return -1;
    for (uint32_t pid = 0; pid < s->n_ports; pid++) {
        const struct port *pt = &s->ports[pid]; /* (across MPI ranks, what every rank sent rank 0: net/shard.c) */
        uint32_t node = sim_port_node(s, pid);
        const struct node *nd = &s->nodes[node];
        simtime_t t = pt->paused_time;
        for (int q = 0; q < NQ; q++)
            if (port_paused(pt, q)) /* still paused when the run ended */
                t += s->now - pt->paused_since[q];
        fprintf(f, "%u,%u,%s,%llu,%.3f\n", node, pid - nd->port0, layer_name(nd->is_switch ? nd->layer : LAYER_HOST),
                (unsigned long long)pt->pause_frames_rx, (double)t / (double)T_US);
    }
    return output_fclose(f, path, e);
}
