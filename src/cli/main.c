/* rocesim: the command line. Each subcommand is one row of `commands`
 * (name, synopsis, help, handler); `rocesim CMD --help` prints its row. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scenario/load.h"
#include "core/proc.h"
#include "core/setup.h"
#include "core/units.h"
#include "core/xalloc.h"
#include "engine/engine.h"
#include "cli/cli.h"
#include "exp/exp.h"
#include "net/cc.h"
#include "net/lb.h"
#include "rocesim_version.h"
#include "scenario/scenario.h"
#include "stats/output.h"
#include "stats/report.h"

struct args {
    const char *cmd, *scenario, *out;
    const char *sets[256];
    int nsets;
    bool quiet;
};

const char cli_usage_text[] =
    "SCENARIO is an INI file or an ns-3 HPCC config.txt; without one, the built-in\n"
    "default runs (leaf-spine 8x16 hosts, 8 spines, 100 Gbps, WebSearch at 50% load,\n"
    "DCQCN, ECMP). `rocesim CMD --help` explains CMD; `rocesim list` prints every key\n"
    "with its default; `rocesim --version` the version.\n";

static void usage(FILE *f)
{
    fputs("usage:", f);
    for (const struct command *c = cli_commands; c->name; c++)
        fprintf(f, "%s rocesim %s\n", c == cli_commands ? "" : "      ", c->synopsis);
    fprintf(f, "\n%s", cli_usage_text);
}

static bool is_help(const char *s) { return strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0; }

/* `rocesim CMD --help` anywhere among CMD's arguments. */
static bool wants_help(const struct command *c, int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (is_help(argv[i])) {
            printf("usage: rocesim %s\n\n%s", c->synopsis, c->help);
            return true;
        }
    return false;
}

static int parse_args(int argc, char **argv, struct args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--set") == 0 || strcmp(s, "-s") == 0 || strncmp(s, "--set=", 6) == 0) {
            const char *v = s[2] == 's' && s[5] == '=' ? s + 6 : NULL;
            if (!v && ++i >= argc) {
                fprintf(stderr, "rocesim: --set needs section.key=value\n");
                return -1;
            }
            const char *kv = v ? v : argv[i];
            if (!strchr(kv, '=') && i + 1 < argc && argv[i + 1][0] != '-' &&
                strchr(kv, '.')) { /* `--set key value`: the value would be taken for a scenario file */
                fprintf(stderr, "--set %s: expected section.key=value as one argument: write --set %s=%s\n", kv, kv,
                        argv[i + 1]);
                return -1;
            }
            if (a->nsets == 256) {
                fprintf(stderr, "rocesim: --set %s: too many --set options (at most 256)\n", v ? v : argv[i]);
                return -1;
            }
            a->sets[a->nsets++] = v ? v : argv[i];
        } else if (strcmp(s, "--out") == 0 || strcmp(s, "-o") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "rocesim: --out needs a folder\n");
                return -1;
            }
            a->out = argv[i];
        } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
            a->quiet = true;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "rocesim %s: unknown option %s (see rocesim %s --help)\n", a->cmd, s, a->cmd);
            return -1;
        } else if (!a->scenario) {
            a->scenario = s;
        } else {
            fprintf(stderr, "rocesim: more than one scenario file (%s, %s)\n", a->scenario, s);
            return -1;
        }
    }
    return 0;
}

static int fail(const struct err *e)
{
    fprintf(stderr, "%s\n", e->msg);
    return EXIT_BADINPUT;
}

static bool is_section(const char *sec, size_t n)
{
    static const char *const dyn[] = {"cc.", "lb.", "traffic.", "flow."};
    for (const struct cfg_section *cs = cfg_sections; cs->name; cs++)
        if (strlen(cs->name) == n && strncmp(cs->name, sec, n) == 0)
            return true;
    for (int i = 0; i < 4; i++)
        if (n > strlen(dyn[i]) && strncmp(sec, dyn[i], strlen(dyn[i])) == 0)
            return true;
    return false;
}

