/* The [sweep] section of a scenario: which keys vary and over which values,
 * the cross product of those values (the sweep's points), and the resolved
 * scenario text of one point. Pure text processing, no simulation. */
#ifndef ROCESIM_SWEEPSPEC_H
#define ROCESIM_SWEEPSPEC_H
#include <stdbool.h>
#include <stddef.h>
#include "core/err.h"

#define SWEEP_MAX_KEYS 16
#define SWEEP_MAX_VALUES 10000
#define SWEEP_MAX_POINTS 1000000

struct sweep_key {
    char *key;   /* "section.key" */
    int line;    /* in the scenario file */
    char **vals; /* expanded list or range */
    int n;
};

struct sweep_spec {
    char *text; /* the whole scenario file */
    char path[1024];
    struct sweep_key k[SWEEP_MAX_KEYS];
    int nk;
    size_t npoints; /* product of the k[i].n; 1 when nk == 0 */
};

/* Expands one [sweep] value: "a, b, c" (a list), "LO:HI:STEP" (numbers,
 * HI included, e.g. 0.3:0.8:0.1), or "LO..HI" (integers, both included).
 * Returns the count and a malloc'ed array of malloc'ed strings in *out,
 * or -1 with *why. */
int sweep_values(const char *spec, char ***out, const char **why);
void sweep_values_free(char **v, int n);

/* Reads path and its [sweep] section. The file must already have passed
 * config_load_file (which checks every [sweep] key and value). */
int sweep_spec_load(struct sweep_spec *s, const char *path, struct err *e);
/* The same, after checking the file as a scenario (config_load_file, which
 * checks every [sweep] key and value); its run.name into name. -1 with *e. */
int sweep_file_load(struct sweep_spec *s, const char *path, char *name, size_t n, struct err *e);
void sweep_spec_free(struct sweep_spec *s);

/* Point i (0 <= i < npoints): choice[k] = index into k[k].vals; the last key
 * varies fastest, so points are in the file's order of keys. */
void sweep_point(const struct sweep_spec *s, size_t i, int *choice);
/* The folder name of a point: "cc=dcqcn_load=0.3" (the key's last part when
 * unique among the swept keys, else the whole key; '/' and blanks -> '_'). */
void sweep_point_name(const struct sweep_spec *s, const int *choice, char *buf, size_t n);

/* The scenario text with keys[i] = vals[i] applied: an existing line is
 * replaced, a missing key is added at the end of its section (or in a new
 * section at the end), and the [sweep] section is commented out.
 * The key "variant" (no section) names a [variant.NAME] section of text:
 * its section.key = value lines are applied together (a sweep's named
 * bundles of settings, e.g. "LetFlow + HF2T" = two keys; the sweep's own
 * keys win), and every [variant.NAME] section is commented out too.
 * Returns a malloc'ed string. */
char *sweep_resolve(const char *text, const char *const *keys, const char *const *vals, int n);

/* A variant key: "variant", or "variant_WORD" for a second dimension of
 * bundles (FLB's Fig. 16: LB+CC schemes x (senders, size) pairs); all name
 * [variant.NAME] sections. */
bool sweep_is_variant_key(const char *key);

#endif
