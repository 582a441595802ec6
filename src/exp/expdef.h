/* Inside the experiments layer: an experiment file (expdef.c) and the
 * metrics read from a run folder (metric.c), for reproduce.c and page.c. */
#ifndef ROCESIM_EXPDEF_H
#define ROCESIM_EXPDEF_H

struct expdef_kv {
    char sec[64], key[128], *val;
    int line;
};

struct expdef {
    char path[1024];
    struct expdef_kv *kv;
    int n;
};

/* Strips blanks (and a line end) on both sides, in place. */
char *expdef_trim(char *s);
/* Reads path into x (x is always initialised: free it); 0, or -1 if it
 * cannot be opened or is malformed (FILE:LINE message printed). */
int expdef_load(struct expdef *x, const char *path);
void expdef_free(struct expdef *x);
/* The value of sec.key, NULL if absent. */
const char *expdef_get(const struct expdef *x, const char *sec, const char *key);

/* The same file for page.c (exp_def_* wrap expdef_*): open: NULL (message
 * printed) if unreadable or malformed; item: entry i's line number and its
 * section, key and value, -1 past the end. */
struct exp_def;
struct exp_def *exp_def_open(const char *path);
void exp_def_close(struct exp_def *d);
const char *exp_def_get(const struct exp_def *d, const char *sec, const char *key);
int exp_def_item(const struct exp_def *d, int i, const char **sec, const char **key, const char **val);

/* metric.c: one metric of one run folder (the kinds are listed there);
 * NAN when it cannot be computed or the spec names no known kind. */
double exp_metric(const char *dir, const char *spec);

#endif
