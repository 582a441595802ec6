/* DCQCN — Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015, §3 (reaction point), as Mellanox NICs implement it and as the
 * ns-3 HPCC simulator models it (rdma-hw.cc, "Mellanox's version of DCQCN").
 *
 * The reaction point keeps a current rate RC and a target rate RT:
 *  - On the first CNP: alpha = 1, RC = RT = rate_on_first_cnp * RC, and the
 *    alpha and rate-decrease clocks start.
 *  - Every alpha_resume_interval: alpha = (1-g)·alpha + g if a CNP came in the
 *    interval, else (1-g)·alpha.
 *  - Every rate_decrease_interval (offset 1 ns after the alpha clock), if a
 *    CNP came: RT = RC (unless in the first stage and not clamping),
 *    RC = max(min_rate, RC·(1 - alpha/2)), stage = 0, restart the RP timer.
 *  - Every rp_timer: stage < F: fast recovery RC = (RC+RT)/2; stage == F:
 *    RT += rate_ai; stage > F: RT += rate_hai (RT capped at line rate), then
 *    RC = (RC+RT)/2; stage++.
 *
 * ns-3 runs the alpha and decrease clocks as periodic events per flow. Here
 * alpha is brought up to date lazily from the clock's phase, and a decrease
 * check is scheduled only at the next tick after a CNP: the same arithmetic at
 * the same instants, without an event every microsecond per congested flow.
 * Under run.ns3_timing both clocks are periodic events as in ns-3, because
 * what a tick sees depends on ns-3's order of same-time events: a CNP that
 * arrives at the very ns of an alpha tick is taken before the tick when its
 * ACK's arrival was scheduled first (the last link's delay plus the ACK's
 * serialisation at least the alpha period, as with 1 us links and a 1 us
 * period), and counts in that tick; the lazy clock would count it in the
 * next one. (64->1 incast: host 14's first such CNP, 1.2426 ms in, gave a
 * different cut 1 ns later and every FCT moved.)
 *
 * Two parameter profiles (`profile`, applied to every key the scenario does
 * not set itself, the switches' RED thresholds included):
 *  - ns3 (default): the ns-3 HPCC simulator's shipped DCQCN values, the
 *    defaults in the table below, with switch.kmin/kmax/pmax 400 KB/1600 KB
 *    at 100 Gbps and 0.2 (HPCC's production values, not the DCQCN paper's).
 *  - paper: the values the DCQCN paper recommends (SIGCOMM'15 §3 and §5:
 *    Kmin 5 KB, Kmax 200 KB at 40 Gbps, Pmax 1 %, g = 1/256, the alpha timer
 *    K and the rate-increase timer T 55 us, F = 5, R_AI = 40 Mbps, CNPs at
 *    most every N = 50 us), which Proteus, PCN and FLB say they use. Mapping:
 *    the thresholds are written for a 100 Gbps port (x 2.5) and scale with
 *    port rate as always; this model marks ACKs rather than sending one CNP
 *    per N, so N is the decrease check's period (at most one cut per 50 us);
 *    the paper's RP sets RT = RC on every cut (its eq. 1), clamp_target_rate
 *    on. Not in the paper, kept from ns3: rate_hai, min_rate,
 *    rate_on_first_cnp; the paper's byte counter (B = 10 MB, a stage every
 *    2 ms at 40 Gbps, beside the 55 us timer) is not modelled.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include "net/cc.h"

struct dcqcn_par {
    int profile; /* index into dcqcn_profiles, applied by the scenario loader */
    simtime_t alpha_resume_interval;
    simtime_t rate_decrease_interval;
    simtime_t rp_timer;
    bool clamp_target_rate;
    double ewma_gain;
    int64_t fast_recovery_times;
    uint64_t rate_ai, rate_hai, min_rate;
    double rate_on_first_cnp;
};

struct dcqcn {
    uint64_t target;     /* RT */
    double alpha;
    simtime_t t0;        /* first CNP: alpha ticks at t0 + k·A, decrease ticks at t0 + 1ns + k·D */
    uint64_t alpha_tick; /* last alpha tick applied */
    uint32_t stage;      /* rate-increase stage since the last decrease */
    bool started;        /* a CNP has been seen */
    bool alpha_cnp;      /* CNP since the last alpha tick */
    bool decrease_cnp;   /* CNP since the last decrease check */
};

enum { T_DECREASE, T_INCREASE, T_ALPHA };

