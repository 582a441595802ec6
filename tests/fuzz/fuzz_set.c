/* --set options: one per input line, applied in order, then the whole-config
 * checks. Every error names the option ("--set OPT: ..."). */
#include "fuzz_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct config c;
    struct err e = {{0}};
    if (config_init(&c))
        abort();
    int r = 0;
    for (char *line = text, *next; line && r == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (!*line)
            continue;
        r = config_apply_set(&c, line, &e);
        if (r != 0 && r != -1)
            fuzz_fail("return value not 0 or -1", e.msg);
        if (r == -1 && strncmp(e.msg, "--set ", 6) != 0)
            fuzz_fail("--set error without the option", e.msg);
    }
    fuzz_config_finish(&c, r, text);
    return 0;
}