/* Errors found once the config is loaded (building traffic, the network,
 * the monitors) name a key, "switch.buffer (...) is smaller ...", or
 * "[traffic.bg] traffic.cdf: ...", but not where it was set: put that in
 * front (the key's FILE:LINE or --set option, else the scenario file), like
 * every other input error. Messages that start with a path (a topology,
 * flow or CDF file's FILE:LINE:, an output folder) or an option (--out)
 * are left alone. */
static void locate_error(const struct config *c, struct err *e)
{
    const char *m = e->msg, *sec_end = NULL, *w = NULL;
    char key[160];
    if (m[0] == '[' && (sec_end = strstr(m, "] ")) != NULL) /* "[traffic.NAME] traffic.KEY: ..." */
        m = sec_end + 2;
    size_t n = strspn(m, "abcdefghijklmnopqrstuvwxyz0123456789_.-");
    const char *dot = NULL;
    for (size_t i = 0; n < 64 && (m[n] == ':' || m[n] == ' ') && i < n; i++)
        if (m[i] == '.')
            dot = m + i;
    if (dot && is_section(m, (size_t)(dot - m))) {
        if (sec_end) /* the key of the named section, traffic.NAME.KEY, else the section itself */
            snprintf(key, sizeof key, "%.*s.%.*s", (int)(sec_end - e->msg - 1), e->msg + 1, (int)(m + n - dot - 1), dot + 1);
        else
            snprintf(key, sizeof key, "%.*s", (int)n, m);
        if (!(w = config_origin(c, key)) && sec_end) {
            snprintf(key, sizeof key, "%.*s.*", (int)(sec_end - e->msg - 1), e->msg + 1);
            w = config_origin(c, key);
        }
    } else {
        size_t tok = strcspn(e->msg, ": ");
        if (strncmp(e->msg, "--", 2) == 0 || memchr(e->msg, '/', tok) || memchr(e->msg, '.', tok))
            return;
    }
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%.300s: %.700s", w ? w : c->source, e->msg);
    memcpy(e->msg, msg, sizeof msg);
}

static const char *where_of(const struct config *c, const char *key)
{
    const char *w = config_origin(c, key);
    return w ? w : c->source;
}

static int load_config(struct config *c, const struct args *a, struct err *e)
{
    if (config_init(c) < 0)
        return errf(e, "internal: bad built-in defaults");
    if (a->scenario && config_load_file(c, a->scenario, e) < 0)
        return -1;
    if (!a->scenario)
        strcpy(c->run.name, c->run.name[0] ? c->run.name : "default");
    for (int i = 0; i < a->nsets; i++)
        if (config_apply_set(c, a->sets[i], e) < 0)
            return -1;
    return config_validate(c, e);
}

/* A scenario whose traffic makes no flow has nothing to simulate: say so
 * rather than write an empty run. */
static int check_some_flows(const struct config *c, const struct scenario *sc, struct err *e)
{
    if (sc->flows.n > 0)
        return 0;
    const char *w = config_origin(c, "traffic.pattern");
    for (int i = 0; !w && i < c->n_traffic_x; i++) {
        char k[64];
        snprintf(k, sizeof k, "traffic.%s.*", c->traffic_x[i].name);
        w = config_origin(c, k);
    }
    return errf(e, "%s: the scenario generates no flows, so there is nothing to simulate (traffic.pattern, its load "
                   "and duration, [traffic.NAME] and [flow.NAME] sections make them)",
                w ? w : c->source);
}

/* Flows that could not finish by run.stop even alone at line rate: their
 * results will be "unfinished" whatever the schemes do, so say so up front. */
static void warn_too_late(const struct config *c, const struct sim *s)
{
    if (!c->run.stop)
        return;
    uint32_t n = 0, first = 0;
    for (uint32_t i = 0; i < s->n_flows; i++)
        if (s->flows[i].start + s->flows[i].ideal_fct > c->run.stop && n++ == 0)
            first = i;
    if (!n)
        return;
    char stop[32], sz[32], st[32], need[32];
    const struct qp *q = &s->flows[first];
    fmt_time(stop, sizeof stop, c->run.stop);
    fmt_size(sz, sizeof sz, q->size);
    fmt_time(st, sizeof st, q->start);
    fmt_time(need, sizeof need, q->ideal_fct);
    warnf("%s: run.stop = %s: %u of %u flows cannot finish by then even alone at line rate (first: flow %u, %s "
          "starting at %s, needs %s); they will be listed unfinished",
          where_of(c, "run.stop"), stop, n, s->n_flows, first, sz, st, need);
}

