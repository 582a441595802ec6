/* Allocation that cannot fail quietly: running out of memory is not bad
 * input, so these print one line and exit(1) instead of returning NULL. A
 * zero count still returns a unique pointer, so callers need no special case. */
#ifndef ROCESIM_XALLOC_H
#define ROCESIM_XALLOC_H
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);

#endif
