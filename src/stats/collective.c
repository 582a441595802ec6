/* Collective metrics by NCCL's definitions (nccl-tests doc/PERFORMANCE.md):
 * an iteration's time runs from the earliest start of its flows to the
 * latest arrival (a flow's receiver has its last byte: the step it feeds can
 * go, and the rank's part of the collective is done); the job's time per
 * iteration t is nccl-tests' elapsed time over the iterations (coll_job_span,
 * less the compute gaps); algbw = S / t (GB/s, 1e9 B/s);
 * busbw = algbw * 2(n-1)/n for all-reduce, * (n-1)/n for all-gather,
 * reduce-scatter and all-to-all, so a collective that keeps every host link
 * busy reaches the link rate (less headers). The straggler is the iteration's
 * last flow to finish; why it was slow comes from its per-flow counters:
 * paused (it met a PFC pause: fct.csv ever_paused), rerouted (its packets
 * changed path: path_switches), retransmitted (lost packets or timeouts). */
#include "stats/collective.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats/output.h"
#include "traffic/collective.h"

/* The prerequisite of flow x met last (in iteration iter of its job, or in
 * any if UINT32_MAX: a finish, or for a "sent" prerequisite the earlier of
 * its finish and x's start), or UINT32_MAX; *met its time. */
static uint32_t met_last(const struct scenario *sc, uint32_t x, uint32_t iter, simtime_t *met)
{
    const struct flow_list *fl = &sc->flows;
    const struct sim *s = &sc->sim;
    const struct flow_spec *fs = &fl->v[x];
    uint32_t next = UINT32_MAX;
    *met = -1;
    for (uint32_t k = 0; k < fs->ndeps; k++) {
        uint32_t d = fl->deps[fs->dep0 + k], id = d & FLOW_DEP_ID;
        if (id >= s->n_flows || fl->v[id].job != fs->job || (iter != UINT32_MAX && fl->v[id].iter != iter))
            continue;
        simtime_t t = d & FLOW_DEP_RECV ? s->flows[id].rcv_done : d & FLOW_DEP_START ? s->flows[id].start : s->flows[id].finish;
        if ((d & (FLOW_DEP_SENT | FLOW_DEP_QP)) && t > s->flows[x].start)
            t = s->flows[x].start;
        if (t > *met) {
            *met = t;
            next = id;
        }
    }
    return next;
}

/* Back from the straggler: each flow's prerequisite met last, while it
 * belongs to the same iteration. */
static void critical_path(const struct scenario *sc, struct coll_iter *c)
{
    const struct sim *s = &sc->sim;
    c->path_worst = UINT32_MAX;
    if (c->straggler == UINT32_MAX || c->done != c->flows)
        return;
    uint32_t x = c->straggler;
    for (uint32_t guard = 0; guard <= s->n_flows; guard++) {
        const struct qp *q = &s->flows[x];
        c->path_n++;
        c->path_paused += q->ever_paused;
        c->path_rerouted += q->path_switches > 0;
        c->path_retx += q->lost > 0 || q->timeouts > 0;
        simtime_t excess = q->finish - q->start - q->ideal_fct;
        if (c->path_worst == UINT32_MAX || excess > c->path_excess) {
            c->path_worst = x;
            c->path_excess = excess;
        }
        simtime_t met;
        uint32_t next = met_last(sc, x, c->iter, &met);
        if (next == UINT32_MAX)
            break;
        x = next;
    }
    c->path_inherited = s->flows[x].start - c->start;
}

