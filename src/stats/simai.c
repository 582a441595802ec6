/* SimAI's end-to-end report for each SimAI job (traffic/simai.h), in the
 * layout SimAI_simulator writes to ncclFlowModel_EndToEnd.csv (astra-sim
 * Layer::report, ns-3 build), so the two can be read side by side:
 *   File name, Expose DP comm, Expose DP_EP comm, Expose TP comm, Expose_EP_comm, Expose_PP_comm, bubble time,
 *     total comp, total exposed comm, Total time        (whole us, each with its share of Total time)
 *   layer_name,NAME,fwd compute,wg compute,ig compute,fwd exposed comm,wg exposed comm,ig exposed comm,
 *     fwd total comm,algbw,busbw,wg total comm,algbw,busbw,ig total comm,algbw,busbw,workload finished at
 *   one row per layer, SUM, and "total exposed comm,X,total comp,Y,total time,Z"
 * All from the job's first GPU (rank 0), as SimAI reports its GPU 0, summed
 * over iterations, in us. A collective's total comm runs from the end of the
 * compute before it (its issue) to the last flow rank 0 sends or receives in
 * it; a blocking one (fwd, ig) is exposed whole. A wg collective is exposed
 * for the time rank 0 waits for it: before the next iteration's forward of
 * its layer, and at the end, where the job waits for the collectives still
 * running in the order they finish. algbw = size / total comm in GiB/s
 * (SimAI's GBps = 2^-30), busbw = algbw x 2(n-1)/n (all-reduce) or (n-1)/n.
 * total exposed comm = workload finished - job start - total comp, as SimAI's
 * ns-3 report computes it; workload finished = when rank 0 has finished its
 * last compute and collective, as SimAI reports when its GPU 0 has (other
 * GPUs may finish later: summary.json's simai_jobs time_us is the job's
 * span, to its last flow). Bubble (pipeline) time as SimAI's formula: the
 * per-layer fwd+ig exposed comm and all compute of layers not named
 * embedding_layer, x (pp-1)/(ga x vpp); Expose_PP_comm is 0 (SimAI's default
 * pp_overlap_ratio 1 makes it 0). */
#include "stats/simai.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "traffic/collective.h"
#include "traffic/simai.h"

struct jt { /* per collective job: rank 0's view */
    simtime_t issue, done;
};

static double us(simtime_t t) { return (double)t / T_US; }

static void bw(FILE *f, const struct simai_comm *c, uint32_t n, simtime_t t, int ph)
{
    if (!c->type || n < 2 || t <= 0) {
        fputs(",nan,0.000000", f);
        return;
    }
    uint64_t size = ph == SIMAI_FWD && c->size > 0 && c->size < 4096 ? 4096 : c->size;
    double alg = (double)size / ((double)t / T_SEC) / (1024.0 * 1024.0 * 1024.0);
    double fac = c->type == SIMAI_ALLREDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;
    fprintf(f, ",%f,%f", alg, alg * fac);
}

static void pct(FILE *f, double v, double total)
{
    fprintf(f, ", %.0f (%.2f%%)", v, total > 0 ? 100 * v / total : 0.0);
}

