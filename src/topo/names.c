/* Node names of generated topologies (hostN, leafN, spineN, edgeP.I, aggP.J,
 * coreC, sN) both ways, beside plain node ids. */
#include "topo/topo.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"

/* Digits only, no sign or blanks, at most 10 of them; advances *p. */
static bool take_uint(const char **p, uint32_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int n = 0;
    while (*s >= '0' && *s <= '9' && n < 11) {
        x = x * 10 + (uint64_t)(*s++ - '0');
        n++;
    }
    if (n == 0 || n > 10 || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    *p = s;
    return true;
}

/* "PREFIX<i>" (pods == 0) or "PREFIX<p>.<i>" (i < per_pod), in [0, count). */
static bool take_named(const char *name, const char *prefix, uint32_t count, uint32_t per_pod, uint32_t *idx)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return false;
    const char *s = name + pl;
    uint32_t a, b;
    if (!take_uint(&s, &a))
        return false;
    if (per_pod) {
        if (*s++ != '.' || !take_uint(&s, &b) || b >= per_pod || (uint64_t)a * per_pod + b >= count)
            return false;
        a = a * per_pod + b;
    }
    if (*s || a >= count)
        return false;
    *idx = a;
    return true;
}

int topo_node_find(const struct topo *t, const char *name, uint32_t *id)
{
    const char *s = name;
    uint32_t i;
    if (take_uint(&s, &i) && !*s)
        return i < t->n_nodes ? (*id = i, 0) : -1;
    bool pods = t->naming == NAMES_PODS;
    if (t->naming == NAMES_IDS)
        return -1;
    if (take_named(name, "host", t->n_hosts, 0, &i))
        return *id = t->hosts[i], 0;
    if (t->naming == NAMES_DUMBBELL)
        return take_named(name, "s", t->n_edge, 0, &i) ? (*id = t->first_edge + i, 0) : -1;
    if (take_named(name, pods ? "edge" : "leaf", t->n_edge, pods ? t->n_edge_pp : 0, &i))
        return *id = t->first_edge + i, 0;
    if (take_named(name, pods ? "agg" : "spine", t->n_agg, pods ? t->n_agg_pp : 0, &i))
        return *id = t->first_agg + i, 0;
    if (pods && take_named(name, "core", t->n_core, 0, &i))
        return *id = t->first_core + i, 0;
    return -1;
}

void topo_node_name(const struct topo *t, uint32_t id, char *buf, size_t n)
{
    bool pods = t->naming == NAMES_PODS;
    if (t->naming == NAMES_IDS || id >= t->n_nodes)
        snprintf(buf, n, "%u", id);
    else if (!t->nodes[id].is_switch)
        snprintf(buf, n, "host%d", t->host_index[id]);
    else if (t->naming == NAMES_DUMBBELL)
        snprintf(buf, n, "s%u", id - t->first_edge);
    else if (id - t->first_edge < t->n_edge)
        pods ? snprintf(buf, n, "edge%u.%u", (id - t->first_edge) / t->n_edge_pp, (id - t->first_edge) % t->n_edge_pp)
             : snprintf(buf, n, "leaf%u", id - t->first_edge);
    else if (id - t->first_agg < t->n_agg)
        pods ? snprintf(buf, n, "agg%u.%u", (id - t->first_agg) / t->n_agg_pp, (id - t->first_agg) % t->n_agg_pp)
             : snprintf(buf, n, "spine%u", id - t->first_agg);
    else
        snprintf(buf, n, "core%u", id - t->first_core);
}

const char *topo_naming_help(const struct topo *t)
{
    switch (t->naming) {
    case NAMES_LEAFSPINE: return "node ids, hostN, leafN, spineN";
    case NAMES_PODS: return "node ids, hostN, edgeP.N, aggP.N, coreN (P = pod)";
    case NAMES_DUMBBELL: return "node ids, hostN, sN";
    default: return "node ids";
    }
}
