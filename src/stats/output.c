/* A run's outputs: fct.csv, pfc.csv, summary.json, and in ns-3 mode the
 * ns-3 HPCC fct.txt / pfc.txt formats; plus the progress line on stderr. */
#include "stats/output.h"
#include "core/proc.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "stats/collective.h"
#include "stats/simai.h"
#include "stats/monitor.h"
#include "stats/partrep.h"
#include "core/units.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


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

/* Closes f, naming the file and the system's reason if any write to it
 * failed (a full disk shows here: stdio keeps the unwritten bytes and the
 * flush fails again with ENOSPC). */
int output_fclose(FILE *f, const char *path, struct err *e)
{
    int why = 0;
    if (fflush(f) != 0)
        why = errno;
    else if (ferror(f))
        why = EIO;
    if (fclose(f) != 0 && !why)
        why = errno;
    if (why)
        return errf(e, "%s: cannot write: %s", path, strerror(why));
    return 0;
}

/* Files of this run go into o->tmp (a folder inside o->dir), moved into
 * o->dir only once every one is written whole (commit, below). */
static FILE *open_in(struct output *o, const char *name, struct err *e)
{
    char path[PATH_BUF + 64];
    if (snprintf(path, sizeof path, "%s/%s", o->tmp, name) >= (int)sizeof path) {
        errf(e, "%s: path too long", o->dir);
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (!f)
        errf(e, "%s: cannot write: %s", path, strerror(errno));
    return f;
}

/* An ns-3 output named by the config: in the run's temporary folder when it
 * goes into o->dir, else beside its final path as FINAL.rocesim-tmp-PID;
 * either way renamed into place at the end. */
static FILE *open_path(struct output *o, const char *path, bool in_dir, struct err *e)
{
    if (o->n_ext == OUTPUT_MAX_EXT) {
        errf(e, "internal: too many output files");
        return NULL;
    }
    char *tmp = o->ext_tmp[o->n_ext], *fin = o->ext_final[o->n_ext];
    snprintf(fin, 2 * PATH_BUF, "%.1000s", path);
    if (in_dir)
        snprintf(tmp, 2 * PATH_BUF, "%s/%.200s", o->tmp, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
    else
        snprintf(tmp, 2 * PATH_BUF, "%.1000s.rocesim-tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        errf(e, "%s: cannot write: %s", path, strerror(errno));
    else
        o->n_ext++;
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
    uint32_t node = sim_port_node(s, pid); /* (across MPI ranks, rank 0 writes every rank's) */
    const struct node *nd = &s->nodes[node];
    uint32_t local = pid - nd->port0;
    fprintf(o->pfc_csv, "%lld,%u,%u,%d,%u,%s\n", (long long)(s->now / T_NS), node, local, prio,
            sim_peer_node(s, pid), pause ? "pause" : "resume");
    if (o->ns3_pfc) /* time node nodetype ifIndex type(1 pause, 0 resume) */
        fprintf(o->ns3_pfc, "%lld %u %u %u %u\n", (long long)(s->now / T_NS), node, nd->is_switch ? 1u : 0u,
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

/* run.watchdog: flows are active (started, not finished) but no byte has
 * been delivered for wd_timeout: the run can make no progress (a link that
 * loses everything, a cut-off host, a port paused for good). It stops the
 * run there, as run.stop would, and output_watchdog_text says which flows. */
static simtime_t watchdog(struct output *o, const struct sim *s)
{
    bool active = s->c.flows_completed < s->next_start;
    if (!active || s->c.bytes_delivered != o->wd_bytes) {
        o->wd_bytes = s->c.bytes_delivered;
        o->wd_since = s->now;
    } else if (s->now - o->wd_since >= o->wd_timeout) {
        o->wd_fired = s->now;
        o->sc->sim.p.stop = s->now; /* sim_run ends before the next later event */
        return T_NEVER;
    }
    return s->now + o->wd_iv;
}

static simtime_t on_sample(void *ctx, const struct sim *s)
{
    struct output *o = ctx;
    simtime_t next = o->mon ? monitors_sample(o->mon, s) : T_NEVER;
    if (o->wd_timeout && !o->wd_fired) {
        simtime_t w = watchdog(o, s);
        if (w < next)
            next = w;
    }
    return next;
}

/* Why an active flow makes no progress, as far as the state shows. */
static void stuck_reason(const struct sim *s, const struct qp *q, char *buf, size_t n)
{
    const struct nic *nic = &s->nics[s->host_index[q->src]];
    const struct port *np = &s->ports[nic->port];
    int nr;
    size_t used = 0;
    buf[0] = 0;
#define ADD(...) (used += used < n ? (size_t)snprintf(buf + used, n - used, __VA_ARGS__) : 0)
    if (np->down)
        ADD("the link of its source host %u is down; ", q->src);
    else if (s->nodes[sim_peer_node(s, nic->port)].is_switch &&
             (sim_route(s, sim_peer_node(s, nic->port), (uint32_t)s->host_index[q->dst], &nr), nr == 0))
        ADD("no route from its source's switch to host %u (failed links cut it off); ", q->dst);
    if (port_paused(np, q->pg))
        ADD("its source NIC has been paused by PFC (priority %u) since %.3f us; ", q->pg,
            (double)np->paused_since[q->pg] / T_US);
    bool lossy = false;
    for (uint32_t i = 0; i < s->n_ports && !lossy; i++)
        lossy = s->plink[i].loss > 0;
    if (q->lost && lossy)
        ADD("%u of its packets %s lost on lossy links (topology.loss or the file's error rate); ", q->lost,
            q->lost == 1 ? "was" : "were");
    else if (q->lost)
        ADD("%u of its packets %s lost; ", q->lost, q->lost == 1 ? "was" : "were");
    if (q->timeouts)
        ADD("%u retransmission timeout%s fired", q->timeouts, q->timeouts == 1 ? "" : "s");
    else if (!used)
        ADD("waiting, no loss or timeout seen (a PAUSE upstream, or a timer that never fires)");
#undef ADD
    size_t l = strlen(buf);
    if (l >= 2 && buf[l - 2] == ';')
        buf[l - 2] = 0;
}

void output_watchdog_text(FILE *f, const struct output *o)
{
    const struct sim *s = &o->sc->sim;
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        n += s->flows[i].state == FLOW_ACTIVE;
    fprintf(f, "rocesim: watchdog: no byte delivered from %.3f ms to %.3f ms (run.watchdog = %.3f ms) while %u flow%s "
               "active; the run cannot make progress and stopped there (outputs written; unfinished flows listed in "
               "fct.csv). Stuck flows:\n",
            (double)o->wd_since / T_MS, (double)o->wd_fired / T_MS, (double)o->wd_timeout / T_MS, n, n == 1 ? " was" : "s were");
    char why[400];
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->n_flows && k < 10; i++) {
        const struct qp *q = &s->flows[i];
        if (q->state != FLOW_ACTIVE)
            continue;
        stuck_reason(s, q, why, sizeof why);
        fprintf(f, "  flow %u: host %u -> %u, %llu of %llu bytes acknowledged: %s\n", i, q->src, q->dst,
                (unsigned long long)q->snd_una, (unsigned long long)q->size, why);
        k++;
    }
    if (n > k)
        fprintf(f, "  ... and %u more\n", n - k);
}

/* Every 65536 events. Stops the run on a signal; otherwise a progress line:
 * on a terminal, redrawn every 0.5 s; in a log (stderr not a terminal), one
 * line every 5 s, so a batch job's log shows it is alive. */
static void on_event(void *ctx, const struct sim *s, uint32_t node, uint32_t from, bool pfc)
{
    partrep_event(((struct output *)ctx)->part, s, node, from, pfc);
}

static bool on_progress(void *ctx, const struct sim *s)
{
    struct output *o = ctx;
    if (o->opt.stop && *o->opt.stop) {
        o->interrupted = (int)*o->opt.stop;
        return true;
    }
    if ((o->pfc_csv && ferror(o->pfc_csv)) || (o->ns3_pfc && ferror(o->ns3_pfc)))
        return true; /* a full disk: no use running on; output_finish names the file and the reason */
    if (o->opt.quiet)
        return false;
    double now = proc_wall();
    if (now - o->last_print < (o->opt.tty ? 0.5 : 5.0))
        return false;
    o->last_print = now;
    double el = now - o->t0, evs = el > 0 ? (double)s->c.events / el : 0;
    /* ETA from the simulated-time rate so far, towards run.stop, or without
     * one towards the last flow's start (a lower bound: then the rest
     * drains). Once every flow has started (the drain), from the bytes
     * still to deliver at the delivery rate (per wall second) since then. */
    char eta[48] = "?";
    simtime_t target = s->p.stop;
    const char *bound = "";
    if (!target && s->n_flows > 0) {
        target = s->flows[s->start_order[s->n_flows - 1]].start;
        bound = ">";
    }
    if (s->now > 0 && target > s->now) {
        snprintf(eta, sizeof eta, "%s%.0fs", bound, el * (double)(target - s->now) / (double)s->now);
    } else if (!s->p.stop && s->next_start == s->n_flows) {
        if (o->drain_t0 == 0) { /* the drain starts: measure from here */
            o->drain_t0 = now;
            o->drain_bytes0 = s->c.bytes_delivered;
        }
        double dt = now - o->drain_t0, got = (double)(s->c.bytes_delivered - o->drain_bytes0);
        double left = o->total_bytes > s->c.bytes_delivered ? (double)(o->total_bytes - s->c.bytes_delivered) : 0;
        if (dt > 0 && got > 0)
            snprintf(eta, sizeof eta, "%.0fs (%.1f MB left)", dt * left / got, left / 1e6);
    }
    char stop[32] = "end";
    if (s->p.stop)
        snprintf(stop, sizeof stop, "%.3f ms", (double)s->p.stop / T_MS);
    double rss = (double)proc_peak_rss();
    fprintf(stderr, "%ssim %.3f ms / %s  flows %llu/%u  %.2fM ev/s  RSS %.0f MB  ETA %s%s", o->opt.tty ? "\r" : "rocesim: ",
            (double)s->now / T_MS, stop, (unsigned long long)s->c.flows_completed, s->n_flows, evs / 1e6, rss / 1048576,
            eta, o->opt.tty ? "   " : "\n");
    o->printed = o->opt.tty;
    return false;
}

/* ---------------------------------------------------------------- open */

const char *const output_owned_files[] = {"fct.csv", "pfc.csv", "pfc_ports.csv", "summary.json", "collective.csv", "queue.csv",
                                          "util.csv", "flow_rate.csv", "paused.csv", "imbalance.csv", "partition.csv",
                                          "partition.json", "parallel.json", "ncclFlowModel_EndToEnd.csv", NULL};

#define TMP_PREFIX ".rocesim-run-"

/* Removes a run's temporary folder (flat: files only). */
static void rm_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[PATH_BUF + 300];
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
            unlink(p);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* One run at a time per folder: an exclusive flock on the folder itself
 * (released by the kernel however the run ends, SIGKILL included). The
 * holder's pid is in its temporary folder's name, .rocesim-run-PID. On a
 * file system without locks the run goes on unlocked. With the lock held,
 * temporary folders left by killed runs are removed. */
static int lock_dir(struct output *o, struct err *e)
{
    int fd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errf(e, "%s: cannot open: %s", o->dir, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK) {
        char who[64] = "";
        DIR *d = opendir(o->dir);
        struct dirent *de;
        while (d && (de = readdir(d)))
            if (strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0)
                snprintf(who, sizeof who, " (pid %.20s)", de->d_name + strlen(TMP_PREFIX));
        if (d)
            closedir(d);
        close(fd);
        return errf(e, "%s: another rocesim run%s is writing into this folder; wait for it to end or choose another "
                       "--out (its results would mix with this run's)", o->dir, who);
    }
    o->lock_fd = fd + 1;
    DIR *d = opendir(o->dir);
    struct dirent *de;
    char p[PATH_BUF + 300];
    while (d && (de = readdir(d)))
        if (strncmp(de->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0) {
            snprintf(p, sizeof p, "%s/%s", o->dir, de->d_name);
            rm_tmp(p);
        }
    if (d)
        closedir(d);
    return 0;
}

/* The run's files replace the earlier run's: summary.json (what marks a
 * folder complete) goes first, then every file this run did not write
 * under a name the runs own, then the new files move in, summary.json last.
 * Each step is a rename within one file system; a run killed here leaves
 * a folder without summary.json, which sweeps and report treat as
 * incomplete. */
static int commit(struct output *o, struct err *e)
{
    char from[PATH_BUF + 300], to[PATH_BUF + 300];
    snprintf(to, sizeof to, "%s/summary.json", o->dir);
    if (unlink(to) < 0 && errno != ENOENT)
        return errf(e, "%s: cannot replace: %s", to, strerror(errno));
    for (int i = 0; output_owned_files[i]; i++) {
        snprintf(from, sizeof from, "%s/%s", o->tmp, output_owned_files[i]);
        snprintf(to, sizeof to, "%s/%s", o->dir, output_owned_files[i]);
        if (access(from, F_OK) != 0 && unlink(to) < 0 && errno != ENOENT)
            return errf(e, "%s: cannot remove the earlier run's file: %s", to, strerror(errno));
    }
    for (int i = 0; i < o->n_ext; i++)
        if (rename(o->ext_tmp[i], o->ext_final[i]) < 0)
            return errf(e, "%s: cannot move into place: %s", o->ext_final[i], strerror(errno));
    DIR *d = opendir(o->tmp);
    if (!d)
        return errf(e, "%s: cannot read: %s", o->tmp, strerror(errno));
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, "summary.json"))
            continue;
        snprintf(from, sizeof from, "%s/%s", o->tmp, de->d_name);
        snprintf(to, sizeof to, "%s/%s", o->dir, de->d_name);
        if (rename(from, to) < 0)
            rc = errf(e, "%s: cannot move into place: %s", to, strerror(errno));
    }
    closedir(d);
    snprintf(from, sizeof from, "%s/summary.json", o->tmp);
    snprintf(to, sizeof to, "%s/summary.json", o->dir);
    if (rc == 0 && rename(from, to) < 0)
        rc = errf(e, "%s: cannot move into place: %s", to, strerror(errno));
    if (rc == 0)
        rmdir(o->tmp);
    return rc;
}

/* A write error names the file by its final path, not the temporary one. */
static void name_final(const struct output *o, struct err *e)
{
    size_t n = strlen(o->tmp);
    if (strncmp(e->msg, o->tmp, n) != 0)
        return;
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%.300s%.300s (the run's files were not written; %.300s/ keeps the earlier results)", o->dir,
             e->msg + n, o->dir);
    memcpy(e->msg, msg, sizeof msg);
}

static void watchdog_open(struct output *o, simtime_t *first);
static int follower_open(struct output *o);

int output_open(struct output *o, struct scenario *sc, const struct output_opts *opt, struct err *e)
{
    memset(o, 0, sizeof *o);
    o->sc = sc;
    o->opt = *opt;
    if (opt->follower)
        return follower_open(o);
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
    if (snprintf(o->tmp, sizeof o->tmp, "%s/" TMP_PREFIX "%ld", o->dir, (long)getpid()) >= (int)sizeof o->tmp)
        return errf(e, "%s: path too long", o->dir);
    int lk = mkdir_p(o->dir, e);
    if (lk == 0 && (lk = lock_dir(o, e)) == 0 && mkdir(o->tmp, 0777) < 0)
        lk = errf(e, "%s: cannot create: %s", o->tmp, strerror(errno));
    if (lk < 0) {
        if (out_dir && *out_dir) { /* name the option, like every input error */
            char msg[sizeof e->msg];
            size_t n = strlen(o->dir);
            bool same = strncmp(e->msg, o->dir, n) == 0 && strncmp(e->msg + n, ": ", 2) == 0;
            snprintf(msg, sizeof msg, "--out %.300s: %.700s", out_dir, same ? e->msg + n + 2 : e->msg);
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
        if (!(o->ns3_fct = open_path(o, path, in_dir, e)))
            return -1;
        snprintf(path, sizeof path, in_dir ? "%s/%s" : "%.0s%s", o->dir, in_dir ? base_name(pfc) : pfc);
        if (!(o->ns3_pfc = open_path(o, path, in_dir, e)))
            return -1;
    }
    struct sim_hooks *h = &sc->sim.hooks;
    h->ctx = o;
    h->pfc = on_pfc;
    h->flow_done = o->ns3_fct ? on_flow_done : NULL; /* (a parallel run merges completions in event order for it) */
    h->progress = on_progress; /* also when quiet: it checks for a signal */
    char qlen[2 * PATH_BUF] = "";
    if (cfg->ns3.active && cfg->ns3.qlen_mon_file[0]) { /* QLEN_MON_FILE: placed like FCT_OUTPUT_FILE */
        bool in_dir = (out_dir && *out_dir) || cfg->output.dir[0];
        if (in_dir)
            snprintf(qlen, sizeof qlen, "%s/%s", o->tmp, base_name(cfg->ns3.qlen_mon_file));
        else if (o->n_ext < OUTPUT_MAX_EXT) { /* renamed into place at the end, like fct.txt */
            snprintf(o->ext_final[o->n_ext], 2 * PATH_BUF, "%s", cfg->ns3.qlen_mon_file);
            snprintf(qlen, sizeof qlen, "%.600s.rocesim-tmp-%ld", cfg->ns3.qlen_mon_file, (long)getpid());
            snprintf(o->ext_tmp[o->n_ext++], 2 * PATH_BUF, "%s", qlen);
        }
    }
    simtime_t first = T_NEVER;
    if (monitors_open(&o->mon, sc, o->tmp, qlen, &first, e) < 0 || partrep_open(&o->part, sc, o->tmp, e) < 0)
        return -1;
    h->event = o->part ? on_event : NULL;
    watchdog_open(o, &first);
    h->sample = o->mon || o->wd_timeout ? on_sample : NULL;
    h->sample_reads_fabric = o->mon != NULL;
    if (h->sample)
        sim_monitor_start(&sc->sim, first);
    for (uint32_t i = 0; i < sc->sim.n_flows; i++)
        o->total_bytes += sc->sim.flows[i].size;
    o->t0 = o->last_print = proc_wall();
    o->setup_seconds = opt->setup_t0 > 0 ? o->t0 - opt->setup_t0 : 0;
    o->setup_peak_rss = proc_peak_rss();
    return 0;
}

/* run.watchdog: auto = 100 x the largest RTO, at least twice the longest
 * backed-off one; *first becomes its first check if that is earlier. */
static void watchdog_open(struct output *o, simtime_t *first)
{
    const struct scenario *sc = o->sc;
    const struct config *cfg = sc->cfg;
    if (strcmp(cfg->run.watchdog, "off") != 0) {
        const struct sim_params *sp = &sc->sim.p;
        simtime_t rto = sp->rto;
        if (sp->irn && sp->rto_high > rto)
            rto = sp->rto_high;
        simtime_t backed = sp->rto << (sp->rto_backoff < 20 ? sp->rto_backoff : 20);
        o->wd_timeout = 100 * rto > 2 * backed ? 100 * rto : 2 * backed;
        if (strcmp(cfg->run.watchdog, "auto") != 0 && parse_time(cfg->run.watchdog, &o->wd_timeout))
            o->wd_timeout = 0; /* validated already */
        o->wd_iv = o->wd_timeout / 8 > 0 ? o->wd_timeout / 8 : 1;
        simtime_t start = sc->sim.n_flows ? sc->sim.flows[sc->sim.start_order[0]].start : 0;
        if (o->wd_timeout && start + o->wd_iv < *first)
            *first = start + o->wd_iv;
    }
}

/* Another MPI rank than 0 (output_opts.follower): no folder, no file, no
 * progress line; only what every rank must run alike, at the same events:
 * the watchdog, and the check for a signal. Its sample hook is there even
 * without a watchdog: the samples are rank 0's (monitors too), taken by every
 * rank at rank 0's times (net/shard.c par_sample). */
static int follower_open(struct output *o)
{
    struct sim_hooks *h = &o->sc->sim.hooks;
    o->opt.quiet = true;
    h->ctx = o;
    h->progress = on_progress;
    simtime_t first = T_NEVER;
    watchdog_open(o, &first);
    h->sample = on_sample;
    if (first != T_NEVER)
        sim_monitor_start(&o->sc->sim, first);
    o->t0 = o->last_print = proc_wall();
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

/* `  "key": [v0, v1, ...],` (UINT64_MAX: null, a figure this machine could not give) */
static void json_u64_list(FILE *f, const char *key, const uint64_t *v, size_t n)
{
    fprintf(f, "  \"%s\": [", key);
    for (size_t i = 0; i < n; i++)
        if (v[i] == UINT64_MAX)
            fprintf(f, "%snull", i ? ", " : "");
        else
            fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
    fprintf(f, "],\n");
}

/* run.threads > 1: the engine's own figures (net/shard.c), beside summary.json,
 * which a parallel run writes byte for byte as the serial run does. */
static int write_parallel(struct output *o, struct err *e)
{
    const struct sim *s = &o->sc->sim;
    struct eng_stats st;
    uint32_t P = o->sc->n_parts;
    uint64_t *ev = xcalloc(P ? P : 1, sizeof *ev);
    if (!sim_parallel_stats(s, &st, ev, P)) {
        free(ev);
        return 0;
    }
    FILE *f = open_in(o, "parallel.json", e);
    if (!f) {
        free(ev);
        return -1;
    }
    fprintf(f, "{\n  \"ranks\": %u,\n  \"threads\": %u,\n  \"cpus\": %u,\n  \"threads_sharing_cpus\": %u,\n"
               "  \"partitions\": %u,\n  \"lookahead_ns\": %.3f,\n",
            st.ranks, st.threads, st.cpus, st.sharing, st.partitions, (double)st.lookahead / T_NS);
    if (st.rss) { /* across ranks: each rank's memory, and its partitions */
        json_u64_list(f, "peak_rss_bytes_per_rank", st.rss, st.ranks);
        json_u64_list(f, "rss_bytes_at_end_per_rank", st.rss + st.ranks, st.ranks);
        fprintf(f, "  \"port_array_bytes\": %llu,\n", (unsigned long long)s->n_ports * sizeof *s->ports);
        json_u64_list(f, "port_array_held_bytes_per_rank", st.rss + 2 * st.ranks, st.ranks);
        uint64_t *parts = xcalloc(st.ranks, sizeof *parts);
        for (uint32_t i = 0; i < P; i++)
            parts[eng_rank_of(i, P, (int)st.ranks)]++;
        json_u64_list(f, "partitions_per_rank", parts, st.ranks);
        free(parts);
    }
    fprintf(f, "  \"windows\": %llu,\n  \"messages\": %llu,\n  \"global_events\": %llu,\n", (unsigned long long)st.windows,
            (unsigned long long)st.messages, (unsigned long long)st.global_events);
    fprintf(f, "  \"pool_packets\": %llu,\n", (unsigned long long)sim_parallel_pool_packets(s));
    fprintf(f, "  \"loop_wall_seconds\": %.6f,\n  \"busy_seconds\": [", st.loop);
    for (uint32_t t = 0; t < st.threads; t++)
        fprintf(f, "%s%.6f", t ? ", " : "", st.busy[t]);
    fprintf(f, "],\n  \"waiting_seconds\": [");
    for (uint32_t t = 0; t < st.threads; t++)
        fprintf(f, "%s%.6f", t ? ", " : "", st.loop > st.busy[t] ? st.loop - st.busy[t] : 0);
    fprintf(f, "],\n  \"events_per_partition\": [");
    for (uint32_t i = 0; i < P; i++)
        fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)ev[i]);
    fprintf(f, "]\n}\n");
    free(ev);
    char path[PATH_BUF + 64];
    snprintf(path, sizeof path, "%s/parallel.json", o->tmp);
    return output_fclose(f, path, e);
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
    char path[PATH_BUF + 64];
    snprintf(path, sizeof path, "%s/fct.csv", o->tmp);
    return output_fclose(f, path, e);
}

size_t output_lossless_drops_text(const struct sim *s, char *buf, size_t n)
{
    const uint64_t *k = s->c.drops_lossless_cause;
    size_t used = 0;
    buf[0] = 0;
    if (!s->c.drops_lossless)
        return 0;
#define ADD(...) (used += used < n ? (size_t)snprintf(buf + used, n - used, __VA_ARGS__) : 0)
    bool ack_nic = s->p.ack_high_prio && !s->p.ack_high_prio_switch;
    uint64_t host = k[LDROP_DATA_PAUSED_HOST], by_acks = k[LDROP_ACK_PAUSED] + (ack_nic ? host : 0);
    ADD("%llu packets dropped in lossless mode, each at a switch ingress whose PFC headroom was full. ",
        (unsigned long long)s->c.drops_lossless);
    if (by_acks)
        ADD("%llu (%llu ACK/NACKs, %llu data packets from hosts): ACKs sent under a PAUSE. With "
            "transport.ack_high_prio = nic (what ns-3's ACK_HIGH_PRIO 1 does) a NIC sends ACKs/NACKs while its data "
            "class is PAUSEd, but switches queue them with the data, in the paused ingress class, so they fill its "
            "headroom until it overflows (ns-3 drops the same way: \"Headroom full\"). transport.ack_high_prio = on "
            "(ACKs in the strict-priority queue at switches too) avoids it. ",
            (unsigned long long)by_acks, (unsigned long long)k[LDROP_ACK_PAUSED], (unsigned long long)(ack_nic ? host : 0));
    uint64_t late = k[LDROP_DATA_PAUSED_SW] + (ack_nic ? 0 : host);
    if (late)
        ADD("%llu: data arrived after a PAUSE beyond the headroom, which is smaller than what can still arrive "
            "after a PAUSE; switch.headroom = 0 (auto) sizes it for that. ", (unsigned long long)late);
    if (k[LDROP_NOT_PAUSED])
        ADD("%llu: no PAUSE was outstanding on that class (the shared buffer and its headroom were exhausted); a "
            "larger switch.buffer avoids it. ", (unsigned long long)k[LDROP_NOT_PAUSED]);
#undef ADD
    if (used && used < n && buf[used - 1] == ' ')
        buf[--used] = 0;
    return used;
}

void output_deadlock_text(FILE *f, const struct sim *s)
{
    const struct deadlock *d = &s->dl;
    fprintf(f, "rocesim: PFC deadlock at %.3f us: a cycle of %u switch egress queues, each paused by its peer and "
               "holding packets that wait behind the next, none sent for run.deadlock_timeout = %.3f us:\n",
            (double)d->found_at / T_US, d->n, (double)d->timeout / T_US);
    for (uint32_t i = 0; i < d->n; i++) {
        const struct deadlock_hop *h = &d->hop[i];
        uint32_t node = sim_port_node(s, h->port);
        fprintf(f, "  switch %u port %u (to node %u) priority %u paused since %.3f us, waits for\n", node,
                h->port - s->nodes[node].port0, sim_peer_node(s, h->port), h->prio, (double)h->since / T_US);
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
        uint32_t node = sim_port_node(s, h->port);
        fprintf(f, "%s\n    {\"switch\": %u, \"port\": %u, \"peer\": %u, \"priority\": %u, \"paused_since_ns\": %lld}",
                i ? "," : "", node, h->port - s->nodes[node].port0, sim_peer_node(s, h->port), h->prio,
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
    double wall = proc_wall() - o->t0;
    if (o->opt.follower) /* rank 0 writes every rank's results */
        return 0;
    if (o->printed)
        fputc('\n', stderr);
    if (write_fct(o, e) < 0 || collective_write_csv(o->sc, o->tmp, e) < 0 || simai_write_csv(o->sc, o->tmp, e) < 0 || monitors_finish(o->mon, s, e) < 0 || pfc_ports_write(s, o->tmp, e) < 0 ||
        partrep_finish(o->part, o->tmp, e) < 0 || write_parallel(o, e) < 0)
        return name_final(o, e), -1;
    char path[PATH_BUF + 64];
    snprintf(path, sizeof path, "%s/pfc.csv", o->tmp);
    int bad = output_fclose(o->pfc_csv, path, e);
    o->pfc_csv = NULL;
    if (o->ns3_fct) {
        bad |= output_fclose(o->ns3_fct, o->ext_final[0], bad ? &(struct err){{0}} : e);
        bad |= output_fclose(o->ns3_pfc, o->ext_final[1], bad ? &(struct err){{0}} : e);
        o->ns3_fct = o->ns3_pfc = NULL;
    }
    if (bad)
        return name_final(o, e), -1;

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
    fprintf(f, "  \"drops_in_lossless_mode_by_cause\": {\"ack_after_pause\": %llu, \"data_after_pause_from_host\": %llu, "
               "\"data_after_pause_from_switch\": %llu, \"no_pause_outstanding\": %llu},\n",
            (unsigned long long)c->drops_lossless_cause[LDROP_ACK_PAUSED],
            (unsigned long long)c->drops_lossless_cause[LDROP_DATA_PAUSED_HOST],
            (unsigned long long)c->drops_lossless_cause[LDROP_DATA_PAUSED_SW],
            (unsigned long long)c->drops_lossless_cause[LDROP_NOT_PAUSED]);
    {
        char why[2048];
        fprintf(f, "  \"lossless_drops_explained\": ");
        if (output_lossless_drops_text(s, why, sizeof why))
            json_string(f, why);
        else
            fputs("null", f);
        fputs(",\n", f);
    }
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
    if (o->wd_fired) {
        fprintf(f, "  \"watchdog\": {\"stopped_ns\": %lld, \"no_delivery_since_ns\": %lld, \"timeout_ns\": %lld, \"stuck\": [",
                (long long)(o->wd_fired / T_NS), (long long)(o->wd_since / T_NS), (long long)(o->wd_timeout / T_NS));
        char why[400];
        uint32_t k = 0;
        for (uint32_t i = 0; i < s->n_flows; i++)
            if (s->flows[i].state == FLOW_ACTIVE) {
                stuck_reason(s, &s->flows[i], why, sizeof why);
                fprintf(f, "%s\n    {\"flow\": %u, \"src\": %u, \"dst\": %u, \"acked_bytes\": %llu, \"reason\": ", k++ ? "," : "",
                        i, s->flows[i].src, s->flows[i].dst, (unsigned long long)s->flows[i].snd_una);
                json_string(f, why);
                fputc('}', f);
            }
        fprintf(f, "\n  ]},\n");
    } else {
        fprintf(f, "  \"watchdog\": null,\n");
    }
    collective_write_json(f, o->sc); /* only with collective jobs */
    simai_write_json(f, o->sc);      /* only with SimAI jobs */
    fprintf(f, "  \"sim_time_ns\": %lld,\n", (long long)(s->now / T_NS));
    fprintf(f, "  \"max_rtt_ns\": %lld,\n  \"max_bdp_bytes\": %llu,\n", (long long)(o->sc->max_rtt / T_NS),
            (unsigned long long)o->sc->max_bdp);
    fprintf(f, "  \"events\": %llu,\n  \"packet_hops\": %llu,\n", (unsigned long long)c->events,
            (unsigned long long)c->packet_hops);
    fprintf(f, "  \"packets_left_in_network\": %llu,\n  \"peak_packets_in_flight\": %llu,\n",
            (unsigned long long)sim_packets_in_network(s), (unsigned long long)s->pool.peak);
    /* set-up (building the fabric, before simulated time 0): its wall time, peak memory, and the estimate
     * scenario_memory_check made before it (one line: it describes the machine, not the network) */
    fprintf(f, "  \"setup\": {\"seconds\": %.3f, \"peak_rss_bytes\": %llu, \"memory_estimate_bytes\": %llu},\n",
            o->setup_seconds, (unsigned long long)o->setup_peak_rss, (unsigned long long)o->sc->mem_estimate);
    fprintf(f, "  \"wall_seconds\": %.3f,\n", wall);
    {
        fprintf(f, "  \"peak_rss_bytes\": %llu,\n", (unsigned long long)proc_peak_rss()); /* of the whole run */
    }
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
    snprintf(path, sizeof path, "%s/summary.json", o->tmp);
    if (output_fclose(f, path, e) < 0)
        return name_final(o, e), -1;
    if (commit(o, e) < 0)
        return -1;
    o->committed = true;
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
    partrep_free(o->part);
    o->part = NULL;
    if (!o->committed && o->tmp[0]) { /* an error: the earlier run's files stay, this run's go */
        rm_tmp(o->tmp);
        for (int i = 0; i < o->n_ext; i++)
            unlink(o->ext_tmp[i]);
    }
    o->tmp[0] = 0;
    if (o->lock_fd)
        close(o->lock_fd - 1);
    o->lock_fd = 0;
}
