/* `rocesim plot INPUT... [--out DIR]`: figures with gnuplot, as PNG and SVG.
 * INPUT is a run folder (fct.csv, summary.json, pfc_ports.csv, monitor
 * CSVs), a sweep.csv, or a sweep folder holding one. Every figure's data
 * and gnuplot script stay in DIR (data/, NAME.gp) so it can be restyled by
 * hand. gnuplot is needed at run time only (Debian gnuplot-nox). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/err.h"
#include "core/xalloc.h"
#include "exp/exp.h"
#include "stats/report.h"

#define PB 1600

bool exp_have_gnuplot(void)
{
    return exp_on_path("gnuplot");
}

static const char *base_name(const char *path)
{
    static char b[512];
    snprintf(b, sizeof b, "%s", path);
    size_t l = strlen(b);
    while (l > 1 && b[l - 1] == '/')
        b[--l] = 0;
    const char *s = strrchr(b, '/');
    return s ? s + 1 : b;
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---------------------------------------------------------- gnuplot */

struct fig {
    const char *outdir;
    char name[128];
    char *body;
    size_t len;
    FILE *f; /* open_memstream on body */
    int w, h;
};

static FILE *fig_begin(struct fig *g, const char *outdir, const char *name, int w, int h)
{
    memset(g, 0, sizeof *g);
    g->outdir = outdir;
    snprintf(g->name, sizeof g->name, "%s", name);
    g->w = w;
    g->h = h;
    g->f = open_memstream(&g->body, &g->len);
    if (!g->f) {
        fprintf(stderr, "rocesim plot: out of memory\n");
        exit(1);
    }
    return g->f;
}

static int run_gnuplot(const char *dir, const char *script)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) < 0)
            _exit(126);
        /* its warnings (an all-zero series) into a log, shown only on failure */
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Writes NAME.gp (the body once for PNG, once for SVG) and runs gnuplot. */
static int fig_end(struct fig *g)
{
    fclose(g->f);
    char path[PB];
    snprintf(path, sizeof path, "%s/%s.gp", g->outdir, g->name);
    FILE *s = fopen(path, "w");
    if (!s) {
        fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
        free(g->body);
        return -1;
    }
    fprintf(s, "# rocesim plot: %s (run `gnuplot %s.gp` in this folder to redraw)\n", g->name, g->name);
    fprintf(s, "set datafile separator whitespace\nset grid lc rgb '#dddddd'\nset key noenhanced\n");
    fprintf(s, "set terminal pngcairo size %d,%d font 'DejaVu Sans,11' noenhanced\nset output '%s.png'\n%s\nunset output\n", g->w,
            g->h, g->name, g->body);
    fprintf(s, "set terminal svg size %d,%d font 'DejaVu Sans,11' noenhanced\nset output '%s.svg'\n%s\nunset output\n", g->w,
            g->h, g->name, g->body);
    fclose(s);
    free(g->body);
    snprintf(path, sizeof path, "%s.gp", g->name);
    if (run_gnuplot(g->outdir, path) < 0) {
        fprintf(stderr, "rocesim plot: gnuplot failed on %s/%s.gp (its messages: %s/gnuplot.log)\n", g->outdir, g->name,
                g->outdir);
        return -1;
    }
    return 0;
}