static void release(struct config *c, struct scenario *sc, struct output *o)
{
    if (o)
        output_close(o);
    if (sc)
        scenario_free(sc);
    config_load_free(c);
    config_free(c);
}

static int cmd_flows(int argc, char **argv)
{
    struct args a;
    if (parse_args(argc, argv, &a) < 0)
        return EXIT_BADINPUT;
    struct config c;
    struct err e;
    struct scenario sc;
    memset(&sc, 0, sizeof sc);
    int rc = 0;
    int st = load_config(&c, &a, &e);
    if (st == 0 && scenario_load(&sc, &c, &e) < 0)
        locate_error(&c, &e), st = -1;
    if (st < 0 || check_some_flows(&c, &sc, &e) < 0)
        rc = fail(&e);
    else
        flowfile_write(stdout, &sc.flows);
    release(&c, &sc, NULL);
    return rc;
}

/* Runs that differ only by --set must not overwrite each other in
 * results/NAME/: without --out, the folder is results/NAME+key=value+...,
 * from the overrides that change results (not run.name or output.*),
 * with every byte outside [A-Za-z0-9._=,-] replaced by '_'. Very long
 * suffixes are cut and end in a hash of the whole, so they stay distinct. */
static void dir_suffix(const struct args *a, char *buf, size_t n)
{
    size_t used = 0;
    uint64_t h = 14695981039346656037ULL;
    buf[0] = 0;
    for (int i = 0; i < a->nsets; i++) {
        const char *s = a->sets[i];
        if (strncmp(s, "run.name=", 9) == 0 || strncmp(s, "output.", 7) == 0)
            continue;
        if (used + 1 < n)
            buf[used++] = '+';
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
            h = (h ^ *p) * 1099511628211ULL;
            if (used + 1 < n)
                buf[used++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._=,-", *p) ? (char)*p : '_';
        }
    }
    buf[used] = 0;
    if (used > 120) /* file names are at most 255 bytes */
        snprintf(buf + 103, n - 103, "-%016llx", (unsigned long long)h);
}

static void join_args(int argc, char **argv, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < argc && used + 1 < n; i++) {
        bool plain = argv[i][0] && strspn(argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._=,+-/:@%") ==
                                       strlen(argv[i]);
        int k = snprintf(buf + used, n - used, plain ? "%s%s" : "%s'%s'", i ? " " : "", argv[i]);
        if (k < 0)
            break;
        used += (size_t)k < n - used ? (size_t)k : n - used - 1;
    }
}

/* SIGINT / SIGTERM: only a flag, read by the run's progress check (every
 * 65536 events), which ends the run there so every file is written whole.
 * SA_RESETHAND: a second signal kills at once. */
static volatile sig_atomic_t got_signal;
static void on_signal(int sig) { got_signal = sig; }

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* A run across MPI ranks: whether every rank set up (collective): 0 if all
 * did, SETUP_CUT if a signal stopped the set-up of any, else -1. A rank
 * other than 0 that failed where rank 0 did not says so; otherwise only rank
 * 0 prints (the ranks read the same inputs, so they fail alike). */
#define SETUP_CUT (-2)
static int ranks_agree(const struct eng_comm *comm, int st, const struct err *e)
{
    if (!comm)
        return st;
    int all[comm->size], rc = 0;
    comm->allgather(&st, all, sizeof st);
    if (st == -1 && comm->rank > 0 && all[0] == 0)
        fprintf(stderr, "rocesim (MPI rank %d): %s\n", comm->rank, e->msg);
    for (int r = 0; r < comm->size; r++)
        if (all[r] < 0 && rc != SETUP_CUT)
            rc = all[r];
    return rc;
}

/* Set-up progress (core/setup.h): after a second of set-up, on a terminal a
 * line redrawn every 0.5 s, in a log a line every 5 s. */
