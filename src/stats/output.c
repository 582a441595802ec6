/* A run's outputs: fct.csv, pfc.csv, summary.json, and in ns-3 mode the
 * ns-3 HPCC fct.txt / pfc.txt formats; plus the progress line on stderr. */
#include "stats/output.h"
#include "stats/collective.h"
#include "stats/monitor.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int mkdir_p(const char *path, struct err *e)
{
    char buf[PATH_BUF];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return errf(e, "%s: path too long", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) < 0 && errno != EEXIST)
                return errf(e, "%s: cannot create: %s", buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0777) < 0 && errno != EEXIST)
        return errf(e, "%s: cannot create: %s", buf, strerror(errno));
    return 0;
}

static FILE *open_in(struct output *o, const char *name, struct err *e)
{
    char path[PATH_BUF + 64];
    if (snprintf(path, sizeof path, "%s/%s", o->dir, name) >= (int)sizeof path) {
        errf(e, "%s: path too long", o->dir);
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (!f)
        errf(e, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static FILE *open_path(const char *path, struct err *e)
{
    FILE *f = fopen(path, "w");
    if (!f)
        errf(e, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* ---------------------------------------------------------------- hooks */

static void on_pfc(void *ctx, const struct sim *s, uint32_t pid, int prio, bool pause)
{
    struct output *o = ctx;
    const struct port *pt = &s->ports[pid];
    const struct node *nd = &s->nodes[pt->node];
    uint32_t local = pid - nd->port0;
    fprintf(o->pfc_csv, "%lld,%u,%u,%d,%u,%s\n", (long long)(s->now / T_NS), pt->node, local, prio,
            s->ports[pt->peer].node, pause ? "pause" : "resume");
    if (o->ns3_pfc) /* time node nodetype ifIndex type(1 pause, 0 resume) */
        fprintf(o->ns3_pfc, "%lld %u %u %u %u\n", (long long)(s->now / T_NS), pt->node, nd->is_switch ? 1u : 0u,
                local + 1, pause ? 1u : 0u);
}

static void on_flow_done(void *ctx, const struct sim *s, const struct qp *f)
{
    struct output *o = ctx;
    if (o->ns3_fct) /* sip dip sport dport size start_ns fct_ns standalone_fct_ns */
        fprintf(o->ns3_fct, "%08x %08x %u %u %llu %lld %lld %lld\n", s->nodes[f->src].ip, s->nodes[f->dst].ip,
                f->sport, f->dport, (unsigned long long)f->size, (long long)(f->start / T_NS),
                (long long)((f->finish - f->start) / T_NS), (long long)(f->ideal_fct / T_NS));
}

static simtime_t on_sample(void *ctx, const struct sim *s)
{
    return monitors_sample(((struct output *)ctx)->mon, s);
}

/* Every 65536 events. Stops the run on a signal; otherwise a progress line:
 * on a terminal, redrawn every 0.5 s; in a log (stderr not a terminal), one
 * line every 5 s, so a batch job's log shows it is alive. */
static bool on_progress(void *ctx, const struct sim *s)
{
    struct output *o = ctx;
    if (o->opt.stop && *o->opt.stop) {
        o->interrupted = (int)*o->opt.stop;
        return true;
    }
    if (o->opt.quiet)
        return false;
    double now = wall_now();
    if (now - o->last_print < (o->opt.tty ? 0.5 : 5.0))
        return false;
    o->last_print = now;
    double el = now - o->t0, evs = el > 0 ? (double)s->c.events / el : 0;
    /* ETA from the simulated-time rate so far, towards run.stop, or without
     * one towards the last flow's start (a lower bound: then the rest drains). */
    char eta[32] = "?";
    simtime_t target = s->p.stop;
    const char *bound = "";
    if (!target && s->n_flows > 0) {
        target = s->flows[s->start_order[s->n_flows - 1]].start;
        bound = ">";
    }
    if (s->now > 0 && target > s->now)
        snprintf(eta, sizeof eta, "%s%.0fs", bound, el * (double)(target - s->now) / (double)s->now);
    char stop[32] = "end";
    if (s->p.stop)
        snprintf(stop, sizeof stop, "%.3f ms", (double)s->p.stop / T_MS);
    fprintf(stderr, "%ssim %.3f ms / %s  flows %llu/%u  %.2fM ev/s  ETA %s%s", o->opt.tty ? "\r" : "rocesim: ",
            (double)s->now / T_MS, stop, (unsigned long long)s->c.flows_completed, s->n_flows, evs / 1e6, eta,
            o->opt.tty ? "   " : "\n");
    o->printed = o->opt.tty;
    return false;
}

/* ---------------------------------------------------------------- open */

const char *const output_owned_files[] = {"fct.csv", "pfc.csv", "pfc_ports.csv", "summary.json", "collective.csv", "queue.csv",
                                          "util.csv", "flow_rate.csv", "paused.csv", "imbalance.csv", NULL};

static int clear_owned(const char *dir, struct err *e)
{
    char path[PATH_BUF + 32];
    for (int i = 0; output_owned_files[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, output_owned_files[i]);
        if (unlink(path) < 0 && errno != ENOENT)
            return errf(e, "%s: cannot remove the earlier run's file: %s", path, strerror(errno));
    }
    return 0;
}

int output_open(struct output *o, struct scenario *sc, const struct output_opts *opt, struct err *e)
{
    memset(o, 0, sizeof *o);
    o->sc = sc;
    o->opt = *opt;
    const char *out_dir = opt->out_dir;
    const struct config *cfg = sc->cfg;
    if (out_dir && *out_dir)
        snprintf(o->dir, sizeof o->dir, "%s", out_dir);
    else if (cfg->output.dir[0])
        snprintf(o->dir, sizeof o->dir, "%s", cfg->output.dir);
    else if (cfg->ns3.active && cfg->ns3.fct_file[0]) {
        /* native outputs beside the ns-3 ones */
        snprintf(o->dir, sizeof o->dir, "%s", cfg->ns3.fct_file);
        char *slash = strrchr(o->dir, '/');
        if (slash)
            *slash = 0;
        else
            strcpy(o->dir, ".");
    } else
        snprintf(o->dir, sizeof o->dir, "results/%s%s", cfg->run.name[0] ? cfg->run.name : "default",
                 opt->dir_suffix ? opt->dir_suffix : "");
    if (mkdir_p(o->dir, e) < 0 || clear_owned(o->dir, e) < 0) {
        if (out_dir && *out_dir) { /* name the option, like every input error */
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "--out %.300s: %.700s", out_dir, e->msg);
            memcpy(e->msg, msg, sizeof msg);
        }
        return -1;
    }
    if (!(o->pfc_csv = open_in(o, "pfc.csv", e)))
        return -1;
    fputs("time_ns,node,port,priority,sender,event\n", o->pfc_csv);
    if (cfg->ns3.active) {
        char path[PATH_BUF + PARAM_STR_MAX];
        bool in_dir = (out_dir && *out_dir) || cfg->output.dir[0];
        const char *fct = cfg->ns3.fct_file[0] ? cfg->ns3.fct_file : "fct.txt";
        const char *pfc = cfg->ns3.pfc_file[0] ? cfg->ns3.pfc_file : "pfc.txt";
        snprintf(path, sizeof path, in_dir ? "%s/%s" : "%.0s%s", o->dir, in_dir ? base_name(fct) : fct);
        if (!(o->ns3_fct = open_path(path, e)))
            return -1;
        snprintf(path, sizeof path, in_dir ? "%s/%s" : "%.0s%s", o->dir, in_dir ? base_name(pfc) : pfc);
        if (!(o->ns3_pfc = open_path(path, e)))
            return -1;
    }
    struct sim_hooks *h = &sc->sim.hooks;
    h->ctx = o;
    h->pfc = on_pfc;
    h->flow_done = on_flow_done;
    h->progress = on_progress; /* also when quiet: it checks for a signal */
    char qlen[PATH_BUF + PARAM_STR_MAX] = "";
    if (cfg->ns3.active && cfg->ns3.qlen_mon_file[0]) { /* QLEN_MON_FILE: placed like FCT_OUTPUT_FILE */
        bool in_dir = (out_dir && *out_dir) || cfg->output.dir[0];
        snprintf(qlen, sizeof qlen, in_dir ? "%s/%s" : "%.0s%s", o->dir,
                 in_dir ? base_name(cfg->ns3.qlen_mon_file) : cfg->ns3.qlen_mon_file);
    }
    simtime_t first;
    if (monitors_open(&o->mon, sc, o->dir, qlen, &first, e) < 0)
        return -1;
    h->sample = o->mon ? on_sample : NULL;
    if (o->mon)
        sim_monitor_start(&sc->sim, first);
    o->t0 = o->last_print = wall_now();
    return 0;
}

/* ---------------------------------------------------------------- finish */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
double percentile(const double *v, size_t n, double pct)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t)(pct / 100.0 * (double)n + 0.999999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return v[rank - 1];
}

/* The section a flow came from: "traffic", "traffic.NAME" or "flow.NAME". */
static void flow_source(const struct scenario *sc, uint32_t i, char *buf, size_t n)
{
    const struct config *c = sc->cfg;
    const struct flow_spec *fs = i < sc->flows.n ? &sc->flows.v[i] : NULL;
    const char *name = flow_list_name(&sc->flows, i);
    if (fs && fs->source == FLOW_SOURCE_NAMED && name)
        snprintf(buf, n, "flow.%s", name);
    else if (fs && fs->source > 0 && fs->source <= c->n_traffic_x)
        snprintf(buf, n, "traffic.%s", c->traffic_x[fs->source - 1].name);
    else
        snprintf(buf, n, "traffic");
}

static int write_fct(struct output *o, struct err *e)
{
    FILE *f = open_in(o, "fct.csv", e);
    if (!f)
        return -1;
    const struct sim *s = &o->sc->sim;
    char src[64];
    fputs("flow_id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,ever_paused,victim,ooo,ooo_max,flowlets,"
          "path_switches,lost_packets,timeouts,source\n", f);
    for (uint32_t i = 0; i < s->n_flows; i++) {
        const struct qp *q = &s->flows[i];
        flow_source(o->sc, i, src, sizeof src);
        if (q->state == FLOW_DONE) {
            simtime_t fct = q->finish - q->start;
            fprintf(f, "%u,%u,%u,%llu,%lld,%lld,%lld,%lld,%.6f,%d,%d,%u,%u,%u,%u,%u,%u,%s\n", i, q->src, q->dst,
                    (unsigned long long)q->size, (long long)(q->start / T_NS), (long long)(q->finish / T_NS),
                    (long long)(fct / T_NS), (long long)(q->ideal_fct / T_NS), (double)fct / (double)q->ideal_fct,
                    q->ever_paused, q->sw_paused && !q->culprit, q->ooo, q->ooo_max, q->flowlets, q->path_switches, q->lost,
                    q->timeouts, src);
        } else { /* unfinished: listed, with the finish columns empty */
            fprintf(f, "%u,%u,%u,%llu,%lld,,,%lld,,%d,%d,%u,%u,%u,%u,%u,%u,%s\n", i, q->src, q->dst, (unsigned long long)q->size,
                    (long long)(q->start / T_NS), (long long)(q->ideal_fct / T_NS), q->ever_paused,
                    q->sw_paused && !q->culprit, q->ooo, q->ooo_max,
                    q->flowlets, q->path_switches, q->lost, q->timeouts, src);
        }
    }
    if (fclose(f) != 0)
        return errf(e, "%s/fct.csv: write failed", o->dir);
    return 0;
}

void output_deadlock_text(FILE *f, const struct sim *s)
{
    const struct deadlock *d = &s->dl;
    fprintf(f, "rocesim: PFC deadlock at %.3f us: a cycle of %u switch egress queues, each paused by its peer and "
               "holding packets that wait behind the next, none sent for run.deadlock_timeout = %.3f us:\n",
            (double)d->found_at / T_US, d->n, (double)d->timeout / T_US);
    for (uint32_t i = 0; i < d->n; i++) {
        const struct deadlock_hop *h = &d->hop[i];
        const struct port *pt = &s->ports[h->port];
        fprintf(f, "  switch %u port %u (to node %u) priority %u paused since %.3f us, waits for\n", pt->node,
                h->port - s->nodes[pt->node].port0, s->ports[pt->peer].node, h->prio, (double)h->since / T_US);
    }
    if (d->n)
        fprintf(f, "  (the first again)\n");
}

static void write_deadlock_json(FILE *f, const struct sim *s)
{
    const struct deadlock *d = &s->dl;
    if (!d->n) {
        fprintf(f, "  \"deadlock\": null,\n");
        return;
    }
    fprintf(f, "  \"deadlock\": {\"detected_ns\": %lld, \"timeout_ns\": %lld, \"cycle\": [", (long long)(d->found_at / T_NS),
            (long long)(d->timeout / T_NS));
    for (uint32_t i = 0; i < d->n; i++) {
        const struct deadlock_hop *h = &d->hop[i];
        const struct port *pt = &s->ports[h->port];
        fprintf(f, "%s\n    {\"switch\": %u, \"port\": %u, \"peer\": %u, \"priority\": %u, \"paused_since_ns\": %lld}",
                i ? "," : "", pt->node, h->port - s->nodes[pt->node].port0, s->ports[pt->peer].node, h->prio,
                (long long)(h->since / T_NS));
    }
    fprintf(f, "\n  ]},\n");
}

/* A statistic over flows: null when there are none, never a made-up 0. */
static void json_stat(FILE *f, const char *name, double v, bool have, const char *sep)
{
    if (have)
        fprintf(f, "\"%s\": %.4f%s", name, v, sep);
    else
        fprintf(f, "\"%s\": null%s", name, sep);
}


/* Every registered CC scheme's own counters (cc_ops.stat_names), 0 when it
 * did not run; "GROUP/KEY" names of one group make one object on one line. */
static void write_cc_stats(FILE *f, const struct sim *s)
{
    for (int r = 0; cc_registry[r]; r++) {
        const struct cc_ops *o = cc_registry[r];
        for (int i = 0; i < CC_STATS && o->stat_names && o->stat_names[i];) {
            const char *name = o->stat_names[i], *slash = strchr(name, '/');
            if (!slash) {
                fprintf(f, "  \"%s\": %llu,\n", name, (unsigned long long)cc_stat(s, o, i));
                i++;
                continue;
            }
            int glen = (int)(slash - name), j = i;
            fprintf(f, "  \"%.*s\": {", glen, name);
            for (; j < CC_STATS && o->stat_names[j] && strncmp(o->stat_names[j], name, (size_t)glen + 1) == 0; j++)
                fprintf(f, "%s\"%s\": %llu", j > i ? ", " : "", o->stat_names[j] + glen + 1,
                        (unsigned long long)cc_stat(s, o, j));
            fprintf(f, "},\n");
            i = j;
        }
    }
}
int output_finish(struct output *o, struct err *e)
{
    const struct sim *s = &o->sc->sim;
    const struct config *cfg = o->sc->cfg;
    double wall = wall_now() - o->t0;
    if (o->printed)
        fputc('\n', stderr);
    if (write_fct(o, e) < 0 || collective_write_csv(o->sc, o->dir, e) < 0 || monitors_finish(o->mon, s, e) < 0 ||
        pfc_ports_write(s, o->dir, e) < 0)
        return -1;
    fclose(o->pfc_csv);
    o->pfc_csv = NULL;
    if (o->ns3_fct) {
        fclose(o->ns3_fct);
        fclose(o->ns3_pfc);
        o->ns3_fct = o->ns3_pfc = NULL;
    }

    double *sd = malloc((s->n_flows ? s->n_flows : 1) * sizeof *sd);
    if (!sd)
        return errf(e, "out of memory");
    size_t n = 0;
    double sum = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (s->flows[i].state == FLOW_DONE) {
            sd[n] = (double)(s->flows[i].finish - s->flows[i].start) / (double)s->flows[i].ideal_fct;
            sum += sd[n++];
        }
    qsort(sd, n, sizeof *sd, cmp_double);

    FILE *f = open_in(o, "summary.json", e);
    if (!f) {
        free(sd);
        return -1;
    }
    const struct sim_counters *c = &s->c;
    fprintf(f, "{\n");
    fprintf(f, "  \"scenario\": ");
    json_string(f, cfg->run.name[0] ? cfg->run.name : "default");
    fprintf(f, ",\n  \"rocesim_version\": ");
    json_string(f, o->opt.version ? o->opt.version : "unknown");
    fprintf(f, ",\n  \"command_line\": ");
    json_string(f, o->opt.cmdline ? o->opt.cmdline : "");
    fprintf(f, ",\n  \"scenario_file\": ");
    json_string(f, cfg->source);
    /* cut short by a signal: sim_time_ns is how far it got, unfinished flows are those not done by then */
    fprintf(f, ",\n  \"interrupted\": %s,\n", o->interrupted ? "true" : "false");
    if (o->interrupted)
        fprintf(f, "  \"signal\": \"%s\",\n", o->interrupted == SIGINT ? "SIGINT" : o->interrupted == SIGTERM ? "SIGTERM" : "other");
    fprintf(f, "  \"seed\": %lld,\n", (long long)cfg->run.seed);
    fprintf(f, "  \"cc\": \"%s\",\n  \"lb\": \"%s\",\n", s->slot[0].ops->name, s->lb->name);
    fprintf(f, "  \"lossless\": %s,\n", s->p.pfc ? "true" : "false");
    fprintf(f, "  \"hosts\": %u,\n  \"switches\": %u,\n", s->n_hosts, s->n_nodes - s->n_hosts);
    fprintf(f, "  \"flows_total\": %u,\n  \"flows_completed\": %llu,\n  \"flows_unfinished\": %llu,\n", s->n_flows,
            (unsigned long long)c->flows_completed, (unsigned long long)(s->n_flows - c->flows_completed));
    fprintf(f, "  \"bytes_sent\": %llu,\n  \"bytes_delivered\": %llu,\n  \"bytes_retransmitted\": %llu,\n",
            (unsigned long long)c->bytes_sent, (unsigned long long)c->bytes_delivered, (unsigned long long)c->bytes_retx);
    fprintf(f, "  \"packets_dropped\": %llu,\n  \"drops_in_lossless_mode\": %llu,\n  \"timeouts\": %llu,\n",
            (unsigned long long)c->packets_dropped, (unsigned long long)c->drops_lossless, (unsigned long long)c->timeouts);
    fprintf(f, "  \"packets_lost_link\": %llu,\n  \"link_changes\": %llu,\n", (unsigned long long)c->packets_lost_link,
            (unsigned long long)c->link_changes);
    fprintf(f, "  \"packets_corrupted\": %llu,\n", (unsigned long long)c->packets_corrupted);
    fprintf(f, "  \"pfc_pause_frames\": %llu,\n  \"pfc_resume_frames\": %llu,\n", (unsigned long long)c->pfc_pause_frames,
            (unsigned long long)c->pfc_resume_frames);
    /* by the layer of the switch that sent them; per second of simulated time */
    fprintf(f, "  \"pfc_pause_frames_by_layer\": {\"edge\": %llu, \"agg\": %llu, \"core\": %llu, \"host\": %llu},\n",
            (unsigned long long)c->pfc_pause_by_layer[LAYER_EDGE], (unsigned long long)c->pfc_pause_by_layer[LAYER_AGG],
            (unsigned long long)c->pfc_pause_by_layer[LAYER_CORE], (unsigned long long)c->pfc_pause_by_layer[LAYER_HOST]);
    double sim_s = s->now > 0 ? (double)s->now / (double)T_SEC : 0;
    fprintf(f, "  \"pfc_pause_rate_by_layer\": {\"edge\": %.1f, \"agg\": %.1f, \"core\": %.1f, \"host\": %.1f},\n",
            sim_s > 0 ? (double)c->pfc_pause_by_layer[LAYER_EDGE] / sim_s : 0,
            sim_s > 0 ? (double)c->pfc_pause_by_layer[LAYER_AGG] / sim_s : 0,
            sim_s > 0 ? (double)c->pfc_pause_by_layer[LAYER_CORE] / sim_s : 0,
            sim_s > 0 ? (double)c->pfc_pause_by_layer[LAYER_HOST] / sim_s : 0);
    fprintf(f, "  \"ecn_marks\": %llu,\n  \"data_packets\": %llu,\n  \"acks\": %llu,\n  \"nacks\": %llu,\n  \"cnps\": %llu,\n",
            (unsigned long long)c->ecn_marks, (unsigned long long)c->data_packets, (unsigned long long)c->acks,
            (unsigned long long)c->nacks, (unsigned long long)c->cnps);
    write_cc_stats(f, s);
    {
        uint64_t gaps = 0, g1 = 0, g2 = 0, g3 = 0, held = 0;
        simtime_t held_time = 0;
        for (uint32_t i = 0; i < s->n_flows; i++) {
            const struct qp *q = &s->flows[i];
            gaps += q->gaps, g1 += q->gaps_rtt[0], g2 += q->gaps_rtt[1], g3 += q->gaps_rtt[2];
            held += q->held, held_time += q->held_time;
        }
        char sh[3][32];
        uint64_t gk[3] = {g1, g2, g3};
        for (int k = 0; k < 3; k++) /* shares of no gap at all are null, not 0 */
            snprintf(sh[k], sizeof sh[k], gaps ? "%.6f" : "null", gaps ? (double)gk[k] / (double)gaps : 0.0);
        fprintf(f,
                "  \"sender_gaps\": {\"gaps\": %llu, \"share_ge_rtt\": %s, \"share_ge_2rtt\": %s, "
                "\"share_ge_3rtt\": %s, \"packets_held\": %llu, \"hold_time_ns\": %.3f},\n",
                (unsigned long long)gaps, sh[0], sh[1], sh[2], (unsigned long long)held, (double)held_time / T_NS);
        uint64_t ooo = 0, ooo_max = 0, flowlets = 0, switches = 0, reordered_flows = 0;
        for (uint32_t i = 0; i < s->n_flows; i++) {
            const struct qp *q = &s->flows[i];
            ooo += q->ooo;
            flowlets += q->flowlets;
            switches += q->path_switches;
            reordered_flows += q->ooo > 0;
            if (q->ooo_max > ooo_max)
                ooo_max = q->ooo_max;
        }
        fprintf(f,
                "  \"lb_stats\": {\"out_of_order_packets\": %llu, \"max_out_of_order_degree\": %llu, \"flows_reordered\": %llu, "
                "\"flowlets\": %llu, \"path_switches\": %llu, \"reorder_buffer_peak_bytes\": %llu, "
                "\"nacks_from_reordering\": %llu, \"control_packets\": %llu, \"held_packets\": %llu, \"held_peak_packets\": %llu",
                (unsigned long long)ooo, (unsigned long long)ooo_max, (unsigned long long)reordered_flows,
                (unsigned long long)flowlets, (unsigned long long)switches, (unsigned long long)c->reorder_peak_bytes,
                (unsigned long long)(s->p.pfc && !s->p.irn ? c->nacks : 0), (unsigned long long)c->lb_ctrl_packets,
                (unsigned long long)c->lb_held, (unsigned long long)c->lb_held_peak);
        if (s->lb->stat_names) { /* the balancer's own counters (only schemes that have some) */
            fprintf(f, ", \"probes\": %llu, \"scheme\": {", (unsigned long long)c->lb_probes);
            for (int i = 0; i < LB_STATS && s->lb->stat_names[i]; i++)
                fprintf(f, "%s\"%s\": %llu", i ? ", " : "", s->lb->stat_names[i], (unsigned long long)c->lb_stat[i]);
            fprintf(f, "}");
        }
        fprintf(f, "},\n");
    }
    {   /* host-side multipath (MP-RDMA): virtual paths per flow, pruned paths, bitmap overflows */
        uint64_t flows = 0, used = 0, used_max = 0, pruned = 0, pruning = 0;
        for (uint32_t i = 0; i < s->n_flows; i++) {
            const struct qp *q = &s->flows[i];
            flows += q->paths_used > 0;
            used += q->paths_used;
            used_max = q->paths_used > used_max ? q->paths_used : used_max;
            pruned += q->paths_pruned;
            pruning += q->paths_pruned > 0;
        }
        fprintf(f,
                "  \"multipath\": {\"flows\": %llu, \"paths_used_mean\": %.3f, \"paths_used_max\": %llu, "
                "\"paths_pruned\": %llu, \"flows_pruning\": %llu, \"ooo_window_drops\": %llu},\n",
                (unsigned long long)flows, flows ? (double)used / (double)flows : 0.0, (unsigned long long)used_max,
                (unsigned long long)pruned, (unsigned long long)pruning, (unsigned long long)c->ooo_window_drops);
    }
    write_deadlock_json(f, s);
    collective_write_json(f, o->sc); /* only with collective jobs */
    fprintf(f, "  \"sim_time_ns\": %lld,\n", (long long)(s->now / T_NS));
    fprintf(f, "  \"max_rtt_ns\": %lld,\n  \"max_bdp_bytes\": %llu,\n", (long long)(o->sc->max_rtt / T_NS),
            (unsigned long long)o->sc->max_bdp);
    fprintf(f, "  \"events\": %llu,\n  \"packet_hops\": %llu,\n", (unsigned long long)c->events,
            (unsigned long long)c->packet_hops);
    fprintf(f, "  \"packets_left_in_network\": %llu,\n  \"peak_packets_in_flight\": %llu,\n",
            (unsigned long long)sim_packets_in_network(s), (unsigned long long)s->pool.peak);
    fprintf(f, "  \"wall_seconds\": %.3f,\n", wall);
    fprintf(f, "  \"events_per_second\": %.0f,\n  \"packet_hops_per_second\": %.0f,\n",
            wall > 0 ? (double)c->events / wall : 0, wall > 0 ? (double)c->packet_hops / wall : 0);
    fprintf(f, "  \"fct_slowdown\": {");
    json_stat(f, "avg", n ? sum / (double)n : 0, n > 0, ", ");
    json_stat(f, "p50", percentile(sd, n, 50), n > 0, ", ");
    json_stat(f, "p95", percentile(sd, n, 95), n > 0, ", ");
    json_stat(f, "p99", percentile(sd, n, 99), n > 0, ", ");
    json_stat(f, "max", n ? sd[n - 1] : 0, n > 0, "},\n");
    /* the scenario as run: every key after the file and every --set */
    fprintf(f, "  \"config\": ");
    config_write_json(f, cfg, 2);
    fprintf(f, "\n}\n");
    free(sd);
    if (fclose(f) != 0)
        return errf(e, "%s/summary.json: write failed", o->dir);
    o->wall = wall;
    return 0;
}

void output_close(struct output *o)
{
    if (o->pfc_csv)
        fclose(o->pfc_csv);
    if (o->ns3_fct)
        fclose(o->ns3_fct);
    if (o->ns3_pfc)
        fclose(o->ns3_pfc);
    o->pfc_csv = o->ns3_fct = o->ns3_pfc = NULL;
    monitors_free(o->mon);
    o->mon = NULL;
}