/* A gnuplot single-quoted string. */
static void gq(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static FILE *data_open(const char *outdir, const char *name, char *rel, size_t n)
{
    snprintf(rel, n, "data/%s", name);
    char path[PB];
    snprintf(path, sizeof path, "%s/%s", outdir, rel);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
    return f;
}

/* ---------------------------------------------------------- run folders */

struct run {
    const char *dir;
    char label[128];
    struct report_run r;
    struct report_summary s;
};

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int plot_slowdown_by_size(const char *out, struct run *runs, int n)
{
    struct fig g;
    FILE *f = fig_begin(&g, out, "slowdown_vs_size", 960, 600);
    fprintf(f, "set title 'FCT slowdown by flow size (20 equal-count buckets; solid p50, dashed p99)'\n"
               "set xlabel 'flow size, upper end of bucket (KB)'\nset ylabel 'FCT slowdown (FCT / ideal FCT)'\n"
               "set logscale xy\nset key top left\nplot ");
    int made = 0;
    for (int i = 0; i < n; i++) {
        char rel[256], nm[64];
        snprintf(nm, sizeof nm, "sd_size_%d.dat", i);
        FILE *d = data_open(out, nm, rel, sizeof rel);
        if (!d)
            return -1;
        fprintf(d, "# size_kb p50 p99 (%s)\n", runs[i].dir);
        for (int b = 0; b < REPORT_EQUAL; b++)
            if (runs[i].s.esd[b].n)
                fprintf(d, "%.3f %.4f %.4f\n", runs[i].s.esd[b].max_size / 1e3, runs[i].s.esd[b].p50, runs[i].s.esd[b].p99);
        fclose(d);
        fprintf(f, "%s'%s' u 1:2 w lp lw 2 pt 7 ps 0.6 lc %d t ", made ? ", \\\n  " : "", rel, i + 1);
        gq(f, runs[i].label);
        fprintf(f, ", '%s' u 1:3 w lp lw 2 dt 2 pt 7 ps 0.6 lc %d t ", rel, i + 1);
        char t[160];
        snprintf(t, sizeof t, "%s p99", runs[i].label);
        gq(f, t);
        made++;
    }
    fprintf(f, "\n");
    return fig_end(&g);
}

static int plot_fct_cdf(const char *out, struct run *runs, int n)
{
    struct fig g;
    FILE *f = fig_begin(&g, out, "fct_cdf", 960, 600);
    fprintf(f, "set title 'CDF of flow completion time (finished flows)'\nset xlabel 'FCT (us)'\n"
               "set ylabel 'fraction of flows'\nset logscale x\nset yrange [0:1]\nset key bottom right\nplot ");
    for (int i = 0; i < n; i++) {
        char rel[256], nm[64];
        snprintf(nm, sizeof nm, "fct_cdf_%d.dat", i);
        FILE *d = data_open(out, nm, rel, sizeof rel);
        if (!d)
            return -1;
        size_t k = 0;
        double *v = xmalloc((runs[i].r.n_flows + 1) * sizeof *v);
        for (size_t j = 0; j < runs[i].r.n_flows; j++)
            if (runs[i].r.flows[j].done)
                v[k++] = runs[i].r.flows[j].fct_ns / 1e3;
        qsort(v, k, sizeof *v, cmp_dbl);
        fprintf(d, "# fct_us fraction (%s)\n", runs[i].dir);
        for (size_t j = 0; j < k; j++)
            fprintf(d, "%.3f %.6f\n", v[j], (double)(j + 1) / (double)k);
        free(v);
        fclose(d);
        fprintf(f, "%s'%s' u 1:2 w l lw 2 lc %d t ", i ? ", \\\n  " : "", rel, i + 1);
        gq(f, runs[i].label);
    }
    fprintf(f, "\n");
    return fig_end(&g);
}

static int plot_pfc_layers(const char *out, struct run *runs, int n)
{
    static const char *const lname[4] = {"host", "edge", "agg", "core"};
    char rel[256];
    FILE *d = data_open(out, "pfc_layers.dat", rel, sizeof rel);
    if (!d)
        return -1;
    fprintf(d, "# layer, then per run: paused_ms pause_frames_sent\n");
    for (int l = 0; l < 4; l++) {
        fprintf(d, "%s", lname[l]);
        for (int i = 0; i < n; i++) {
            double us = 0;
            for (size_t p = 0; p < runs[i].r.n_ports; p++)
                if (runs[i].r.ports[p].layer == l)
                    us += runs[i].r.ports[p].paused_us;
            fprintf(d, " %.4f %llu", us / 1e3, (unsigned long long)runs[i].r.pause_sent[l]);
        }
        fprintf(d, "\n");
    }
    fclose(d);
    struct fig g;
    FILE *f = fig_begin(&g, out, "pfc_by_layer", 1100, 520);
    fprintf(f, "set multiplot layout 1,2 title 'PFC by layer (host: NIC ports; edge/agg/core: switch ports)'\n"
               "set style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
               "set boxwidth 0.9\nset yrange [0:*]\nset key top right\n");
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, "set title '%s'\nset xlabel 'layer'\nset ylabel '%s'\nplot ",
                panel ? "PAUSE frames sent by ports of the layer" : "time ports were paused, summed over ports",
                panel ? "PAUSE frames" : "paused time (ms)");
        for (int i = 0; i < n; i++) {
            fprintf(f, "%s'%s' u %d:xtic(1) lc %d t ", i ? ", " : "", rel, 2 + 2 * i + panel, i + 1);
            gq(f, runs[i].label);
        }
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    return fig_end(&g);
}

