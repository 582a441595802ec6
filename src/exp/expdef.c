/* The `.exp` experiment file format (experiments/NAME.exp): [section]s of
 * `key = value` lines, whole-line comments only, kept in file order with
 * their line numbers. Read by reproduce.c (the driver) and page.c (through
 * the opaque exp_def handle of exp.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/xalloc.h"
#include "exp/expdef.h"

char *expdef_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t l = strlen(s);
    while (l && (s[l - 1] == ' ' || s[l - 1] == '\t' || s[l - 1] == '\r' || s[l - 1] == '\n'))
        s[--l] = 0;
    return s;
}

/* Sections and key = value lines; whole-line comments (# or ;) only, so the
 * paper's text may hold any character. */
int expdef_load(struct expdef *x, const char *path)
{
    memset(x, 0, sizeof *x);
    snprintf(x->path, sizeof x->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char sec[64] = "", *line = NULL;
    size_t cap = 0;
    int ln = 0, rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        ln++;
        char *s = expdef_trim(line);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *e = strchr(s, ']');
            if (!e) {
                fprintf(stderr, "%s:%d: expected [section]\n", path, ln);
                rc = -1;
                break;
            }
            *e = 0;
            snprintf(sec, sizeof sec, "%s", expdef_trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq || !*sec) {
            fprintf(stderr, "%s:%d: expected key = value inside a [section]\n", path, ln);
            rc = -1;
            break;
        }
        *eq = 0;
        x->kv = xrealloc(x->kv, (size_t)(x->n + 1) * sizeof *x->kv);
        struct expdef_kv *k = &x->kv[x->n++];
        snprintf(k->sec, sizeof k->sec, "%s", sec);
        snprintf(k->key, sizeof k->key, "%s", expdef_trim(s));
        k->val = strdup(expdef_trim(eq + 1));
        k->line = ln;
    }
    free(line);
    fclose(f);
    return rc;
}

void expdef_free(struct expdef *x)
{
    for (int i = 0; i < x->n; i++)
        free(x->kv[i].val);
    free(x->kv);
}

const char *expdef_get(const struct expdef *x, const char *sec, const char *key)
{
    for (int i = 0; i < x->n; i++)
        if (strcmp(x->kv[i].sec, sec) == 0 && strcmp(x->kv[i].key, key) == 0)
            return x->kv[i].val;
    return NULL;
}

/* For page.c (exp.h): an experiment file as an opaque handle. */
struct exp_def {
    struct expdef x;
};

struct exp_def *exp_def_open(const char *path)
{
    struct exp_def *d = xcalloc(1, sizeof *d);
    if (expdef_load(&d->x, path) < 0) {
        expdef_free(&d->x);
        free(d);
        return NULL;
    }
    return d;
}

void exp_def_close(struct exp_def *d)
{
    if (d)
        expdef_free(&d->x);
    free(d);
}

const char *exp_def_get(const struct exp_def *d, const char *sec, const char *key)
{
    return expdef_get(&d->x, sec, key);
}

int exp_def_item(const struct exp_def *d, int i, const char **sec, const char **key, const char **val)
{
    if (i < 0 || i >= d->x.n)
        return -1;
    *sec = d->x.kv[i].sec;
    *key = d->x.kv[i].key;
    *val = d->x.kv[i].val;
    return d->x.kv[i].line;
}
