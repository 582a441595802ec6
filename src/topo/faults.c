/* Per-link rate overrides (topology.link_rate) and link failures: fail,
 * flap, switch_fail and slow lists, ns-3 LINK_DOWN (topo_add_fail), and the
 * check that the fabric stays connected (union-find). */
#include "topo/topo.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"

/* Copies [b, end) into item without blanks ("leaf0 - spine1 : 25G" reads as
 * one item); false if it does not fit. */
static bool copy_item(char *item, size_t n, const char *b, const char *end)
{
    size_t k = 0;
    for (; b < end; b++)
        if (*b != ' ' && *b != '\t') {
            if (k + 1 >= n)
                return false;
            item[k++] = *b;
        }
    item[k] = 0;
    return true;
}

/* One list item, blanks trimmed: [*b, *e). Returns false at the end. */
static bool next_item(const char **p, const char **b, const char **end)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == ',')
        s++;
    if (!*s)
        return false;
    const char *c = strchr(s, ',');
    const char *x = c ? c : s + strlen(s);
    *p = x;
    while (x > s && (x[-1] == ' ' || x[-1] == '\t'))
        x--;
    *b = s;
    *end = x;
    return true;
}

/* "A-B" (node names contain no '-') -> link index. */
static int find_link(const struct topo *t, const char *key, const char *item, const char *ab, uint32_t *li, struct err *e)
{
    const char *dash = strchr(ab, '-');
    if (!dash || dash == ab || !dash[1])
        return errf(e, "topology.%s: '%s': expected NODE-NODE (%s)", key, item, topo_naming_help(t));
    char a[64], b[64];
    if ((size_t)(dash - ab) >= sizeof a || strlen(dash + 1) >= sizeof b)
        return errf(e, "topology.%s: '%s': node name too long", key, item);
    snprintf(a, sizeof a, "%.*s", (int)(dash - ab), ab);
    snprintf(b, sizeof b, "%s", dash + 1);
    uint32_t x, y;
    if (topo_node_find(t, a, &x) < 0)
        return errf(e, "topology.%s: '%s': no node '%s' (names: %s)", key, item, a, topo_naming_help(t));
    if (topo_node_find(t, b, &y) < 0)
        return errf(e, "topology.%s: '%s': no node '%s' (names: %s)", key, item, b, topo_naming_help(t));
    const struct topo_link *l = topo_link_between(t, x, y);
    if (!l)
        return errf(e, "topology.%s: '%s': no link between %s (node %u) and %s (node %u)", key, item, a, x, b, y);
    *li = (uint32_t)(l - t->links);
    return 0;
}

int topo_set_link_rates(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.link_rate: item too long: '%.60s...'", b);
        char *colon = strrchr(item, ':');
        if (!colon)
            return errf(e, "topology.link_rate: '%s': expected NODE-NODE:RATE, e.g. leaf0-spine1:25Gbps", item);
        *colon = 0;
        uint64_t rate;
        const char *why = parse_rate(colon + 1, &rate);
        if (why || rate == 0) {
            *colon = ':';
            return errf(e, "topology.link_rate: '%s': %s", item, why ? why : "a rate must be positive");
        }
        uint32_t li;
        if (find_link(t, "link_rate", item, item, &li, e) < 0)
            return -1;
        t->links[li].rate = rate;
    }
    return 0;
}

static int fail_append(struct topo *t, uint32_t li, simtime_t down, simtime_t up, uint64_t rate, const char *where,
                       struct err *e);

int topo_add_fail(struct topo *t, uint32_t a, uint32_t b, simtime_t down, simtime_t up, const char *where,
                  struct err *e)
{
    const struct topo_link *l = topo_link_between(t, a, b);
    if (!l)
        return errf(e, "%s: no link between node %u and node %u", where, a, b);
    uint32_t li = (uint32_t)(l - t->links);
    if (up <= down)
        return errf(e, "%s: the link comes back up before it fails", where);
    for (uint32_t i = 0; i < t->n_fails; i++)
        if (t->fails[i].link == li && !t->fails[i].rate && down < t->fails[i].up && t->fails[i].down < up)
            return errf(e, "%s: overlaps an earlier failure of the same link", where);
    return fail_append(t, li, down, up, 0, where, e);
}

static int fail_append(struct topo *t, uint32_t li, simtime_t down, simtime_t up, uint64_t rate, const char *where,
                       struct err *e)
{
    if ((t->n_fails & (t->n_fails - 1)) == 0) { /* grow at powers of two */
        void *v = realloc(t->fails, (t->n_fails ? 2 * (size_t)t->n_fails : 1) * sizeof *t->fails);
        if (!v)
            return errf(e, "%s: out of memory", where);
        t->fails = v;
    }
    t->fails[t->n_fails++] = (struct topo_fail){.link = li, .down = down, .up = up, .rate = rate};
    return 0;
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
    while (up[x] != x)
        x = up[x] = up[up[x]];
    return x;
}

