/* `rocesim reproduce --page [--out FILE] [--results DIR]`: the one page of
 * verdicts (docs/reproductions.md), generated so that it cannot drift from
 * the experiments and their runs.
 *
 * Per shipped experiment (experiments/NAME.exp, in name order): the paper
 * and what its [verdict] section says (the paper's setup and claim, the
 * verdict, and for every verdict but "reproduces" the measurement that
 * explains it: human judgement, kept in the .exp file beside the setup it
 * judges), the commands, and our numbers beside the paper's: the table that
 * `rocesim reproduce NAME [--quick] --no-run` makes from the runs in
 * DIR/NAME[-quick]/runs/ (rewriting that folder's table.md). The numbers
 * come from the full form when every one of its runs is there and current,
 * else from the quick form; the page says which, how many of the sweep's
 * runs it found, how many seeds each point has, which rocesim built them,
 * and marks runs whose configuration is not what the sweep file gives now
 * (stale: the sweep changed since they ran) and runs that are missing.
 * Nothing on the page depends on the binary that writes it or on the clock,
 * so the same files and runs give the same bytes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/exp.h"
#include "exp/verdict.h"
#include "scenario/load.h"
#include "scenario/sweepspec.h"

#define MAXEXP 256

struct form {
    const char *label; /* "full" or "quick" */
    char dir[1200];    /* DIR/NAME[-quick] */
    bool defined;      /* the .exp names a sweep file for it */
    bool found;        /* DIR/.../runs exists */
    int points, present, stale, interrupted, seeds;
    char versions[160]; /* rocesim_version of the present runs, comma-separated */
};

static void add_version(struct form *fm, const char *dir)
{
    char p[2100], v[64];
    snprintf(p, sizeof p, "%s/summary.json", dir);
    char *t = exp_slurp(p, NULL);
    const char *q = t ? strstr(t, "\"rocesim_version\": \"") : NULL;
    if (q) {
        q += strlen("\"rocesim_version\": \"");
        snprintf(v, sizeof v, "%.*s", (int)strcspn(q, "\""), q);
        size_t l = strlen(v);
        bool seen = false;
        for (const char *s = fm->versions; (s = strstr(s, v)); s += l)
            seen |= (s == fm->versions || s[-1] == ' ') && (s[l] == ',' || !s[l]);
        if (!seen && strlen(fm->versions) + l + 3 < sizeof fm->versions)
            snprintf(fm->versions + strlen(fm->versions), sizeof fm->versions - strlen(fm->versions), "%s%s",
                     *fm->versions ? ", " : "", v);
    }
    free(t);
}

/* Counts the sweep's points, the runs present (fct.csv and a whole
 * summary.json), those interrupted, and those whose scenario.ini differs
 * from the text the sweep file resolves to now (as `rocesim sweep` writes it). */
