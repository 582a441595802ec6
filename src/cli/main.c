/* rocesim: the command line. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/config_load.h"
#include "core/units.h"
#include "net/cc.h"
#include "net/lb.h"
#include "scenario/scenario.h"
#include "stats/output.h"
#include "stats/report.h"

static const char usage[] =
    "usage: rocesim run   [SCENARIO] [--set section.key=value]... [--out DIR] [--quiet]\n"
    "       rocesim flows [SCENARIO] [--set section.key=value]...\n"
    "       rocesim list\n"
    "       rocesim report DIR [DIR2 ...]\n"
    "\n"
    "SCENARIO is an INI file or an ns-3 HPCC config.txt; without one, the built-in\n"
    "default runs (leaf-spine 8x16 hosts, 8 spines, 100 Gbps, WebSearch at 50%% load,\n"
    "DCQCN, ECMP). `rocesim list` prints every key with its default. `rocesim report`\n"
    "prints FCT/slowdown statistics and PFC totals of run folders, one column per run.\n";

struct args {
    const char *cmd, *scenario, *out;
    const char *sets[256];
    int nsets;
    bool quiet;
};

static int parse_args(int argc, char **argv, struct args *a)
{
    memset(a, 0, sizeof *a);
    if (argc < 2)
        return -1;
    a->cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "--set") == 0 || strcmp(s, "-s") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "rocesim: --set needs section.key=value\n");
                return -2;
            }
            if (a->nsets == 256) {
                fprintf(stderr, "rocesim: too many --set options\n");
                return -2;
            }
            a->sets[a->nsets++] = argv[i];
        } else if (strncmp(s, "--set=", 6) == 0 && a->nsets < 256) {
            a->sets[a->nsets++] = s + 6;
        } else if (strcmp(s, "--out") == 0 || strcmp(s, "-o") == 0) {
            if (++i >= argc) {
                fprintf(stderr, "rocesim: --out needs a folder\n");
                return -2;
            }
            a->out = argv[i];
        } else if (strcmp(s, "--quiet") == 0 || strcmp(s, "-q") == 0) {
            a->quiet = true;
        } else if (s[0] == '-' && s[1]) {
            fprintf(stderr, "rocesim: unknown option %s\n", s);
            return -2;
        } else if (!a->scenario) {
            a->scenario = s;
        } else {
            fprintf(stderr, "rocesim: more than one scenario file (%s, %s)\n", a->scenario, s);
            return -2;
        }
    }
    return 0;
}

static int fail(const struct err *e)
{
    fprintf(stderr, "%s\n", e->msg);
    return EXIT_BADINPUT;
}

/* An error about an [output] key found once the network exists: "output.KEY: ..."
 * gets the place the key was set in front, like every other input error. */