#define P(m) offsetof(struct dcqcn_par, m)
/* Defaults: the DCQCN settings of the ns-3 HPCC simulator's shipped config. */
static const struct param dcqcn_params[] = {
    {"profile", P_ENUM, P(profile), "ns3", "value set for every key not set explicitly (here and switch.kmin/kmax/pmax): ns3 = the defaults below (ns-3 HPCC's config); paper = the DCQCN paper's (SIGCOMM'15), listed below the table", "ns3|paper", 0, 0},
    {"alpha_resume_interval", P_TIME, P(alpha_resume_interval), "1us", "alpha update period (ns-3 ALPHA_RESUME_INTERVAL)", NULL, 1, 1e15},
    {"rate_decrease_interval", P_TIME, P(rate_decrease_interval), "4us", "rate decrease check period (RATE_DECREASE_INTERVAL)", NULL, 1, 1e15},
    {"rp_timer", P_TIME, P(rp_timer), "900us", "rate increase period (RP_TIMER)", NULL, 1, 1e15},
    {"clamp_target_rate", P_BOOL, P(clamp_target_rate), "off", "always set RT = RC on decrease (CLAMP_TARGET_RATE)", NULL, 0, 0},
    {"ewma_gain", P_DOUBLE, P(ewma_gain), "0.00390625", "alpha EWMA gain g (EWMA_GAIN)", NULL, 0, 1},
    {"fast_recovery_times", P_INT, P(fast_recovery_times), "1", "fast-recovery stages before additive increase (FAST_RECOVERY_TIMES)", NULL, 0, 1000},
    {"rate_ai", P_RATE, P(rate_ai), "50Mbps", "additive increase step (RATE_AI)", NULL, 0, 0},
    {"rate_hai", P_RATE, P(rate_hai), "100Mbps", "hyper increase step (RATE_HAI)", NULL, 0, 0},
    {"min_rate", P_RATE, P(min_rate), "100Mbps", "rate floor (MIN_RATE)", NULL, 0, 0},
    {"rate_on_first_cnp", P_DOUBLE, P(rate_on_first_cnp), "1.0", "RC multiplier on the first CNP", NULL, 0, 1},
    PARAM_END};

static void dcqcn_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    (void)par;
    struct dcqcn *d = st;
    d->target = qp->rate;
}

/* One alpha update: ns-3's UpdateAlphaMp, the CNP flag read and cleared. */
static void alpha_step(struct dcqcn *d, const struct dcqcn_par *p)
{
    double keep = 1.0 - p->ewma_gain;
    d->alpha = d->alpha_cnp ? keep * d->alpha + p->ewma_gain : keep * d->alpha;
    d->alpha_cnp = false;
}

/* Apply every alpha tick at or before now. The first tick after a CNP adds g;
 * the rest only decay. */
static void alpha_catch_up(struct dcqcn *d, const struct dcqcn_par *p, simtime_t now)
{
    uint64_t due = (uint64_t)((now - d->t0) / p->alpha_resume_interval);
    if (due <= d->alpha_tick)
        return;
    uint64_t n = due - d->alpha_tick;
    double keep = 1.0 - p->ewma_gain;
    alpha_step(d, p);
    n--;
    for (; n > 0 && n <= 64; n--) /* step like ns-3 for short gaps, bit for bit */
        d->alpha *= keep;
    if (n)
        d->alpha *= pow(keep, (double)n);
    d->alpha_tick = due;
}

static void schedule_decrease(struct sim *s, struct qp *qp, struct dcqcn *d, const struct dcqcn_par *p)
{
    simtime_t now = cc_now(s), phase = d->t0 + T_NS, D = p->rate_decrease_interval;
    if (qp->timer_at[T_DECREASE] > now)
        return; /* already pending */
    simtime_t k = (now - phase) / D + 1; /* the next tick strictly after now */
    cc_timer_set(s, qp, T_DECREASE, phase + k * D);
}

static void dcqcn_on_cnp(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *pk)
{
    (void)pk;
    struct dcqcn *d = st;
    const struct dcqcn_par *p = par;
    simtime_t now = cc_now(s);
    if (!d->started) {
        d->started = true;
        d->alpha = 1.0;
        d->alpha_cnp = false;
        d->decrease_cnp = true;
        d->t0 = now;
        d->alpha_tick = 0;
        qp->rate = (uint64_t)(p->rate_on_first_cnp * (double)qp->rate);
        d->target = qp->rate;
        if (cc_ns3_timing(s)) /* ns-3's order: the alpha clock's first event, then the decrease clock's */
            cc_timer_set(s, qp, T_ALPHA, now + p->alpha_resume_interval);
        cc_timer_set(s, qp, T_DECREASE, now + p->rate_decrease_interval + T_NS);
        return;
    }
    if (cc_ns3_timing(s)) { /* the clocks are events: they read the flags when they run */
        d->alpha_cnp = true;
        d->decrease_cnp = true;
        return;
    }
    alpha_catch_up(d, p, now);
    d->alpha_cnp = true;
    d->decrease_cnp = true;
    schedule_decrease(s, qp, d, p);
}

