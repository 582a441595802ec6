/* Allocation that cannot fail quietly: these print one line and exit with
 * code 2 (like bad input: the scenario is too large) instead of returning NULL. A
 * zero count still returns a unique pointer, so callers need no special case. */
#ifndef ROCESIM_XALLOC_H
#define ROCESIM_XALLOC_H
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* Zeroed n x size bytes aligned to `align` (a power of two, a multiple of
 * sizeof(void *)), for arrays of cache-line aligned structs; free() frees it. */
void *xcalloc_aligned(size_t n, size_t size, size_t align);

#endif