struct coll_iter *coll_iters(const struct scenario *sc, size_t *n)
{
    const struct flow_list *fl = &sc->flows;
    const struct sim *s = &sc->sim;
    *n = 0;
    if (!fl->n_jobs)
        return NULL;
    size_t *first = calloc(fl->n_jobs + 1, sizeof *first);
    if (!first)
        return NULL;
    for (size_t j = 0; j < fl->n_jobs; j++)
        first[j + 1] = first[j] + fl->jobs[j].iterations;
    struct coll_iter *it = calloc(first[fl->n_jobs] ? first[fl->n_jobs] : 1, sizeof *it);
    if (!it) {
        free(first);
        return NULL;
    }
    for (size_t j = 0; j < fl->n_jobs; j++)
        for (uint32_t k = 0; k < fl->jobs[j].iterations; k++)
            it[first[j] + k] = (struct coll_iter){.job = (uint32_t)j, .iter = k, .start = T_NEVER, .end = -1,
                                                  .straggler = UINT32_MAX};
    for (uint32_t i = 0; i < s->n_flows && i < fl->n; i++) {
        const struct flow_spec *fs = &fl->v[i];
        if (!fs->job || fs->job > fl->n_jobs || fs->iter >= fl->jobs[fs->job - 1].iterations)
            continue;
        struct coll_iter *c = &it[first[fs->job - 1] + fs->iter];
        const struct qp *q = &s->flows[i];
        c->flows++;
        if (q->state != FLOW_PENDING && q->start < c->start)
            c->start = q->start;
        if (q->state != FLOW_PENDING && q->rcv_done != T_NEVER) {
            c->done++;
            if (q->rcv_done > c->end) { /* ties: the lowest id */
                c->end = q->rcv_done;
                c->straggler = i;
            }
        }
    }
    *n = first[fl->n_jobs];
    for (size_t k = 0; k < *n; k++)
        critical_path(sc, &it[k]);
    free(first);
    return it;
}

simtime_t coll_job_span(const struct scenario *sc, const struct coll_iter *it, size_t n, uint32_t job, simtime_t *per_iter)
{
    const struct coll_job *jb = &sc->flows.jobs[job];
    simtime_t first = T_NEVER, last = -1;
    uint32_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if (it[k].job != job)
            continue;
        if (!it[k].flows || it[k].done != it[k].flows)
            return -1;
        first = it[k].start < first ? it[k].start : first;
        last = it[k].end > last ? it[k].end : last;
        m++;
    }
    if (!m)
        return -1;
    *per_iter = (last - first - (simtime_t)(m - 1) * jb->gap) / (simtime_t)m;
    return last - first;
}

void coll_job_path(const struct scenario *sc, const struct coll_iter *it, size_t n, uint32_t job, struct coll_jpath *p)
{
    const struct coll_job *jb = &sc->flows.jobs[job];
    const struct sim *s = &sc->sim;
    memset(p, 0, sizeof *p);
    p->straggler_host = p->straggler_rank = UINT32_MAX;
    p->per = p->per_without = -1;
    simtime_t span = coll_job_span(sc, it, n, job, &p->per);
    if (span < 0)
        return;
    uint32_t x = UINT32_MAX;
    simtime_t end = -1;
    for (size_t i = jb->first_flow; i < jb->first_flow + jb->n_flows && i < s->n_flows; i++)
        if (s->flows[i].rcv_done > end) { /* ties: the lowest id */
            end = s->flows[i].rcv_done;
            x = (uint32_t)i;
        }
    simtime_t *by_host = calloc(sc->topo.n_nodes ? sc->topo.n_nodes : 1, sizeof *by_host);
    uint32_t slow_host = jb->slow_rank != UINT32_MAX ? jb->hosts[jb->slow_rank] : UINT32_MAX;
    for (uint32_t guard = 0; x != UINT32_MAX && guard <= s->n_flows; guard++) {
        const struct qp *q = &s->flows[x];
        const struct flow_spec *fs = &sc->flows.v[x];
        simtime_t met, gx = 0, nx = 0;
        uint32_t next = met_last(sc, x, UINT32_MAX, &met);
        p->flows++;
        if (next != UINT32_MAX && fs->dep_delay > 0 && met + fs->dep_delay >= q->start) { /* held by its compute */
            p->compute += fs->dep_delay;
            if (fs->iter > 0 && fs->dep_delay > jb->gap)
                gx = fs->dep_delay - jb->gap;
        }
        if (slow_host != UINT32_MAX && jb->slow_nic && jb->nic_nominal > jb->slow_nic && !q->local &&
            (q->src == slow_host || q->dst == slow_host))
            nx = (simtime_t)llround((double)q->size * 8 *
                                    ((double)T_SEC / (double)jb->slow_nic - (double)T_SEC / (double)jb->nic_nominal));
        p->gap_excess += gx;
        p->nic += nx;
        for (int k = 0; k < 2 && by_host; k++) { /* a rank's compute is its own; the slow NIC's time is its host's */
            uint32_t h = k ? slow_host : fs->src;
            simtime_t v = k ? nx : gx;
            if (!v || h >= sc->topo.n_nodes)
                continue;
            by_host[h] += v;
            if (by_host[h] > p->straggler_time || (by_host[h] == p->straggler_time && h < p->straggler_host)) {
                p->straggler_time = by_host[h];
                p->straggler_host = h;
            }
        }
        x = next;
    }
    free(by_host);
    for (uint32_t r = 0; p->straggler_host != UINT32_MAX && r < jb->n; r++)
        if (jb->hosts[r] == p->straggler_host)
            p->straggler_rank = r;
    simtime_t m = (simtime_t)jb->iterations;
    p->per_without = (span - p->gap_excess - p->nic - (m - 1) * jb->gap) / m;
}