static int write_job(const struct scenario *sc, const struct simai_sched *j, const char *path, struct err *e)
{
    const struct flow_list *fl = &sc->flows;
    const struct sim *s = &sc->sim;
    const struct simai_workload *w = &j->w;
    uint32_t nj = j->job_hi >= j->job_lo ? (uint32_t)(j->job_hi - j->job_lo + 1) : 0, nl = w->n_layers;
    struct jt *jt = calloc(nj ? nj : 1, sizeof *jt);
    double *acc = calloc((size_t)nl * 9, sizeof *acc); /* per layer: compute[3], exposed[3], total[3] */
    simtime_t *tot = calloc((size_t)nl * 3, sizeof *tot);
    simtime_t *wgdone = calloc(nl ? nl : 1, sizeof *wgdone);
    FILE *f = NULL;
    int rc = 0;
    if (!jt || !acc || !tot || !wgdone) {
        rc = errf(e, "out of memory");
        goto out;
    }
    for (uint32_t k = 0; k < nj; k++)
        jt[k] = (struct jt){T_NEVER, -1};
    simtime_t end = j->start;
    bool complete = true;
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct flow_spec *fs = &fl->v[i];
        if (fs->job < j->job_lo || fs->job > j->job_hi)
            continue;
        const struct qp *q = &s->flows[i];
        if (q->state != FLOW_DONE) {
            complete = false;
            continue;
        }
        if (q->finish > end)
            end = q->finish;
        struct jt *x = &jt[fs->job - j->job_lo];
        bool from0 = fs->src == j->rank0_nic || fs->src == j->rank0_nvl, to0 = fs->dst == j->rank0_nic || fs->dst == j->rank0_nvl;
        if (from0 && fs->step == 0 && fs->iter == 0 && q->start < x->issue)
            x->issue = q->start;
        if ((from0 || to0) && q->finish > x->done)
            x->done = q->finish;
    }
    /* rank 0's timeline */
    simtime_t t = j->start, comp_total = 0;
    struct pend {
        simtime_t done;
        uint32_t layer;
    } *pend = calloc(nl ? nl : 1, sizeof *pend);
    if (!pend) {
        rc = errf(e, "out of memory");
        goto out;
    }
    uint32_t npend = 0;
    for (uint32_t it = 0; it < j->iterations; it++) {
        const struct simai_rec *rec = &j->rec[(size_t)it * nl];
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t step = 0; step < nl; step++) {
                uint32_t L = pass == 0 ? step : nl - 1 - step;
                int phs[2] = {pass == 0 ? SIMAI_FWD : SIMAI_IG, SIMAI_WG};
                for (int pi = 0; pi < (pass == 0 ? 1 : 2); pi++) {
                    int ph = phs[pi];
                    const struct simai_comm *c = &w->layers[L].c[ph];
                    double *a = &acc[(size_t)L * 9];
                    if (ph == SIMAI_FWD && wgdone[L] > t) { /* the previous iteration's wg collective */
                        a[3 + SIMAI_WG] += us(wgdone[L] - t);
                        t = wgdone[L];
                    }
                    if (ph == SIMAI_FWD)
                        wgdone[L] = 0;
                    simtime_t cp = (simtime_t)c->compute * T_NS;
                    t += cp;
                    comp_total += cp;
                    a[ph] += us(cp);
                    uint16_t job = rec[L].job[ph];
                    if (!job || job < j->job_lo || job + rec[L].njobs[ph] - 1 > j->job_hi)
                        continue;
                    struct jt xx = {T_NEVER, -1}, *x = &xx;
                    for (uint16_t q = 0; q < rec[L].njobs[ph]; q++) /* its channels */
                        if (jt[job + q - j->job_lo].done > x->done)
                            *x = jt[job + q - j->job_lo];
                    if (x->done < 0)
                        continue;
                    simtime_t total = x->done - t;
                    tot[(size_t)L * 3 + ph] += total;
                    a[6 + ph] += us(total);
                    if (ph == SIMAI_WG) {
                        wgdone[L] = x->done;
                        pend[npend++] = (struct pend){x->done, L};
                    } else {
                        a[3 + ph] += us(total);
                        t = x->done;
                    }
                }
            }
        /* pending wg collectives of this iteration: the next one waits for them at its forward, the last
         * iteration at the end, in the order they finish */
        if (it + 1 < j->iterations) {
            npend = 0;
            continue;
        }
        for (uint32_t a = 1; a < npend; a++)
            for (uint32_t b = a; b > 0 && pend[b - 1].done > pend[b].done; b--) {
                struct pend tmp = pend[b];
                pend[b] = pend[b - 1];
                pend[b - 1] = tmp;
            }
        for (uint32_t k = 0; k < npend; k++)
            if (pend[k].done > t) {
                acc[(size_t)pend[k].layer * 9 + 3 + SIMAI_WG] += us(pend[k].done - t);
                t = pend[k].done;
            }
    }
    free(pend);
    if (!(f = fopen(path, "w"))) {
        rc = errf(e, "%s: cannot create", path);
        goto out;
    }
    /* SimAI reports when its GPU 0 has finished (Workload::check_for_sim_end on generator 0, at
     * Sys::boostedTick()), not when the last GPU has: rank 0's timeline end. Unfinished: the last flow. */
    if (complete)
        end = t;
    double total_comp = us(comp_total), total_exposed = us(end - j->start) - total_comp;
    double dp = 0, dpep = 0, tpx = 0, epx = 0, bubble = 0, sum[9] = {0};
    for (uint32_t L = 0; L < nl; L++) {
        const struct simai_layer *ly = &w->layers[L];
        const double *a = &acc[(size_t)L * 9];
        for (int k = 0; k < 9; k++)
            sum[k] += a[k];
        *(ly->c[SIMAI_WG].group == SIMAI_G_DP_EP ? &dpep : &dp) += a[3 + SIMAI_WG];
        *(ly->c[SIMAI_FWD].group == SIMAI_G_EP ? &epx : &tpx) += a[3 + SIMAI_FWD] + a[3 + SIMAI_IG];
        if (strcmp(ly->name, "embedding_layer") != 0)
            bubble += a[3 + SIMAI_FWD] + a[SIMAI_FWD] + a[SIMAI_WG] + a[SIMAI_IG] + a[3 + SIMAI_IG];
    }
    bubble *= (double)(w->pp - 1) / ((double)w->ga * w->vpp);
    double total = total_comp + total_exposed + bubble;
    fputs("File name, Expose DP comm, Expose DP_EP comm, Expose TP comm, Expose_EP_comm, Expose_PP_comm, bubble time, "
          "total comp, total exposed comm, Total time\n", f);
    fprintf(f, "%s", j->name);
    pct(f, dp, total), pct(f, dpep, total), pct(f, tpx, total), pct(f, epx, total), pct(f, 0, total);
    pct(f, bubble, total), pct(f, total_comp, total), pct(f, total_exposed, total);
    fprintf(f, ", %.0f\n", total);
    fprintf(f, "layer_name,%s,fwd compute,wg compute,ig compute,fwd exposed comm,wg exposed comm,ig exposed comm,fwd total "
               "comm,algbw,busbw,wg total comm,algbw,busbw,ig total comm,algbw,busbw,workload finished at\n", j->name);
    for (uint32_t L = 0; L < nl; L++) {
        const struct simai_layer *ly = &w->layers[L];
        const double *a = &acc[(size_t)L * 9];
        fprintf(f, "%s,%s,%f,%f,%f,%f,%f,%f", ly->name, j->name, a[SIMAI_FWD], a[SIMAI_WG], a[SIMAI_IG], a[3 + SIMAI_FWD],
                a[3 + SIMAI_WG], a[3 + SIMAI_IG]);
        static const int order[3] = {SIMAI_FWD, SIMAI_WG, SIMAI_IG};
        for (int k = 0; k < 3; k++) {
            int ph = order[k];
            fprintf(f, ",%f", a[6 + ph]);
            bw(f, &ly->c[ph], j->rec[L].gsize[ph], tot[(size_t)L * 3 + ph] / (simtime_t)j->iterations, ph);
        }
        fprintf(f, ",%f\n", us(end));
    }
    fprintf(f, "SUM,%s,%f,%f,%f,%f,%f,%f,%f,NONE,NONE,%f,NONE,NONE,%f,NONE,NONE\n", j->name, sum[SIMAI_FWD], sum[SIMAI_WG],
            sum[SIMAI_IG], sum[3 + SIMAI_FWD], sum[3 + SIMAI_WG], sum[3 + SIMAI_IG], sum[6 + SIMAI_FWD], sum[6 + SIMAI_WG],
            sum[6 + SIMAI_IG]);
    fprintf(f, "total exposed comm,%f,total comp,%f,total time,%f%s\n", total_exposed, total_comp,
            total_comp + total_exposed, complete ? "" : ",unfinished");
    if (fclose(f) != 0)
        rc = errf(e, "%s: write error", path);
    f = NULL;