static int form_scan(struct form *fm, const char *swpath)
{
    struct err e;
    char name[PARAM_STR_MAX];
    struct sweep_spec s;
    if (sweep_file_load(&s, swpath, name, sizeof name, &e) < 0) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    fm->points = (int)s.npoints;
    fm->seeds = 1;
    for (int k = 0; k < s.nk; k++)
        if (strcmp(s.k[k].key, "run.seed") == 0)
            fm->seeds = s.k[k].n;
    char runs[1300];
    snprintf(runs, sizeof runs, "%s/runs", fm->dir);
    fm->found = access(runs, R_OK) == 0;
    /* the sweep file's own relative paths, absolute as the sweep writes them */
    struct exp_paths ap = {0};
    if (fm->found)
        exp_paths_of(swpath, &ap);
    for (size_t i = 0; fm->found && i < s.npoints; i++) {
        int ch[SWEEP_MAX_KEYS];
        char pn[512], d[1900], p[2000];
        sweep_point(&s, i, ch);
        sweep_point_name(&s, ch, pn, sizeof pn);
        snprintf(d, sizeof d, "%s/%s", runs, pn);
        snprintf(p, sizeof p, "%s/fct.csv", d);
        bool fct = access(p, R_OK) == 0;
        snprintf(p, sizeof p, "%s/summary.json", d);
        char *sum = exp_slurp(p, NULL);
        size_t l = sum ? strlen(sum) : 0;
        while (l && (sum[l - 1] == '\n' || sum[l - 1] == ' '))
            l--;
        if (fct && l && sum[l - 1] == '}') {
            fm->present++;
            fm->interrupted += strstr(sum, "\"interrupted\": true") != NULL;
            add_version(fm, d);
            /* stale: its configuration is not what the sweep file gives now
             * (as `rocesim sweep` judges it; a comment does not count, and the
             * binary's version is listed, not judged) */
            char *want = exp_point_text(swpath, &s, ch, &ap, name);
            snprintf(p, sizeof p, "%s/scenario.ini", d);
            struct config pc;
            struct err pe;
            char why[600] = "";
            int was = warn_mute(1);
            bool loaded = config_init(&pc) == 0;
            pc.sweep_point = true;
            loaded = loaded && config_load_ini(&pc, want, p, &pe) == 0 && config_validate(&pc, &pe) == 0;
            warn_mute(was);
            if (loaded) {
                exp_run_stale(d, &pc, false, why, sizeof why);
            } else { /* a file it names is not found from here: the scenario's text must be the same */
                char *have = exp_slurp(p, NULL);
                if (!have || strcmp(have, want) != 0)
                    snprintf(why, sizeof why, "scenario.ini differs");
                free(have);
            }
            config_load_free(&pc);
            config_free(&pc);
            fm->stale += why[0] != 0;
            free(want);
        }
        free(sum);
    }
    exp_paths_free(&ap);
    sweep_spec_free(&s);
    return 0;
}

static bool form_complete(const struct form *fm)
{
    return fm->found && fm->present == fm->points && !fm->stale && !fm->interrupted;
}

/* "quick form, 8 of 8 runs, rocesim 5937afd", with what is missing or stale. */
static void form_describe(FILE *f, const struct form *fm)
{
    if (!fm->defined) {
        fprintf(f, "%s form: none", fm->label);
        return;
    }
    if (!fm->found) {
        fprintf(f, "%s form: **not run** (no %s/runs/)", fm->label, fm->dir);
        return;
    }
    fprintf(f, "%s form: %d of %d runs", fm->label, fm->present, fm->points);
    if (fm->present < fm->points)
        fprintf(f, " (**%d missing**)", fm->points - fm->present);
    if (fm->stale)
        fprintf(f, " (**%d stale**: their configuration is not what the sweep file gives now)", fm->stale);
    if (fm->interrupted)
        fprintf(f, " (**%d interrupted**)", fm->interrupted);
    fprintf(f, ", %d seed%s per point", fm->seeds, fm->seeds == 1 ? "" : "s");
    if (*fm->versions)
        fprintf(f, ", rocesim %s", fm->versions);
}

/* The short status for the summary table. */
static void form_short(FILE *f, const struct form *fm)
{
    if (!fm->found) {
        fputs("**missing**", f);
        return;
    }
    fprintf(f, "%s, %d/%d runs", fm->label, fm->present, fm->points);
    if (fm->stale)
        fprintf(f, ", **%d stale**", fm->stale);
    if (fm->interrupted)
        fprintf(f, ", **%d interrupted**", fm->interrupted);
}

/* The experiment's table as `reproduce NAME --no-run` writes it from the
 * runs (its stdout silenced), without table.md's title lines. */
