/* The ns-3 HPCC config.txt loader, then the whole-config checks. */
#include "fuzz.h"
#include "cli/config_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct config c;
    struct err e = {{0}};
    if (config_init(&c))
        abort();
    int r = config_load_ns3(&c, text, "fuzz.txt", &e);
    fuzz_check(r, &e, "fuzz.txt", 0);
    if (r == 0) {
        r = config_validate(&c, &e);
        if ((r != 0 && r != -1) || (r == -1 && !e.msg[0]))
            fuzz_fail("config_validate", e.msg);
    }
    config_load_free(&c);
    config_free(&c);
    free(text);
    return 0;
}
