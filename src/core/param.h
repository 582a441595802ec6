/* Table-driven parameters. Every configurable value — scenario sections and
 * each scheme's own knobs — is described once by a `struct param` row: name,
 * type, default, range and a one-line help. The same rows parse INI keys and
 * --set options and print `rocesim list`, so docs and parser never drift. */
#ifndef ROCESIM_PARAM_H
#define ROCESIM_PARAM_H
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum ptype {
    P_BOOL,   /* bool */
    P_INT,    /* int64_t */
    P_DOUBLE, /* double */
    P_RATE,   /* uint64_t bits per second */
    P_TIME,   /* simtime_t picoseconds */
    P_SIZE,   /* uint64_t bytes */
    P_STR,    /* char[PARAM_STR_MAX] */
    P_ENUM,   /* int: index into `choices`, a '|'-separated list */
    P_WINDOW, /* uint64_t: "off" = 0, "bdp" = PARAM_WIN_BDP, or a size */
    P_BYTES,  /* int64_t: a count of bytes, a whole number with or without a size unit (9000, 9000B, 9KB) */
};

#define PARAM_STR_MAX 512
#define PARAM_WIN_BDP UINT64_MAX

struct param {
    const char *name;
    enum ptype type;
    size_t offset;       /* into the struct the table describes */
    const char *def;     /* default, written as a user would write it */
    const char *help;    /* one line */
    const char *choices; /* P_ENUM only */
    double min, max;     /* inclusive range for numbers when min < max */
};

#define PARAM_END { NULL, 0, 0, NULL, NULL, NULL, 0, 0 }

/* Set one key from text. Returns 0, or -1 with *why set to a static or
 * thread-local message ("unknown key" is reported as why == PARAM_UNKNOWN). */
extern const char PARAM_UNKNOWN[];
int param_set(const struct param *tab, void *base, const char *key, const char *val, const char **why);
/* Fill `base` with every default. Returns -1 (and a message) only for a
 * broken table, which is a programming error. */
int param_defaults(const struct param *tab, void *base);
const struct param *param_find(const struct param *tab, const char *key);
/* One line per parameter: "  prefix.name = default    help". */
void param_print(FILE *out, const struct param *tab, const char *prefix);
/* The current value as text (for summaries). */
void param_value_str(const struct param *p, const void *base, char *buf, int n);

#endif