struct setup_show {
    double t0;
    bool tty, printed;
};

static void show_setup(void *ctx, const char *step, double share)
{
    struct setup_show *w = ctx;
    w->printed = true;
    fprintf(stderr, "%sset-up: %s %.0f%% done, %.0f s, RSS %.0f MB%s", w->tty ? "\r" : "rocesim: ", step, 100 * share,
            proc_wall() - w->t0, (double)proc_peak_rss() / 1048576, w->tty ? "   " : "\n");
}

/* A signal stopped the set-up (or came before the simulation began): nothing
 * was simulated, nothing is written (the folder keeps any earlier results). */
static int setup_cut(const struct output *o, int sig, double t0)
{
    double share = 0;
    const char *step = setup_last_step(&share);
    char where[96] = "while loading the scenario";
    if (step)
        snprintf(where, sizeof where, "during set-up (%s, %.0f%% done)", step, 100 * share);
    fprintf(stderr, "rocesim: interrupted by %s %s after %.1f s: nothing was simulated and no results were written%s%s%s\n",
            sig == SIGINT ? "SIGINT" : "SIGTERM", where, proc_wall() - t0, o->dir[0] ? " (" : "",
            o->dir[0] ? o->dir : "", o->dir[0] ? "/ keeps its earlier files, if any)" : "");
    return 128 + sig;
}

/* A run's exit code: 128 + the signal that stopped it (as a shell reports a
 * process the signal killed; across ranks, wherever it arrived first), 3 on a
 * PFC deadlock, 4 from the watchdog, else 0. sig: a signal this process got
 * after the run's last check of it (0 to leave it out). */
static int run_exit(const struct output *o, const struct sim *s, int sig)
{
    int stop = o->interrupted ? o->interrupted : sig;
    return stop ? 128 + stop : s->dl.n ? EXIT_DEADLOCK : o->wd_fired ? EXIT_STALLED : 0;
}