static int embed_table(FILE *f, const char *name, const struct form *fm)
{
    char *av[8];
    int ac = 0;
    av[ac++] = "rocesim";
    av[ac++] = "reproduce";
    av[ac++] = (char *)name;
    if (strcmp(fm->label, "quick") == 0)
        av[ac++] = "--quick";
    av[ac++] = "--out";
    av[ac++] = (char *)fm->dir;
    av[ac++] = "--no-run";
    av[ac] = NULL;
    fflush(stdout);
    int keep = dup(STDOUT_FILENO), nul = open("/dev/null", O_WRONLY);
    if (keep < 0 || nul < 0)
        return -1;
    dup2(nul, STDOUT_FILENO);
    close(nul);
    int rc = exp_reproduce(ac, av);
    fflush(stdout);
    dup2(keep, STDOUT_FILENO);
    close(keep);
    if (rc != 0)
        return -1;
    char p[1300];
    snprintf(p, sizeof p, "%s/table.md", fm->dir);
    char *t = exp_slurp(p, NULL);
    if (!t)
        return -1;
    const char *q = t;
    while (*q && *q != '|') { /* skip "# title", the paper line and blank lines */
        const char *nl = strchr(q, '\n');
        q = nl ? nl + 1 : q + strlen(q);
    }
    fprintf(f, "\n%s", q);
    free(t);
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* --previous FILE (a page this command wrote before): for an experiment
 * with no runs of either form under DIR, what that page said of its numbers,
 * marked as carried over, so that a page regenerated where only some
 * experiments were rerun keeps the others' numbers and says whose they are.
 * Its section: from its anchor to the next; NULL if it has none. */
static const char *prev_section(const char *page, const char *name, size_t *len)
{
    char a[300];
    snprintf(a, sizeof a, "<a id=\"%s\"></a>", name);
    const char *p = page ? strstr(page, a) : NULL;
    if (!p)
        return NULL;
    const char *e = strstr(p + strlen(a), "\n<a id=\"");
    *len = e ? (size_t)(e - p) + 1 : strlen(p);
    return p;
}

/* How a carried-over row's "numbers from" cell and section say so. */
#define PREV_ROW "previous page: "
#define PREV_RUNS "carried over from the previous page, which had "

/* Where NAME's section of the previous page has its numbers ("Our numbers
 * (FORM) beside the paper's:" and the table; up to *end), or NULL. */
static const char *prev_numbers(const char *page, const char *name, const char **end)
{
    size_t sl = 0;
    const char *ps = prev_section(page, name, &sl), *nums = ps ? strstr(ps, "\nOur numbers (") : NULL;
    if (!nums || nums >= ps + sl)
        return NULL;
    *end = ps + sl;
    return nums;
}

/* The previous page's summary row of NAME, if its section has numbers: its
 * last two cells (numbers from, seeds) into from and seeds; else false. */
static bool prev_row(const char *page, const char *name, char *from, size_t nf, char *seeds, size_t ns)
{
    const char *end;
    if (!prev_numbers(page, name, &end))
        return false;
    char a[300];
    snprintf(a, sizeof a, "\n| [%s](#%s) |", name, name);
    const char *p = page ? strstr(page, a) : NULL;
    if (!p)
        return false;
    p++;
    const char *e = strchr(p, '\n');
    size_t l = e ? (size_t)(e - p) : strlen(p);
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line ? l : sizeof line - 1), p);
    char *c[3] = {NULL, NULL, NULL}; /* the starts of the last three " | " separators */
    for (char *q = line; (q = strstr(q, " | ")); q++)
        c[0] = c[1], c[1] = c[2], c[2] = q;
    size_t ll = strlen(line);
    if (!c[1] || ll < 2 || line[ll - 1] != '|')
        return false;
    line[ll - 2] = 0; /* drop the closing " |" */
    snprintf(seeds, ns, "%s", c[2] + 3);
    *c[2] = 0;
    /* a row that page carried over itself: its origin, not "previous page: previous page: ..." */
    const char *o = c[1] + 3;
    if (strncmp(o, PREV_ROW, strlen(PREV_ROW)) == 0)
        o += strlen(PREV_ROW);
    snprintf(from, nf, "%s", o);
    return true;
}

static const char page_usage[] = "usage: rocesim reproduce --page [--out FILE] [--results DIR] [--previous PAGE]\n";

