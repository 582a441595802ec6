#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "core/xalloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "core/err.h"

/* Exit code 2, as for bad input: a scenario too large for this machine is
 * the user's to change (fewer hosts, flows or a shorter run), not a crash. */
static void *check(void *p, size_t n, size_t size)
{
    if (!p) {
        fprintf(stderr, "rocesim: out of memory (allocating %zu x %zu bytes): the scenario is too large for this "
                        "machine's memory\n", n, size);
        exit(EXIT_BADINPUT);
    }
    return p;
}

void *xmalloc(size_t size) { return check(malloc(size ? size : 1), 1, size); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1), n, size); }
void *xrealloc(void *p, size_t size) { return check(realloc(p, size ? size : 1), 1, size); }

void *xcalloc_aligned(size_t n, size_t size, size_t align)
{
    if (!n || !size)
        n = size = 1;
    if (n > SIZE_MAX / size)
        return check(NULL, n, size);
    void *p = NULL;
    if (posix_memalign(&p, align, n * size) != 0)
        p = NULL;
    check(p, n, size);
    return memset(p, 0, n * size);
}

void *xcalloc_pages(size_t n, size_t size)
{
    if (!n || !size)
        n = size = 1;
    if (n > SIZE_MAX / size)
        return check(NULL, n, size);
    void *p = mmap(NULL, n * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return check(p == MAP_FAILED ? NULL : p, n, size);
}

void xfree_pages(void *p, size_t n, size_t size)
{
    if (p)
        munmap(p, n && size ? n * size : 1);
}

unsigned char *bytes_room(struct bytes *x, size_t n)
{
    if (x->len + n > x->cap) {
        x->cap = 2 * (x->len + n) + 256;
        x->b = xrealloc(x->b, x->cap);
    }
    return x->b + x->len;
}

void bytes_put(struct bytes *x, const void *p, size_t n)
{
    if (n)
        memcpy(bytes_room(x, n), p, n);
    x->len += n;
}
