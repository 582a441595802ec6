/* Growable flow lists, their stable sort, and whole-file reading. */
#include "traffic/traffic.h"
#include <errno.h>
#include <stdio.h>
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
        if (l->name_of) {
            uint32_t *nn = realloc(l->name_of, nc * sizeof *nn);
            if (!nn) /* v grew, cap did not: the next push tries again */
                return -1;
            l->name_of = nn;
        }
        l->cap = nc;
    }
    if (l->name_of)
        l->name_of[l->n] = 0;
    l->v[l->n++] = *f;
    return 0;
}

int flow_list_push_named(struct flow_list *l, const struct flow_spec *f, const char *name)
{
    if (!l->name_of) {
        l->name_of = calloc(l->cap ? l->cap : 1, sizeof *l->name_of);
        if (!l->name_of)
            return -1;
    }
    if (l->n_names == l->cap_names) {
        size_t nc = l->cap_names ? l->cap_names * 2 : 16;
        if (nc > UINT32_MAX - 1 || nc > SIZE_MAX / sizeof *l->names)
            return -1;
        char(*nn)[FLOW_NAME_MAX] = realloc(l->names, nc * sizeof *nn);
        if (!nn)
            return -1;
        l->names = nn;
        l->cap_names = nc;
    }
    if (flow_list_push(l, f))
        return -1;
    snprintf(l->names[l->n_names], FLOW_NAME_MAX, "%s", name ? name : "");
    l->name_of[l->n - 1] = (uint32_t)++l->n_names;
    return 0;
}

const char *flow_list_name(const struct flow_list *l, size_t i)
{
    if (!l->name_of || i >= l->n || l->name_of[i] == 0 || l->name_of[i] > l->n_names)
        return NULL;
    return l->names[l->name_of[i] - 1];
}

void flow_list_free(struct flow_list *l)
{
    free(l->v);
    free(l->name_of);
    free(l->names);
    memset(l, 0, sizeof *l);
}

int flow_list_order(const struct flow_list *l, uint32_t *order)
{
    size_t n = l->n;
    uint32_t *a = order, *b = malloc((n ? n : 1) * sizeof *b);
    if (!b)
        return -1;
    for (size_t i = 0; i < n; i++)
        a[i] = (uint32_t)i;
    /* bottom-up merge sort; taking from the left run on ties keeps it stable */
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t x = lo, y = mid, k = lo;
            while (x < mid && y < hi)
                b[k++] = l->v[a[y]].start < l->v[a[x]].start ? a[y++] : a[x++];
            while (x < mid)
                b[k++] = a[x++];
            while (y < hi)
                b[k++] = a[y++];
        }
        uint32_t *t = a;
        a = b;
        b = t;
    }
    if (a != order) { /* the result ended in the scratch buffer */
        memcpy(order, a, n * sizeof *order);
        b = a;
    }
    free(b);
    return 0;
}

/* With names beside the flows: the stable order of positions, then both
 * arrays put in that order; insertion sort if out of memory. */
static void sort_named(struct flow_list *l)
{
    size_t n = l->n;
    uint32_t *a = malloc(n * sizeof *a);
    struct flow_spec *v = malloc(n * sizeof *v);
    uint32_t *nm = malloc(n * sizeof *nm);
    if (!a || !v || !nm || flow_list_order(l, a) < 0) {
        for (size_t i = 1; i < n; i++) {
            struct flow_spec f = l->v[i];
            uint32_t m = l->name_of[i];
            size_t j = i;
            for (; j > 0 && l->v[j - 1].start > f.start; j--) {
                l->v[j] = l->v[j - 1];
                l->name_of[j] = l->name_of[j - 1];
            }
            l->v[j] = f;
            l->name_of[j] = m;
        }
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        v[i] = l->v[a[i]];
        nm[i] = l->name_of[a[i]];
    }
    memcpy(l->v, v, n * sizeof *v);
    memcpy(l->name_of, nm, n * sizeof *nm);
out:
    free(a);
    free(v);
    free(nm);
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
    if (l->name_of) {
        sort_named(l);
        return;
    }
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
