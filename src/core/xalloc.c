#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>

static void *check(void *p)
{
    if (!p) {
        fputs("rocesim: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

void *xmalloc(size_t size) { return check(malloc(size ? size : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t size) { return check(realloc(p, size ? size : 1)); }
