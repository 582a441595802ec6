/* Hermes — H. Zhang, J. Zhang, W. Bai, K. Chen, M. Chowdhury, "Resilient
 * Datacenter Load Balancing in the Wild", SIGCOMM 2017. Load balancing at the
 * sender, with no switch support: the host senses each path to a destination
 * rack and moves a flow only when that pays.
 *
 * Implemented from the paper (§3: sensing, Table 2's path classes,
 * Algorithm 1's rerouting, probing with the power of two choices) as we read
 * it, and from the public facts in ../shared/lb-baselines.md about the
 * authors' ns-3 code (snowzjx/ns3-load-balance, "TLB"; read, never copied):
 * path information ages in windows of T1, an unexplored path counts as gray,
 * a new flow goes to the good path carrying the fewest of the host's flows.
 *
 * Sensing (§3.1), per (sender host, destination edge switch, path): every
 * ACK/NACK gives an RTT sample (now - the data's timestamp), its path
 * (echoed) and its CE mark; probe echoes give the same for paths no flow
 * uses. Over the current and the previous window of T1: RTT = the smallest
 * sample, f_ECN = the marked share. Table 2:
 *   good:      f_ECN < T_ECN and RTT < T_RTT_low
 *   congested: f_ECN > T_ECN and RTT > T_RTT_high
 *   gray:      everything else, and a path with no sample for 2 x T1
 *   failed:    fail_timeouts consecutive retransmission timeouts of flows on
 *              it (a black hole), or NACKs on more than fail_retx of its
 *              replies while it is not congested (random drops); it stays
 *              failed for fail_hold.
 * Rerouting (§3.2, Algorithm 1), asked at every packet a flow sends:
 *  - a new flow, or one that just timed out: the good path with the fewest of
 *    this host's flows, else a gray one, else a congested one (random among
 *    equals); never a failed path unless all are;
 *  - otherwise only when its path is congested or failed, and it has sent
 *    less than S bytes or its delivery rate is below rate_low of line rate
 *    (a flow that is doing well is left alone), and a notably better path
 *    exists: RTT lower by more than ΔRTT and f_ECN lower by more than ΔECN
 *    (any non-failed path will do for a flow on a failed one); it takes the
 *    best class, then the smallest RTT. At most one move per T1, so the new
 *    path is sensed before the next decision.
 * Probing: every probe interval, for each destination rack it sends to, the
 * host probes two paths chosen at random (unexplored ones first: the power of
 * two choices) and the best path it knows, to the host its latest flow there
 * goes to; the probe travels in the flow's class (it queues and is marked as
 * the data is) and comes back as an ACK would.
 *
 * Adapted to RDMA at 100 Gbps:
 *  - Scaling. The public values (T_RTT_low 60 us, T_RTT_high 180 us,
 *    ΔRTT 100 us, T1 60 us, S 600 KB, probing every 100-500 us) are for TCP
 *    at 10 Gbps. We read them as multiples of a 40 us base RTT (T_RTT_low is
 *    then the base RTT plus 20 us of queueing) and of its 10 Gbps BDP (50 KB),
 *    and derive each default from the pair's base RTT b (qp.base_rtt) and the
 *    sender's line rate: T_RTT_low 1.5 b, T_RTT_high 4.5 b, ΔRTT 2.5 b,
 *    T1 1.5 b, probe interval 2.5 b (the fast end), S 12 BDP. With 1 us links
 *    on a leaf-spine (b ~ 8-9 us) that is T_RTT_low ~ 13 us, S ~ 1.1 MB at
 *    100 Gbps. T_ECN 40 % and ΔECN 5 % are unitless (the paper's values as we
 *    recall them; not in lb-baselines.md). fail_hold (100 b) is our choice:
 *    the authors' code clears failure marks only after 100 s.
 *  - Go-back-N: a flow that moves reorders its own packets, and every early
 *    packet costs a NACK and a resend of the window, which is why Hermes's
 *    caution matters more here than for TCP; NACKs until the old path's RTT
 *    plus T_RTT_high after a move are taken as that reordering, not as loss.
 *  - A flow is one QP on one path at a time; the sender sets the whole path
 *    (a path word from the source edge switch on, net/paths.c) instead of a
 *    source port that ECMP would hash, so a move always lands where chosen.
 *  - Lossless fabrics (PFC) drop nothing, so failure detection only acts on
 *    failed links and lossy runs; a path that PFC pauses shows as a high RTT.
 *  - ECN must be on (switch.ecn) for a path ever to be congested.
 * Traffic between two hosts of one edge switch has one path and is left to
 * ECMP, as are pairs whose paths a word cannot hold.
 */