static int cmd_run(int argc, char **argv)
{
    struct args a;
    const struct eng_comm *comm = run_comm_mpi(&argc, &argv); /* under mpirun -np R, R > 1: one run across the ranks */
    bool follower = comm && comm->rank > 0;
    if (follower)
        warn_mute(1); /* rank 0 says it */
    if (parse_args(argc, argv, &a) < 0)
        return EXIT_BADINPUT;
    catch_signals();
    struct config c;
    struct err e;
    struct scenario sc;
    struct output o;
    memset(&sc, 0, sizeof sc);
    memset(&o, 0, sizeof o);
    char suffix[160], cmdline[4096];
    dir_suffix(&a, suffix, sizeof suffix);
    join_args(argc, argv, cmdline, sizeof cmdline);
    struct output_opts opt = {
        .out_dir = a.out,
        .dir_suffix = suffix,
        .version = ROCESIM_VERSION,
        .cmdline = cmdline,
        .tty = isatty(STDERR_FILENO),
        .quiet = a.quiet,
        .stop = &got_signal,
        .follower = follower,
    };
    struct setup_show show = {.t0 = opt.setup_t0 = proc_wall(), .tty = opt.tty};
    setup_watch(&(struct setup_watch){.show = a.quiet || follower ? NULL : show_setup, .ctx = &show, .first = 1.0,
                                      .every = opt.tty ? 0.5 : 5.0, .stop = &got_signal});
    int st = load_config(&c, &a, &e); /* its errors say where already */
    if (st == 0 && scenario_load(&sc, &c, &e) < 0)
        st = setup_signal() ? SETUP_CUT : (locate_error(&c, &e), -1);
    if (st == 0 && check_some_flows(&c, &sc, &e) < 0)
        st = -1;
    if (st == 0 && scenario_memory_check(&sc, &e) < 0)
        locate_error(&c, &e), st = -1;
    sc.comm = comm;
    if (st == 0 && (scenario_build(&sc, &e) < 0 || scenario_parallel(&sc, &e) < 0 || output_open(&o, &sc, &opt, &e) < 0))
        st = setup_signal() ? SETUP_CUT : (locate_error(&c, &e), -1);
    setup_watch(NULL);
    if (show.printed && show.tty) /* end the redrawn line */
        fputc('\n', stderr);
    if (show.printed && st == 0)
        fprintf(stderr, "rocesim: set-up done in %.1f s, peak RSS %.0f MB (estimated %.0f MB)\n", proc_wall() - show.t0,
                (double)proc_peak_rss() / 1048576, (double)sc.mem_estimate / 1048576);
    if (st == 0 && got_signal) /* a signal after set-up's last check, before the run: the same */
        st = SETUP_CUT;
    int agreed = ranks_agree(comm, st, &e);
    if (agreed < 0) {
        int rc = agreed == SETUP_CUT ? 128 + (got_signal ? (int)got_signal : SIGTERM) : EXIT_BADINPUT;
        if (agreed == SETUP_CUT && !follower)
            setup_cut(&o, rc - 128, show.t0);
        else if (!follower && st == -1)
            fail(&e);
        release(&c, &sc, &o);
        return rc;
    }
    warn_too_late(&c, &sc.sim);
    sim_start(&sc.sim);
    scenario_run(&sc);
    struct eng_stats ps;
    if (comm && !o.interrupted && sim_parallel_stats(&sc.sim, &ps, NULL, 0) && ps.peer_stop)
        o.interrupted = got_signal ? (int)got_signal : SIGTERM; /* the signal reached another rank first */
    if (output_finish(&o, &e) < 0) { /* a write error: not bad input, exit 1 */
        release(&c, &sc, &o);
        fail(&e);
        return 1;
    }
    const struct sim_counters *k = &sc.sim.c;
    if (follower) { /* rank 0 writes and reports; the same exit code everywhere */
        int rc = run_exit(&o, &sc.sim, 0);
        release(&c, &sc, &o);
        return rc;
    }
    if (o.interrupted)
        fprintf(stderr, "rocesim: interrupted by %s at sim %.3f ms: partial results (\"interrupted\": true) in %s/\n",
                o.interrupted == SIGINT ? "SIGINT" : "SIGTERM", (double)sc.sim.now / T_MS, o.dir);
    else if (!a.quiet)
        printf("%s: %llu/%u flows done, %llu dropped, %llu PFC pauses, sim %.3f ms, %llu events in %.2f s "
               "(%.2fM events/s) -> %s/\n",
               c.run.name, (unsigned long long)k->flows_completed, sc.sim.n_flows,
               (unsigned long long)k->packets_dropped, (unsigned long long)k->pfc_pause_frames,
               (double)sc.sim.now / T_MS, (unsigned long long)k->events, o.wall,
               o.wall > 0 ? (double)k->events / o.wall / 1e6 : 0.0, o.dir);
    char why[2048];
    if (output_lossless_drops_text(&sc.sim, why, sizeof why)) /* "lossless" runs that dropped: say why */
        fprintf(stderr, "rocesim: %s\n", why);
    if (sc.sim.dl.n) /* stopped on a PFC deadlock: say where, exit 3 */
        output_deadlock_text(stderr, &sc.sim);
    else if (o.wd_fired) /* no progress for run.watchdog: which flows, and why, exit 4 */
        output_watchdog_text(stderr, &o);
    int rc = run_exit(&o, &sc.sim, (int)got_signal);
    release(&c, &sc, &o);
    return rc;
}

static void list_workloads(void)
{
    const char *dir = workloads_dir();
    DIR *d = opendir(dir);
    printf("\nworkloads (traffic.cdf = NAME; from %s)\n", dir);
    if (!d) {
        printf("    (folder not found)\n");
        return;
    }
    char *names[256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".cdf") == 0)
            names[n++] = strndup(de->d_name, l - 4);
    }
    closedir(d);
    for (int i = 1; i < n; i++) /* insertion sort: a handful of names */
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char *t = names[j];
            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    for (int i = 0; i < n; i++) {
        struct cdf cdf;
        struct err e;
        if (cdf_load(&cdf, names[i], dir, &e) == 0) {
            printf("    %-24s mean %.0f B (linear sampling), %.0f B (step sampling)\n", names[i], cdf.mean_linear,
                   cdf.mean_step);
            cdf_free(&cdf);
        } else {
            printf("    %-24s (unreadable: %s)\n", names[i], e.msg);
        }
        free(names[i]);
    }
}

