/* The partition report: see partrep.h. */
#include "stats/partrep.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"
#include "stats/output.h"
#include "topo/partition.h"

static const uint32_t threads[] = {1, 2, 4, 8, 16, 32, 64};
#define PAIR_MAX 2048 /* partitions up to which messages are counted by pair (32 MB at most) */
#define NT (sizeof threads / sizeof threads[0])

struct partrep {
    struct partition pt;
    uint32_t want;
    uint32_t n_links;
    simtime_t len;        /* window length: the lookahead */
    simtime_t w_start;
    bool open;
    uint64_t *ev, *prev;  /* this window's and the previous window's events per partition */
    uint64_t *msg;        /* this window's messages (packets and PFC frames over cut links) per receiving partition */
    uint64_t *msg_total;
    uint64_t *pair;       /* messages by (sending, receiving) partition, P x P, when P <= PAIR_MAX; else NULL */
    uint64_t *act;        /* partitions with events in this window: sort key << 32 | partition */
    uint64_t *load;       /* per thread, scratch */
    uint64_t global, cut_pkt, cut_pfc; /* this window */
    FILE *csv;
    char path[PATH_BUF + 64];
    /* totals */
    uint64_t windows, events, global_total, cut_pkt_total, cut_pfc_total, max_sum;
    uint64_t *ev_total;
    double imb_sum;
    uint64_t mk_unison[NT], mk_static[NT], mk_bound[NT];
    /* ties: events at the time of the event before them, and those of them
     * in another partition than it (their order is the tie-break's) */
    simtime_t last_t;
    uint32_t last_p;
    uint64_t ties, ties_cross;
};