#include <stddef.h>
#include <stdint.h>
#include "net/lb.h"


enum { GOOD, GRAY, CONGESTED, FAILED };
/* reroutes: moves off a congested or failed path; replacements: a flow placed
 * again after a timeout, or because a link change took its path away */
enum { ST_REROUTES, ST_REPLACED, ST_CHANGES, ST_TO_GOOD, ST_TO_GRAY, ST_TO_CONGESTED, ST_TO_FAILED, ST_PROBE_ECHOES };
static const char *const hermes_stats[] = {"reroutes", "replacements", "path_state_changes", "to_good",
                                           "to_gray", "to_congested", "to_failed", "probe_echoes", NULL};

struct hermes_par {
    simtime_t rtt_low, rtt_high, d_rtt, t1, probe_every, fail_hold;
    double t_ecn, d_ecn, rate_low, fail_retx;
    uint64_t s_bytes;
    int64_t fail_timeouts;
    bool probe;
};

#define P(f) offsetof(struct hermes_par, f)
static const struct param hermes_params[] = {
    {"t_rtt_low", P_TIME, P(rtt_low), "0", "RTT below which a path can be good (0: 1.5 x base RTT; 60 us at 10G)", NULL, 0, 1e15},
    {"t_rtt_high", P_TIME, P(rtt_high), "0", "RTT above which a path can be congested (0: 4.5 x base RTT; 180 us at 10G)", NULL, 0, 1e15},
    {"d_rtt", P_TIME, P(d_rtt), "0", "a notably better path has an RTT lower by this (0: 2.5 x base RTT; 100 us at 10G)", NULL, 0, 1e15},
    {"t1", P_TIME, P(t1), "0", "sensing window: path information ages over two of them (0: 1.5 x base RTT; 60 us at 10G)", NULL, 0, 1e15},
    {"probe_interval", P_TIME, P(probe_every), "0", "probing period per destination rack (0: 2.5 x base RTT; 100-500 us at 10G)", NULL, 0, 1e15},
    {"t_ecn", P_DOUBLE, P(t_ecn), "0.4", "T_ECN: marked share of a path's ACKs that separates good from congested", NULL, 0, 1},
    {"d_ecn", P_DOUBLE, P(d_ecn), "0.05", "a notably better path has a marked share lower by this", NULL, 0, 1},
    {"s", P_SIZE, P(s_bytes), "0", "S: flows that sent less than this may move (0: 12 x BDP; 600 KB at 10G)", NULL, 0, 1e15},
    {"rate_low", P_DOUBLE, P(rate_low), "0.3", "flows delivering below this share of line rate may move whatever they sent", NULL, 0, 1},
    {"fail_timeouts", P_INT, P(fail_timeouts), "3", "consecutive timeouts on a path that mark it failed", NULL, 1, 1e6},
    {"fail_retx", P_DOUBLE, P(fail_retx), "0.01", "NACKed share of an uncongested path's replies that marks it failed", NULL, 0, 1},
    {"fail_hold", P_TIME, P(fail_hold), "0", "how long a failed path is avoided (0: 100 x base RTT)", NULL, 0, 1e15},
    {"probe", P_BOOL, P(probe), "on", "probe unexplored paths (off: sense only from the flows' own ACKs)", NULL, 0, 0},
    PARAM_END};

