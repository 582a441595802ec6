/* Shared helpers for the cmocka tests. */
#ifndef ROCESIM_TESTUTIL_H
#define ROCESIM_TESTUTIL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Number of fuzz iterations: smaller under sanitizers (ROCESIM_SANITIZED=1). */
int fuzz_iterations(int normal);
/* Mutate buf (len bytes, capacity cap) in place; returns new length. */
size_t fuzz_mutate(char *buf, size_t len, size_t cap, uint64_t *state);

#endif
