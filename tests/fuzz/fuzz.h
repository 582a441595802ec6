/* Shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c). Each harness
 * defines LLVMFuzzerTestOneInput; built with clang -fsanitize=fuzzer it is a
 * fuzzer (`make fuzz`), built with replay.c it replays stored inputs in the
 * ordinary test suite (regressions under tests/fuzz/regress/). The contract
 * every harness checks: a parser returns 0 or -1, and on -1 its message
 * starts with the name it was given and ":" (the file:line rule); anything
 * else aborts, which the fuzzer reports as a finding. */
#ifndef ROCESIM_FUZZ_H
#define ROCESIM_FUZZ_H
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string: parsers take text, and a NUL inside the input
 * ends it (the file readers reject NUL bytes before parsing). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

static inline void fuzz_fail(const char *what, const char *msg)
{
    fprintf(stderr, "fuzz contract broken: %s: '%s'\n", what, msg);
    abort();
}

/* r must be 0 or -1; on -1 the message starts "prefix:" and, if need_line,
 * "prefix:LINE". */
static inline void fuzz_check(int r, const struct err *e, const char *prefix, int need_line)
{
    if (r == 0)
        return;
    if (r != -1)
        fuzz_fail("return value not 0 or -1", e->msg);
    size_t n = strlen(prefix);
    if (strncmp(e->msg, prefix, n) != 0 || e->msg[n] != ':')
        fuzz_fail("error does not start with the input's name", e->msg);
    if (need_line && !isdigit((unsigned char)e->msg[n + 1]))
        fuzz_fail("error without a line number", e->msg);
}

#endif
