/* `rocesim report --html DIR... [--out FILE]`: one self-contained HTML page
 * (no external files) with the figures of `rocesim plot` as base64 PNGs, the
 * tables `rocesim report` prints, a sweep's table, and each run's scenario.
 * A small inline script sets the title to "... N figures loaded" once every
 * image has decoded, so a headless browser can check the page. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/html.h"
#include "exp/plot.h"
#include "exp/sweep.h"
#include "exp/util.h"
#include "stats/report.h"

static void esc(FILE *o, const char *s)
{
    for (; *s; s++)
        switch (*s) {
        case '<': fputs("&lt;", o); break;
        case '>': fputs("&gt;", o); break;
        case '&': fputs("&amp;", o); break;
        case '"': fputs("&quot;", o); break;
        default: fputc(*s, o);
        }
}

static void base64(FILE *o, const unsigned char *p, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        fputc(b64[v >> 18 & 63], o);
        fputc(b64[v >> 12 & 63], o);
        fputc(i + 1 < n ? b64[v >> 6 & 63] : '=', o);
        fputc(i + 2 < n ? b64[v & 63] : '=', o);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files in dir ending with ext, sorted; returns the count. */
static int list_ext(const char *dir, const char *ext, char ***out)
{
    DIR *d = opendir(dir);
    int n = 0;
    char **v = NULL;
    struct dirent *de;
    size_t el = strlen(ext);
    while (d && (de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l > el && strcmp(de->d_name + l - el, ext) == 0) {
            v = xrealloc(v, (size_t)(n + 1) * sizeof *v);
            v[n++] = strdup(de->d_name);
        }
    }
    if (d)
        closedir(d);
    if (n)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char p[2048];
    while (d && (de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* A sweep.csv as an HTML table. */
static void csv_table(FILE *o, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    fprintf(o, "<div class=scroll><table>\n");
    for (int r = 0; getline(&line, &cap, f) >= 0; r++) {
        line[strcspn(line, "\r\n")] = 0;
        fputs("<tr>", o);
        for (char *p = line;;) {
            char *c = strchr(p, ',');
            if (c)
                *c = 0;
            fputs(r ? "<td>" : "<th>", o);
            esc(o, p);
            fputs(r ? "</td>" : "</th>", o);
            if (!c)
                break;
            p = c + 1;
        }
        fputs("</tr>\n", o);
    }
    fprintf(o, "</table></div>\n");
    free(line);
    fclose(f);
}

static void pre_file(FILE *o, const char *title, const char *path)
{
    char *t = exp_slurp(path, NULL);
    if (!t)
        return;
    fprintf(o, "<details><summary>");
    esc(o, title);
    fprintf(o, "</summary><pre>");
    esc(o, t);
    fprintf(o, "</pre></details>\n");
    free(t);
}

static const char html_usage[] =
    "usage: rocesim report --html DIR... [--out FILE] [--no-title] [--label VALUE=LABEL]...\n"
    "One self-contained HTML page (to stdout, or FILE) with the figures of\n"
    "`rocesim plot` (needs gnuplot), the tables of `rocesim report`, a sweep's\n"
    "sweep.csv and each run's scenario. DIR: run folders or sweep folders (a\n"
    "sweep adds its metrics vs the swept value and slowdown by flow size).\n"
    "--no-title: figures without titles. --label: as for `rocesim plot`.\n";

int exp_report_html(int argc, char **argv)
{
    const char *outpath = NULL;
    const char **in = xcalloc((size_t)argc, sizeof *in);
    int n = 0;
    bool titles = true;
    const char *labels[64];
    int nl = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--html") == 0)
            continue;
        if (strcmp(argv[i], "--label") == 0 && i + 1 < argc && strchr(argv[i + 1], '=') && argv[i + 1][0] != '=' && nl < 64) {
            labels[nl++] = argv[++i];
            continue;
        }
        if (strcmp(argv[i], "--no-title") == 0) {
            titles = false;
            continue;
        }
        if ((strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            outpath = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "rocesim report: unknown option %s\n%s", argv[i], html_usage);
            free(in);
            return EXIT_BADINPUT;
        } else
            in[n++] = argv[i];
    }
    if (!n) {
        fputs(html_usage, stderr);
        free(in);
        return EXIT_BADINPUT;
    }
    /* Run folders: given directly, or every run of a sweep folder. */
    const char **runs = NULL, **sweeps = NULL;
    int nr = 0, ns = 0;
    char **owned = NULL;
    int nown = 0;
    for (int i = 0; i < n; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/sweep.csv", in[i]);
        if (exp_is_file(p)) {
            sweeps = xrealloc(sweeps, (size_t)(ns + 1) * sizeof *sweeps);
            sweeps[ns++] = in[i];
            continue;
        }
        snprintf(p, sizeof p, "%s/fct.csv", in[i]);
        if (!exp_is_file(p)) {
            fprintf(stderr, "%s: neither a run folder (no fct.csv) nor a sweep folder (no sweep.csv)\n", in[i]);
            free(in);
            free(sweeps);
            free(runs);
            return EXIT_BADINPUT;
        }
        runs = xrealloc(runs, (size_t)(nr + 1) * sizeof *runs);
        runs[nr++] = in[i];
    }
    (void)owned;
    (void)nown;

    /* The text tables first: an input error stops before any output. */
    char *rep = NULL;
    size_t replen = 0;
    if (nr) {
        FILE *m = open_memstream(&rep, &replen);
        struct err e;
        int rc = report_print(m, runs, nr, &e);
        fclose(m);
        if (rc < 0) {
            fprintf(stderr, "%s\n", e.msg);
            free(rep);
            free(in);
            free(sweeps);
            free(runs);
            return EXIT_BADINPUT;
        }
    }
    /* Figures, drawn into a scratch folder and embedded. */
    char tmpl[] = "/tmp/rocesim_html_XXXXXX";
    char *fig = mkdtemp(tmpl);
    int nfig = 0;
    char **pngs = NULL;
    bool gp = exp_have_gnuplot();
    if (fig && gp) {
        const char **all = xcalloc((size_t)(nr + ns) + 1, sizeof *all);
        int k = 0;
        for (int i = 0; i < ns; i++)
            all[k++] = sweeps[i];
        for (int i = 0; i < nr; i++)
            all[k++] = runs[i];
        exp_plot_options(titles, 0, NULL, NULL);
        for (int i = 0; i < nl; i++)
            fig_add_label(labels[i]);
        if (exp_plot_dirs(all, k, fig, true, true) >= 0)
            nfig = list_ext(fig, ".png", &pngs);
        free(all);
    }

    FILE *o = outpath ? fopen(outpath, "w") : stdout;
    if (!o) {
        fprintf(stderr, "%s: cannot write: %s\n", outpath, strerror(errno));
        if (fig)
            rm_tree(fig);
        free(rep);
        free(in);
        return 1;
    }
    fprintf(o, "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>\n<title>rocesim report</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em;max-width:1200px}h1{font-size:1.5em}h2{font-size:1.2em;"
               "border-bottom:1px solid #ccc}\npre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px}\n"
               "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 5px;"
               "text-align:right}\n.scroll{overflow-x:auto}figure{display:inline-block;width:47%%;margin:.5em;vertical-align:top}"
               "img{max-width:100%%;border:1px solid #eee}\n</style></head><body>\n<h1>rocesim report</h1>\n<p>");
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "Inputs: ", o);
        fputs("<code>", o);
        esc(o, in[i]);
        fputs("</code>", o);
    }
    fprintf(o, "</p>\n<h2>Figures</h2>\n");
    if (!gp)
        fprintf(o, "<p>No figures: gnuplot is not installed (Debian gnuplot-nox).</p>\n");
    for (int i = 0; i < nfig; i++) {
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", fig, pngs[i]);
        size_t len;
        char *png = exp_slurp(p, &len);
        if (png) {
            fprintf(o, "<figure><img alt=\"");
            esc(o, pngs[i]);
            fprintf(o, "\" src=\"data:image/png;base64,");
            base64(o, (const unsigned char *)png, len);
            fprintf(o, "\"><figcaption>");
            esc(o, pngs[i]);
            fprintf(o, "</figcaption></figure>\n");
            free(png);
        }
        free(pngs[i]);
    }
    free(pngs);
    if (fig) { /* figures left out (all zero, no data): said here, not silently missing */
        char p[2048];
        snprintf(p, sizeof p, "%s/notes.txt", fig);
        char *t = exp_slurp(p, NULL);
        if (t && *t) {
            fprintf(o, "<p>Not drawn:</p><pre>");
            esc(o, t);
            fprintf(o, "</pre>\n");
        }
        free(t);
    }
    for (int i = 0; i < ns; i++) {
        char p[2048];
        fprintf(o, "<h2>Sweep <code>");
        esc(o, sweeps[i]);
        fprintf(o, "</code></h2>\n");
        snprintf(p, sizeof p, "%s/sweep.csv", sweeps[i]);
        csv_table(o, p);
        /* each run's resolved scenario: the table's runs only, not an earlier grid's folders */
        char **names = NULL;
        int nn = exp_sweep_runs(sweeps[i], &names, "rocesim report");
        if (nn > 0) { /* the statistics of its finished runs, as `rocesim report RUN...` prints them */
            char *st = NULL;
            size_t stlen = 0;
            struct err e;
            FILE *m = open_memstream(&st, &stlen);
            int rc = m ? report_print(m, (const char *const *)names, nn, &e) : -1;
            if (m)
                fclose(m);
            fprintf(o, "<h3>Statistics of its %d finished run%s (rocesim report)</h3>\n<pre>", nn, nn == 1 ? "" : "s");
            esc(o, rc < 0 ? (m ? e.msg : "out of memory") : st);
            fprintf(o, "</pre>\n");
            free(st);
        }
        for (int k = 0; k < nn; k++) {
            char t[600];
            snprintf(p, sizeof p, "%s/scenario.ini", names[k]);
            snprintf(t, sizeof t, "scenario of %s", names[k] + strlen(sweeps[i]) + 1);
            pre_file(o, t, p);
            free(names[k]);
        }
        free(names);
    }
    if (nr) {
        fprintf(o, "<h2>Statistics (rocesim report)</h2>\n<pre>");
        esc(o, rep);
        fprintf(o, "</pre>\n<h2>Runs</h2>\n");
        for (int i = 0; i < nr; i++) {
            char p[2048], t[2100];
            snprintf(p, sizeof p, "%s/scenario.ini", runs[i]);
            snprintf(t, sizeof t, "scenario of %s", runs[i]);
            pre_file(o, t, p);
            snprintf(p, sizeof p, "%s/summary.json", runs[i]);
            snprintf(t, sizeof t, "summary.json of %s", runs[i]);
            pre_file(o, t, p);
        }
    }
    fprintf(o, "<script>\n/* for headless checks: the title says when every figure has decoded */\n"
               "window.addEventListener('load',function(){var im=document.images,ok=0;"
               "for(var i=0;i<im.length;i++)if(im[i].complete&&im[i].naturalWidth>0)ok++;"
               "document.title='rocesim report: '+ok+' of '+im.length+' figures loaded';});\n</script>\n</body></html>\n");
    int rc = 0;
    if (outpath && fclose(o) != 0) {
        fprintf(stderr, "%s: write failed\n", outpath);
        rc = 1;
    }
    if (fig)
        rm_tree(fig);
    free(rep);
    free(in);
    free(sweeps);
    free(runs);
    return rc;
}
