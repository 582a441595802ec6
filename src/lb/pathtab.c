/* Edge-pair path tables (lb/pathtab.h): rows made on a pair's first packet,
 * base delays, and the destination edge's piggybacked feedback, changed
 * entries first, else round robin (CONGA §3.3). */
#include "lb/pathtab.h"

void pt_init(struct sim *s, const struct lb_switch *sw, struct pathtab *t, const struct pt_spec *spec, void *owner)
{
    t->spec = spec;
    t->owner = owner;
    if (sw->edge < 0)
        return;
    t->to = lb_alloc(s, lb_edge_count(s) * sizeof *t->to);
    if (spec->from_entry)
        t->from = lb_alloc(s, lb_edge_count(s) * sizeof *t->from);
}

static uint32_t row_paths(struct sim *s, const struct pt_spec *spec, uint32_t se, uint32_t de)
{
    uint32_t n = lb_path_count(s, se, de);
    return n <= spec->max_paths ? n : spec->over_none ? 0 : spec->max_paths;
}

simtime_t pt_walk(struct sim *s, uint32_t se, uint32_t de, uint32_t word, simtime_t (*hop)(const struct sim *, uint32_t),
                  int *hops)
{
    uint32_t ports[8];
    int k = lb_path_ports(s, se, de, word, ports, 8);
    simtime_t d = 0;
    for (int j = 0; j < k; j++)
        d += lb_port_delay(s, ports[j]) + (hop ? hop(s, ports[j]) : 0);
    if (hops)
        *hops = k;
    return d;
}

struct pt_row *pt_make_to(struct sim *s, struct pathtab *t, uint32_t here, uint32_t de)
{
    const struct pt_spec *spec = t->spec;
    uint32_t n = row_paths(s, spec, here, de);
    struct pt_row *r = lb_alloc(s, spec->to_row + (size_t)n * spec->to_entry);
    r->n = n;
    for (uint32_t i = 0; i < n; i++) {
        struct pt_path *e = pt_path_of(t, r, i);
        e->word = lb_path_word(s, here, de, i);
        if (!lb_path_ports(s, here, de, e->word, &e->port, 1))
            e->port = UINT32_MAX;
        e->base = pt_walk(s, here, de, e->word, spec->hop, NULL);
    }
    t->to[de] = r;
    if (spec->made)
        spec->made(s, t->owner, r, here, de);
    return r;
}

struct pt_row *pt_make_from(struct sim *s, struct pathtab *t, uint32_t se, uint32_t here)
{
    const struct pt_spec *spec = t->spec;
    uint32_t n = row_paths(s, spec, se, here);
    struct pt_row *r = lb_alloc(s, spec->from_row + (size_t)n * spec->from_entry);
    r->n = n;
    for (uint32_t i = 0; spec->fb_always && i < n; i++)
        pt_fb_of(t, r, i)->valid = true;
    t->from[se] = r;
    return r;
}

uint32_t pt_fb_pick(struct pathtab *t, uint32_t to)
{
    struct pt_row *r = t->from[to];
    if (!r || !r->n)
        return UINT32_MAX;
    uint32_t i = r->rr;
    for (uint32_t j = 0; j < r->n && (!pt_fb_of(t, r, i)->valid || (r->nchanged && !pt_fb_of(t, r, i)->changed)); j++)
        i = i + 1 == r->n ? 0 : i + 1;
    struct pt_fb *f = pt_fb_of(t, r, i);
    if (!f->valid)
        return UINT32_MAX;
    if (f->changed) {
        f->changed = false;
        r->nchanged--;
    }
    r->rr = i + 1 == r->n ? 0 : i + 1;
    return i;
}
