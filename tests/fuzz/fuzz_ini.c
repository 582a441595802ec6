/* The INI scenario loader, then the whole-config checks on what it accepts. */
#include "fuzz.h"
#include "cli/config_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct config c;
    struct err e = {{0}};
    if (config_init(&c))
        abort();
    int r = config_load_ini(&c, text, "fuzz.ini", &e);
    fuzz_check(r, &e, "fuzz.ini", 0);
    if (r == 0) {
        /* Errors here name the key's origin ("fuzz.ini:LINE") or the file. */
        r = config_validate(&c, &e);
        if (r != 0 && r != -1)
            fuzz_fail("config_validate returned neither 0 nor -1", e.msg);
        if (r == -1 && !e.msg[0])
            fuzz_fail("config_validate failed without a message", e.msg);
    }
    config_load_free(&c);
    config_free(&c);
    free(text);
    return 0;
}
