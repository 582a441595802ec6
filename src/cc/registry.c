/* Every congestion control, by name. Adding a scheme: one file, its extern
 * line and its line in cc_registry[]; a companion also a line in
 * cc_companions[] (docs/adding-a-scheme.md). */
#include <string.h>
#include "net/cc.h"

extern const struct cc_ops cc_dcqcn, cc_dctcp, cc_hf2t, cc_hpcc, cc_none, cc_pbfs, cc_pcn, cc_timely;
extern const struct cc_ops cc_qcn, cc_swift;
extern const struct cc_ops cc_flbrc;
extern const struct cc_ops cc_slowstart;
extern const struct cc_ops cc_mprdma;

const struct cc_ops *const cc_registry[] = {
    &cc_dcqcn,
    &cc_dctcp,
    &cc_hf2t,
    &cc_hpcc,
    &cc_mprdma,
    &cc_none,
    &cc_pbfs,
    &cc_pcn,
    &cc_qcn,
    &cc_swift,
    &cc_timely,
    &cc_flbrc,
    &cc_slowstart,
    NULL,
};

/* A companion is listed here too (at most CC_COMPANIONS_MAX): nothing else
 * names it; [transport] gets its on/off key, the run its slot. */
const struct cc_ops *const cc_companions[] = {
    &cc_pbfs,
    &cc_hf2t,
    &cc_slowstart,
    NULL,
};

int cc_index(const char *name)
{
    for (int i = 0; cc_registry[i]; i++)
        if (strcmp(cc_registry[i]->name, name) == 0)
            return i;
    return -1;
}

const struct cc_ops *cc_find(const char *name)
{
    int i = cc_index(name);
    return i < 0 ? NULL : cc_registry[i];
}
