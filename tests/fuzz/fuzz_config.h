/* Shared by the harnesses that load a whole config (INI, ns-3, --set): what a
 * loader accepted must pass or fail config_validate cleanly, with a message. */
#ifndef ROCESIM_FUZZ_CONFIG_H
#define ROCESIM_FUZZ_CONFIG_H
#include "fuzz.h"
#include "scenario/load.h"

/* r is the loader's result; validates when it accepted, then frees everything. */
static inline void fuzz_config_finish(struct config *c, int r, char *text)
{
    struct err e = {{0}};
    if (r == 0) {
        r = config_validate(c, &e);
        if (r != 0 && r != -1)
            fuzz_fail("config_validate returned neither 0 nor -1", e.msg);
        if (r == -1 && !e.msg[0])
            fuzz_fail("config_validate failed without a message", e.msg);
    }
    config_load_free(c);
    config_free(c);
    free(text);
}

#endif
