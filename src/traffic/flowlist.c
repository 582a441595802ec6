/* Growable flow lists, their stable sort, and whole-file reading. */
#include "traffic/traffic.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int flow_list_push(struct flow_list *l, const struct flow_spec *f)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        if (nc < l->cap || nc > SIZE_MAX / sizeof *l->v)
            return -1;
        struct flow_spec *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        l->cap = nc;
    }
    l->v[l->n++] = *f;
    return 0;
}

void flow_list_free(struct flow_list *l)
{
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Bottom-up merge sort: stable, O(n log n), one scratch buffer. Taking from
 * the left run on ties is what keeps equal start times in file order. */
void flow_list_sort(struct flow_list *l)
{
    size_t n = l->n, i;
    for (i = 1; i < n && l->v[i - 1].start <= l->v[i].start; i++)
        ;
    if (i >= n)
        return; /* already sorted: the generators' usual case */
    struct flow_spec *a = l->v, *b = malloc(n * sizeof *b);
    if (!b) {
        /* Out of memory: stable insertion sort, slow but correct. */
        for (i = 1; i < n; i++) {
            struct flow_spec f = a[i];
            size_t j = i;
            for (; j > 0 && a[j - 1].start > f.start; j--)
                a[j] = a[j - 1];
            a[j] = f;
        }
        return;
    }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi)
                b[k++] = a[y].start < a[x].start ? a[y++] : a[x++];
            while (x < mid)
                b[k++] = a[x++];
            while (y < hi)
                b[k++] = a[y++];
        }
        struct flow_spec *t = a;
        a = b;
        b = t;
    }
    if (a != l->v) {
        memcpy(l->v, a, n * sizeof *a);
        free(a);
    } else {
        free(b);
    }
}

int read_text_file(const char *path, char **out, struct err *e)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return errf(e, "%s: cannot open: %s", path, strerror(errno));
    size_t len = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (cap - len < 4096 + 1) {
            size_t nc = cap ? cap * 2 : 65536;
            char *nb = nc > cap ? realloc(buf, nc) : NULL;
            if (!nb) {
                free(buf);
                fclose(f);
                return errf(e, "%s: out of memory", path);
            }
            buf = nb;
            cap = nc;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f), why = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return errf(e, "%s: cannot read: %s", path, strerror(why));
    }
    if (memchr(buf, '\0', len)) {
        free(buf);
        return errf(e, "%s: binary data (a NUL byte), not a text file", path);
    }
    buf[len] = '\0';
    *out = buf;
    return 0;
}