out:
    if (f)
        fclose(f);
    free(jt), free(acc), free(tot), free(wgdone);
    return rc;
}

int simai_write_csv(const struct scenario *sc, const char *dir, struct err *e)
{
    for (size_t k = 0; k < sc->flows.n_simai; k++) {
        const struct simai_sched *j = &sc->flows.simai[k];
        char path[1200];
        if (strcmp(j->name, "traffic") == 0 || k == 0)
            snprintf(path, sizeof path, "%s/ncclFlowModel_EndToEnd.csv", dir);
        else
            snprintf(path, sizeof path, "%s/ncclFlowModel_EndToEnd_%s.csv", dir, j->name + (strncmp(j->name, "traffic.", 8) ? 0 : 8));
        if (write_job(sc, j, path, e) < 0)
            return -1;
    }
    return 0;
}

void simai_write_json(FILE *f, const struct scenario *sc)
{
    if (!sc->flows.n_simai)
        return;
    fputs("  \"simai_jobs\": [", f);
    for (size_t k = 0; k < sc->flows.n_simai; k++) {
        const struct simai_sched *j = &sc->flows.simai[k];
        simtime_t end = j->start;
        bool done = true;
        for (uint32_t i = 0; i < sc->sim.n_flows; i++) {
            const struct flow_spec *fs = &sc->flows.v[i];
            if (fs->job < j->job_lo || fs->job > j->job_hi)
                continue;
            if (sc->sim.flows[i].state != FLOW_DONE)
                done = false;
            else if (sc->sim.flows[i].finish > end)
                end = sc->sim.flows[i].finish;
        }
        fprintf(f, "%s{\"name\": \"%s\", \"workload\": ", k ? ", " : "", j->name);
        json_string(f, j->w.fname);
        fprintf(f, ", \"gpus\": %u, \"tp\": %u, \"ep\": %u, \"pp\": %u, \"layers\": %u, \"iterations\": %u, "
                   "\"finished\": %s, \"time_us\": %.3f, \"iteration_us\": %.3f}",
                j->w.all_gpus, j->w.tp, j->w.ep, j->w.pp, j->w.n_layers, j->iterations, done ? "true" : "false",
                us(end - j->start), us(end - j->start) / j->iterations);
    }
    fputs("],\n", f);
}