int exp_page(int argc, char **argv)
{
    const char *out = NULL, *res = "results/reproduce", *prevpath = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--page") == 0)
            continue;
        if ((strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc)
            res = argv[++i];
        else if (strcmp(argv[i], "--previous") == 0 && i + 1 < argc)
            prevpath = argv[++i];
        else
            return fprintf(stderr, "rocesim reproduce --page: unexpected %s\n%s", argv[i], page_usage), EXIT_BADINPUT;
    }
    char *prev = prevpath ? exp_slurp(prevpath, NULL) : NULL; /* read before --out may overwrite it */
    if (prevpath && !prev)
        return fprintf(stderr, "%s: cannot read the previous page: %s\n", prevpath, strerror(errno)), EXIT_BADINPUT;
    const char *edir = exp_experiments_dir();
    DIR *dd = opendir(edir);
    if (!dd)
        return free(prev), fprintf(stderr, "%s: cannot open the experiments folder: %s\n", edir, strerror(errno)), EXIT_BADINPUT;
    char *names[MAXEXP];
    int n = 0;
    for (struct dirent *de; (de = readdir(dd)) && n < MAXEXP;) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".exp") == 0)
            names[n++] = strndup(de->d_name, l - 4);
    }
    closedir(dd);
    qsort(names, (size_t)n, sizeof *names, cmp_str);

    /* Read and check every experiment's [verdict] before writing anything. */
    struct exp_def **defs = xcalloc((size_t)n + 1, sizeof *defs);
    struct form(*forms)[2] = xcalloc((size_t)n + 1, sizeof *forms);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s.exp", edir, names[i]);
        if (!(defs[i] = exp_def_open(p))) {
            rc = EXIT_BADINPUT;
            break;
        }
        rc = exp_verdict_check(defs[i], p);
        for (int q = 0; q < 2 && !rc; q++) {
            struct form *fm = &forms[i][q];
            fm->label = q ? "quick" : "full";
            snprintf(fm->dir, sizeof fm->dir, "%s/%s%s", res, names[i], q ? "-quick" : "");
            const char *sw = exp_def_get(defs[i], "experiment", q ? "quick" : "sweep");
            fm->defined = sw != NULL;
            char swp[1400];
            snprintf(swp, sizeof swp, "%s/%s", edir, sw ? sw : "");
            if (sw && form_scan(fm, swp) < 0)
                rc = EXIT_BADINPUT;
        }
    }
    FILE *f = stdout;
    if (!rc && out && !(f = fopen(out, "w"))) {
        fprintf(stderr, "%s: cannot write: %s\n", out, strerror(errno));
        rc = 1;
    }
    if (!rc) {
        fprintf(f, "# Seed reproductions: one page of verdicts\n\n"
                   "Generated by `rocesim reproduce --page --out docs/reproductions.md` from `experiments/*.exp` (each "
                   "paper's setup, numbers and our verdict, in the file's `[verdict]` section) and the runs of "
                   "`rocesim reproduce NAME [--quick]` in `results/reproduce/` (our numbers). Do not edit it: "
                   "change the experiment file or rerun, then regenerate.\n\n"
                   "Our numbers come from the full form when all its runs are present and current, else from the "
                   "quick form (shorter windows, fewer seeds: read them as indications). *stale* marks runs whose "
                   "`scenario.ini` is no longer what the sweep file gives (rerun: `rocesim reproduce` resumes, so "
                   "delete the folder first); *missing* marks experiments or runs not run. Verdicts: **reproduces** "
                   "(the paper's claim holds in our numbers), **same direction, smaller**, **does not**, **not "
                   "judged**; every verdict but the first names the measurement that explains it. The verdict was "
                   "judged on the form its row names; numbers shown may be newer. The cause column classes every "
                   "row that does not reproduce: *genuine* (a faithful scheme on the paper's setup cannot meet the "
                   "claim, shown by a measurement or the paper's own model), *setup not reproducible here* (e.g. "
                   "more runs than this machine affords), *open* (a difference of setup or of reading not yet "
                   "removed). A row says **does not** only when its cause is genuine.\n\n");
        fprintf(f, "| experiment | paper's claim | verdict | cause | numbers from | seeds |\n|---|---|---|---|---|---:|\n");
        for (int i = 0; i < n; i++) {
            struct form *fm = form_complete(&forms[i][0]) || !forms[i][1].found ? &forms[i][0] : &forms[i][1];
            char pfrom[400], pseeds[40];
            exp_verdict_cells(f, names[i], defs[i]);
            fputc(' ', f);
            if (!forms[i][0].found && !forms[i][1].found && prev_row(prev, names[i], pfrom, sizeof pfrom, pseeds, sizeof pseeds)) {
                fprintf(f, PREV_ROW "%s | %s |\n", pfrom, pseeds);
                continue;
            }
            form_short(f, fm);
            fprintf(f, " | %d |\n", fm->found ? fm->seeds : 0);
        }
        for (int i = 0; i < n; i++) {
            const struct exp_def *x = defs[i];
            const char *title = exp_def_get(x, "experiment", "title"), *paper = exp_def_get(x, "experiment", "paper");
            const char *setup = exp_def_get(x, "verdict", "setup"), *claim = exp_def_get(x, "verdict", "claim");
            const char *v = exp_def_get(x, "verdict", "verdict"), *why = exp_def_get(x, "verdict", "why");
            const char *cause = exp_def_get(x, "verdict", "cause");
            const char *judged = exp_def_get(x, "verdict", "judged"), *skipped = exp_def_get(x, "verdict", "skipped");
            struct form *full = &forms[i][0], *quick = &forms[i][1];
            struct form *fm = form_complete(full) || !quick->found ? full : quick;
            fprintf(f, "\n<a id=\"%s\"></a>\n## %s\n\n", names[i], title ? title : names[i]);
            if (paper)
                fprintf(f, "- **Paper:** %s\n", paper);
            if (setup)
                fprintf(f, "- **Setup:** %s\n", setup);
            if (claim)
                fprintf(f, "- **Claim:** %s\n", claim);
            fprintf(f, "- **Commands:** ");
            if (full->defined)
                fprintf(f, "`rocesim reproduce %s`%s", names[i], quick->defined ? ", " : "");
            if (quick->defined)
                fprintf(f, "`rocesim reproduce %s --quick`", names[i]);
            fprintf(f, "\n- **Runs:** ");
            form_describe(f, full);
            fprintf(f, "; ");
            form_describe(f, quick);
            fprintf(f, ".\n");
            if (skipped)
                fprintf(f, "- **Not run:** %s\n", skipped);
            if (v)
                fprintf(f, "- **Verdict: %s**%s%s%s\n", v, judged ? " (judged on: " : "", judged ? judged : "",
                        judged ? ")" : "");
            else
                fprintf(f, "- **Verdict:** none yet (the experiment file has no [verdict] section)\n");
            if (cause)
                fprintf(f, "- **Cause:** %s\n", cause);
            if (why)
                fprintf(f, "- **Why:** %s\n", why);
            if (fm->found && fm->present) {
                fprintf(f, "\nOur numbers (%s form) beside the paper's:\n", fm->label);
                if (embed_table(f, names[i], fm) < 0)
                    fprintf(f, "\n(the table could not be made from %s/runs/)\n", fm->dir);
            } else {
                size_t sl = 0;
                const char *ps = prev_section(prev, names[i], &sl), *end = NULL;
                const char *nums = prev_numbers(prev, names[i], &end), *runs = ps ? strstr(ps, "- **Runs:** ") : NULL;
                /* numbers that page carried over itself: the runs they came from, not its own (none) */
                const char *again = ps ? strstr(ps, PREV_RUNS) : NULL;
                if (again && nums && again < nums)
                    runs = again + strlen(PREV_RUNS);
                else if (runs)
                    runs += strlen("- **Runs:** ");
                if (nums && runs && runs < nums) {
                    fprintf(f, "\nNo runs of either form in %s/: the numbers below are " PREV_RUNS "%.*s\n%.*s", res,
                            (int)strcspn(runs, "\n"), runs, (int)(end - nums), nums);
                } else {
                    fprintf(f, "\nNo numbers: no runs of either form in %s/.\n", res);
                }
            }
        }
        if (f != stdout && fclose(f) != 0) {
            fprintf(stderr, "%s: cannot write: %s\n", out, strerror(errno));
            rc = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        exp_def_close(defs[i]);
        free(names[i]);
    }
    free(defs);
    free(forms);
    free(prev);
    return rc;
}
