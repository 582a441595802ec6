/* Edge-pair path tables: the building block of the load balancers that decide
 * at the source edge switch among the equal-cost paths to the destination
 * edge and learn about those paths from the destination edge, which measures
 * them and piggybacks one path's measurement at a time on the packets it
 * sends back (CONGA's Congestion-To-/From-Leaf tables, SIGCOMM'14 §3.3;
 * Proteus's path status at the edges, ToN'24 §IV-C; FLB's one-way delays,
 * ATC'25 §3.1). In the manner of Linux's include/net/codel.h: the algorithm
 * once, here; each scheme keeps its own measurements in entries that begin
 * with this module's part.
 *
 * A switch's tables (struct pathtab, made by pt_init at edge switches only):
 *  - to[de], at a source edge: one row per destination edge, one entry per
 *    path. An entry begins with struct pt_path: the path's word, its first
 *    hop (a local uplink) and its base delay (pt_walk: propagation, plus
 *    the spec's per-hop time). The scheme's own fields follow (fed-back
 *    values, ...).
 *  - from[se], at a destination edge: one row per source edge. An entry
 *    begins with struct pt_fb: whether it has a value to feed back and
 *    whether that changed since it was last fed back.
 * Rows are made on a pair's first packet (pt_to, pt_from): memory grows with
 * the edge pairs that talk, not with the square of the edge count. A row
 * holds at most spec->max_paths paths (the index must fit the header field
 * that carries it); a pair with more gets the first max_paths or, with
 * over_none, an empty row (the scheme then leaves the pair to ECMP).
 *
 * Feedback: the destination edge notes each new measurement (pt_fb_note) and
 * puts one entry on each packet leaving toward that source edge (pt_fb_pick,
 * pt_fb_word): entries that changed since they were last fed back first,
 * else round robin; entries without a value yet are skipped unless
 * fb_always. The word is PT_FB_VALID | index << fb_shift | value (the value in
 * fb_shift bits); the source edge reads it back with pt_fb_index and
 * pt_fb_value.
 *
 * A scheme lays out its rows as
 *     struct my_row { struct pt_row pt; ...row fields...; struct my_ent e[]; };
 *     struct my_ent { struct pt_path p; ...entry fields... };
 * and names offsetof(struct my_row, e) and sizeof(struct my_ent) in its spec;
 * pt_to returns the struct pt_row at the start of such a row. */
#ifndef LB_PATHTAB_H
#define LB_PATHTAB_H

#include "net/lb.h"

#define PT_FB_VALID (1u << 31)

struct pt_path {
    simtime_t base; /* sum over the hops of propagation plus spec->hop (pt_walk) */
    uint32_t word;  /* path word (lb_path_word) */
    uint32_t port;  /* first hop, a local uplink (UINT32_MAX: none) */
};

struct pt_fb {
    bool valid;   /* has a value to feed back */
    bool changed; /* changed since it was last fed back */
};

struct pt_row {
    uint32_t n;            /* paths */
    uint32_t rr, nchanged; /* from rows: next in the round robin; entries changed */
};

struct pt_spec {
    size_t to_row, to_entry;     /* source rows: offset of the entries, size of one (first member struct pt_path) */
    size_t from_row, from_entry; /* destination rows: the same (first member struct pt_fb); 0: no from rows */
    uint32_t max_paths;          /* paths a row holds */
    bool over_none;              /* a pair with more: an empty row, not the first max_paths */
    bool fb_always;              /* from entries have a value from the start (fed back before any measurement) */
    uint8_t fb_shift;            /* feedback word: PT_FB_VALID | index << fb_shift | value */
    uint32_t fb_imask;           /* index bits read back: (word >> fb_shift) & fb_imask */
    /* base delay: per hop, beyond the link's propagation (e.g. one MTU's
     * serialisation); NULL: propagation only */
    simtime_t (*hop)(const struct sim *s, uint32_t port);
    /* called once a source row is made (its pt_path parts filled, the rest
     * zero), to set the scheme's fields; may be NULL */
    void (*made)(struct sim *s, void *owner, struct pt_row *r, uint32_t here, uint32_t de);
};

struct pathtab {
    const struct pt_spec *spec;
    void *owner;          /* passed to spec->made (the scheme's switch state) */
    struct pt_row **to;   /* by destination edge (NULL at non-edge switches) */
    struct pt_row **from; /* by source edge (NULL without from rows: spec->from_entry 0) */
};