void coll_why(const struct qp *q, char *buf, size_t n)
{
    buf[0] = 0;
    size_t len = 0;
    if (q->ever_paused)
        len += (size_t)snprintf(buf + len, n - len, "paused");
    if (q->path_switches && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%srerouted", len ? "+" : "");
    if ((q->lost || q->timeouts) && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%sretransmitted", len ? "+" : "");
    if (!len)
        snprintf(buf, n, "none");
}

static bool complete(const struct coll_iter *c) { return c->flows && c->done == c->flows; }

/* summary.json: a job's straggler settings, all-to-all shares and its critical path across iterations. */
static void straggler_json(FILE *f, const struct scenario *sc, const struct coll_iter *it, size_t n, uint32_t j)
{
    static const char *const dist[] = {"fixed", "uniform", "normal", "exponential"};
    const struct coll_job *jb = &sc->flows.jobs[j];
    fprintf(f, "\"stragglers\": {\"gap_dist\": \"%s\", \"gap_spread_us\": %.3f, ", dist[jb->gap_dist & 3],
            (double)jb->gap_spread / T_US);
    if (jb->slow_rank != UINT32_MAX)
        fprintf(f, "\"slow_rank\": %u, \"slow_host\": %u, \"slow_factor\": %g, ", jb->slow_rank, jb->hosts[jb->slow_rank],
                jb->slow_factor);
    else
        fprintf(f, "\"slow_rank\": null, \"slow_host\": null, \"slow_factor\": null, ");
    if (jb->slow_nic)
        fprintf(f, "\"slow_nic_Gbps\": %g}, ", (double)jb->slow_nic / 1e9);
    else
        fprintf(f, "\"slow_nic_Gbps\": null}, ");
    if (jb->algo == COLL_ALLTOALL)
        fprintf(f, "\"a2a_shares\": \"%s\", \"a2a_zipf\": %g, ", !jb->a2a_weighted ? "even" : jb->a2a_zipf > 0 ? "zipf" : "weights",
                jb->a2a_zipf);
    struct coll_jpath p;
    coll_job_path(sc, it, n, j, &p);
    if (p.per < 0) {
        fprintf(f, "\"job_critical_path\": null, \"time_per_iteration_without_stragglers_us\": null, ");
        return;
    }
    fprintf(f, "\"job_critical_path\": {\"flows\": %u, \"compute_us\": %.3f, \"gap_excess_us\": %.3f, \"slow_nic_us\": %.3f, ",
            p.flows, (double)p.compute / T_US, (double)p.gap_excess / T_US, (double)p.nic / T_US);
    if (p.straggler_host != UINT32_MAX)
        fprintf(f, "\"straggler_rank\": %u, \"straggler_host\": %u, \"straggler_us\": %.3f}, ", p.straggler_rank,
                p.straggler_host, (double)p.straggler_time / T_US);
    else
        fprintf(f, "\"straggler_rank\": null, \"straggler_host\": null, \"straggler_us\": 0}, ");
    fprintf(f, "\"time_per_iteration_without_stragglers_us\": %.3f, ", (double)p.per_without / T_US);
}

int collective_write_csv(const struct scenario *sc, const char *dir, struct err *e)
{
    if (!sc->flows.n_jobs)
        return 0;
    size_t n;
    struct coll_iter *it = coll_iters(sc, &n);
    if (!it)
        return errf(e, "out of memory");
    char path[1100];
    snprintf(path, sizeof path, "%s/collective.csv", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        free(it);
        return errf(e, "%s: cannot create", path);
    }
    fputs("job,collective,hosts,size_bytes,chunks,iteration,start_ns,end_ns,time_ns,algbw_GBps,busbw_GBps,flows,"
          "flows_done,straggler_flow,straggler_src,straggler_dst,straggler_step,straggler_fct_ns,straggler_why,path_flows,"
          "path_paused,path_rerouted,path_retransmitted,path_worst_flow,path_worst_step,path_worst_excess_ns,path_worst_why,"
          "path_inherited_ns,job_iteration_ns,job_busbw_GBps,job_path_compute_ns,job_path_straggler_ns,job_straggler_rank,"
          "job_straggler_host,job_iteration_without_ns\n",
          f);
    struct coll_jpath jp = {0};
    for (size_t k = 0; k < n; k++) {
        const struct coll_iter *c = &it[k];
        const struct coll_job *jb = &sc->flows.jobs[c->job];
        char tail[160] = ",,,,,,";
        if (k == 0 || it[k - 1].job != c->job) /* the job's columns, on each of its rows */
            coll_job_path(sc, it, n, c->job, &jp);
        if (jp.per > 0) {
            int w = snprintf(tail, sizeof tail, "%.3f,%.4f,%.3f,%.3f,", (double)jp.per / T_NS,
                             (double)jb->size / ((double)jp.per / T_NS) * coll_busbw_factor(jb->algo, jb->n),
                             (double)jp.compute / T_NS, (double)(jp.gap_excess + jp.nic) / T_NS);
            if (jp.straggler_host != UINT32_MAX)
                w += snprintf(tail + w, sizeof tail - (size_t)w, "%u,%u", jp.straggler_rank, jp.straggler_host);
            else
                w += snprintf(tail + w, sizeof tail - (size_t)w, ",");
            snprintf(tail + w, sizeof tail - (size_t)w, ",%.3f", (double)jp.per_without / T_NS);
        }
        fprintf(f, "%s,%s,%u,%llu,%u,%u,", jb->name, coll_name(jb->algo), jb->n, (unsigned long long)jb->size,
                jb->chunks, c->iter);
        if (c->start != T_NEVER)
            fprintf(f, "%.3f", (double)c->start / T_NS);
        fputc(',', f);
        if (complete(c)) {
            double t = (double)(c->end - c->start) / T_NS, alg = (double)jb->size / t;
            fprintf(f, "%.3f,%.3f,%.4f,%.4f", (double)c->end / T_NS, t, alg, alg * coll_busbw_factor(jb->algo, jb->n));
        } else {
            fputs(",,,", f);
        }
        fprintf(f, ",%u,%u,", c->flows, c->done);
        if (c->straggler != UINT32_MAX && complete(c)) {
            const struct qp *q = &sc->sim.flows[c->straggler];
            char why[64];
            coll_why(q, why, sizeof why);
            fprintf(f, "%u,%u,%u,%u,%.3f,%s,", c->straggler, q->src, q->dst, sc->flows.v[c->straggler].step,
                    (double)(q->finish - q->start) / T_NS, why);
            const struct qp *w = &sc->sim.flows[c->path_worst];
            coll_why(w, why, sizeof why);
            fprintf(f, "%u,%u,%u,%u,%u,%u,%.3f,%s,%.3f,%s\n", c->path_n, c->path_paused, c->path_rerouted, c->path_retx,
                    c->path_worst, sc->flows.v[c->path_worst].step, (double)c->path_excess / T_NS, why,
                    (double)c->path_inherited / T_NS, tail);
        } else {
            fprintf(f, ",,,,,,,,,,,,,,%s\n", tail);
        }
    }
    free(it);
    return output_fclose(f, path, e); /* names the system's reason, as the other files */
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void collective_write_json(FILE *f, const struct scenario *sc)
{
    if (!sc->flows.n_jobs)
        return;
    size_t n;
    struct coll_iter *it = coll_iters(sc, &n);
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (!it || !t) {
        free(it);
        free(t);
        return;
    }
    fprintf(f, "  \"collectives\": [");
    size_t k = 0;
    for (size_t j = 0; j < sc->flows.n_jobs; j++) {
        const struct coll_job *jb = &sc->flows.jobs[j];
        size_t m = 0, slow = SIZE_MAX;
        double sum = 0;
        for (; k < n && it[k].job == j; k++)
            if (complete(&it[k])) {
                t[m] = (double)(it[k].end - it[k].start) / T_US;
                sum += t[m++];
                if (slow == SIZE_MAX || it[k].end - it[k].start > it[slow].end - it[slow].start)
                    slow = k;
            }
        double mean = m ? sum / (double)m : 0;
        double f_bus = coll_busbw_factor(jb->algo, jb->n);
        simtime_t per = 0, span = coll_job_span(sc, it, n, (uint32_t)j, &per);
        double alg = span > 0 && per > 0 ? (double)jb->size / ((double)per / T_NS) : 0;
        fprintf(f, "%s{\"job\": \"%s\", \"collective\": \"%s\", \"hosts\": %u, \"size_bytes\": %llu, \"chunks\": %u, "
                "\"channels\": %u, \"steps\": %u, \"iterations\": %u, \"iterations_done\": %zu, ", j ? ",\n    " : "\n    ",
                jb->name, coll_name(jb->algo), jb->n, (unsigned long long)jb->size, jb->chunks, jb->channels, jb->steps,
                jb->iterations, m);
        qsort(t, m, sizeof *t, cmp_dbl);
        if (m)
            fprintf(f, "\"iteration_us\": {\"mean\": %.3f, \"p50\": %.3f, \"p99\": %.3f, \"max\": %.3f}, ", mean,
                    percentile(t, m, 50), percentile(t, m, 99), t[m - 1]);
        else
            fprintf(f, "\"iteration_us\": null, ");
        if (alg > 0) /* nccl-tests: the elapsed time over the iterations (less the compute gaps) */
            fprintf(f, "\"job_span_us\": %.3f, \"time_per_iteration_us\": %.3f, \"algbw_GBps\": %.4f, "
                    "\"busbw_GBps\": %.4f, ", (double)span / T_US, (double)per / T_US, alg, alg * f_bus);
        else
            fprintf(f, "\"job_span_us\": null, \"time_per_iteration_us\": null, \"algbw_GBps\": null, \"busbw_GBps\": null, ");
        straggler_json(f, sc, it, n, (uint32_t)j);
        if (slow != SIZE_MAX) {
            const struct qp *q = &sc->sim.flows[it[slow].straggler];
            char why[64];
            coll_why(q, why, sizeof why);
            const struct coll_iter *c = &it[slow];
            fprintf(f, "\"slowest\": {\"iteration\": %u, \"straggler_flow\": %u, \"src\": %u, \"dst\": %u, \"step\": %u, "
                    "\"fct_us\": %.3f, \"why\": \"%s\", ", c->iter, c->straggler, q->src, q->dst,
                    sc->flows.v[c->straggler].step, (double)(q->finish - q->start) / T_US, why);
            const struct qp *w = &sc->sim.flows[c->path_worst];
            coll_why(w, why, sizeof why);
            fprintf(f, "\"critical_path\": {\"flows\": %u, \"paused\": %u, \"rerouted\": %u, \"retransmitted\": %u, "
                    "\"worst_flow\": %u, \"worst_step\": %u, \"worst_excess_us\": %.3f, \"worst_why\": \"%s\", "
                    "\"inherited_us\": %.3f}}}",
                    c->path_n, c->path_paused, c->path_rerouted, c->path_retx, c->path_worst, sc->flows.v[c->path_worst].step,
                    (double)c->path_excess / T_US, why, (double)c->path_inherited / T_US);
        } else {
            fprintf(f, "\"slowest\": null}");
        }
    }
    fprintf(f, "\n  ],\n");
    free(it);
    free(t);
}

/* ---------------------------------------------------------------- report */

struct rjob {
    char name[64], algo[32];
    unsigned hosts, iters, done;
    double sum, max, size, factor, job_busbw;
    double *t;
    size_t cap;
    unsigned why_paused, why_rerouted, why_retx;
};

void collective_report(FILE *out, const char *const *dirs, int n)
{
    bool header = false;
    for (int d = 0; d < n; d++) {
        char path[1100], line[1024];
        snprintf(path, sizeof path, "%s/collective.csv", dirs[d]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        struct rjob *jobs = NULL;
        size_t nj = 0;
        if (!fgets(line, sizeof line, f)) {
            fclose(f);
            continue;
        }
        while (fgets(line, sizeof line, f)) {
            char *col[32];
            int nc = 0;
            line[strcspn(line, "\r\n")] = 0;
            for (char *p = line; nc < 32;) {
                col[nc++] = p;
                char *c = strchr(p, ',');
                if (!c)
                    break;
                *c = 0;
                p = c + 1;
            }
            if (nc < 19)
                continue;
            size_t j = 0;
            while (j < nj && strcmp(jobs[j].name, col[0]) != 0)
                j++;
            if (j == nj) {
                struct rjob *nb = realloc(jobs, (nj + 1) * sizeof *nb);
                if (!nb)
                    break;
                jobs = nb;
                memset(&jobs[nj], 0, sizeof jobs[nj]);
                snprintf(jobs[nj].name, sizeof jobs[nj].name, "%s", col[0]);
                snprintf(jobs[nj].algo, sizeof jobs[nj].algo, "%s", col[1]);
                jobs[nj].hosts = (unsigned)strtoul(col[2], NULL, 10);
                nj++;
            }
            struct rjob *r = &jobs[j];
            r->iters++;
            if (!*col[8])
                continue;
            double t = strtod(col[8], NULL) / 1e3;
            if (r->done == r->cap) {
                size_t nc2 = r->cap ? 2 * r->cap : 16;
                double *nt = realloc(r->t, nc2 * sizeof *nt);
                if (!nt)
                    continue;
                r->t = nt;
                r->cap = nc2;
            }
            r->t[r->done++] = t;
            r->sum += t;
            r->max = t > r->max ? t : r->max;
            r->size = strtod(col[3], NULL);
            r->factor = strtod(col[9], NULL) > 0 ? strtod(col[10], NULL) / strtod(col[9], NULL) : 0;
            if (nc > 29 && *col[29]) /* the job's busbw over its span (nccl-tests' time per iteration) */
                r->job_busbw = strtod(col[29], NULL);
            const char *why = nc > 26 ? col[26] : col[18]; /* the critical path's worst flow, else the straggler */
            r->why_paused += strstr(why, "paused") != NULL;
            r->why_rerouted += strstr(why, "rerouted") != NULL;
            r->why_retx += strstr(why, "retransmitted") != NULL;
        }
        fclose(f);
        if (!header) {
            fprintf(out, "\nCollectives (collective.csv; iteration times in us; busbw by NCCL's definition; "
                         "slow paths: iterations whose critical path's slowest flow was paused / rerouted / retransmitted)\n");
            fprintf(out, "  %-4s %-20s %-15s %6s %7s %10s %10s %10s %9s %s\n", "run", "job", "collective", "hosts", "iters",
                    "mean", "p99", "max", "busbw", "slow paths");
            header = true;
        }
        for (size_t j = 0; j < nj; j++) {
            struct rjob *r = &jobs[j];
            qsort(r->t, r->done, sizeof *r->t, cmp_dbl);
            char it[24];
            snprintf(it, sizeof it, "%u/%u", r->done, r->iters);
            if (r->done)
                fprintf(out, "  %-4d %-20s %-15s %6u %7s %10.3f %10.3f %10.3f %9.3f %u/%u/%u\n", d + 1, r->name, r->algo,
                        r->hosts, it, r->sum / r->done, percentile(r->t, r->done, 99), r->max,
                        r->job_busbw > 0 ? r->job_busbw : r->size / (r->sum / r->done * 1e3) * r->factor, /* as summary.json */
                        r->why_paused, r->why_rerouted, r->why_retx);
            else
                fprintf(out, "  %-4d %-20s %-15s %6u %7s %10s %10s %10s %9s -\n", d + 1, r->name, r->algo, r->hosts, it,
                        "-", "-", "-", "-");
            free(r->t);
        }
        free(jobs);
    }
}