/* A monitor CSV "time_ns,A,B,...,value" as lines over time: one series per
 * (run, id columns), at most `maxs` of them (the largest peaks). */
struct tseries {
    char key[96];
    int run;
    double peak;
    size_t n, cap;
    double *t, *v;
};

static int plot_monitor(const char *out, struct run *runs, int n, const char *file, int nid, int vcol, double scale,
                        const char *name, const char *title, const char *ylabel, const char *idfmt, int maxs)
{
    struct tseries *ts = NULL;
    size_t nts = 0, cts = 0;
    int have = 0;
    for (int i = 0; i < n; i++) {
        char path[PB];
        snprintf(path, sizeof path, "%s/%s", runs[i].dir, file);
        FILE *in = fopen(path, "r");
        if (!in)
            continue;
        have = 1;
        char line[512];
        if (!fgets(line, sizeof line, in)) {
            fclose(in);
            continue;
        }
        while (fgets(line, sizeof line, in)) {
            char *fld[16];
            int nf = 0;
            for (char *p = strtok(line, ",\n"); p && nf < 16; p = strtok(NULL, ",\n"))
                fld[nf++] = p;
            if (nf <= vcol || nf < 1 + nid)
                continue;
            char key[96] = "";
            if (nid == 2)
                snprintf(key, sizeof key, idfmt, fld[1], fld[2]);
            else if (nid == 1)
                snprintf(key, sizeof key, idfmt, fld[1]);
            size_t k;
            for (k = 0; k < nts; k++)
                if (ts[k].run == i && strcmp(ts[k].key, key) == 0)
                    break;
            if (k == nts) {
                if (nts == cts)
                    ts = xrealloc(ts, (cts = cts ? 2 * cts : 16) * sizeof *ts);
                memset(&ts[nts], 0, sizeof *ts);
                snprintf(ts[nts].key, sizeof ts[nts].key, "%s", key);
                ts[nts++].run = i;
            }
            struct tseries *s = &ts[k];
            if (s->n == s->cap) {
                s->cap = s->cap ? 2 * s->cap : 256;
                s->t = xrealloc(s->t, s->cap * sizeof *s->t);
                s->v = xrealloc(s->v, s->cap * sizeof *s->v);
            }
            s->t[s->n] = strtod(fld[0], NULL) / 1e6;
            s->v[s->n] = strtod(fld[vcol], NULL) * scale;
            if (s->v[s->n] > s->peak)
                s->peak = s->v[s->n];
            s->n++;
        }
        fclose(in);
    }
    if (!have)
        return 0;
    /* Several runs of a few series each (the flows of a scenario): one panel
     * per run, same colour per series key, so schemes compare side by side. */
    bool panels = n > 1 && n <= 8 && (int)nts <= 4 * n;
    if (panels) {
        int rows = (n + 1) / 2;
        struct fig g;
        FILE *f = fig_begin(&g, out, name, 1200, 330 * rows);
        fprintf(f, "set multiplot layout %d,2 title '%s'\nset xlabel 'time (ms)'\nset ylabel '%s'\nset yrange [0:*]\n"
                   "set key top right\n",
                rows, title, ylabel);
        double tmax = 0;
        for (size_t k = 0; k < nts; k++)
            if (ts[k].n && ts[k].t[ts[k].n - 1] > tmax)
                tmax = ts[k].t[ts[k].n - 1];
        fprintf(f, "set xrange [0:%g]\n", tmax);
        for (int i = 0; i < n; i++) {
            fprintf(f, "set title ");
            gq(f, runs[i].label);
            fprintf(f, "\nplot ");
            int shown = 0;
            for (size_t k = 0; k < nts; k++) {
                if (ts[k].run != i)
                    continue;
                char rel[256], nm[64];
                snprintf(nm, sizeof nm, "%s_%zu.dat", name, k);
                FILE *d = data_open(out, nm, rel, sizeof rel);
                if (!d)
                    break;
                fprintf(d, "# time_ms value (%s %s)\n", runs[i].dir, ts[k].key);
                for (size_t j = 0; j < ts[k].n; j++)
                    fprintf(d, "%.6f %.6f\n", ts[k].t[j], ts[k].v[j]);
                fclose(d);
                int colour = 1;
                for (size_t q = 0; q < k; q++) /* the same key keeps its colour across panels */
                    if (ts[q].run == ts[k].run)
                        colour++;
                fprintf(f, "%s'%s' u 1:2 w l lw 2 lc %d t ", shown++ ? ", " : "", rel, colour);
                gq(f, ts[k].key);
            }
            if (!shown)
                fprintf(f, "NaN t 'no samples'");
            fprintf(f, "\n");
        }
        fprintf(f, "unset multiplot\n");
        for (size_t k = 0; k < nts; k++) {
            free(ts[k].t);
            free(ts[k].v);
        }
        free(ts);
        return fig_end(&g) < 0 ? -1 : 1;
    }
    /* the largest peaks first, but keep each run's order stable */
    for (size_t a = 1; a < nts; a++)
        for (size_t b = a; b > 0 && ts[b - 1].peak < ts[b].peak; b--) {
            struct tseries t = ts[b];
            ts[b] = ts[b - 1];
            ts[b - 1] = t;
        }
    struct fig g;
    FILE *f = fig_begin(&g, out, name, 960, 600);
    fprintf(f, "set title '%s%s'\nset xlabel 'time (ms)'\nset ylabel '%s'\nset key outside right top\nset yrange [0:*]\nplot ",
            title, (int)nts > maxs ? " (the series with the highest peaks)" : "", ylabel);
    int shown = 0;
    for (size_t k = 0; k < nts && shown < maxs; k++, shown++) {
        char rel[256], nm[64];
        snprintf(nm, sizeof nm, "%s_%zu.dat", name, k);
        FILE *d = data_open(out, nm, rel, sizeof rel);
        if (!d)
            break;
        fprintf(d, "# time_ms value (%s %s)\n", runs[ts[k].run].dir, ts[k].key);
        for (size_t j = 0; j < ts[k].n; j++)
            fprintf(d, "%.6f %.6f\n", ts[k].t[j], ts[k].v[j]);
        fclose(d);
        char t[256];
        if (n > 1)
            snprintf(t, sizeof t, "%s %s", runs[ts[k].run].label, ts[k].key);
        else
            snprintf(t, sizeof t, "%s", ts[k].key);
        fprintf(f, "%s'%s' u 1:2 w l lw 2 t ", shown ? ", \\\n  " : "", rel);
        gq(f, t);
    }
    fprintf(f, "\n");
    for (size_t k = 0; k < nts; k++) {
        free(ts[k].t);
        free(ts[k].v);
    }
    free(ts);
    return fig_end(&g) < 0 ? -1 : 1;
}

