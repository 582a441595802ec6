/* The port and flow lists of the [output] keys (queue_ports, util_ports,
 * flows), resolved against a built scenario for monitor.c. */
#include "stats/monitor.h"
#include "core/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "topo/topo.h"

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Next token of KEY's comma/space separated list into tok[n]: 1, or 0 at
 * the end, or -1 (e set) when it does not fit. */
static int next_item(const char **p, char *tok, size_t n, const char *key, struct err *e)
{
    const char *s = *p;
    while (*s == ',' || *s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return 0;
    size_t l = strcspn(s, ", \t");
    snprintf(tok, n, "%.*s", (int)(l < n ? l : n - 1), s);
    *p = s + l;
    if (l >= n)
        return errf(e, "%s: '%s...': item too long", key, tok);
    return 1;
}

static int layer_of_name(const char *s)
{
    static const struct {
        const char *name;
        int layer;
    } t[] = {{"host", LAYER_HOST}, {"edge", LAYER_EDGE}, {"tor", LAYER_EDGE}, {"leaf", LAYER_EDGE},
             {"agg", LAYER_AGG},   {"spine", LAYER_AGG}, {"core", LAYER_CORE}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(s, t[i].name) == 0)
            return t[i].layer;
    return -1;
}

bool monitor_is_uplink(const struct sim *s, uint32_t pid)
{
    const struct node *nd = &s->nodes[sim_port_node(s, pid)];
    return nd->is_switch && nd->layer == LAYER_EDGE && s->nodes[sim_peer_node(s, pid)].is_switch;
}

/* The indices i < n with sel[i], ascending, into *ids; their count. */
static int selected(const bool *sel, uint32_t n, uint32_t **ids)
{
    uint32_t cnt = 0;
    for (uint32_t i = 0; i < n; i++)
        cnt += sel[i];
    *ids = xcalloc(cnt, sizeof **ids);
    cnt = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sel[i])
            (*ids)[cnt++] = i;
    return (int)cnt;
}

int monitor_parse_ports(const struct sim *s, const char *key, const char *spec, uint32_t **pids, struct err *e)
{
    bool *sel = xcalloc(s->n_ports, sizeof *sel);
    const char *p = spec;
    char tok[64];
    int rc = -1, more;
    while ((more = next_item(&p, tok, sizeof tok, key, e)) > 0) {
        if (strcmp(tok, "all") == 0) {
            for (uint32_t i = 0; i < s->n_ports; i++)
                sel[i] = true;
            continue;
        }
        if (strcmp(tok, "uplinks") == 0) { /* edge switches' switch-facing ports */
            uint32_t found = 0;
            for (uint32_t i = 0; i < s->n_ports; i++)
                if (monitor_is_uplink(s, i))
                    sel[i] = true, found++;
            if (!found) {
                errf(e, "%s: 'uplinks': the topology has no edge switch with a link to another switch", key);
                goto out;
            }
            continue;
        }
        if (strncmp(tok, "layer:", 6) == 0) {
            int layer = layer_of_name(tok + 6);
            if (layer < 0) {
                errf(e, "%s: '%s': unknown layer (edge, agg, core or host)", key, tok);
                goto out;
            }
            uint32_t found = 0;
            for (uint32_t n = 0; n < s->n_nodes; n++)
                if ((layer == LAYER_HOST) ? !s->nodes[n].is_switch : (s->nodes[n].is_switch && s->nodes[n].layer == layer)) {
                    found++;
                    for (uint32_t k = 0; k < s->nodes[n].nports; k++)
                        sel[s->nodes[n].port0 + k] = true;
                }
            if (!found) {
                errf(e, "%s: '%s': the topology has no node in that layer", key, tok);
                goto out;
            }
            continue;
        }
        /* [sw|h|host]NODE:PORT or NODE:* */
        const char *t = tok;
        int want = -1; /* 1 switch, 0 host */
        if (strncmp(t, "sw", 2) == 0)
            t += 2, want = 1;
        else if (strncmp(t, "host", 4) == 0)
            t += 4, want = 0;
        else if (*t == 'h')
            t += 1, want = 0;
        const char *colon = strchr(t, ':');
        char node_s[32];
        if (!colon || colon == t || (size_t)(colon - t) >= sizeof node_s) {
            errf(e, "%s: '%s': expected NODE:PORT (e.g. 320:1 or sw320:1), NODE:*, layer:edge|agg|core|host, uplinks, or all",
                 key, tok);
            goto out;
        }
        snprintf(node_s, sizeof node_s, "%.*s", (int)(colon - t), t);
        const char *port_s = colon + 1;
        if (!all_digits(node_s) || (strcmp(port_s, "*") != 0 && !all_digits(port_s))) {
            errf(e, "%s: '%s': expected NODE:PORT (e.g. 320:1 or sw320:1), NODE:*, layer:edge|agg|core|host, uplinks, or all",
                 key, tok);
            goto out;
        }
        unsigned long long node = strtoull(node_s, NULL, 10);
        if (node >= s->n_nodes) {
            errf(e, "%s: '%s': node %llu does not exist (nodes 0..%u)", key, tok, node, s->n_nodes - 1);
            goto out;
        }
        const struct node *nd = &s->nodes[node];
        if (want >= 0 && (int)nd->is_switch != want) {
            errf(e, "%s: '%s': node %llu is a %s", key, tok, node, nd->is_switch ? "switch" : "host");
            goto out;
        }
        if (strcmp(port_s, "*") == 0) {
            for (uint32_t k = 0; k < nd->nports; k++)
                sel[nd->port0 + k] = true;
            continue;
        }
        unsigned long long port = strtoull(port_s, NULL, 10);
        if (port >= nd->nports) {
            errf(e, "%s: '%s': node %llu has %u port%s (0..%u, in link order)", key, tok, node, nd->nports,
                 nd->nports == 1 ? "" : "s", nd->nports - 1);
            goto out;
        }
        sel[nd->port0 + port] = true;
    }
    if (more == 0)
        rc = selected(sel, s->n_ports, pids); /* ports are numbered node by node, in link order */
out:
    free(sel);
    return rc;
}

