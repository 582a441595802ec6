/* QCN — IEEE 802.1Qau Quantized Congestion Notification, as described by
 * Alizadeh et al., "Data Center Transport Mechanisms: Congestion Control
 * Theory and IEEE Standardization" (Allerton 2008, §III) and the QCN
 * pseudo-code the standard follows; PCN (NSDI'20) uses it as a baseline.
 * The reaction point's state machine is the one DCQCN inherited (the ns-3
 * DCQCN simulator's rpr_* functions implement the same standard).
 *
 * Congestion point, per switch egress port and priority queue: data bytes
 * arriving at the queue are counted; every sample interval the queue Q (after
 * the arrival) is compared with the set point and with the previous sample:
 *   Fb = -(Q_off + w·Q_delta),  Q_off = Q - q_eq,  Q_delta = Q - Q_old,  Q_old = Q
 * If Fb < 0, |Fb| is quantised to 6 bits,
 *   qFb = min(63, floor(|Fb|·63 / ((1 + 2w)·q_eq))),
 * and, if qFb > 0, a feedback message carrying qFb (p->aux, flag PF_CC1) goes
 * to the source of the sampled packet (cc_switch_packet/cc_switch_send: high
 * priority, routed like the flow's ACKs). A message with qFb = 0 would ask
 * for no decrease yet restart the source's recovery, so none is sent. The
 * next sample comes after sample_bytes / (1 + floor(qFb/8)) bytes (150, 75,
 * 50, 37.5, 30, 25, 21.4, 18.75 KB for the standard's 150 KB: the more
 * congested, the more often), times a uniform jitter in [1 - j, 1 + j]
 * (j = sample_jitter, 0.15 in the pseudo-code) drawn from a per-port
 * SplitMix64 state seeded by run.seed and the port id (run.seed = 1 keeps the
 * stream this generator always had, so runs at the default seed are what they
 * were before the seed counted). Only data packets on queues 1-7 are
 * counted and sampled. The switches' RED/ECN marking (switch.ecn) still runs;
 * QCN ignores the echo. A PB-FS postcard (no PF_CC1) is not a QCN message.
 *
 * Reaction point, per flow: a rate limiter with current rate CR (qp->rate)
 * and target rate TR, a byte counter (bytes the flow transmits, counted in
 * on_send) and a timer (CC timer 0).
 *  - Feedback qFb: TR = CR if this is the first feedback since the limiter
 *    started or since a rate-increase cycle (always, with clamp_target_rate);
 *    CR = max(min_rate, CR·(1 - min(gd·qFb, max_decrease))); gd = 1/128 so
 *    the largest message (63) cuts by 63/128, just under 1/2. Both counters
 *    restart: stages 0, byte counter byte_reset, timer time_reset.
 *  - A byte-counter cycle ends after byte_reset bytes (byte_reset/2 once its
 *    stage reached fast_recovery_times F); a timer cycle after time_reset
 *    (time_reset/2 likewise). Each end raises that counter's stage and then:
 *      both stages < F:            fast recovery      CR = (CR + TR)/2
 *      one stage >= F:             active increase    TR += rate_ai,  CR = (CR + TR)/2
 *      both stages >= F:           hyper-active       TR += i·rate_hai, CR = (CR + TR)/2,
 *                                                    i = min(stages) - F + 1
 *    except that in the first cycle after a decrease (either stage == 1) a TR
 *    above 10·CR is divided by 8 instead (the pseudo-code's guard against a
 *    stale target after many cuts). TR is capped at line rate; (CR + TR)/2
 *    rounds up, so CR reaches TR exactly. When CR is back at line rate the
 *    limiter is released (no more counting, timer stopped) until the next
 *    message.
 *
 * Defaults for a 100 Gbps fabric. The standard's defaults (the 802.1Qau MIB
 * and pseudo-code as we know them; the standard's text was not at hand) are
 * for 10 Gbps: set point 26 KB, w 2, minimum sample base 150 KB, byte
 * reset 150 KB, F 5, timer 15 ms, R_AI 5 Mbps, R_HAI 50 Mbps, Gd 1/128,
 * minimum decrease factor 1/2. We scale time by the link speed: quantities
 * in bytes are kept (q_eq, sampling, byte counter: at 100 Gbps they pass 10x
 * sooner, 150 KB being 12 us of line rate, the scale of a datacenter RTT),
 * rate steps grow with the link (R_AI 50 Mbps, R_HAI 500 Mbps: the same
 * fraction of the link per cycle) and the timer shrinks (1.5 ms). w, F, Gd
 * and the 1/2 cap are unitless and kept. min_rate is the 100 Mbps the other
 * schemes here use (the standard's floor is 5 Mbps at 10 Gbps).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/rng.h"
#include "net/cc.h"

struct qcn_par {
    /* congestion point */
    uint64_t q_eq, sample_bytes, cnm_size;
    double w, sample_jitter;
    /* reaction point */
    double gd, max_decrease;
    uint64_t byte_reset;
    simtime_t time_reset;
    int64_t fast_recovery_times;
    uint64_t rate_ai, rate_hai, min_rate;
    bool clamp_target_rate;
};

