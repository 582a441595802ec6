/* The ns-3 HPCC config.txt loader, then the whole-config checks. */
#include "fuzz_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct config c;
    struct err e = {{0}};
    if (config_init(&c))
        abort();
    int r = config_load_ns3(&c, text, "fuzz.txt", &e);
    fuzz_check(r, &e, "fuzz.txt", 0);
    fuzz_config_finish(&c, r, text);
    return 0;
}