static void rate_increase(struct qp *qp, struct dcqcn *d, const struct dcqcn_par *p)
{
    if ((int64_t)d->stage == p->fast_recovery_times)
        d->target += p->rate_ai;
    else if ((int64_t)d->stage > p->fast_recovery_times)
        d->target += p->rate_hai;
    if (d->target > qp->max_rate)
        d->target = qp->max_rate;
    qp->rate = qp->rate / 2 + d->target / 2;
    d->stage++;
}

static void dcqcn_on_timer(struct sim *s, struct qp *qp, void *st, const void *par, int kind)
{
    struct dcqcn *d = st;
    const struct dcqcn_par *p = par;
    simtime_t now = cc_now(s);
    if (kind == T_ALPHA) { /* run.ns3_timing only: ns-3's periodic alpha update */
        alpha_step(d, p);
        cc_timer_set(s, qp, T_ALPHA, now + p->alpha_resume_interval);
        return;
    }
    if (kind == T_INCREASE) {
        cc_timer_set(s, qp, T_INCREASE, now + p->rp_timer);
        rate_increase(qp, d, p);
        return;
    }
    if (cc_ns3_timing(s)) /* ns-3's periodic check: the next one is scheduled first */
        cc_timer_set(s, qp, T_DECREASE, now + p->rate_decrease_interval);
    else
        alpha_catch_up(d, p, now);
    if (!d->decrease_cnp)
        return;
    if (p->clamp_target_rate || d->stage != 0)
        d->target = qp->rate;
    uint64_t r = (uint64_t)((double)qp->rate * (1.0 - d->alpha / 2));
    qp->rate = r > p->min_rate ? r : p->min_rate;
    d->stage = 0;
    d->decrease_cnp = false;
    cc_timer_set(s, qp, T_INCREASE, now + p->rp_timer);
}

/* A rate below line rate with no increase clock running can only come from a
 * companion that set qp->rate itself (slow start's ramp; PB-FS goes through
 * on_rate_override, which arms the clock): DCQCN's own decreases always arm
 * it. Start the normal recovery toward the target, or such a flow would stay
 * slow until its next CNP. */
static void dcqcn_on_ack(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *ack)
{
    (void)st;
    (void)ack;
    const struct dcqcn_par *p = par;
    if (qp->rate < qp->max_rate && qp->timer_at[T_INCREASE] < 0)
        cc_timer_set(s, qp, T_INCREASE, cc_now(s) + p->rp_timer);
}

/* A companion's cut (PB-FS, from old_rate to qp->rate) is taken as one of
 * DCQCN's own rate decreases: RT = the rate before it (under the same rule as
 * a CNP's cut), RC = the cut, stage 0, and the increase clock restarts, so the
 * rate holds until a CNP or the next RP timer, then recovers toward RT. Alpha
 * and its clock are the network's business and stay as they are. */
static void dcqcn_on_rate_override(struct sim *s, struct qp *qp, void *st, const void *par, uint64_t old_rate)
{
    struct dcqcn *d = st;
    const struct dcqcn_par *p = par;
    if (p->clamp_target_rate || d->stage != 0 || !d->started)
        d->target = old_rate;
    d->stage = 0;
    cc_timer_set(s, qp, T_INCREASE, cc_now(s) + p->rp_timer);
}

/* The DCQCN paper's recommended values (see the header comment). */
static const char *const dcqcn_paper[] = {
    "switch.kmin=12.5KB", /* Kmin 5 KB at 40 Gbps; switch.kmin is for a 100 Gbps port */
    "switch.kmax=500KB",  /* Kmax 200 KB at 40 Gbps */
    "switch.pmax=0.01",   /* Pmax 1 % */
    "cc.dcqcn.ewma_gain=0.00390625",       /* g = 1/256 */
    "cc.dcqcn.alpha_resume_interval=55us", /* alpha timer K */
    "cc.dcqcn.rp_timer=55us",              /* rate-increase timer T */
    "cc.dcqcn.rate_decrease_interval=50us", /* CNP interval N: at most one cut per N */
    "cc.dcqcn.fast_recovery_times=5",      /* F */
    "cc.dcqcn.rate_ai=40Mbps",             /* R_AI */
    "cc.dcqcn.clamp_target_rate=on",       /* RT = RC on every cut (eq. 1) */
    NULL};

static const struct cc_profile dcqcn_profiles[] = {{"ns3", NULL}, {"paper", dcqcn_paper}, {NULL, NULL}};

const struct cc_ops cc_dcqcn = {
    .name = "dcqcn",
    .help = "DCQCN (SIGCOMM'15), Mellanox variant as in the ns-3 HPCC simulator (CC_MODE 1)",
    .params = dcqcn_params,
    .params_size = sizeof(struct dcqcn_par),
    .state_size = sizeof(struct dcqcn),
    .profiles = dcqcn_profiles,
    .init = dcqcn_init,
    .on_ack = dcqcn_on_ack,
    .on_rate_override = dcqcn_on_rate_override,
    .on_cnp = dcqcn_on_cnp,
    .on_timer = dcqcn_on_timer,
};