/* ---------------------------------------------------------- sweep.csv */

struct table {
    char **hdr;
    int nh;
    char ***rows;
    int nr;
    int first_param, status_col; /* params are columns [first_param, status_col) */
};

static void table_free(struct table *t)
{
    for (int i = 0; i < t->nh; i++)
        free(t->hdr[i]);
    free(t->hdr);
    for (int r = 0; r < t->nr; r++) {
        for (int i = 0; i < t->nh; i++)
            free(t->rows[r][i]);
        free(t->rows[r]);
    }
    free(t->rows);
}

static int split_csv(char *line, char ***out)
{
    int n = 0;
    char **v = NULL;
    line[strcspn(line, "\r\n")] = 0;
    for (char *p = line;;) {
        char *c = strchr(p, ',');
        if (c)
            *c = 0;
        v = xrealloc(v, (size_t)(n + 1) * sizeof *v);
        size_t l = strlen(p);
        v[n++] = l >= 2 && p[0] == '"' && p[l - 1] == '"' ? strndup(p + 1, l - 2) : strdup(p);
        if (!c)
            break;
        p = c + 1;
    }
    *out = v;
    return n;
}

int exp_table_load(struct table *t, const char *path);
int exp_table_load(struct table *t, const char *path)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f)
        return fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno)), -1;
    char *line = NULL;
    size_t cap = 0;
    if (getline(&line, &cap, f) < 0) {
        fclose(f);
        free(line);
        return fprintf(stderr, "%s:1: empty file\n", path), -1;
    }
    t->nh = split_csv(line, &t->hdr);
    t->first_param = 1;
    t->status_col = -1;
    for (int i = 0; i < t->nh; i++)
        if (strcmp(t->hdr[i], "status") == 0)
            t->status_col = i;
    if (strcmp(t->hdr[0], "run") != 0 || t->status_col < 0) {
        fclose(f);
        free(line);
        table_free(t);
        return fprintf(stderr, "%s:1: not a sweep.csv (expected run,...,status,...)\n", path), -1;
    }
    int ln = 1;
    while (getline(&line, &cap, f) >= 0) {
        ln++;
        char **v;
        int n = split_csv(line, &v);
        if (n != t->nh) {
            for (int i = 0; i < n; i++)
                free(v[i]);
            free(v);
            fclose(f);
            free(line);
            table_free(t);
            return fprintf(stderr, "%s:%d: %d fields, the header has %d\n", path, ln, n, t->nh), -1;
        }
        t->rows = xrealloc(t->rows, (size_t)(t->nr + 1) * sizeof *t->rows);
        t->rows[t->nr++] = v;
    }
    free(line);
    fclose(f);
    return 0;
}