/* At switch sw: the tables, if it is an edge switch (else t->to stays NULL). */
void pt_init(struct sim *s, const struct lb_switch *sw, struct pathtab *t, const struct pt_spec *spec, void *owner);

struct pt_row *pt_make_to(struct sim *s, struct pathtab *t, uint32_t here, uint32_t de);
struct pt_row *pt_make_from(struct sim *s, struct pathtab *t, uint32_t se, uint32_t here);

/* The row of paths from here to edge de (made on first use). */
static inline struct pt_row *pt_to(struct sim *s, struct pathtab *t, uint32_t here, uint32_t de)
{
    return t->to[de] ? t->to[de] : pt_make_to(s, t, here, de);
}
/* The row of paths from edge se to here (made on first use). */
static inline struct pt_row *pt_from(struct sim *s, struct pathtab *t, uint32_t se, uint32_t here)
{
    return t->from[se] ? t->from[se] : pt_make_from(s, t, se, here);
}

static inline void *pt_entry(const struct pt_row *r, size_t row, size_t entry, uint32_t i)
{
    return (char *)r + row + (size_t)i * entry;
}
static inline struct pt_path *pt_path_of(const struct pathtab *t, const struct pt_row *r, uint32_t i)
{
    return pt_entry(r, t->spec->to_row, t->spec->to_entry, i);
}
static inline struct pt_fb *pt_fb_of(const struct pathtab *t, const struct pt_row *r, uint32_t i)
{
    return pt_entry(r, t->spec->from_row, t->spec->from_entry, i);
}

/* Destination edge: entry i of from row r has a new value, `differs` from
 * the last one (or it had none): it is marked changed. */
static inline void pt_fb_note(struct pathtab *t, struct pt_row *r, uint32_t i, bool differs)
{
    struct pt_fb *f = pt_fb_of(t, r, i);
    if (!f->changed && differs) {
        f->changed = true;
        r->nchanged++;
    }
    f->valid = true;
}

/* Destination edge, a packet leaving toward edge `to`: the index of the entry
 * of from[to] to feed back (changed ones first, else round robin), now
 * counted as fed back; UINT32_MAX if there is none (no row, or none valid). */
uint32_t pt_fb_pick(struct pathtab *t, uint32_t to);

static inline uint32_t pt_fb_word(const struct pathtab *t, uint32_t i, uint32_t value)
{
    return PT_FB_VALID | i << t->spec->fb_shift | value;
}
/* Source edge: the path index a feedback word is about (UINT32_MAX: none). */
static inline uint32_t pt_fb_index(const struct pathtab *t, uint32_t fb)
{
    return fb & PT_FB_VALID ? (fb >> t->spec->fb_shift) & t->spec->fb_imask : UINT32_MAX;
}
static inline uint32_t pt_fb_value(const struct pathtab *t, uint32_t fb)
{
    return fb & ((1u << t->spec->fb_shift) - 1);
}

enum pt_role { PT_PASS, PT_SOURCE, PT_DEST };

/* Where host-to-host packet p (data, ACK, NACK, CNP), arriving at switch sw
 * by in_port (UINT32_MAX: none), stands in its edge pair: at its source edge
 * (it came from a host), at its destination edge (from the fabric), or
 * PT_PASS (not an edge switch, another kind of packet, traffic within one
 * edge). *se and *de get its edges (UINT32_MAX when the kind of switch or
 * packet already says PT_PASS). */
static inline enum pt_role pt_role(struct sim *s, const struct lb_switch *sw, const struct pkt *p, uint32_t in_port,
                                   uint32_t *se, uint32_t *de)
{
    *se = *de = UINT32_MAX;
    if (sw->edge < 0 || (p->type != PKT_DATA && p->type != PKT_ACK && p->type != PKT_NACK && p->type != PKT_CNP))
        return PT_PASS;
    *se = lb_host_edge(s, p->src);
    *de = lb_host_edge(s, p->dst);
    if (*se == *de || *se == UINT32_MAX || *de == UINT32_MAX)
        return PT_PASS;
    if (in_port != UINT32_MAX && lb_port_to_host(s, in_port))
        return PT_SOURCE;
    return (uint32_t)sw->edge == *de ? PT_DEST : PT_PASS;
}

/* The base-delay walk: the sum over the hops of path `word` from edge se to
 * de of each link's propagation delay plus hop(port) (NULL: nothing more);
 * *hops (if not NULL) gets the number of hops. */
simtime_t pt_walk(struct sim *s, uint32_t se, uint32_t de, uint32_t word, simtime_t (*hop)(const struct sim *, uint32_t),
                  int *hops);

#endif
