/* plot_sweep.c: a sweep.csv as a table, and the figures of a sweep (each
 * metric against the swept x, slowdown by size per x). */
#ifndef ROCESIM_EXP_PLOT_SWEEP_H
#define ROCESIM_EXP_PLOT_SWEEP_H
#include <stdbool.h>
#include <stddef.h>

struct table {
    char **hdr;
    int nh;
    char ***rows;
    int nr;
    int first_param, status_col; /* params are columns [first_param, status_col) */
};
/* 0, or -1 (FILE:LINE message printed). */
int tab_load(struct table *t, const char *path);
void tab_free(struct table *t);
/* The column named name, -1 if none. */
int tab_col(const struct table *t, const char *name);
/* Row r finished (status ok)? */
bool tab_row_ok(const struct table *t, int r);
/* The series label of row r: the swept values but the seed's, x's (xc) and
 * the panel's (pc) (variants and schemes by name, mapped through [labels]). */
void tab_row_label(const struct table *t, int r, int xc, int seedc, int pc, char *lab, size_t n);
/* Every figure of sweep.csv csv into out (with sizes: slowdown by size
 * too); the count made, -1 on error. */
int plot_sweep(const char *out, const char *csv, bool sizes);

#endif