static int col_of(const struct table *t, const char *name)
{
    for (int i = 0; i < t->nh; i++)
        if (strcmp(t->hdr[i], name) == 0)
            return i;
    return -1;
}

static bool numeric(const char *s)
{
    char *end;
    if (!*s)
        return false;
    strtod(s, &end);
    return !*end;
}

static const char *short_name(const char *key)
{
    const char *d = strrchr(key, '.');
    return d ? d + 1 : key;
}

/* Metric vs the x parameter (traffic.load if swept, else the first numeric
 * one, else the first as categories), one line per combination of the other
 * parameters, averaged over run.seed. */
static int plot_sweep(const char *out, const char *csv)
{
    struct table t;
    if (exp_table_load(&t, csv) < 0)
        return -1;
    int xc = -1, seedc = col_of(&t, "run.seed");
    for (int c = t.first_param; c < t.status_col && xc < 0; c++)
        if (strstr(t.hdr[c], "load"))
            xc = c;
    for (int c = t.first_param; c < t.status_col && xc < 0; c++)
        if (c != seedc && t.nr && numeric(t.rows[0][c]))
            xc = c;
    for (int c = t.first_param; c < t.status_col && xc < 0; c++)
        if (c != seedc)
            xc = c;
    if (xc < 0)
        xc = seedc;
    if (xc < 0) {
        table_free(&t);
        fprintf(stderr, "%s: no swept parameter to plot against\n", csv);
        return -1;
    }
    bool xnum = true;
    for (int r = 0; r < t.nr; r++)
        xnum &= numeric(t.rows[r][xc]);
    /* series labels and x values, in first-seen order */
    char **slab = xcalloc((size_t)t.nr + 1, sizeof *slab), **xs = xcalloc((size_t)t.nr + 1, sizeof *xs);
    int ns = 0, nx = 0, *rs = xcalloc((size_t)t.nr + 1, sizeof *rs), *rx = xcalloc((size_t)t.nr + 1, sizeof *rx);
    for (int r = 0; r < t.nr; r++) {
        char lab[256] = "";
        for (int c = t.first_param; c < t.status_col; c++)
            if (c != xc && c != seedc)
                snprintf(lab + strlen(lab), sizeof lab - strlen(lab), "%s%s=%s", lab[0] ? " " : "", short_name(t.hdr[c]),
                         t.rows[r][c]);
        if (!lab[0])
            snprintf(lab, sizeof lab, "all");
        int s;
        for (s = 0; s < ns && strcmp(slab[s], lab); s++)
            ;
        if (s == ns)
            slab[ns++] = strdup(lab);
        rs[r] = s;
        int x;
        for (x = 0; x < nx && strcmp(xs[x], t.rows[r][xc]); x++)
            ;
        if (x == nx)
            xs[nx++] = t.rows[r][xc];
        rx[r] = x;
    }
    static const struct {
        const char *col, *name, *title, *ylabel;
        bool logy;
    } metrics[] = {
        {"afct_us", "afct_vs_x", "Average FCT", "AFCT (us)", false},
        {"sd_p99", "p99_slowdown_vs_x", "99th-percentile FCT slowdown, all flows", "p99 FCT slowdown", true},
        {"sd_small_p95", "p95_small_vs_x", "95th-percentile FCT slowdown, flows up to 100 KB", "p95 FCT slowdown", true},
        {"pause_frames", "pause_frames_vs_x", "PFC PAUSE frames sent", "PAUSE frames", false},
    };
    int made = 0;
    for (size_t m = 0; m < sizeof metrics / sizeof *metrics; m++) {
        int mc = col_of(&t, metrics[m].col);
        if (mc < 0)
            continue;
        char nm[128], rel[256];
        snprintf(nm, sizeof nm, "%s.dat", metrics[m].name);
        FILE *d = data_open(out, nm, rel, sizeof rel);
        if (!d)
            break;
        fprintf(d, "# x xlabel, then per series the mean of %s over seeds\nx xl", metrics[m].col);
        for (int s = 0; s < ns; s++)
            fprintf(d, " s%d", s);
        fprintf(d, "\n");
        for (int x = 0; x < nx; x++) {
            fprintf(d, "%s %s", xnum ? xs[x] : "0", xs[x]);
            for (int s = 0; s < ns; s++) {
                double sum = 0;
                int k = 0;
                for (int r = 0; r < t.nr; r++)
                    if (rs[r] == s && rx[r] == x && numeric(t.rows[r][mc]) && strcmp(t.rows[r][t.status_col], "ok") == 0)
                        sum += strtod(t.rows[r][mc], NULL), k++;
                if (k)
                    fprintf(d, " %.6g", sum / k);
                else
                    fprintf(d, " NaN");
            }
            fprintf(d, "\n");
        }
        fclose(d);
        struct fig g;
        char name[160];
        snprintf(name, sizeof name, "%s", metrics[m].name);
        char *xp = strstr(name, "_x");
        snprintf(xp + 1, sizeof name - (size_t)(xp + 1 - name), "%s", short_name(t.hdr[xc]));
        FILE *f = fig_begin(&g, out, name, 960, 600);
        char xl[200];
        snprintf(xl, sizeof xl, "%s%s", t.hdr[xc],
                 strcmp(short_name(t.hdr[xc]), "load") == 0 ? " (fraction of the host link rate)" : "");
        fprintf(f, "set title '%s vs %s%s'\nset xlabel '%s'\nset ylabel '%s'\nset key top left\n%s%s\nplot ",
                metrics[m].title, t.hdr[xc], seedc >= 0 && seedc != xc ? " (mean over seeds)" : "", xl,
                metrics[m].ylabel, metrics[m].logy ? "set logscale y\n" : "set yrange [0:*]\n",
                xnum ? "set offsets graph 0.03, graph 0.03, 0, 0" : "set offsets 0.3, 0.3, 0, 0");
        for (int s = 0; s < ns; s++) {
            if (xnum)
                fprintf(f, "%s'%s' u 1:%d skip 1 w lp lw 2 pt 7 lc %d t ", s ? ", \\\n  " : "", rel, 3 + s, s + 1);
            else
                fprintf(f, "%s'%s' u 0:%d:xtic(2) skip 1 w lp lw 2 pt 7 lc %d t ", s ? ", \\\n  " : "", rel, 3 + s, s + 1);
            gq(f, slab[s]);
        }
        fprintf(f, "\n");
        if (fig_end(&g) == 0)
            made++;
    }
    for (int s = 0; s < ns; s++)
        free(slab[s]);
    free(slab);
    free(xs);
    free(rs);
    free(rx);
    table_free(&t);
    return made;
}