int partrep_open(struct partrep **out, const struct scenario *sc, const char *dir, struct err *e)
{
    *out = NULL;
    if (!sc->cfg->output.partition_report)
        return 0;
    struct partrep *r = xcalloc(1, sizeof *r);
    r->want = (uint32_t)sc->cfg->run.partitions;
    if (topo_partition(&r->pt, &sc->topo, r->want, e) < 0) {
        free(r);
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "output.partition_report: %.900s", e->msg);
        memcpy(e->msg, msg, sizeof msg);
        return -1;
    }
    if (r->pt.lookahead == 0) {
        partrep_free(r);
        return errf(e, "run.partitions: a cut link has no delay (topology.link_delay = 0): no lookahead, no window");
    }
    r->n_links = sc->topo.n_links;
    r->len = r->pt.lookahead; /* T_NEVER with one partition: one window */
    r->last_t = -1;
    uint32_t P = r->pt.n_parts;
    r->ev = xcalloc(P, sizeof *r->ev);
    r->prev = xcalloc(P, sizeof *r->prev);
    r->ev_total = xcalloc(P, sizeof *r->ev_total);
    r->msg = xcalloc(P, sizeof *r->msg);
    r->msg_total = xcalloc(P, sizeof *r->msg_total);
    r->act = xcalloc(P, sizeof *r->act);
    if (P <= PAIR_MAX)
        r->pair = xcalloc((size_t)P * P, sizeof *r->pair);
    r->load = xcalloc(threads[NT - 1], sizeof *r->load);
    snprintf(r->path, sizeof r->path, "%s/partition.csv", dir);
    if (!(r->csv = fopen(r->path, "w"))) {
        int en = errno;
        char path[sizeof r->path];
        memcpy(path, r->path, sizeof path);
        partrep_free(r);
        return errf(e, "%s: cannot create: %s", path, strerror(en));
    }
    fputs("window,start_ns,events,global,cut_packets,cut_pfc,max_partition", r->csv);
    for (uint32_t p = 0; p < P; p++)
        fprintf(r->csv, ",p%u", p);
    for (uint32_t p = 0; p < P; p++)
        fprintf(r->csv, ",m%u", p);
    fputc('\n', r->csv);
    *out = r;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void flush(struct partrep *r)
{
    uint32_t P = r->pt.n_parts, na = 0;
    uint64_t sum = 0, mx = 0;
    for (uint32_t p = 0; p < P; p++)
        if (r->ev[p]) {
            /* Unison's order: more events in the previous window first, then by number */
            uint64_t prev = r->prev[p] < UINT32_MAX ? r->prev[p] : UINT32_MAX;
            r->act[na++] = (UINT32_MAX - prev) << 32 | p;
            sum += r->ev[p];
            if (r->ev[p] > mx)
                mx = r->ev[p];
        }
    fprintf(r->csv, "%llu,%.3f,%llu,%llu,%llu,%llu,%llu", (unsigned long long)r->windows, (double)r->w_start / T_NS,
            (unsigned long long)(sum + r->global), (unsigned long long)r->global, (unsigned long long)r->cut_pkt,
            (unsigned long long)r->cut_pfc, (unsigned long long)mx);
    for (uint32_t p = 0; p < P; p++)
        fprintf(r->csv, ",%llu", (unsigned long long)r->ev[p]);
    for (uint32_t p = 0; p < P; p++)
        fprintf(r->csv, ",%llu", (unsigned long long)r->msg[p]);
    fputc('\n', r->csv);
    r->windows++;
    r->events += sum + r->global;
    r->global_total += r->global;
    r->cut_pkt_total += r->cut_pkt;
    r->cut_pfc_total += r->cut_pfc;
    r->max_sum += mx;
    if (sum)
        r->imb_sum += (double)mx * P / (double)sum;
    qsort(r->act, na, sizeof *r->act, cmp_u64);
    for (uint32_t i = 0; i < na; i++)
        r->act[i] &= UINT32_MAX;
    for (size_t k = 0; k < NT; k++) {
        uint32_t T = threads[k];
        /* unison: each partition to the least-loaded thread (T is small: a scan) */
        memset(r->load, 0, T * sizeof *r->load);
        uint64_t mk = 0;
        for (uint32_t i = 0; i < na; i++) {
            uint32_t best = 0;
            for (uint32_t t = 1; t < T; t++)
                if (r->load[t] < r->load[best])
                    best = t;
            r->load[best] += r->ev[r->act[i]];
            if (r->load[best] > mk)
                mk = r->load[best];
        }
        r->mk_unison[k] += mk;
        memset(r->load, 0, T * sizeof *r->load);
        mk = 0;
        for (uint32_t i = 0; i < na; i++) {
            uint32_t t = r->act[i] % T;
            r->load[t] += r->ev[r->act[i]];
            if (r->load[t] > mk)
                mk = r->load[t];
        }
        r->mk_static[k] += mk;
        uint64_t even = (sum + T - 1) / T;
        r->mk_bound[k] += mx > even ? mx : even;
    }
    for (uint32_t p = 0; p < P; p++) {
        r->ev_total[p] += r->ev[p];
        r->prev[p] = r->ev[p];
        r->ev[p] = 0;
        r->msg_total[p] += r->msg[p];
        r->msg[p] = 0;
    }
    r->global = r->cut_pkt = r->cut_pfc = 0;
}

void partrep_event(struct partrep *r, const struct sim *s, uint32_t node, uint32_t from, bool pfc)
{
    if (!r->open || s->now - r->w_start >= r->len) {
        if (r->open)
            flush(r);
        r->open = true;
        r->w_start = s->now;
    }
    uint32_t p = node == SIM_NODE_GLOBAL ? UINT32_MAX : r->pt.part[node];
    if (s->now == r->last_t) {
        r->ties++;
        r->ties_cross += p != r->last_p;
    }
    r->last_t = s->now, r->last_p = p;
    if (node == SIM_NODE_GLOBAL) {
        r->global++;
        return;
    }
    r->ev[p]++;
    if (from != SIM_NODE_GLOBAL && r->pt.part[from] != p) {
        r->msg[p]++;
        if (r->pair)
            r->pair[(size_t)r->pt.part[from] * r->pt.n_parts + p]++;
        if (pfc)
            r->cut_pfc++;
        else
            r->cut_pkt++;
    }
}

static void json_u64s(FILE *f, const char *name, const uint64_t *v, size_t n, const char *end)
{
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    fprintf(f, "]%s\n", end);
}

static void json_u32s(FILE *f, const char *name, const uint32_t *v, size_t n)
{
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%u", i ? ", " : "", v[i]);
    fputs("],\n", f);
}

