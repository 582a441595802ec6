/* Growable flow lists, their stable sort, and whole-file reading. */
#include "traffic/traffic.h"
#include "traffic/simai.h"
#include "traffic/collective.h"
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
    free(l->deps);
    for (size_t j = 0; j < l->n_jobs; j++)
        free(l->jobs[j].hosts);
    free(l->jobs);
    for (size_t i = 0; i < l->n_simai; i++)
        simai_sched_free(&l->simai[i]);
    free(l->simai);
    memset(l, 0, sizeof *l);
}

int64_t flow_list_add_deps(struct flow_list *l, const uint32_t *ids, size_t n)
{
    if (l->cap_deps - l->n_deps < n) {
        size_t nc = l->cap_deps ? l->cap_deps : 256;
        while (nc - l->n_deps < n)
            nc *= 2;
        if (nc > UINT32_MAX || nc > SIZE_MAX / sizeof *l->deps)
            return -1;
        uint32_t *nd = realloc(l->deps, nc * sizeof *nd);
        if (!nd)
            return -1;
        l->deps = nd;
        l->cap_deps = nc;
    }
    size_t at = l->n_deps;
    if (n)
        memcpy(l->deps + at, ids, n * sizeof *ids);
    l->n_deps += n;
    return (int64_t)at;
}

/* Kahn's algorithm over [from, n): what is left when no flow is ready lies on
 * a cycle or behind one; following unfinished prerequisites from there ends
 * on the cycle. */
int flow_list_check_deps(const struct flow_list *l, size_t from, size_t *bad, const char **why)
{
    size_t n = l->n, m = n - from;
    for (size_t i = from; i < n; i++)
        for (uint32_t k = 0; k < l->v[i].ndeps; k++) {
            uint32_t d = l->deps[l->v[i].dep0 + k] & FLOW_DEP_ID;
            if (d < from || d >= n) {
                *bad = i, *why = "waits for a flow that does not exist";
                return -1;
            }
            if (d == i) {
                *bad = i, *why = "waits for itself";
                return -1;
            }
            if (l->deps[l->v[i].dep0 + k] & FLOW_DEP_QP) { /* continues d's queue pair */
                if (l->v[d].src != l->v[i].src || l->v[d].dst != l->v[i].dst) {
                    *bad = i, *why = "continues the queue pair of a flow between other hosts";
                    return -1;
                }
                for (uint32_t k2 = 0; k2 < k; k2++)
                    if (l->deps[l->v[i].dep0 + k2] & FLOW_DEP_QP) {
                        *bad = i, *why = "continues two queue pairs";
                        return -1;
                    }
            }
        }
    if (m == 0)
        return 0;
    uint32_t *left = calloc(m, sizeof *left), *off = calloc(m + 1, sizeof *off), *queue = calloc(m, sizeof *queue);
    uint32_t *succ = NULL;
    int rc = 0;
    size_t edges = 0;
    for (size_t i = from; i < n; i++)
        edges += l->v[i].ndeps;
    succ = malloc((edges ? edges : 1) * sizeof *succ);
    if (!left || !off || !queue || !succ) {
        *bad = from, *why = "out of memory checking dependencies";
        rc = -1;
        goto out;
    }
    for (size_t i = from; i < n; i++) {
        left[i - from] = l->v[i].ndeps;
        for (uint32_t k = 0; k < l->v[i].ndeps; k++)
            off[(l->deps[l->v[i].dep0 + k] & FLOW_DEP_ID) - from + 1]++;
    }
    for (size_t i = from; i < n; i++) /* a message has one next message on its queue pair: queue marks it */
        for (uint32_t k = 0; k < l->v[i].ndeps; k++)
            if (l->deps[l->v[i].dep0 + k] & FLOW_DEP_QP) {
                uint32_t d = (l->deps[l->v[i].dep0 + k] & FLOW_DEP_ID) - (uint32_t)from;
                if (queue[d] == UINT32_MAX) {
                    *bad = i, *why = "continues a queue pair another flow already continues";
                    rc = -1;
                    goto out;
                }
                queue[d] = UINT32_MAX;
            }
    for (size_t i = 0; i < m; i++)
        off[i + 1] += off[i];
    {
        uint32_t *fill = queue; /* as a cursor per flow, before it is the queue */
        memcpy(fill, off, m * sizeof *fill);
        for (size_t i = from; i < n; i++)
            for (uint32_t k = 0; k < l->v[i].ndeps; k++)
                succ[fill[(l->deps[l->v[i].dep0 + k] & FLOW_DEP_ID) - from]++] = (uint32_t)(i - from);
    }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < m; i++)
        if (!left[i])
            queue[tail++] = (uint32_t)i;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t k = off[u]; k < off[u + 1]; k++)
            if (--left[succ[k]] == 0)
                queue[tail++] = succ[k];
    }
    if (tail < m) {
        size_t u = 0;
        while (!left[u])
            u++;
        for (size_t step = 0; step < m; step++) { /* m steps along waiting prerequisites land on the cycle */
            const struct flow_spec *f = &l->v[from + u];
            for (uint32_t k = 0; k < f->ndeps; k++)
                if (left[(l->deps[f->dep0 + k] & FLOW_DEP_ID) - from]) {
                    u = (l->deps[f->dep0 + k] & FLOW_DEP_ID) - from;
                    break;
                }
        }
        *bad = from + u, *why = "is on a cycle of dependencies";
        rc = -1;
    }
out:
    free(left);
    free(off);
    free(queue);
    free(succ);
    return rc;
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

/* Dependencies name flows by index: after a permutation (new place i holds
 * old flow a[i]) they are renamed. */
static void remap_deps(struct flow_list *l, const uint32_t *a, uint32_t *inv)
{
    for (size_t i = 0; i < l->n; i++)
        inv[a[i]] = (uint32_t)i;
    for (size_t k = 0; k < l->n_deps; k++)
        if ((l->deps[k] & FLOW_DEP_ID) < l->n)
            l->deps[k] = inv[l->deps[k] & FLOW_DEP_ID] | (l->deps[k] & FLOW_DEP_FLAGS);
}

/* With names or dependencies beside the flows: the stable order of
 * positions, then the arrays put in that order; names by insertion sort if
 * out of memory (dependencies need the order: without memory they stay). */
static void sort_named(struct flow_list *l)
{
    size_t n = l->n;
    uint32_t *a = malloc(n * sizeof *a);
    struct flow_spec *v = malloc(n * sizeof *v);
    uint32_t *nm = malloc(n * sizeof *nm);
    if (!a || !v || !nm || flow_list_order(l, a) < 0) {
        for (size_t i = 1; l->name_of && !l->n_deps && i < n; i++) {
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
    for (size_t i = 0; i < n; i++)
        v[i] = l->v[a[i]];
    memcpy(l->v, v, n * sizeof *v);
    if (l->name_of) {
        for (size_t i = 0; i < n; i++)
            nm[i] = l->name_of[a[i]];
        memcpy(l->name_of, nm, n * sizeof *nm);
    }
    if (l->n_deps)
        remap_deps(l, a, nm);
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
    if (l->name_of || l->n_deps) {
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