int topo_check_fails_connected(const struct topo *t, struct err *e)
{
    bool permanent = false;
    for (uint32_t i = 0; i < t->n_fails; i++)
        permanent |= t->fails[i].up == T_NEVER && !t->fails[i].rate;
    if (!permanent || t->n_hosts < 2)
        return 0;
    /* union-find over the links that stay up; hosts have one link, so no path transits a host */
    uint32_t *up = malloc((size_t)t->n_nodes * sizeof *up);
    bool *dead = calloc(t->n_links ? t->n_links : 1, sizeof *dead);
    if (!up || !dead) {
        free(up);
        free(dead);
        return errf(e, "topology: out of memory");
    }
    for (uint32_t i = 0; i < t->n_fails; i++)
        if (t->fails[i].up == T_NEVER && !t->fails[i].rate)
            dead[t->fails[i].link] = true;
    for (uint32_t i = 0; i < t->n_nodes; i++)
        up[i] = i;
    for (uint32_t l = 0; l < t->n_links; l++)
        if (!dead[l])
            up[uf_find(up, t->links[l].a)] = uf_find(up, t->links[l].b);
    int rc = 0;
    uint32_t root = uf_find(up, t->hosts[0]);
    for (uint32_t h = 1; h < t->n_hosts && !rc; h++)
        if (uf_find(up, t->hosts[h]) != root) {
            char a[32], b[32];
            topo_node_name(t, t->hosts[0], a, sizeof a);
            topo_node_name(t, t->hosts[h], b, sizeof b);
            rc = errf(e, "failures that never recover cut %s off from %s, so flows between them could never "
                         "finish: give a recovery time (A-B@DOWN-UP) or set run.stop", b, a);
        }
    free(up);
    free(dead);
    return rc;
}

int topo_parse_fails(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.fail: item too long: '%.60s...'", b);
        char *at = strchr(item, '@');
        if (!at)
            return errf(e, "topology.fail: '%s': expected NODE-NODE@TIME or NODE-NODE@DOWN-UP, e.g. leaf0-spine1@1ms",
                        item);
        *at = 0;
        char *times = at + 1, *dash = strchr(times, '-');
        if (dash)
            *dash = 0;
        simtime_t down, up = T_NEVER;
        const char *why = parse_time(times, &down);
        if (!why && dash)
            why = parse_time(dash + 1, &up);
        if (dash)
            *dash = '-';
        *at = '@';
        if (why)
            return errf(e, "topology.fail: '%s': %s", item, why);
        *at = 0;
        uint32_t li;
        int rc = find_link(t, "fail", item, item, &li, e);
        *at = '@';
        if (rc < 0)
            return -1;
        snprintf(where, sizeof where, "topology.fail: '%s'", item);
        if (topo_add_fail(t, t->links[li].a, t->links[li].b, down, up, where, e) < 0)
            return -1;
    }
    return 0;
}

/* "T" or "T1-T2" (in place; T2 = T_NEVER when absent): NULL or why not. */
static const char *parse_window(char *times, simtime_t *down, simtime_t *up)
{
    char *dash = strchr(times, '-');
    if (dash)
        *dash = 0;
    *up = T_NEVER;
    const char *why = parse_time(times, down);
    if (!why && dash)
        why = parse_time(dash + 1, up);
    if (dash)
        *dash = '-';
    return why;
}

/* A flapping link: outages [FROM + i*PERIOD, + TIME) while they start before
 * UNTIL, the last cut at UNTIL. UNTIL is required: a flapping link with no
 * end would need events generated for ever. */
