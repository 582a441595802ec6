/* `rocesim plot` of collective runs: each job's iteration times, one line per
 * run folder and job (collective.csv's time_ns), beside plot.c's figures. */
#include "exp/plot_collective.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exp/util.h"

#define PB 2048

/* Figure collective_iterations.{png,svg} in outdir from the runs' collective.csv; 1 if drawn, 0 if
 * no run has one, -1 on error. */
int exp_plot_collectives(const char *outdir, const char *const *dirs, const char *const *labels, int n)
{
    char gp[PB], dat[PB], line[1024];
    snprintf(gp, sizeof gp, "%s/collective_iterations.gp", outdir);
    FILE *s = NULL;
    int series = 0;
    for (int d = 0; d < n; d++) {
        char path[PB];
        snprintf(path, sizeof path, "%s/collective.csv", dirs[d]);
        FILE *in = fopen(path, "r");
        if (!in)
            continue;
        if (!fgets(line, sizeof line, in)) {
            fclose(in);
            continue;
        }
        char job[64] = "";
        FILE *out = NULL;
        while (fgets(line, sizeof line, in)) {
            char *col[10];
            int nc = 0;
            for (char *p = line; p && nc < 10;) { /* job, collective, hosts, size, chunks, iteration, start, end, time, ... */
                col[nc++] = p;
                p = strchr(p, ',');
                if (p)
                    *p++ = 0;
            }
            if (nc < 10)
                continue;
            const char *t = col[8];
            if (strcmp(job, col[0]) != 0) { /* a new series */
                if (out)
                    fclose(out);
                snprintf(job, sizeof job, "%s", col[0]);
                snprintf(dat, sizeof dat, "%s/data/collective_%d.dat", outdir, series);
                out = fopen(dat, "w");
                if (!out) {
                    fprintf(stderr, "%s: cannot write: %s\n", dat, strerror(errno));
                    fclose(in);
                    if (s)
                        fclose(s);
                    return -1;
                }
                if (!s) {
                    s = fopen(gp, "w");
                    if (!s) {
                        fprintf(stderr, "%s: cannot write: %s\n", gp, strerror(errno));
                        fclose(out);
                        fclose(in);
                        return -1;
                    }
                    fprintf(s, "# rocesim plot: collective_iterations (run `gnuplot collective_iterations.gp` here to redraw)\n"
                               "set grid lc rgb '#dddddd'\nset key noenhanced\nset title 'Collective iteration time'\n"
                               "set xlabel 'iteration'\nset ylabel 'time (us)'\nset yrange [0:*]\n");
                }
                fprintf(s, "%s '%s: %s'\n", series ? "" : "", labels[d], job);
                series++;
            }
            if (*t)
                fprintf(out, "%s %.3f\n", col[5], strtod(t, NULL) / 1e3);
        }
        if (out)
            fclose(out);
        fclose(in);
    }
    if (!s)
        return 0;
    fclose(s);
    /* the script: the titles written above become the plot's series, once per terminal */
    char *titles = exp_slurp(gp, NULL);
    if (!titles)
        return -1;
    s = fopen(gp, "w");
    if (!s) {
        free(titles);
        return -1;
    }
    char *body = titles;
    char *nl = body; /* header lines end at the first series line (starting with a space and a quote) */
    size_t hlen = 0;
    for (char *p = body; *p;) {
        char *e = strchr(p, '\n');
        if (!e)
            break;
        if (p[0] == ' ' && p[1] == '\'')
            break;
        hlen = (size_t)(e + 1 - body);
        p = e + 1;
    }
    nl = body + hlen;
    for (int term = 0; term < 2; term++) {
        fprintf(s, "%.*s", (int)hlen, body);
        fprintf(s, term ? "set terminal svg size 800,480 font 'DejaVu Sans,11' noenhanced\nset output 'collective_iterations.svg'\n"
                        : "set terminal pngcairo size 800,480 font 'DejaVu Sans,11' noenhanced\nset output 'collective_iterations.png'\n");
        fprintf(s, "plot ");
        int k = 0;
        for (char *p = nl; *p; k++) {
            char *e = strchr(p, '\n');
            fprintf(s, "%s'data/collective_%d.dat' using 1:2 with linespoints title %.*s", k ? ", \\\n     " : "", k,
                    (int)((e ? e : p + strlen(p)) - p - 1), p + 1);
            p = e ? e + 1 : p + strlen(p);
        }
        fprintf(s, "\nunset output\n");
    }
    fclose(s);
    free(titles);
    return exp_gnuplot(outdir, "collective_iterations.gp") < 0 ? -1 : 1;
}