/* One congestion point: a port's priority queue. */
struct qcn_cp {
    int64_t bytes_left; /* until the next sample */
    uint64_t q_old;
    bool started;
};

struct qcn_port {
    struct qcn_cp cp[NQ];
    uint64_t rng; /* jitter; 0 = not seeded yet */
};

struct qcn {
    uint64_t target;    /* TR */
    int64_t bytes_left; /* byte counter */
    uint32_t byte_stage, time_stage;
    bool limited;       /* the rate limiter is active */
};

enum { T_RP }; /* the reaction point's timer */

#define P(m) offsetof(struct qcn_par, m)
static const struct param qcn_params[] = {
    {"q_eq", P_SIZE, P(q_eq), "26KB", "CP: queue set point Q_eq", NULL, 1, 1e12},
    {"w", P_DOUBLE, P(w), "2", "CP: weight of the queue's growth in Fb", NULL, 0, 1e6},
    {"sample_bytes", P_SIZE, P(sample_bytes), "150KB", "CP: bytes between samples when not congested (fewer as |Fb| grows)", NULL, 1, 1e12},
    {"sample_jitter", P_DOUBLE, P(sample_jitter), "0.15", "CP: sample interval drawn uniformly in [1-j, 1+j] times the nominal", NULL, 0, 0.99},
    {"cnm_size", P_SIZE, P(cnm_size), "64B", "CP: bytes on the wire of a feedback message", NULL, 1, 9000},
    {"gd", P_DOUBLE, P(gd), "0.0078125", "RP: decrease per unit of quantised Fb (1/128)", NULL, 0, 1},
    {"max_decrease", P_DOUBLE, P(max_decrease), "0.5", "RP: largest cut per message (the standard's minimum decrease factor)", NULL, 0, 1},
    {"byte_reset", P_SIZE, P(byte_reset), "150KB", "RP: bytes per byte-counter cycle (half after fast recovery)", NULL, 1, 1e15},
    {"time_reset", P_TIME, P(time_reset), "1.5ms", "RP: timer cycle (half after fast recovery)", NULL, 1, 1e15},
    {"fast_recovery_times", P_INT, P(fast_recovery_times), "5", "RP: cycles of fast recovery per counter (F)", NULL, 0, 1000},
    {"rate_ai", P_RATE, P(rate_ai), "50Mbps", "RP: active increase step of the target rate (R_AI)", NULL, 0, 0},
    {"rate_hai", P_RATE, P(rate_hai), "500Mbps", "RP: hyper-active increase step (R_HAI)", NULL, 0, 0},
    {"min_rate", P_RATE, P(min_rate), "100Mbps", "RP: rate floor", NULL, 0, 0},
    {"clamp_target_rate", P_BOOL, P(clamp_target_rate), "off", "RP: set TR = CR on every message, not only the first after an increase", NULL, 0, 0},
    PARAM_END};

/* ------------------------------------------------------------ congestion point */

static int64_t sample_interval(const struct sim *s, struct qcn_port *ps, uint32_t port, const struct qcn_par *p, int qfb)
{
    double n = (double)p->sample_bytes / (1 + qfb / 8);
    if (p->sample_jitter > 0) {
        if (!ps->rng)
            ps->rng = (0x51c0ffee00000000ULL ^ port) ^ (cc_seed(s) - 1) * 0xd1b54a32d192ed03ULL;
        double u = (double)(splitmix64(&ps->rng) >> 11) / 9007199254740992.0; /* [0, 1) */
        n *= 1 - p->sample_jitter + 2 * p->sample_jitter * u;
    }
    return n >= 1 ? (int64_t)n : 1;
}

static void qcn_sw_enqueue(struct sim *s, uint32_t port, void *pst, const void *par, struct pkt *pk, int q)
{
    const struct qcn_par *p = par;
    struct qcn_port *ps = pst;
    if (pk->type != PKT_DATA || q == 0)
        return;
    struct qcn_cp *cp = &ps->cp[q];
    if (!cp->started) {
        cp->started = true;
        cp->bytes_left = sample_interval(s, ps, port, p, 0);
    }
    cp->bytes_left -= pk->size;
    if (cp->bytes_left > 0)
        return;
    uint64_t Q = lb_port_queue_bytes(s, port, q);
    double fb = -(((double)Q - (double)p->q_eq) + p->w * ((double)Q - (double)cp->q_old));
    cp->q_old = Q;
    int qfb = 0;
    if (fb < 0) {
        double fb_max = (1 + 2 * p->w) * (double)p->q_eq;
        qfb = -fb >= fb_max ? 63 : (int)(-fb * 63 / fb_max);
    }
    cp->bytes_left = sample_interval(s, ps, port, p, qfb);
    if (qfb > 0) {
        uint32_t sw = lb_port_node(s, port);
        struct pkt *m = cc_switch_packet(s, sw, pk->flow, PF_CC1, (uint32_t)p->cnm_size);
        m->aux = (uint64_t)qfb;
        cc_switch_send(s, sw, m);
    }
}