/* One path from one host to one destination rack. */
struct hpath {
    simtime_t win_start;     /* the current sensing window began */
    simtime_t rtt[2];        /* smallest RTT sample of the current and the previous window */
    uint32_t n[2], ecn[2];   /* samples and CE-marked samples in them */
    uint32_t replies, nacks; /* failure sensing (halved every 256 replies: a decaying share) */
    uint32_t timeouts;       /* consecutive timeouts of flows on it */
    uint32_t flows;          /* this host's flows on it now */
    simtime_t failed_until;
    uint8_t cls;             /* class at its last sample (statistics) */
};

/* One (host, destination rack), with thresholds derived from the first flow's
 * base RTT and line rate (header comment). */
struct hdst {
    uint32_t se, de, npaths, nflows, act_i;
    uint32_t probe_to; /* the host the latest flow goes to */
    uint8_t prio;
    uint32_t epoch;    /* of the path set below (lb_path_epoch) */
    simtime_t rtt_low, rtt_high, d_rtt, t1, probe_every, fail_hold;
    uint64_t s_bytes, line;
    uint32_t *words;   /* path index -> word */
    struct hpath *path;
};

struct hhost {
    struct hdst **dst; /* by destination edge, made on first use */
    uint32_t *act;     /* destination edges with flows now */
    uint32_t nact;
};

struct hflow {
    struct hdst *d;      /* NULL: not routed by Hermes (same rack) */
    uint32_t pi, word;   /* its path: index (UINT32_MAX: it vanished with a link) and word */
    uint32_t epoch;      /* of d's path set when pi was last valid */
    uint64_t sent;       /* bytes sent the first time */
    simtime_t moved;     /* when it was last placed */
    simtime_t settle;    /* NACKs before this are the move's own reordering */
    uint64_t r_una;      /* delivery rate: snd_una at r_t */
    simtime_t r_t;
    uint64_t rate;       /* bps over the last window; UINT64_MAX before the first */
    bool live, done, replace;
};

static inline simtime_t dflt(simtime_t v, simtime_t b, int num, int den) { return v ? v : b * num / den; }

/* Age the windows: samples older than two windows are forgotten. */
static void roll(struct hpath *p, simtime_t now, simtime_t t1)
{
    if (now - p->win_start < t1)
        return;
    bool recent = now - p->win_start < 2 * t1;
    p->rtt[1] = recent ? p->rtt[0] : 0;
    p->n[1] = recent ? p->n[0] : 0;
    p->ecn[1] = recent ? p->ecn[0] : 0;
    p->rtt[0] = 0;
    p->n[0] = p->ecn[0] = 0;
    p->win_start = now;
}

static inline bool known(const struct hpath *p) { return p->n[0] + p->n[1] > 0; }

static simtime_t prtt(const struct hpath *p)
{
    if (!p->n[0])
        return p->n[1] ? p->rtt[1] : T_NEVER;
    return p->n[1] && p->rtt[1] < p->rtt[0] ? p->rtt[1] : p->rtt[0];
}

static double pecn(const struct hpath *p)
{
    uint32_t n = p->n[0] + p->n[1];
    return n ? (double)(p->ecn[0] + p->ecn[1]) / n : 0;
}

static int classify(const struct hermes_par *hp, struct hdst *d, struct hpath *p, simtime_t now)
{
    roll(p, now, d->t1);
    if (p->failed_until > now)
        return FAILED;
    if (!known(p))
        return GRAY;
    double e = pecn(p);
    simtime_t r = prtt(p);
    if (e < hp->t_ecn && r < d->rtt_low)
        return GOOD;
    if (e > hp->t_ecn && r > d->rtt_high)
        return CONGESTED;
    return GRAY;
}

/* Count class changes as samples reveal them. */
static void note_class(struct sim *s, const struct hermes_par *hp, struct hdst *d, struct hpath *p)
{
    int c = classify(hp, d, p, lb_now(s));
    if (c == p->cls)
        return;
    p->cls = (uint8_t)c;
    lb_stat_add(s, ST_CHANGES, 1);
    lb_stat_add(s, ST_TO_GOOD + c, 1);
}

static void fail(struct sim *s, const struct hermes_par *hp, struct hdst *d, struct hpath *p)
{
    p->failed_until = lb_now(s) + d->fail_hold;
    p->timeouts = 0;
    p->replies = p->nacks = 0;
    note_class(s, hp, d, p);
}