int partrep_finish(struct partrep *r, const char *dir, struct err *e)
{
    if (!r)
        return 0;
    if (r->open)
        flush(r);
    r->open = false;
    FILE *csv = r->csv;
    r->csv = NULL;
    if (output_fclose(csv, r->path, e) < 0)
        return -1;
    char path[PATH_BUF + 64];
    snprintf(path, sizeof path, "%s/partition.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return errf(e, "%s: cannot create: %s", path, strerror(errno));
    uint32_t P = r->pt.n_parts;
    uint64_t mxp = 0, parts_events = r->events - r->global_total;
    for (uint32_t p = 0; p < P; p++)
        if (r->ev_total[p] > mxp)
            mxp = r->ev_total[p];
    double w = r->windows ? (double)r->windows : 1;
    fprintf(f, "{\n  \"partitions\": %u,\n  \"partitions_requested\": %u,\n", P, r->want);
    fprintf(f, "  \"lookahead_ns\": %.3f,\n", r->len == T_NEVER ? 0.0 : (double)r->len / T_NS);
    fprintf(f, "  \"links\": %u,\n  \"cut_links\": %u,\n", r->n_links, r->pt.n_cut);
    fprintf(f, "  \"windows\": %llu,\n  \"events\": %llu,\n  \"global_events\": %llu,\n",
            (unsigned long long)r->windows, (unsigned long long)r->events, (unsigned long long)r->global_total);
    fprintf(f, "  \"events_per_window\": %.3f,\n", (double)r->events / w);
    fprintf(f, "  \"events_per_window_per_partition\": %.3f,\n", (double)parts_events / w / P);
    fprintf(f, "  \"imbalance_run\": %.4f,\n", parts_events ? (double)mxp * P / (double)parts_events : 0.0);
    fprintf(f, "  \"imbalance_window_mean\": %.4f,\n", r->imb_sum / w);
    fprintf(f, "  \"busiest_partition_events_sum\": %llu,\n", (unsigned long long)r->max_sum);
    fprintf(f, "  \"cut_packets\": %llu,\n  \"cut_pfc\": %llu,\n", (unsigned long long)r->cut_pkt_total,
            (unsigned long long)r->cut_pfc_total);
    fprintf(f, "  \"same_time_events\": %llu,\n  \"same_time_other_partition\": %llu,\n",
            (unsigned long long)r->ties, (unsigned long long)r->ties_cross);
    fprintf(f, "  \"cut_messages_per_window\": %.3f,\n", (double)(r->cut_pkt_total + r->cut_pfc_total) / w);
    json_u32s(f, "nodes_per_partition", r->pt.nodes, P);
    json_u32s(f, "hosts_per_partition", r->pt.hosts, P);
    json_u64s(f, "events_per_partition", r->ev_total, P, ",");
    json_u64s(f, "messages_per_partition", r->msg_total, P, ",");
    if (r->pair) { /* [from, to, messages] for every pair that exchanged any */
        fputs("  \"messages_between_partitions\": [", f);
        for (size_t i = 0, n = 0; i < (size_t)P * P; i++)
            if (r->pair[i])
                fprintf(f, "%s[%zu, %zu, %llu]", n++ ? ", " : "", i / P, i % P, (unsigned long long)r->pair[i]);
        fputs("],\n", f);
    }
    uint64_t th[NT];
    for (size_t k = 0; k < NT; k++)
        th[k] = threads[k];
    json_u64s(f, "threads", th, NT, ",");
    json_u64s(f, "makespan_events_unison", r->mk_unison, NT, ",");
    json_u64s(f, "makespan_events_static", r->mk_static, NT, ",");
    json_u64s(f, "makespan_events_bound", r->mk_bound, NT, "");
    fputs("}\n", f);
    return output_fclose(f, path, e);
}

void partrep_free(struct partrep *r)
{
    if (!r)
        return;
    if (r->csv)
        fclose(r->csv);
    partition_free(&r->pt);
    free(r->ev);
    free(r->prev);
    free(r->ev_total);
    free(r->msg);
    free(r->msg_total);
    free(r->pair);
    free(r->act);
    free(r->load);
    free(r);
}