/* ------------------------------------------------------------ reaction point */

static void set_rate(struct sim *s, struct qp *qp, uint64_t r)
{
    if (r != qp->rate)
        cc_change_rate(s, qp, r);
}

static void rate_increase(struct sim *s, struct qp *qp, struct qcn *c, const struct qcn_par *p)
{
    uint32_t F = (uint32_t)p->fast_recovery_times;
    uint64_t cr = qp->rate;
    if ((c->byte_stage == 1 || c->time_stage == 1) && c->target > 10 * cr) {
        c->target /= 8;
    } else if (c->byte_stage < F && c->time_stage < F) {
        /* fast recovery: TR stays */
    } else if (c->byte_stage < F || c->time_stage < F) {
        c->target += p->rate_ai;
    } else {
        uint32_t m = c->byte_stage < c->time_stage ? c->byte_stage : c->time_stage;
        c->target += (uint64_t)(m - F + 1) * p->rate_hai;
    }
    if (c->target > qp->max_rate)
        c->target = qp->max_rate;
    cr = (cr + c->target + 1) / 2;
    if (cr >= qp->max_rate) {
        cr = qp->max_rate;
        c->limited = false; /* back at line rate: release the limiter */
        cc_timer_cancel(s, qp, T_RP);
    }
    set_rate(s, qp, cr);
}

static void qcn_init(struct sim *s, struct qp *qp, void *st, const void *par)
{
    (void)s;
    (void)par;
    struct qcn *c = st;
    c->target = qp->rate;
}

static void qcn_on_feedback(struct sim *s, struct qp *qp, void *st, const void *par, const struct pkt *pk)
{
    struct qcn *c = st;
    const struct qcn_par *p = par;
    if (!(pk->flags & PF_CC1) || pk->aux == 0)
        return; /* not a QCN message (e.g. a PB-FS postcard) */
    uint64_t qfb = pk->aux < 63 ? pk->aux : 63;
    if (!c->limited || c->byte_stage || c->time_stage || p->clamp_target_rate)
        c->target = qp->rate;
    double dec = p->gd * (double)qfb;
    if (dec > p->max_decrease)
        dec = p->max_decrease;
    uint64_t r = (uint64_t)((double)qp->rate * (1 - dec));
    if (r < p->min_rate)
        r = p->min_rate;
    c->limited = true;
    c->byte_stage = c->time_stage = 0;
    c->bytes_left = (int64_t)p->byte_reset;
    cc_timer_set(s, qp, T_RP, cc_now(s) + p->time_reset);
    set_rate(s, qp, r);
}

static void qcn_on_send(struct sim *s, struct qp *qp, void *st, const void *par, struct pkt *pk)
{
    struct qcn *c = st;
    const struct qcn_par *p = par;
    if (!c->limited)
        return;
    c->bytes_left -= pk->size;
    if (c->bytes_left > 0)
        return;
    c->byte_stage++;
    c->bytes_left = (int64_t)(c->byte_stage < (uint64_t)p->fast_recovery_times ? p->byte_reset : p->byte_reset / 2);
    rate_increase(s, qp, c, p);
}

static void qcn_on_timer(struct sim *s, struct qp *qp, void *st, const void *par, int kind)
{
    struct qcn *c = st;
    const struct qcn_par *p = par;
    if (kind != T_RP || !c->limited)
        return;
    c->time_stage++;
    simtime_t t = c->time_stage < (uint64_t)p->fast_recovery_times ? p->time_reset : p->time_reset / 2;
    if (t < 1)
        t = 1;
    cc_timer_set(s, qp, T_RP, cc_now(s) + t);
    rate_increase(s, qp, c, p);
}

const struct cc_ops cc_qcn = {
    .name = "qcn",
    .help = "QCN (IEEE 802.1Qau): switch samples the queue, sends quantised Fb to the source; byte-counter/timer recovery",
    .params = qcn_params,
    .params_size = sizeof(struct qcn_par),
    .state_size = sizeof(struct qcn),
    .init = qcn_init,
    .on_timer = qcn_on_timer,
    .on_send = qcn_on_send,
    .on_feedback = qcn_on_feedback,
    .port_state_size = sizeof(struct qcn_port),
    .sw_enqueue = qcn_sw_enqueue,
};