static void sample(struct sim *s, const struct hermes_par *hp, struct hdst *d, uint32_t pi, simtime_t rtt, bool ecn)
{
    struct hpath *p = &d->path[pi];
    roll(p, lb_now(s), d->t1);
    if (!p->n[0] || rtt < p->rtt[0])
        p->rtt[0] = rtt;
    p->n[0]++;
    p->ecn[0] += ecn;
    note_class(s, hp, d, p);
}

static uint32_t path_index(const struct hdst *d, uint32_t word)
{
    for (uint32_t i = 0; i < d->npaths; i++)
        if (d->words[i] == word)
            return i;
    return UINT32_MAX;
}

/* The routes changed (a link failed or came back): enumerate the paths again
 * and keep what was sensed on those that remain, by word. Rare, so the old
 * arrays simply stay with the simulation. */
static void refresh(struct sim *s, struct hdst *d)
{
    uint32_t ep = lb_path_epoch(s);
    if (d->epoch == ep)
        return;
    uint32_t np = lb_path_count(s, d->se, d->de);
    uint32_t *words = lb_alloc(s, (np ? np : 1) * sizeof *words);
    struct hpath *path = lb_alloc(s, (np ? np : 1) * sizeof *path);
    for (uint32_t i = 0; i < np; i++) {
        words[i] = lb_path_word(s, d->se, d->de, i);
        uint32_t j = path_index(d, words[i]);
        if (j != UINT32_MAX)
            path[i] = d->path[j];
        else
            path[i].cls = GRAY;
    }
    d->words = words;
    d->path = path;
    d->npaths = np;
    d->epoch = ep;
}

/* A flow's path index after the path set changed; a flow whose path is gone
 * is placed again at its next packet (counted as a replacement). */
static void fix_flow(struct sim *s, struct hflow *fl)
{
    refresh(s, fl->d);
    if (fl->epoch == fl->d->epoch)
        return;
    fl->epoch = fl->d->epoch;
    if (fl->pi != UINT32_MAX)
        fl->pi = path_index(fl->d, fl->word);
    if (fl->pi == UINT32_MAX)
        fl->replace = true;
}

static struct hdst *dst_of(struct sim *s, struct hhost *hh, const struct hermes_par *hp, const struct qp *f,
                           uint32_t se, uint32_t de)
{
    if (!hh->dst) {
        hh->dst = lb_alloc(s, lb_edge_count(s) * sizeof *hh->dst);
        hh->act = lb_alloc(s, lb_edge_count(s) * sizeof *hh->act);
    }
    if (hh->dst[de])
        return hh->dst[de];
    if (lb_path_count(s, se, de) < 2)
        return NULL; /* nothing to choose (ECMP as well) */
    struct hdst *d = lb_alloc(s, sizeof *d);
    simtime_t b = f->base_rtt;
    d->se = se;
    d->de = de;
    d->epoch = lb_path_epoch(s) - 1; /* refresh enumerates */
    d->line = f->max_rate;
    d->rtt_low = dflt(hp->rtt_low, b, 3, 2);
    d->rtt_high = dflt(hp->rtt_high, b, 9, 2);
    d->d_rtt = dflt(hp->d_rtt, b, 5, 2);
    d->t1 = dflt(hp->t1, b, 3, 2);
    d->probe_every = dflt(hp->probe_every, b, 5, 2);
    d->fail_hold = dflt(hp->fail_hold, b, 100, 1);
    /* 12 BDPs: 600 KB is 12 x (10 Gbps x 40 us) */
    d->s_bytes = hp->s_bytes ? hp->s_bytes : (uint64_t)(12 * (unsigned __int128)f->max_rate * (uint64_t)b / (8 * (unsigned __int128)T_SEC));
    refresh(s, d);
    hh->dst[de] = d;
    return d;
}

/* Algorithm 1's placement of a new (or timed-out) flow: the best class, then
 * the fewest of this host's flows, random among equals. */