static int cmd_list(int argc, char **argv)
{
    (void)argv;
    if (argc > 2) {
        fprintf(stderr, "rocesim list: takes no arguments (see rocesim list --help)\n");
        return EXIT_BADINPUT;
    }
    printf("rocesim scenario keys (INI [section] key = value, or --set section.key=value)\n");
    for (const struct cfg_section *s = cfg_sections; s->name; s++) {
        printf("\n[%s]\n", s->name);
        param_print(stdout, s->params, s->name);
    }
    printf("\nunits: rates bps, Kbps, Mbps, Gbps, Tbps (or K, M, G, T; Kb/s .. Tb/s), e.g. 100Gbps; sizes B, KB, MB, GB\n"
           "(10^3..; also K, M, G: 32M = 32MB) and KiB, MiB, GiB (2^10..), e.g. 32MiB; times ps, ns, us, ms, s;\n"
           "byte counts (transport.mtu, chunk) a whole number or a size (9000, 9000B); a bare number is refused\n"
           "for a rate, size or time (except 0)\n");
    printf("\n[traffic.NAME]  (repeatable) one more generator with every key of [traffic] and the same defaults;\n"
           "    each has its own random stream; all flows, with [flow.NAME]s, are sorted stably by start time\n");
    printf("\n[flow.NAME]  (repeatable) one explicit flow, named in the outputs\n");
    param_print(stdout, cfg_flow_params, "flow.NAME");
    printf("\ntopologies (topology.type)\n"
           "    leafspine   leaves x hosts_per_leaf hosts, every leaf linked to every spine\n"
           "    fattree     k-ary three-tier fat-tree: k^3/4 hosts, k^2/4 core switches\n"
           "    clos        three tiers: pods x (edges_per_pod x hosts_per_edge hosts, aggs_per_pod), cores;\n"
           "                aggregation j of each pod links to cores j*C/A .. (j+1)*C/A-1\n"
           "    dumbbell    senders on one switch, receivers on another, one link between (PCN Fig. 1)\n"
           "    parkinglot  chain switches s0 - s1 - ..., hosts_per_switch hosts on each (PCN Fig. 19)\n"
           "    rail        rail-optimised GPU fabric: servers x gpus_per_server GPUs (hosts), each with its own NIC;\n"
           "                NIC i of every server on rail i's leaf, leaves to every spine; an NVSwitch per server;\n"
           "                planes = 2: two NIC ports, each on a plane of its own; dual_tor: two ports on a leaf pair;\n"
           "                rail_optimised = off: a server's NICs on one leaf (SimAI's AlibabaHPN, DCN+ templates)\n"
           "    file        an ns-3 HPCC topology file (topology.file)\n"
           "  node names (topology.link_rate, topology.fail): node ids, and for generated topologies hostN,\n"
           "  leafN/spineN (leafspine, rail), edgeP.N/aggP.N/coreN (fattree, clos; P = pod), sN (dumbbell, parkinglot)\n");
    printf("\ncongestion control (transport.cc; parameters in [cc.NAME])\n");
    for (int i = 0; cc_registry[i]; i++) {
        char sec[80];
        if (cc_registry[i]->companion) /* not a transport.cc: runs beside one */
            printf("  %-10s (companion: transport.%s = on, beside transport.cc) %s\n", cc_registry[i]->name,
                   cc_registry[i]->name, cc_registry[i]->help);
        else
            printf("  %-10s %s\n", cc_registry[i]->name, cc_registry[i]->help);
        snprintf(sec, sizeof sec, "cc.%s", cc_registry[i]->name);
        param_print(stdout, cc_registry[i]->params, sec);
        for (const struct cc_profile *pr = cc_registry[i]->profiles; pr && pr->name; pr++) {
            printf("    %s.profile = %s sets:", sec, pr->name);
            if (!pr->set)
                printf(" nothing (the defaults above)");
            for (const char *const *k = pr->set; k && *k; k++)
                printf("%s %s", k == pr->set ? "" : ",", *k);
            printf("\n");
        }
    }
    printf("\nload balancing (lb.scheme; parameters in [lb.NAME])\n");
    for (int i = 0; lb_registry[i]; i++) {
        char sec[80];
        printf("  %-10s %s\n", lb_registry[i]->name, lb_registry[i]->help);
        snprintf(sec, sizeof sec, "lb.%s", lb_registry[i]->name);
        param_print(stdout, lb_registry[i]->params, sec);
    }
    list_workloads();
    exp_print_features(stdout, exp_mpi_built);
    return 0;
}

