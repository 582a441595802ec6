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

/* A zeroed row of the pair se -> de's paths, at most max_paths of them (none
 * with over_none), stored in *slot. */
static struct pt_row *row_new(struct sim *s, const struct pt_spec *spec, uint32_t se, uint32_t de, size_t hdr,
                              size_t entry, struct pt_row **slot)
{
    uint32_t n = lb_path_count(s, se, de);
    if (n > spec->max_paths)
        n = spec->over_none ? 0 : spec->max_paths;
    struct pt_row *r = lb_alloc(s, hdr + (size_t)n * entry);
    r->n = n;
    *slot = r;
    return r;
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
    struct pt_row *r = row_new(s, spec, here, de, spec->to_row, spec->to_entry, &t->to[de]);
    for (uint32_t i = 0; i < r->n; i++) {
        struct pt_path *e = pt_path_of(t, r, i);
        e->word = lb_path_word(s, here, de, i);
        if (!lb_path_ports(s, here, de, e->word, &e->port, 1))
            e->port = UINT32_MAX;
        e->base = pt_walk(s, here, de, e->word, spec->hop, NULL);
    }
    if (spec->made)
        spec->made(s, t->owner, r, here, de);
    return r;
}

struct pt_row *pt_make_from(struct sim *s, struct pathtab *t, uint32_t se, uint32_t here)
{
    const struct pt_spec *spec = t->spec;
    struct pt_row *r = row_new(s, spec, se, here, spec->from_row, spec->from_entry, &t->from[se]);
    for (uint32_t i = 0; spec->fb_always && i < r->n; i++)
        pt_fb_of(t, r, i)->valid = true;
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