static uint32_t place(struct sim *s, struct lb_switch *h, const struct hermes_par *hp, struct hdst *d)
{
    simtime_t now = lb_now(s);
    uint32_t best = 0, ties = 0;
    int bc = 99;
    uint32_t bf = UINT32_MAX;
    for (uint32_t i = 0; i < d->npaths; i++) {
        int c = classify(hp, d, &d->path[i], now); /* good < gray < congested < failed */
        uint32_t fl = d->path[i].flows;
        if (c < bc || (c == bc && fl < bf)) {
            bc = c, bf = fl, best = i, ties = 1;
        } else if (c == bc && fl == bf && rng_below(&h->rng, ++ties) == 0) {
            best = i;
        }
    }
    return best;
}

/* A notably better path than cur (Algorithm 1), or UINT32_MAX. Off a failed
 * path any other will do. Best class, then smallest RTT, then fewest flows. */
static uint32_t better(struct sim *s, struct lb_switch *h, const struct hermes_par *hp, struct hdst *d, uint32_t cur,
                       bool failed)
{
    simtime_t now = lb_now(s);
    const struct hpath *cp = &d->path[cur];
    simtime_t crtt = prtt(cp);
    double cecn = pecn(cp);
    uint32_t best = UINT32_MAX, ties = 0;
    int bc = 99;
    simtime_t br = T_NEVER;
    uint32_t bf = UINT32_MAX;
    for (uint32_t i = 0; i < d->npaths; i++) {
        if (i == cur)
            continue;
        struct hpath *p = &d->path[i];
        int c = classify(hp, d, p, now);
        if (c == FAILED || (c == CONGESTED && !failed))
            continue;
        simtime_t r = prtt(p);
        if (!failed && (!known(p) || crtt == T_NEVER || crtt - r <= d->d_rtt || cecn - pecn(p) <= hp->d_ecn))
            continue;
        if (c < bc || (c == bc && (r < br || (r == br && p->flows < bf)))) {
            bc = c, br = r, bf = p->flows, best = i, ties = 1;
        } else if (c == bc && r == br && p->flows == bf && rng_below(&h->rng, ++ties) == 0) {
            best = i;
        }
    }
    return best;
}

static void put_on(struct sim *s, struct hflow *fl, uint32_t pi)
{
    struct hdst *d = fl->d;
    fl->pi = pi;
    fl->word = d->words[pi];
    fl->epoch = d->epoch;
    fl->moved = lb_now(s);
    d->path[pi].flows++;
}

static void move(struct sim *s, struct hflow *fl, uint32_t pi, int stat)
{
    if (fl->pi != UINT32_MAX) {
        /* packets still on the old path arrive after the new path's first ones */
        simtime_t old = prtt(&fl->d->path[fl->pi]);
        fl->settle = lb_now(s) + fl->d->rtt_high + (old == T_NEVER ? fl->d->rtt_high : old);
        fl->d->path[fl->pi].flows--;
    }
    if (pi != fl->pi)
        lb_stat_add(s, stat, 1);
    put_on(s, fl, pi);
}

static void start_flow(struct sim *s, struct lb_switch *h, const struct hermes_par *hp, struct qp *f, struct hflow *fl)
{
    struct hhost *hh = h->st;
    fl->live = true;
    fl->rate = UINT64_MAX;
    fl->r_t = lb_now(s);
    uint32_t se = lb_host_edge(s, f->src), de = lb_host_edge(s, f->dst);
    if (se == de || de == UINT32_MAX || se == UINT32_MAX)
        return;
    struct hdst *d = dst_of(s, hh, hp, f, se, de);
    if (!d)
        return;
    fl->d = d;
    d->probe_to = f->dst;
    d->prio = f->pg;
    refresh(s, d);
    if (!d->npaths) { /* cut off for now: every switch finds what route is left */
        fl->pi = UINT32_MAX;
        fl->replace = true;
    } else {
        put_on(s, fl, place(s, h, hp, d));
    }
    if (d->nflows++ == 0) {
        d->act_i = hh->nact;
        hh->act[hh->nact++] = de;
    }
    if (hp->probe && h->timer_at[0] < 0)
        lb_timer_set(s, h, 0, lb_now(s) + d->probe_every);
}

