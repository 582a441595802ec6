/* Private to scenario/load_*.c and validate.c: the key-setting helpers the
 * INI reader, the ns-3 reader and validation share. */
#ifndef ROCESIM_LOAD_IMPL_H
#define ROCESIM_LOAD_IMPL_H
#include <stdbool.h>
#include <stddef.h>
#include "scenario/load.h"

#define WHERE_MAX (PARAM_STR_MAX + 64)

/* "section.key" -> "file:line" or "--set OPT", hung off c->origins. */
struct origin {
    char *key, *where;
};
struct origins {
    struct origin *v;
    size_t n, cap;
};

/* Records that section.key was set at where ("file:line" or "--set OPT"). */
int cfg_origin_set(struct config *c, const char *sec, const char *key, const char *where);
/* For messages about a scheme name: "did you mean `X`? " when `typed`
 * (may be NULL) is a near miss, then "known: " and the registered CC (or
 * LB) names; as a value of transport.cc (not `sections`), without the
 * companions, which are named apart with the key that turns them on. */
void cfg_scheme_names(char *buf, size_t n, bool lb, bool sections, const char *typed);
/* Sets [sec] key = val; errors start with where; the origin is recorded when record. */
int cfg_set_key(struct config *c, const char *sec, const char *key, const char *val, const char *where, bool record,
                struct err *e);
/* run.name from a path, unless set (see load_ini.c). */
void cfg_default_name(struct config *c, const char *path, bool dir_if_config);
/* c->source = fname, for messages about keys with no origin. */
void cfg_set_source(struct config *c, const char *fname);

#endif