static int cmd_report(int argc, char **argv)
{
    struct err e;
    if (argc >= 3 && strcmp(argv[2], "--seeds") == 0) {
        int vs = 3;
        while (vs < argc && strcmp(argv[vs], "--vs") != 0)
            vs++;
        if (vs == 3 || vs >= argc - 1) {
            fprintf(stderr, "usage: rocesim report --seeds RUN... --vs RUN...\n");
            return EXIT_BADINPUT;
        }
        if (report_print_seeds(stdout, (const char *const *)argv + 3, vs - 3, (const char *const *)argv + vs + 1,
                               argc - vs - 1, NULL, &e) < 0)
            return fail(&e);
        return 0;
    }
    if (argc < 3 || argv[2][0] == '-') {
        fprintf(stderr, "usage: rocesim report DIR [DIR2 ...] | report --seeds RUN... --vs RUN...\n");
        return EXIT_BADINPUT;
    }
    /* a sweep folder stands for the runs its sweep.csv lists as ok, as in plot and report --html */
    int n = 0, cap = argc;
    char **in = xcalloc((size_t)cap, sizeof *in);
    bool *own = xcalloc((size_t)cap, sizeof *own);
    for (int i = 2; i < argc; i++) {
        char **runs = NULL;
        int k = exp_sweep_runs(argv[i], &runs, "rocesim report");
        if (k < 0) {
            in[n++] = argv[i];
            continue;
        }
        if (k == 0)
            fprintf(stderr, "rocesim report: %s/sweep.csv: no run with status ok\n", argv[i]);
        in = xrealloc(in, (size_t)(cap += k) * sizeof *in);
        own = xrealloc(own, (size_t)cap * sizeof *own);
        for (int j = 0; j < k; j++)
            own[n] = true, in[n++] = runs[j];
        free(runs);
    }
    int rc = n ? report_print(stdout, (const char *const *)in, n, &e) : 0;
    for (int i = 0; i < n; i++)
        if (own[i])
            free(in[i]);
    free(in);
    free(own);
    if (rc < 0)
        return fail(&e);
    return n ? 0 : EXIT_BADINPUT;
}

/* sweep, plot, reproduce (exp_main takes them, and report --html, first) */
static int cmd_exp(int argc, char **argv) { return exp_main(argc, argv, exp_dist_mpi); }

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("rocesim %s (git %s)\n", ROCESIM_VERSION_NUMBER, ROCESIM_VERSION);
    return 0;
}

static int cmd_help(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--man") == 0) { /* the build writes rocesim.1 with it */
        char v[128];
        snprintf(v, sizeof v, "%s (git %s)", ROCESIM_VERSION_NUMBER, ROCESIM_VERSION);
        gendoc_man(stdout, v);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[2], "--completion") == 0) { /* and the bash and zsh completions */
        if (argc != 4 || gendoc_completion(stdout, argv[3]) < 0) {
            fprintf(stderr, "rocesim help --completion: expected bash or zsh\n");
            return EXIT_BADINPUT;
        }
        return 0;
    }
    for (const struct command *c = cli_commands; argc > 2 && c->name; c++)
        if (strcmp(c->name, argv[2]) == 0) {
            printf("usage: rocesim %s\n\n%s", c->synopsis, c->help);
            return 0;
        }
    usage(stdout);
    return 0;
}