static void end_flow(struct lb_switch *h, struct hflow *fl)
{
    struct hhost *hh = h->st;
    struct hdst *d = fl->d;
    fl->done = true;
    if (fl->pi != UINT32_MAX)
        d->path[fl->pi].flows--;
    if (--d->nflows == 0) { /* swap it out of the active list */
        uint32_t last = hh->act[--hh->nact];
        hh->act[d->act_i] = last;
        hh->dst[last]->act_i = d->act_i;
    }
}

static void hermes_send(struct sim *s, struct lb_switch *h, const void *par, struct qp *f, struct pkt *p, bool retx)
{
    const struct hermes_par *hp = par;
    struct hflow *fl = lb_flow_state(s, f->id);
    if (!fl->live)
        start_flow(s, h, hp, f, fl);
    struct hdst *d = fl->d;
    if (!d)
        return;
    simtime_t now = lb_now(s);
    if (!retx)
        fl->sent += pkt_payload(s, p);
    fix_flow(s, fl);
    if (!d->npaths)
        return;
    if (fl->replace) { /* it timed out (or its path vanished): placed again as a new flow is */
        fl->replace = false;
        move(s, fl, place(s, h, hp, d), ST_REPLACED);
    } else if (now - fl->moved >= d->t1) {
        int c = classify(hp, d, &d->path[fl->pi], now);
        if (c == FAILED ||
            (c == CONGESTED && (fl->sent < d->s_bytes || (double)fl->rate < hp->rate_low * (double)d->line))) {
            uint32_t to = better(s, h, hp, d, fl->pi, c == FAILED);
            if (to != UINT32_MAX)
                move(s, fl, to, ST_REROUTES);
        }
    }
    p->lb.path = fl->word;
    p->lb.path_hop = 0;
}

static void hermes_ack(struct sim *s, struct lb_switch *h, const void *par, struct qp *f, const struct pkt *a)
{
    const struct hermes_par *hp = par;
    struct hflow *fl = lb_flow_state(s, f->id);
    struct hdst *d = fl->d;
    if (!d || fl->done)
        return;
    simtime_t now = lb_now(s);
    fix_flow(s, fl);
    uint32_t pi = a->lb.echo_path == fl->word ? fl->pi : path_index(d, a->lb.echo_path);
    if (pi != UINT32_MAX) {
        struct hpath *p = &d->path[pi];
        sample(s, hp, d, pi, now - a->ts, a->flags & PF_ECN_ECHO);
        p->timeouts = 0; /* it delivers */
        p->replies++;
        /* early packets right after a move are its own reordering, not loss */
        if (a->type == PKT_NACK && now >= fl->settle)
            p->nacks++;
        if (p->replies >= 256)
            p->replies /= 2, p->nacks /= 2;
        if (p->replies >= 64 && (double)p->nacks > hp->fail_retx * p->replies && p->failed_until <= now &&
            classify(hp, d, p, now) != CONGESTED)
            fail(s, hp, d, p);
    }
    if (now - fl->r_t >= d->t1) {
        fl->rate = (uint64_t)((unsigned __int128)(f->snd_una - fl->r_una) * 8 * T_SEC / (uint64_t)(now - fl->r_t));
        fl->r_una = f->snd_una;
        fl->r_t = now;
    }
    if (f->snd_una >= f->size)
        end_flow(h, fl);
}

static void hermes_timeout(struct sim *s, struct lb_switch *h, const void *par, struct qp *f)
{
    (void)h;
    const struct hermes_par *hp = par;
    struct hflow *fl = lb_flow_state(s, f->id);
    struct hdst *d = fl->d;
    if (!d || fl->done)
        return;
    fix_flow(s, fl);
    if (fl->pi != UINT32_MAX) {
        struct hpath *p = &d->path[fl->pi];
        if (++p->timeouts >= (uint32_t)hp->fail_timeouts)
            fail(s, hp, d, p);
    }
    fl->replace = true;
}