static void locate_output_error(const struct config *c, struct err *e)
{
    size_t n = strspn(e->msg, "abcdefghijklmnopqrstuvwxyz_.");
    char key[80];
    if (strncmp(e->msg, "output.", 7) != 0 || e->msg[n] != ':' || n >= sizeof key)
        return;
    snprintf(key, sizeof key, "%.*s", (int)n, e->msg);
    const char *w = config_origin(c, key);
    char msg[sizeof e->msg];
    snprintf(msg, sizeof msg, "%.300s: %.700s", w ? w : c->source, e->msg);
    memcpy(e->msg, msg, sizeof msg);
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

static void release(struct config *c, struct scenario *sc, struct output *o)
{
    if (o)
        output_close(o);
    if (sc)
        scenario_free(sc);
    config_load_free(c);
    config_free(c);
}

static int cmd_flows(const struct args *a)
{
    struct config c;
    struct err e;
    struct scenario sc;
    memset(&sc, 0, sizeof sc);
    int rc = 0;
    if (load_config(&c, a, &e) < 0 || scenario_load(&sc, &c, &e) < 0)
        rc = fail(&e);
    else
        flowfile_write(stdout, &sc.flows);
    release(&c, &sc, NULL);
    return rc;
}

static int cmd_run(const struct args *a)
{
    struct config c;
    struct err e;
    struct scenario sc;
    struct output o;
    memset(&sc, 0, sizeof sc);
    memset(&o, 0, sizeof o);
    if (load_config(&c, a, &e) < 0 || scenario_load(&sc, &c, &e) < 0 || scenario_build(&sc, &e) < 0 ||
        output_open(&o, &sc, a->out, !a->quiet && isatty(STDERR_FILENO), &e) < 0) {
        locate_output_error(&c, &e);
        release(&c, &sc, &o);
        return fail(&e);
    }
    sim_start(&sc.sim);
    sim_run(&sc.sim);
    if (output_finish(&o, &e) < 0) {
        release(&c, &sc, &o);
        return fail(&e);
    }
    const struct sim_counters *k = &sc.sim.c;
    if (!a->quiet)
        printf("%s: %llu/%u flows done, %llu dropped, %llu PFC pauses, sim %.3f ms, %llu events in %.2f s "
               "(%.2fM events/s) -> %s/\n",
               c.run.name, (unsigned long long)k->flows_completed, sc.sim.n_flows,
               (unsigned long long)k->packets_dropped, (unsigned long long)k->pfc_pause_frames,
               (double)sc.sim.now / T_MS, (unsigned long long)k->events, o.wall,
               o.wall > 0 ? (double)k->events / o.wall / 1e6 : 0.0, o.dir);
    int rc = 0;
    if (sc.sim.dl.n) { /* stopped on a PFC deadlock: say where, exit 3 */
        output_deadlock_text(stderr, &sc.sim);
        rc = EXIT_DEADLOCK;
    }
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

static int cmd_list(void)
{
    printf("rocesim scenario keys (INI [section] key = value, or --set section.key=value)\n");
    for (const struct cfg_section *s = cfg_sections; s->name; s++) {
        printf("\n[%s]\n", s->name);
        param_print(stdout, s->params, s->name);
    }
    printf("\n[traffic.NAME]  (repeatable) one more generator with every key of [traffic] and the same defaults;\n"
           "    each has its own random stream; all flows, with [flow.NAME]s, are sorted stably by start time\n");
    printf("\n[flow.NAME]  (repeatable) one explicit flow, named in the outputs\n");
    param_print(stdout, cfg_flow_params, "flow.NAME");
    printf("\ntopologies (topology.type)\n"
           "    leafspine   leaves x hosts_per_leaf hosts, every leaf linked to every spine\n"
           "    fattree     k-ary three-tier fat-tree: k^3/4 hosts, k^2/4 core switches\n"
           "    dumbbell    senders on one switch, receivers on another, one link between (PCN Fig. 1)\n"
           "    file        an ns-3 HPCC topology file (topology.file)\n");
    printf("\ncongestion control (transport.cc; parameters in [cc.NAME])\n");
    for (int i = 0; cc_registry[i]; i++) {
        char sec[80];
        printf("  %-10s %s\n", cc_registry[i]->name, cc_registry[i]->help);
        snprintf(sec, sizeof sec, "cc.%s", cc_registry[i]->name);
        param_print(stdout, cc_registry[i]->params, sec);
    }
    printf("\nload balancing (lb.scheme; parameters in [lb.NAME])\n");
    for (int i = 0; lb_registry[i]; i++) {
        char sec[80];
        printf("  %-10s %s\n", lb_registry[i]->name, lb_registry[i]->help);
        snprintf(sec, sizeof sec, "lb.%s", lb_registry[i]->name);
        param_print(stdout, lb_registry[i]->params, sec);
    }
    list_workloads();
    return 0;
}

static int cmd_report(int argc, char **argv)
{
    if (argc < 3 || argv[2][0] == '-') {
        fprintf(stderr, "usage: rocesim report DIR [DIR2 ...]\n");
        return EXIT_BADINPUT;
    }
    struct err e;
    if (report_print(stdout, (const char *const *)argv + 2, argc - 2, &e) < 0)
        return fail(&e);
    return 0;
}

int main(int argc, char **argv)
{
    struct args a;
    if (argc >= 2 && strcmp(argv[1], "report") == 0)
        return cmd_report(argc, argv);
    int rc = parse_args(argc, argv, &a);
    if (rc == -2)
        return EXIT_BADINPUT;
    if (rc < 0 || strcmp(a.cmd, "help") == 0 || strcmp(a.cmd, "--help") == 0 || strcmp(a.cmd, "-h") == 0) {
        fputs(usage, rc < 0 ? stderr : stdout);
        return rc < 0 ? EXIT_BADINPUT : 0;
    }
    if (strcmp(a.cmd, "run") == 0)
        return cmd_run(&a);
    if (strcmp(a.cmd, "flows") == 0)
        return cmd_flows(&a);
    if (strcmp(a.cmd, "list") == 0)
        return cmd_list();
    fprintf(stderr, "rocesim: unknown command '%s'\n%s", a.cmd, usage);
    return EXIT_BADINPUT;
}
