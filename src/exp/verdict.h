/* verdict.c: an experiment file's [verdict] section, for page.c (the page's
 * rows) and reproduce.c (the row printed after a run). */
#ifndef ROCESIM_EXP_VERDICT_H
#define ROCESIM_EXP_VERDICT_H

#include <stdio.h>

struct exp_def;
/* Checks the [verdict] (keys, verdict, cause, why) and that no value the
 * page shows carries an internal reference: 0, or EXIT_BADINPUT with
 * PATH:LINE: what is wrong. */
int exp_verdict_check(const struct exp_def *d, const char *path);
/* The experiment's line of the page's summary table, without the form
 * columns: "| [NAME](#NAME) | claim | **verdict** | cause |". */
void exp_verdict_cells(FILE *f, const char *name, const struct exp_def *d);
/* What `rocesim reproduce NAME` prints after its table: the experiment's
 * row of the verdict page and the verdict's why. */
void exp_verdict_print(FILE *f, const char *name, const struct exp_def *d);

#endif