static void hermes_probe_echo(struct sim *s, struct lb_switch *h, const void *par, const struct pkt *e)
{
    const struct hermes_par *hp = par;
    struct hhost *hh = h->st;
    uint32_t de = lb_host_edge(s, e->src);
    struct hdst *d = hh->dst ? hh->dst[de] : NULL;
    if (!d)
        return;
    refresh(s, d);
    uint32_t pi = path_index(d, e->lb.echo_path);
    if (pi == UINT32_MAX)
        return;
    lb_stat_add(s, ST_PROBE_ECHOES, 1);
    sample(s, hp, d, pi, lb_now(s) - e->ts, e->flags & PF_ECN_ECHO);
}

/* Every probe interval: per destination rack with flows, two random paths
 * (unexplored ones first) and the best known one. */
static void probe_rack(struct sim *s, struct lb_switch *h, const struct hermes_par *hp, struct hdst *d)
{
    simtime_t now = lb_now(s);
    uint32_t pick[3], n = 0, unknown = 0;
    uint32_t best = UINT32_MAX;
    simtime_t br = T_NEVER;
    for (uint32_t i = 0; i < d->npaths; i++) {
        struct hpath *p = &d->path[i];
        int c = classify(hp, d, p, now);
        if (!known(p))
            unknown++;
        else if (c != FAILED && c != CONGESTED && prtt(p) < br)
            br = prtt(p), best = i;
    }
    for (int k = 0; k < 2 && n < d->npaths; k++) {
        /* the j-th not yet picked path among the unexplored, else among all */
        bool from_unknown = unknown > 0;
        uint32_t pool = 0;
        for (uint32_t i = 0; i < d->npaths; i++) {
            bool taken = (n > 0 && pick[0] == i) || (n > 1 && pick[1] == i);
            pool += !taken && (!from_unknown || !known(&d->path[i]));
        }
        if (!pool)
            break;
        uint32_t j = (uint32_t)rng_below(&h->rng, pool);
        for (uint32_t i = 0; i < d->npaths; i++) {
            bool taken = (n > 0 && pick[0] == i) || (n > 1 && pick[1] == i);
            if (taken || (from_unknown && known(&d->path[i])))
                continue;
            if (j-- == 0) {
                pick[n++] = i;
                unknown -= !known(&d->path[i]);
                break;
            }
        }
    }
    if (best != UINT32_MAX && !(n > 0 && pick[0] == best) && !(n > 1 && pick[1] == best))
        pick[n++] = best;
    for (uint32_t k = 0; k < n; k++)
        lb_probe_send(s, h->node, d->probe_to, d->words[pick[k]], d->prio);
}

static void hermes_timer(struct sim *s, struct lb_switch *h, const void *par, int kind)
{
    (void)kind;
    const struct hermes_par *hp = par;
    struct hhost *hh = h->st;
    if (h->layer != 0 || !hh->nact) /* switches set no timers; a host with no flows stops probing */
        return;
    simtime_t every = T_NEVER;
    for (uint32_t k = 0; k < hh->nact; k++) {
        struct hdst *d = hh->dst[hh->act[k]];
        refresh(s, d);
        probe_rack(s, h, hp, d);
        if (d->probe_every < every)
            every = d->probe_every;
    }
    lb_timer_set(s, h, 0, lb_now(s) + every);
}

static int hermes_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports,
                         int n)
{
    (void)par;
    (void)ports;
    return lb_ecmp_pick(s, sw, p, n); /* flows Hermes does not route (header) */
}

const struct lb_ops lb_hermes = {
    .name = "hermes",
    .help = "Hermes (SIGCOMM'17): the sender senses each path (RTT, ECN, failures, probes) and moves a flow only "
            "off a congested or failed path to a notably better one; thresholds scale with the base RTT",
    .params = hermes_params,
    .params_size = sizeof(struct hermes_par),
    .flow_state_size = sizeof(struct hflow),
    .choose = hermes_choose,
    .on_timer = hermes_timer,
    .host_state_size = sizeof(struct hhost),
    .host_send = hermes_send,
    .host_ack = hermes_ack,
    .host_timeout = hermes_timeout,
    .host_probe = hermes_probe_echo,
    .stat_names = hermes_stats,
};