/* ---------------------------------------------------------- entry */

static int mkdirs(const char *path)
{
    char b[PB];
    snprintf(b, sizeof b, "%s", path);
    for (char *p = b + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(b, 0777);
            *p = '/';
        }
    return mkdir(b, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

int exp_plot_dirs(const char *const *inputs, int n, const char *outdir, bool svg, bool png)
{
    (void)svg;
    (void)png;
    if (!exp_have_gnuplot()) {
        fprintf(stderr, "rocesim plot: gnuplot not found on PATH: install it (Debian: apt-get install gnuplot-nox)\n");
        return -1;
    }
    char data[PB];
    snprintf(data, sizeof data, "%s/data", outdir);
    if (mkdirs(data) < 0) {
        fprintf(stderr, "%s: cannot create folder: %s\n", data, strerror(errno));
        return -1;
    }
    struct run *runs = xcalloc((size_t)n + 1, sizeof *runs);
    int nr = 0, made = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char p[PB];
        const char *csv = NULL;
        snprintf(p, sizeof p, "%s/sweep.csv", inputs[i]);
        if (is_file(inputs[i]))
            csv = inputs[i];
        else if (is_file(p))
            csv = p;
        if (csv) {
            int k = plot_sweep(outdir, csv);
            if (k < 0)
                rc = -1;
            else
                made += k;
            continue;
        }
        struct err e;
        struct run *r = &runs[nr];
        r->dir = inputs[i];
        if (report_load(&r->r, inputs[i], &e) < 0) {
            fprintf(stderr, "%s\n", e.msg);
            rc = -1;
            break;
        }
        report_compute(&r->r, &r->s);
        snprintf(r->label, sizeof r->label, "%s", base_name(inputs[i]));
        nr++;
    }
    if (rc == 0 && nr) {
        made += plot_slowdown_by_size(outdir, runs, nr) == 0;
        made += plot_fct_cdf(outdir, runs, nr) == 0;
        made += plot_pfc_layers(outdir, runs, nr) == 0;
        made += plot_monitor(outdir, runs, nr, "queue.csv", 2, 3, 1e-3, "queue_over_time", "Egress queue length",
                             "queue (KB)", "node %s port %s", 8) > 0;
        made += plot_monitor(outdir, runs, nr, "util.csv", 2, 3, 100, "util_over_time", "Link utilisation",
                             "utilisation (%)", "node %s port %s", 8) > 0;
        made += plot_monitor(outdir, runs, nr, "flow_rate.csv", 1, 2, 1, "flow_rate_over_time", "Flow throughput",
                             "throughput (Gbps)", "flow %s", 8) > 0;
        /* rate_gbps, when the file has it: the CC's rate over time (PCN's rate law, slow start) */
        made += plot_monitor(outdir, runs, nr, "flow_rate.csv", 1, 3, 1, "send_rate_over_time", "Sender pacing rate",
                             "rate (Gbps)", "flow %s", 8) > 0;
        made += plot_monitor(outdir, runs, nr, "paused.csv", 0, 1, 1, "paused_ports_over_time",
                             "Ports with a paused priority (PFC congestion tree)", "paused ports", "paused ports", 8) > 0;
        const char **cd = xcalloc((size_t)nr, 2 * sizeof *cd); /* collectives: plot_collective.c */
        for (int i = 0; i < nr; i++)
            cd[i] = runs[i].dir, cd[nr + i] = runs[i].label;
        int k = exp_plot_collectives(outdir, cd, cd + nr, nr);
        made += k > 0;
        rc = k < 0 ? -1 : rc;
        free(cd);
    }
    for (int i = 0; i < nr; i++)
        report_free(&runs[i].r);
    free(runs);
    return rc < 0 ? -1 : made;
}

static const char plot_usage[] =
    "usage: rocesim plot INPUT... [--out DIR]\n"
    "INPUT: run folders (each a line in every figure) or a sweep.csv / sweep folder.\n"
    "Writes PNG and SVG figures, their data (DIR/data/) and gnuplot scripts (DIR/*.gp)\n"
    "into DIR (default: plots/). Needs gnuplot (Debian gnuplot-nox).\n";

int exp_plot(int argc, char **argv)
{
    const char *out = "plots";
    const char **in = xcalloc((size_t)argc, sizeof *in);
    int n = 0;
    for (int i = 2; i < argc; i++) {
        if ((strcmp(argv[i], "--out") == 0 || strcmp(argv[i], "-o") == 0) && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(plot_usage, stdout);
            free(in);
            return 0;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "rocesim plot: unknown option %s\n%s", argv[i], plot_usage);
            free(in);
            return EXIT_BADINPUT;
        } else
            in[n++] = argv[i];
    }
    if (!n) {
        fputs(plot_usage, stderr);
        free(in);
        return EXIT_BADINPUT;
    }
    int made = exp_plot_dirs(in, n, out, true, true);
    free(in);
    if (made < 0)
        return EXIT_BADINPUT;
    printf("%d figure%s (PNG and SVG) -> %s/\n", made, made == 1 ? "" : "s", out);
    return 0;
}

