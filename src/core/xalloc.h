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
/* Zeroed n x size bytes, page-aligned, straight from the kernel: a page is
 * memory the process holds only once something is written there (the port
 * array, whose other ranks' ports a rank never writes). xfree_pages(p, n, size)
 * frees it. */
void *xcalloc_pages(size_t n, size_t size);
void xfree_pages(void *p, size_t n, size_t size);

/* A growing byte buffer (messages between partitions and ranks, the
 * deadlock check's graph): len bytes used of cap at b; free(b) frees it. */
struct bytes {
    unsigned char *b;
    size_t len, cap;
};
/* Room for n more bytes; returns where they go (b + len). */
unsigned char *bytes_room(struct bytes *x, size_t n);
/* Appends n bytes. */
void bytes_put(struct bytes *x, const void *p, size_t n);

#endif