int monitor_parse_flows(const struct scenario *sc, const char *key, const char *spec, uint32_t **ids, struct err *e)
{
    const struct sim *s = &sc->sim;
    bool *sel = xcalloc(s->n_flows, sizeof *sel);
    const char *p = spec;
    char tok[64];
    int rc = -1, more;
    while ((more = next_item(&p, tok, sizeof tok, key, e)) > 0) {
        /* a flow's name ([flow.NAME]) first, then ID or FIRST-LAST */
        bool named = false;
        for (uint32_t i = 0; i < s->n_flows && i < sc->flows.n; i++) {
            const char *name = flow_list_name(&sc->flows, i);
            if (name && strcmp(name, tok) == 0) {
                sel[i] = named = true;
                break;
            }
        }
        if (named)
            continue;
        char *dash = strchr(tok, '-');
        if (dash)
            *dash = 0;
        const char *a = tok, *b = dash ? dash + 1 : tok;
        if (!all_digits(a) || !all_digits(b) || strlen(a) > 10 || strlen(b) > 10) {
            if (dash)
                *dash = '-';
            errf(e, "%s: '%s': expected a flow id, a range FIRST-LAST, or the name of a [flow.NAME]", key, tok);
            goto out;
        }
        unsigned long long lo = strtoull(a, NULL, 10), hi = strtoull(b, NULL, 10);
        if (dash)
            *dash = '-'; /* for the messages */
        if (lo > hi) {
            errf(e, "%s: '%s': empty range", key, tok);
            goto out;
        }
        if (hi >= s->n_flows) {
            if (s->n_flows)
                errf(e, "%s: '%s': flow %llu does not exist (flows 0..%u)", key, tok, hi, s->n_flows - 1);
            else
                errf(e, "%s: '%s': the scenario has no flows", key, tok);
            goto out;
        }
        for (unsigned long long i = lo; i <= hi; i++)
            sel[i] = true;
    }
    if (more == 0)
        rc = selected(sel, s->n_flows, ids);
out:
    free(sel);
    return rc;
}