#define FLAP_MAX_OUTAGES 100000
int topo_parse_flaps(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    static const char form[] = "expected NODE-NODE@FROM-UNTIL:every=PERIOD[:down=TIME], e.g. leaf0-spine1@1ms-2ms:every=100us";
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.flap: item too long: '%.60s...'", b);
        char link[256];
        snprintf(link, sizeof link, "%s", item);
        char *at = strchr(link, '@'), *colon = at ? strchr(at, ':') : NULL;
        if (!at || !colon)
            return errf(e, "topology.flap: '%s': %s", item, form);
        *at = *colon = 0;
        simtime_t from, until, period = 0, down = 0;
        const char *why = parse_window(at + 1, &from, &until);
        if (why)
            return errf(e, "topology.flap: '%s': %s", item, why);
        if (until == T_NEVER)
            return errf(e, "topology.flap: '%s': give the end of the flapping: @FROM-UNTIL", item);
        if (until <= from)
            return errf(e, "topology.flap: '%s': UNTIL must be after FROM", item);
        for (char *opt = colon + 1; opt && *opt;) {
            char *next = strchr(opt, ':');
            if (next)
                *next++ = 0;
            simtime_t *dst = strncmp(opt, "every=", 6) == 0 ? &period : strncmp(opt, "down=", 5) == 0 ? &down : NULL;
            if (!dst)
                return errf(e, "topology.flap: '%s': unknown option '%s' (every=PERIOD, down=TIME)", item, opt);
            why = parse_time(strchr(opt, '=') + 1, dst);
            if (why)
                return errf(e, "topology.flap: '%s': %s: %s", item, opt, why);
            opt = next;
        }
        if (period <= 0)
            return errf(e, "topology.flap: '%s': every=PERIOD is required and must be positive", item);
        if (!down)
            down = period / 2;
        if (down <= 0 || down >= period)
            return errf(e, "topology.flap: '%s': down=TIME must be positive and shorter than every=PERIOD (the link must come up between outages)", item);
        if ((until - from) / period >= FLAP_MAX_OUTAGES)
            return errf(e, "topology.flap: '%s': more than %d outages: a longer PERIOD or a shorter window", item,
                        FLAP_MAX_OUTAGES);
        uint32_t li;
        if (find_link(t, "flap", item, link, &li, e) < 0)
            return -1;
        snprintf(where, sizeof where, "topology.flap: '%s'", item);
        for (uint32_t i = 0; i < t->n_fails; i++) /* the whole window against earlier failures, once */
            if (t->fails[i].link == li && !t->fails[i].rate && from < t->fails[i].up && t->fails[i].down < until)
                return errf(e, "%s: overlaps an earlier failure of the same link", where);
        for (simtime_t s0 = from; s0 < until; s0 += period)
            if (fail_append(t, li, s0, s0 + down < until ? s0 + down : until, 0, where, e) < 0)
                return -1;
    }
    return 0;
}

int topo_parse_switch_fails(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.switch_fail: item too long: '%.60s...'", b);
        char name[256];
        snprintf(name, sizeof name, "%s", item);
        char *at = strchr(name, '@');
        if (!at)
            return errf(e, "topology.switch_fail: '%s': expected SWITCH@TIME or SWITCH@DOWN-UP, e.g. spine0@1ms-3ms", item);
        *at = 0;
        simtime_t down, up;
        const char *why = parse_window(at + 1, &down, &up);
        if (why)
            return errf(e, "topology.switch_fail: '%s': %s", item, why);
        uint32_t n;
        if (topo_node_find(t, name, &n) < 0)
            return errf(e, "topology.switch_fail: '%s': no node '%s' (names: %s)", item, name, topo_naming_help(t));
        if (!t->nodes[n].is_switch)
            return errf(e, "topology.switch_fail: '%s': node %s is a host, not a switch (topology.fail takes its link)", item,
                        name);
        snprintf(where, sizeof where, "topology.switch_fail: '%s'", item);
        for (uint32_t k = t->adj_off[n]; k < t->adj_off[n + 1]; k++) {
            const struct topo_link *l = &t->links[t->adj_link[k]];
            if (topo_add_fail(t, l->a, l->b, down, up, where, e) < 0)
                return -1;
        }
    }
    return 0;
}

int topo_parse_slows(struct topo *t, const char *spec, struct err *e)
{
    const char *p = spec, *b, *end;
    char item[256], where[300];
    while (next_item(&p, &b, &end)) {
        if (!copy_item(item, sizeof item, b, end))
            return errf(e, "topology.slow: item too long: '%.60s...'", b);
        char link[256];
        snprintf(link, sizeof link, "%s", item);
        char *at = strchr(link, '@'), *colon = strchr(link, ':');
        if (!at || !colon || colon > at)
            return errf(e, "topology.slow: '%s': expected NODE-NODE:RATE@TIME or NODE-NODE:RATE@FROM-UNTIL, e.g. leaf0-spine1:25Gbps@1ms", item);
        *at = *colon = 0;
        uint64_t rate;
        const char *why = parse_rate(colon + 1, &rate);
        if (!why && rate == 0)
            why = "a rate must be positive (a dead link is topology.fail)";
        simtime_t down, up;
        if (!why)
            why = parse_window(at + 1, &down, &up);
        if (why)
            return errf(e, "topology.slow: '%s': %s", item, why);
        if (up <= down)
            return errf(e, "topology.slow: '%s': the link is restored before it slows", item);
        uint32_t li;
        if (find_link(t, "slow", item, link, &li, e) < 0)
            return -1;
        /* below the link's own rate: the PFC headroom sized for that rate then covers it */
        if (rate >= t->links[li].rate)
            return errf(e, "topology.slow: '%s': %s is not below the link's rate (%llu bps): only cuts are modelled", item,
                        colon + 1, (unsigned long long)t->links[li].rate);
        for (uint32_t i = 0; i < t->n_fails; i++)
            if (t->fails[i].link == li && t->fails[i].rate && down < t->fails[i].up && t->fails[i].down < up)
                return errf(e, "topology.slow: '%s': overlaps an earlier slowdown of the same link", item);
        snprintf(where, sizeof where, "topology.slow: '%s'", item);
        if (fail_append(t, li, down, up, rate, where, e) < 0)
            return -1;
    }
    return 0;
}
