/* The INI scenario loader, then the whole-config checks on what it accepts. */
#include "fuzz_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct config c;
    struct err e = {{0}};
    if (config_init(&c))
        abort();
    int r = config_load_ini(&c, text, "fuzz.ini", &e);
    fuzz_check(r, &e, "fuzz.ini", 0);
    fuzz_config_finish(&c, r, text);
    return 0;
}
