#include "core/param.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/units.h"

const char PARAM_UNKNOWN[] = "unknown key";

const struct param *param_find(const struct param *tab, const char *key)
{
    for (const struct param *p = tab; p && p->name; p++)
        if (strcmp(p->name, key) == 0)
            return p;
    return NULL;
}

static _Thread_local char why_buf[256];

static int enum_index(const char *choices, const char *val)
{
    int idx = 0;
    const char *c = choices;
    size_t vl = strlen(val);
    while (*c) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == vl && strncasecmp(c, val, len) == 0)
            return idx;
        idx++;
        if (!bar)
            break;
        c = bar + 1;
    }
    return -1;
}

static const char *check_range(const struct param *p, double v)
{
    if (p->min < p->max && (v < p->min || v > p->max)) {
        snprintf(why_buf, sizeof why_buf, "value out of range [%g, %g]", p->min, p->max);
        return why_buf;
    }
    return NULL;
}

int param_set(const struct param *tab, void *base, const char *key, const char *val, const char **why)
{
    const struct param *p = param_find(tab, key);
    const char *w = NULL;
    if (!p) {
        *why = PARAM_UNKNOWN;
        return -1;
    }
    char *dst = (char *)base + p->offset;
    switch (p->type) {
    case P_BOOL: {
        bool b;
        if (!(w = parse_bool(val, &b)))
            *(bool *)dst = b;
        break;
    }
    case P_INT: {
        int64_t v;
        if (!(w = parse_int(val, &v)) && !(w = check_range(p, (double)v)))
            *(int64_t *)dst = v;
        break;
    }
    case P_BYTES: {
        int64_t v = 0;
        uint64_t b;
        if (!parse_int(val, &v)) /* a plain number, or a size with its unit */
            w = check_range(p, (double)v);
        else if (!(w = parse_size(val, &b)))
            w = b > INT64_MAX ? "size out of range" : check_range(p, (double)(v = (int64_t)b));
        if (!w)
            *(int64_t *)dst = v;
        break;
    }
    case P_DOUBLE: {
        double v;
        if (!(w = parse_double(val, &v)) && !(w = check_range(p, v)))
            *(double *)dst = v;
        break;
    }
    case P_RATE: {
        uint64_t v;
        if (!(w = parse_rate(val, &v)) && !(w = check_range(p, (double)v)))
            *(uint64_t *)dst = v;
        break;
    }
    case P_TIME: {
        simtime_t v;
        if (!(w = parse_time(val, &v)) && !(w = check_range(p, (double)v)))
            *(simtime_t *)dst = v;
        break;
    }
    case P_SIZE: {
        uint64_t v;
        if (!(w = parse_size(val, &v)) && !(w = check_range(p, (double)v)))
            *(uint64_t *)dst = v;
        break;
    }
    case P_STR:
        if (strlen(val) >= PARAM_STR_MAX)
            w = "value too long";
        else
            strcpy(dst, val);
        break;
    case P_ENUM: {
        int i = enum_index(p->choices, val);
        if (i < 0) {
            snprintf(why_buf, sizeof why_buf, "expected one of %s", p->choices);
            w = why_buf;
        } else {
            *(int *)dst = i;
        }
        break;
    }
    case P_WINDOW: {
        uint64_t v;
        if (strcasecmp(val, "off") == 0)
            *(uint64_t *)dst = 0;
        else if (strcasecmp(val, "bdp") == 0)
            *(uint64_t *)dst = PARAM_WIN_BDP;
        else if (!(w = parse_size(val, &v)))
            *(uint64_t *)dst = v;
        else
            w = "expected off, bdp or a size such as 64KB";
        break;
    }
    }
    *why = w;
    return w ? -1 : 0;
}

int param_defaults(const struct param *tab, void *base)
{
    for (const struct param *p = tab; p && p->name; p++) {
        const char *why;
        if (param_set(tab, base, p->name, p->def, &why) < 0) {
            fprintf(stderr, "internal: bad default for %s: %s\n", p->name, why);
            return -1;
        }
    }
    return 0;
}

void param_value_str(const struct param *p, const void *base, char *buf, int n)
{
    const char *src = (const char *)base + p->offset;
    switch (p->type) {
    case P_BOOL: snprintf(buf, n, "%s", *(const bool *)src ? "on" : "off"); break;
    case P_INT:
    case P_BYTES: snprintf(buf, n, "%lld", (long long)*(const int64_t *)src); break;
    case P_DOUBLE: { /* the shortest form that reads back as the same double */
        double v = *(const double *)src;
        snprintf(buf, n, "%.15g", v);
        if (strtod(buf, NULL) != v)
            snprintf(buf, n, "%.17g", v);
        break;
    }
    case P_RATE: fmt_rate(buf, n, *(const uint64_t *)src); break;
    case P_TIME: fmt_time(buf, n, *(const simtime_t *)src); break;
    case P_SIZE: fmt_size(buf, n, *(const uint64_t *)src); break;
    case P_STR: snprintf(buf, n, "%s", src); break;
    case P_ENUM: {
        int idx = *(const int *)src;
        const char *c = p->choices;
        for (int i = 0; i < idx && c; i++) {
            c = strchr(c, '|');
            if (c)
                c++;
        }
        const char *bar = c ? strchr(c, '|') : NULL;
        snprintf(buf, n, "%.*s", c ? (int)(bar ? bar - c : (long)strlen(c)) : 0, c ? c : "");
        break;
    }
    case P_WINDOW: {
        uint64_t w = *(const uint64_t *)src;
        if (w == 0)
            snprintf(buf, n, "off");
        else if (w == PARAM_WIN_BDP)
            snprintf(buf, n, "bdp");
        else
            fmt_size(buf, n, w);
        break;
    }
    }
}

void param_print(FILE *out, const struct param *tab, const char *prefix)
{
    for (const struct param *p = tab; p && p->name; p++) {
        char key[128];
        snprintf(key, sizeof key, "%s%s%s = %s", prefix ? prefix : "", prefix ? "." : "", p->name, p->def);
        if (p->type == P_ENUM)
            fprintf(out, "    %-40s %s (%s)\n", key, p->help, p->choices);
        else
            fprintf(out, "    %-40s %s\n", key, p->help);
    }
}