const struct command cli_commands[] = {
    {"run", "run   [SCENARIO] [--set section.key=value]... [--out DIR] [--quiet]",
     "Simulates SCENARIO (an INI file or an ns-3 HPCC config.txt; without one, the built-in\n"
     "default) and writes fct.csv, pfc.csv, pfc_ports.csv, summary.json and any monitors to\n"
     "DIR (default: [output] dir, else results/NAME, plus +key=value for each --set).\n"
     "  --set, -s section.key=value   override any key after the file is read\n"
     "  --out, -o DIR                 the output folder (its earlier rocesim files are removed)\n"
     "  --quiet, -q                   no progress line, no result line\n"
     "Values take units: 100Gbps, 32MiB (or 32M = 32MB), 10us; `rocesim list` names them all.\n"
     "Relative paths in an INI file (topology.file, traffic.file, traffic.cdf) are read from the\n"
     "file's folder; given with --set, from the current folder.\n"
     "A big fabric prints set-up progress (routing tables, ports, flows) after a second; before\n"
     "building, its memory is estimated and refused above run.max_memory (default: what the\n"
     "machine has available). A signal during set-up stops it: nothing is written, exit 130/143.\n"
     "On SIGINT/SIGTERM the run stops, writes what it has (summary.json \"interrupted\": true)\n"
     "and exits 130/143. Bad input exits 2 with FILE:LINE: or --set OPTION: and what is wrong.\n",
     cmd_run},
    {"flows", "flows [SCENARIO] [--set section.key=value]...",
     "Prints the flows SCENARIO would simulate, in ns-3 flow-file format, without simulating.\n", cmd_flows},
    {"list", "list",
     "Prints every section and key with its default and help, every topology, congestion\n"
     "control and load balancer with its parameters, and every shipped workload.\n",
     cmd_list},
    {"report", "report DIR [DIR2 ...] | report --html DIR... [--out FILE] [--no-title] | report --seeds RUN... --vs RUN...",
     "Reads finished (or interrupted) run folders (a sweep folder: the runs its sweep.csv lists\n"
     "as ok) and prints FCT/slowdown statistics by flow\n"
     "size, unfinished flows and PFC totals, one column per run; '-' where there is no flow.\n"
     "--seeds: size-decile slowdowns of two groups of runs of the same flows (e.g. ns-3 fct.txt\n"
     "files and rocesim folders, several seeds each) as mean [min, max] per group.\n",
     cmd_report},
    {"sweep", "sweep FILE [--jobs N] [--out DIR] [--shard I/N]",
     "Runs the cross product of FILE's [sweep] section, one child process per run on every core\n"
     "(or shared among mpirun ranks), resumable, and writes sweep.csv (see README).\n",
     cmd_exp},
    {"plot", "plot DIR...|sweep.csv [--out DIR] [--no-title]", "Draws figures of run folders or a sweep.csv with gnuplot (SVG and PNG).\n",
     cmd_exp},
    {"reproduce", "reproduce NAME [--quick] [--out DIR] [--no-run] [--no-title] | --list | --page [--out FILE]",
     "Runs a shipped paper experiment (experiments/) and writes its table and figures beside the paper's numbers.\n",
     cmd_exp},
    {"version", "version | --version",
     "Prints the version number and the git describe of the source the binary was built from.\n", cmd_version},
    {"help", "help [CMD] | --help | help --man | help --completion bash|zsh",
     "Prints this summary, or CMD's help; --man: the man page rocesim(1) in roff; --completion:\n"
     "a bash or zsh completion script (the build generates and `make install` installs both).\n",
     cmd_help},
    {NULL, NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
    exp_version = ROCESIM_VERSION;
    int xrc = exp_main(argc, argv, exp_dist_mpi); /* sweep, plot, reproduce, report --html */
    if (xrc >= 0)
        return xrc;
    if (argc < 2) {
        usage(stderr);
        return EXIT_BADINPUT;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0)
        cmd = "version";
    else if (is_help(cmd))
        cmd = "help";
    for (const struct command *c = cli_commands; c->name; c++)
        if (strcmp(c->name, cmd) == 0)
            return wants_help(c, argc, argv) ? 0 : c->run(argc, argv);
    fprintf(stderr, "rocesim: unknown command '%s'\n", cmd);
    usage(stderr);
    return EXIT_BADINPUT;
}