int exp_plot_bars(const char *outdir, const char *name, const char *title, const char *ylabel, int nrows,
                  const char *const *rows, int ncols, const char *const *cols, const double *v)
{
    if (!exp_have_gnuplot())
        return -1;
    char data[PB], rel[256], nm[160];
    snprintf(data, sizeof data, "%s/data", outdir);
    if (mkdirs(data) < 0)
        return -1;
    snprintf(nm, sizeof nm, "%s.dat", name);
    FILE *d = data_open(outdir, nm, rel, sizeof rel);
    if (!d)
        return -1;
    fprintf(d, "# row, then one value per column\n");
    for (int r = 0; r < nrows; r++) {
        fprintf(d, "\"%s\"", rows[r]);
        for (int c = 0; c < ncols; c++)
            fprintf(d, isnan(v[r * ncols + c]) ? " NaN" : " %.6g", v[r * ncols + c]);
        fprintf(d, "\n");
    }
    fclose(d);
    struct fig g;
    FILE *f = fig_begin(&g, outdir, name, 960, 600);
    fprintf(f, "set title ");
    gq(f, title);
    fprintf(f, "\nset ylabel ");
    gq(f, ylabel);
    fprintf(f, "\nset style data histogram\nset style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
               "set boxwidth 0.9\nset yrange [0:*]\nset key top left\nplot ");
    for (int c = 0; c < ncols; c++) {
        fprintf(f, "%s'%s' u %d:xtic(1) lc %d t ", c ? ", " : "", rel, 2 + c, c + 1);
        gq(f, cols[c]);
    }
    fprintf(f, "\n");
    return fig_end(&g);
}

int exp_gnuplot(const char *dir, const char *script) { return run_gnuplot(dir, script); }
