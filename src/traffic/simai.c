/* SimAI training workloads: the parser and the job as flows (simai.h).
 *
 * The job, as SimAI's Workload::iterate_hybrid_parallel_Transformer_fwd_in_bckwd
 * runs it on every GPU (one pass per iteration):
 *   forward, layer 0 .. n-1: wait for the layer's weight-gradient collective
 *     of the previous iteration, compute fwd_compute, run the fwd collective
 *     (blocking; SimAI raises a size in (0, 4096) to 4096 here);
 *   backward, layer n-1 .. 0: compute ig_compute, run the ig collective
 *     (blocking), compute wg_compute, start the wg collective (not waited
 *     for: it overlaps what follows);
 *   the job ends when every collective has finished.
 * Each collective is a ring (all-reduce, all-gather, reduce-scatter) or an
 * all-to-all with every transfer at once (traffic/collective.c) over the
 * communicator's GPUs. A transfer between two GPUs of one server with an
 * NVSwitch travels between their NVLink ports (topo_gpu_nvl), any other
 * through their NICs. A GPU's first flows of a collective wait for the flows
 * that ended its last blocking collective (the last step it sent or received)
 * plus the compute since then plus send_lat (SimAI's AS_SEND_LAT, before every
 * flow) plus endpoint_delay (its system layer's endpoint-delay, 10 ns by
 * default, which every flow also passes: Sys communication_delay through
 * MemBus); waiting for a weight-gradient collective adds its last flows to that
 * set. That is exact when no compute lies between the last blocking
 * collective and the wait (every forward layer with a TP collective); after
 * compute with no collective, max(blocking end, wg end) + that compute
 * overestimates by at most the compute. SimAI's one-tick (1 ns) steps
 * between layers are left out. */
#include "traffic/simai.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "topo/topo.h"
#include "traffic/collective.h"

static const struct {
    const char *name;
    int policy;
} policies[] = {
    {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", SIMAI_TRANSFORMER_FIB},
    {"HYBRID_TRANSFORMER", SIMAI_TRANSFORMER},
};
/* the policies SimAI also knows but whose loops are not the transformer's */
static const char *const other_policies[] = {"DATA", "HYBRID_DLRM", "HYBRID_DLRM_ENHANCED", "MODEL", "HYBRID_DATA_MODEL",
                                             "HYBRID_MODEL_DATA", "HYBRID_CUSTOMIZED", "MICRO", "DISTRIBUTED_INFERENCE"};

const char *simai_ctype_name(int type)
{
    static const char *const n[] = {"NONE", "ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL"};
    return type >= 0 && type <= SIMAI_ALLTOALL ? n[type] : "?";
}

const char *simai_group_name(int group)
{
    static const char *const n[] = {"NONE", "TP", "DP", "EP", "DP_EP"};
    return group >= 0 && group <= SIMAI_G_DP_EP ? n[group] : "?";
}

/* The first whitespace-separated token of s into buf; the rest after it. */
static const char *token(const char *s, char *buf, size_t n)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    size_t k = 0;
    while (*s && !isspace((unsigned char)*s)) {
        if (k + 1 < n)
            buf[k++] = *s;
        s++;
    }
    buf[k] = 0;
    return s;
}

static bool known_policy(const char *tok, int *policy, bool *other)
{
    *other = false;
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (strcmp(tok, policies[i].name) == 0) {
            *policy = policies[i].policy;
            return true;
        }
    for (size_t i = 0; i < sizeof other_policies / sizeof other_policies[0]; i++)
        if (strcmp(tok, other_policies[i]) == 0)
            *other = true;
    return *other;
}

bool simai_looks_workload(const char *text)
{
    char tok[64];
    int policy;
    bool other;
    token(text, tok, sizeof tok);
    return known_policy(tok, &policy, &other); /* no ns-3 key or INI line starts like a SimAI policy */
}

/* Splits a line into at most max tokens (in place); how many there were. */
static int split(char *ln, char **tok, int max)
{
    int n = 0;
    for (char *s = ln;;) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (!*s)
            break;
        if (n < max)
            tok[n] = s;
        n++;
        while (*s && !isspace((unsigned char)*s))
            s++;
        if (*s)
            *s++ = 0;
    }
    return n;
}

/* A communication type as Workload.cc decodes it: by prefix (ALLREDUCE before
 * ALLTOALL, so ALLREDUCEALLTOALL reads as an ALLREDUCE), then the suffix for
 * the communicator; NONE and anything else: no communication. */
static int comm_type(const char *s, int phase, uint8_t *type, uint8_t *group, const char **why)
{
    static const struct {
        const char *p;
        int t;
    } pre[] = {{"ALLREDUCE", SIMAI_ALLREDUCE}, {"ALLTOALL", SIMAI_ALLTOALL}, {"ALLGATHER", SIMAI_ALLGATHER},
               {"REDUCESCATTER", SIMAI_REDUCESCATTER}};
    *type = SIMAI_NONE;
    *group = SIMAI_G_NONE;
    if (strcmp(s, "NONE") == 0)
        return 0;
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        size_t n = strlen(pre[i].p);
        if (strncmp(s, pre[i].p, n) != 0)
            continue;
        const char *suf = s + n;
        *type = (uint8_t)pre[i].t;
        if (!*suf)
            *group = phase == SIMAI_WG ? SIMAI_G_DP : SIMAI_G_TP;
        else if (strcmp(suf, "_EP") == 0)
            *group = SIMAI_G_EP;
        else if (strcmp(suf, "_DP_EP") == 0)
            *group = SIMAI_G_DP_EP;
        else {
            *why = "SimAI reads this as a collective with no communicator (its suffix is neither empty, _EP nor _DP_EP)";
            return -1;
        }
        return 0;
    }
    *why = "not a communication type (ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, each optionally _EP or _DP_EP, "
           "or NONE)";
    return -1;
}

void simai_free(struct simai_workload *w)
{
    free(w->layers);
    memset(w, 0, sizeof *w);
}

/* Header keys: the value after the key token, a whole number >= min. */
static int header_key(const char *fname, char **tok, int nt, int i, uint64_t min, uint64_t *v, struct err *e)
{
    if (i + 1 >= nt)
        return errf(e, "%s:1: %s needs a value", fname, tok[i]);
    if (!parse_whole(tok[i + 1], UINT32_MAX, v) || *v < min)
        return errf(e, "%s:1: %s: bad value '%.40s' (expected a whole number >= %" PRIu64 ")", fname, tok[i], tok[i + 1],
                    min);
    return 0;
}

int simai_parse(struct simai_workload *w, const char *text, const char *fname, struct err *e)
{
    memset(w, 0, sizeof *w);
    snprintf(w->fname, sizeof w->fname, "%s", fname);
    char *buf = strdup(text);
    if (!buf)
        return errf(e, "%s: out of memory", fname);
    int rc = -1, line = 0;
    char *next = buf;
    char *tok[64];
    /* line 1 */
    char *ln = next;
    line++;
    if ((next = strchr(ln, '\n')))
        *next++ = 0;
    int nt = split(ln, tok, 64);
    if (nt > 64) {
        errf(e, "%s:1: the header has %d fields; SimAI's keys take fewer than 64", fname, nt);
        goto out;
    }
    bool other = false;
    if (nt == 0 || !known_policy(tok[0], &w->policy, &other)) {
        errf(e, "%s:1: '%.60s' is not a SimAI parallelism policy (HYBRID_TRANSFORMER_FWD_IN_BCKWD, ...)", fname,
             nt ? tok[0] : "");
        goto out;
    }
    if (other) {
        errf(e, "%s:1: policy %s: rocesim runs SimAI's transformer loops only (HYBRID_TRANSFORMER_FWD_IN_BCKWD, "
                "HYBRID_TRANSFORMER), which AICB writes", fname, tok[0]);
        goto out;
    }
    uint64_t tp = 0, ep = 1, pp = 1, vpp = 1, ga = 1, all = 0, v;
    bool have_tp = false, have_all = false;
    for (int i = 1; i < nt; i++) {
        const char *k = tok[i];
        uint64_t *dst = NULL, min = 1;
        if (strcmp(k, "model_parallel_NPU_group:") == 0)
            dst = &tp, have_tp = true;
        else if (strcmp(k, "ep:") == 0)
            dst = &ep;
        else if (strcmp(k, "pp:") == 0)
            dst = &pp;
        else if (strcmp(k, "vpp:") == 0)
            dst = &vpp;
        else if (strcmp(k, "ga:") == 0)
            dst = &ga;
        else if (strcmp(k, "all_gpus:") == 0)
            dst = &all, have_all = true;
        else if (strcmp(k, "pp_comm") == 0 || strcmp(k, "pp_comm:") == 0)
            dst = &w->pp_comm, min = 0;
        else if (strcmp(k, "checkpoints:") == 0 || strcmp(k, "checkpoint_initiates:") == 0) {
            if (header_key(fname, tok, nt, i, 0, &v, e) < 0)
                goto out;
            if (v > 0) {
                errf(e, "%s:1: %s %" PRIu64 ": activation recomputation (forward in backward) is not modelled; "
                        "use a workload with checkpoints: 0", fname, k, v);
                goto out;
            }
            i++;
            continue;
        } else {
            if (k[strlen(k) - 1] == ':')
                warnf("%s:1: unknown header key %.40s (SimAI ignores it too)", fname, k);
            continue;
        }
        if (header_key(fname, tok, nt, i, min, dst, e) < 0)
            goto out;
        i++;
    }
    if (!have_tp || !have_all) {
        errf(e, "%s:1: the header needs model_parallel_NPU_group: and all_gpus:", fname);
        goto out;
    }
    w->tp = (uint32_t)tp, w->ep = (uint32_t)ep, w->pp = (uint32_t)pp, w->vpp = (uint32_t)vpp, w->ga = (uint32_t)ga;
    w->all_gpus = (uint32_t)all;
    if (all % (tp * pp)) {
        errf(e, "%s:1: all_gpus %" PRIu64 " is not a multiple of model_parallel_NPU_group x pp = %" PRIu64, fname, all,
             tp * pp);
        goto out;
    }
    if ((all / tp) % ep) { /* SimAI's communicators ignore pp (simai_group_ranks) */
        errf(e, "%s:1: ep %" PRIu64 " does not divide all_gpus / model_parallel_NPU_group = %" PRIu64 ", as "
                "SimAI's communicators need (they take DP = all_gpus / TP whatever pp is)", fname, ep, all / tp);
        goto out;
    }
    if ((pp > 1) != (w->pp_comm > 0))
        warnf("%s:1: pp %" PRIu64 " with pp_comm %" PRIu64 ": SimAI warns of a format mismatch here", fname, pp,
              w->pp_comm);
    /* line 2 */
    ln = next;
    line++;
    if (!ln) {
        errf(e, "%s:2: missing: the number of layers", fname);
        goto out;
    }
    if ((next = strchr(ln, '\n')))
        *next++ = 0;
    nt = split(ln, tok, 16);
    if (nt != 1 || !parse_whole(tok[0], 1u << 20, &v) || v == 0) {
        errf(e, "%s:2: expected the number of layers (a whole number 1..%u)", fname, 1u << 20);
        goto out;
    }
    w->n_layers = (uint32_t)v;
    w->layers = calloc(w->n_layers, sizeof *w->layers);
    if (!w->layers) {
        errf(e, "%s: out of memory", fname);
        goto out;
    }
    uint32_t got = 0;
    while ((ln = next) != NULL) {
        line++;
        if ((next = strchr(ln, '\n')))
            *next++ = 0;
        nt = split(ln, tok, 16);
        if (nt == 0)
            continue;
        if (got == w->n_layers) {
            errf(e, "%s:%d: more layers than the %" PRIu32 " line 2 announces", fname, line, w->n_layers);
            goto out;
        }
        if (nt != 12) {
            errf(e, "%s:%d: %d fields, expected 12: name depen fwd_compute fwd_type fwd_size ig_compute ig_type ig_size "
                    "wg_compute wg_type wg_size wg_update", fname, line, nt);
            goto out;
        }
        struct simai_layer *L = &w->layers[got];
        L->line = line;
        snprintf(L->name, sizeof L->name, "%s", tok[0]);
        char *end;
        errno = 0;
        long long d = strtoll(tok[1], &end, 10);
        if (*end || end == tok[1] || errno) {
            errf(e, "%s:%d: depen '%.40s' is not a whole number", fname, line, tok[1]);
            goto out;
        }
        L->depen = d;
        static const char *const what[3] = {"fwd", "ig", "wg"};
        for (int ph = 0; ph < 3; ph++) {
            const char *ct = tok[2 + 3 * ph], *ty = tok[3 + 3 * ph], *sz = tok[4 + 3 * ph], *why;
            struct simai_comm *c = &L->c[ph];
            if (!parse_whole(ct, UINT64_MAX / 1000000, &c->compute)) {
                errf(e, "%s:%d: %s_compute '%.40s' is not a time in ns (a whole number)", fname, line, what[ph], ct);
                goto out;
            }
            if (comm_type(ty, ph, &c->type, &c->group, &why) < 0) {
                errf(e, "%s:%d: %s_type '%.40s': %s", fname, line, what[ph], ty, why);
                goto out;
            }
            if (!parse_whole(sz, UINT64_MAX >> 8, &c->size)) {
                errf(e, "%s:%d: %s_size '%.40s' is not a size in bytes (a whole number)", fname, line, what[ph], sz);
                goto out;
            }
        }
        if (!parse_whole(tok[11], UINT64_MAX / 1000000, &L->wg_update)) {
            errf(e, "%s:%d: wg_update '%.40s' is not a time in ns (a whole number)", fname, line, tok[11]);
            goto out;
        }
        got++;
    }
    if (got < w->n_layers) {
        errf(e, "%s:%d: %" PRIu32 " layers, line 2 announces %" PRIu32, fname, line, got, w->n_layers);
        goto out;
    }
    rc = 0;
out:
    free(buf);
    if (rc < 0) {
        free(w->layers);
        w->layers = NULL;
        w->n_layers = 0;
    }
    return rc;
}

int simai_read(struct simai_workload *w, const char *path, struct err *e)
{
    char *text;
    if (read_text_file(path, &text, e) < 0)
        return -1;
    int rc = simai_parse(w, text, path, e);
    free(text);
    return rc;
}

/* SimAI b5ff47c forms its communicators with PP_size = 1 whatever the header's
 * pp says (Sys::mock_nccl_grobal_group_init: DP_size = all_gpus / TP,
 * DP_EP_size = DP_size / EP), so DP spans every TP group, pipeline stages
 * included; pp enters only its report (bubble time). */
uint32_t simai_group_ranks(const struct simai_workload *w, int group, uint32_t r, uint32_t *out)
{
    uint32_t tp = w->tp, all = w->all_gpus, n = 0;
    uint32_t dp = all / tp, l = r / tp, k = r % tp;
    switch (group) {
    case SIMAI_G_TP:
        for (uint32_t j = 0; j < tp; j++)
            out[n++] = l * tp + j;
        break;
    case SIMAI_G_DP: { /* DP_nums = all / DP = TP x PP; group i: i, i + DP_nums, ... */
        uint32_t stride = all / dp;
        for (uint32_t j = 0; j < dp; j++)
            out[n++] = r % stride + j * stride;
        break;
    }
    case SIMAI_G_EP: { /* GPU k of EP consecutive TP groups */
        uint32_t b = l / w->ep * w->ep;
        for (uint32_t m = 0; m < w->ep; m++)
            out[n++] = k + (b + m) * tp;
        break;
    }
    case SIMAI_G_DP_EP: { /* GPU k of TP groups i, i + EP, ... (DP / EP of them) */
        uint32_t dpep = dp / w->ep, i = l % w->ep;
        for (uint32_t m = 0; m < dpep; m++)
            out[n++] = k + (i + m * w->ep) * tp;
        break;
    }
    default:
        out[n++] = r;
    }
    return n;
}

void simai_sched_free(struct simai_sched *s)
{
    simai_free(&s->w);
    free(s->rec);
}

/* ------------------------------------------------------------ the job */

struct ulist { /* a growable list of flow ids */
    uint32_t *v;
    uint32_t n, cap;
};

static int ul_push(struct ulist *l, uint32_t x)
{
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? 2 * l->cap : 8;
        uint32_t *nv = realloc(l->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv, l->cap = nc;
    }
    l->v[l->n++] = x;
    return 0;
}

struct gen {
    struct flow_list *out;
    const struct topo *t;
    const struct simai_workload *w;
    const struct simai_opts *o;
    uint32_t G;
    uint32_t *nic, *nvl, *server; /* per rank */
    int32_t *rank_of;             /* node -> rank, -1 */
    struct ulist *sync, *last;    /* per rank: flows its next work waits for; the collective just made */
    struct ulist *wgp;            /* per (layer, rank): last flows of its wg collective */
    simtime_t *acc;               /* per rank: compute since sync */
    uint8_t *in;                  /* per rank: in the collective being made */
    uint32_t *ranks;
    uint16_t job_lo, job_hi;
};

static int algo_of(int type, int *a2a)
{
    *a2a = COLL_A2A_ALL;
    switch (type) {
    case SIMAI_ALLGATHER: return COLL_ALLGATHER;
    case SIMAI_REDUCESCATTER: return COLL_REDUCESCATTER;
    case SIMAI_ALLTOALL: return COLL_ALLTOALL;
    default: return COLL_RING_ALLREDUCE;
    }
}

/* The ring order of channel c over ranks[0..n) (GPU rank order, so grouped
 * by server): each server's members rotated by c. SimAI's order
 * (MockNcclGroup::genringchannels) visits every server the same way, so a
 * ring leaves server A from GPU c-1 and enters B at GPU c (another rail);
 * the rail order reverses every other server, so it leaves and enters on
 * one rail (A0..A7 -> B7..B0 -> A0 for c = 0), as NCCL's rings do on a
 * rail-optimised fabric. */
static void ring_order(const struct gen *g, uint32_t n, uint32_t c, uint32_t m, uint32_t *hosts)
{
    for (uint32_t si = 0, at = 0; at < n; si++, at += m)
        for (uint32_t i = 0; i < m; i++) {
            uint32_t k = si % 2 && g->o->rail_rings ? (c + m - 1 - i) % m : (i + c) % m; /* reversed: c-1, c-2, ... c */
            hosts[at + i] = g->nic[g->ranks[at + k]];
        }
}

/* Channels of a ring over ranks[0..n): with m members in every one of
 * several servers, min(channels or m, m); else 1. */
static uint32_t channels_of(const struct gen *g, uint32_t n, int algo, uint32_t *m)
{
    *m = n;
    if (algo == COLL_ALLTOALL)
        return 1;
    uint32_t per = 0, first = g->server[g->ranks[0]];
    while (per < n && g->server[g->ranks[per]] == first)
        per++;
    if (per == n || n % per)
        return 1;
    for (uint32_t at = 0; at < n; at += per) { /* blocks of `per`, one server each, servers apart */
        uint32_t sv = g->server[g->ranks[at]];
        if (at && sv == g->server[g->ranks[at - 1]])
            return 1;
        for (uint32_t i = at; i < at + per; i++)
            if (g->server[g->ranks[i]] != sv)
                return 1;
    }
    *m = per;
    uint32_t c = g->o->channels ? g->o->channels : per;
    return c < per ? c : per;
}

/* SimAI's flows (MockNcclGroup's flow models): each is a new queue pair
 * whose one prerequisite is the flow its data came in on, so a GPU's
 * successive steps to one peer may be in flight together. Our collectives
 * chain a channel's messages to a peer on one queue pair (FLOW_DEP_QP);
 * this drops that link and keeps the data's. And SimAI tells the receiver
 * that a flow's data is there when the flow's queue pair completes, i.e.
 * when its sender has the last ACK (ns-3-alibabacloud RdmaHw::ReceiveAck ->
 * QpComplete -> the frontend's qp_finish -> notify_receiver_receive_data),
 * not when the last byte arrives: the data's link becomes a completion
 * (no flag) instead of FLOW_DEP_RECV.
 * Yet the data is handed to the GPU only against a receive it has posted:
 * the frontend matches an arriving flow to a posted receive by (tag =
 * channel and step, sender, receiver) and holds one that comes first
 * (entry.h notify_receiver_receive_data -> recvHash), and a GPU posts the
 * receive for its step s's data when it issues its own step-s send
 * (NcclTreeFlowModel::ready, which then sends). So a GPU's step s+1 is not
 * issued before its step s, though its data came first; when it was held,
 * it goes the moment the step-s send is issued (the receive matches at once,
 * sim_recv), and both start together. The dropped queue-pair link, the
 * GPU's previous message to the same peer on this channel, becomes that
 * floor (FLOW_DEP_START). (SimAI's step s+1 starts a MemBus pass, 10 ns,
 * after its step s; ours at the same time.) */
static void simai_flow_deps(struct flow_list *out, struct flow_spec *f, bool hold)
{
    uint32_t *d = out->deps + f->dep0, k = 0;
    for (uint32_t i = 0; i < f->ndeps; i++)
        if (!(d[i] & FLOW_DEP_QP))
            d[k++] = d[i] & ~FLOW_DEP_RECV;
        else if (hold)
            d[k++] = (d[i] & FLOW_DEP_ID) | FLOW_DEP_START;
    f->ndeps = k;
}

/* One collective over ranks[0..n): flows (a ring per channel, each with
 * its share of the bytes), their first flows gated on each rank's state,
 * g->last[rank] = the flows that end it for that rank. */
static int one_collective(struct gen *g, const struct simai_comm *c, uint64_t size, simtime_t comp, uint32_t n,
                          const char *name, uint16_t *job, uint16_t *njobs, struct err *e)
{
    struct flow_list *out = g->out;
    uint32_t *hosts = malloc(n * sizeof *hosts);
    if (!hosts)
        return errf(e, "out of memory");
    int a2a, algo = algo_of(c->type, &a2a);
    uint32_t m, C = channels_of(g, n, algo, &m);
    for (uint32_t i = 0; i < n; i++)
        g->last[g->ranks[i]].n = 0;
    *njobs = 0;
    for (uint32_t ch = 0; ch < C; ch++) {
        if (C > 1)
            ring_order(g, n, ch, m, hosts);
        else
            for (uint32_t i = 0; i < n; i++)
                hosts[i] = g->nic[g->ranks[i]];
        struct coll_opts co = {.name = name, .algo = algo, .a2a = a2a, .size = size * (ch + 1) / C - size * ch / C,
                               .iterations = 1, .chunks = g->o->chunks, .start = g->o->start, .pg = g->o->pg,
                               .hosts = hosts, .n_hosts = n};
        size_t n0 = out->n;
        if (traffic_collective(out, g->t, &co, NULL, e) < 0) {
            free(hosts);
            return -1;
        }
        if (ch == 0)
            *job = (uint16_t)out->n_jobs;
        (*njobs)++;
        if (!g->job_lo)
            g->job_lo = (uint16_t)out->n_jobs;
        g->job_hi = (uint16_t)out->n_jobs;
        uint16_t last_step = 0;
        for (size_t j = n0; j < out->n; j++)
            if (out->v[j].step > last_step)
                last_step = out->v[j].step;
        for (size_t j = n0; j < out->n; j++) {
            struct flow_spec *f = &out->v[j];
            uint32_t a = (uint32_t)g->rank_of[f->src], b = (uint32_t)g->rank_of[f->dst];
            if (g->server[a] == g->server[b] && g->nvl[a] != UINT32_MAX && g->nvl[b] != UINT32_MAX)
                f->src = g->nvl[a], f->dst = g->nvl[b];
            if (g->o->flow_qps)
                simai_flow_deps(out, f, g->o->recv_hold);
            if (f->step == last_step && (ul_push(&g->last[a], (uint32_t)j) < 0 || ul_push(&g->last[b], (uint32_t)j) < 0)) {
                free(hosts);
                return errf(e, "out of memory");
            }
            if (f->ndeps) {
                f->dep_delay += g->o->send_lat + g->o->endpoint_delay;
                continue;
            }
            simtime_t d = g->acc[a] + comp + g->o->send_lat + g->o->endpoint_delay;
            if (g->sync[a].n == 0) {
                f->start += d;
                continue;
            }
            int64_t at = flow_list_add_deps(out, g->sync[a].v, g->sync[a].n);
            if (at < 0) {
                free(hosts);
                return errf(e, "out of memory");
            }
            f->dep0 = (uint32_t)at;
            f->ndeps = g->sync[a].n;
            f->dep_delay = d;
        }
    }
    free(hosts);
    return 0;
}

/* One phase of one layer on every GPU. */
static int phase(struct gen *g, uint32_t it, uint32_t L, int ph, struct err *e)
{
    const struct simai_layer *ly = &g->w->layers[L];
    const struct simai_comm *c = &ly->c[ph];
    simtime_t comp = (simtime_t)c->compute * T_NS;
    uint64_t size = c->size;
    if (ph == SIMAI_FWD && size > 0 && size < 4096)
        size = 4096; /* as SimAI's forward pass does */
    struct simai_sched *sc = &g->out->simai[g->out->n_simai - 1];
    struct simai_rec *rec = &sc->rec[(size_t)it * g->w->n_layers + L];
    static const char *const pn[3] = {"fwd", "ig", "wg"};
    memset(g->in, 0, g->G);
    for (uint32_t r = 0; r < g->G; r++) {
        if (g->in[r])
            continue;
        uint32_t n = c->type == SIMAI_NONE || size == 0 ? 1 : simai_group_ranks(g->w, c->group, r, g->ranks);
        if (n < 2) {
            g->acc[r] += comp;
            g->in[r] = 1;
            continue;
        }
        char name[48];
        snprintf(name, sizeof name, "%.20s/%" PRIu32 ".%s", g->o->name, L, pn[ph]);
        uint16_t job = 0, njobs = 0;
        if (one_collective(g, c, size, comp, n, name, &job, &njobs, e) < 0)
            return -1;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t a = g->ranks[i];
            g->in[a] = 1;
            if (a == 0) {
                rec->job[ph] = job;
                rec->njobs[ph] = njobs;
                rec->gsize[ph] = n;
            }
            if (ph == SIMAI_WG) { /* not waited for: the GPU computes on */
                g->acc[a] += comp;
                struct ulist *p = &g->wgp[(size_t)L * g->G + a];
                p->n = 0;
                for (uint32_t k = 0; k < g->last[a].n; k++)
                    if (ul_push(p, g->last[a].v[k]) < 0)
                        return errf(e, "out of memory");
            } else {
                struct ulist tmp = g->sync[a];
                g->sync[a] = g->last[a];
                g->last[a] = tmp;
                g->acc[a] = 0;
            }
        }
    }
    return 0;
}

int traffic_simai(struct flow_list *out, const struct topo *t, const struct simai_workload *w, const struct simai_opts *o,
                  struct err *e)
{
    uint32_t G = w->all_gpus, nl = w->n_layers;
    struct simai_sched *ns = realloc(out->simai, (out->n_simai + 1) * sizeof *ns);
    if (!ns)
        return errf(e, "out of memory");
    out->simai = ns;
    struct simai_sched *sc = &ns[out->n_simai];
    memset(sc, 0, sizeof *sc);
    sc->rec = calloc((size_t)o->iterations * nl, sizeof *sc->rec);
    sc->w = *w;
    sc->w.layers = malloc(nl * sizeof *w->layers);
    if (!sc->rec || !sc->w.layers) {
        free(sc->rec), free(sc->w.layers);
        return errf(e, "out of memory");
    }
    memcpy(sc->w.layers, w->layers, nl * sizeof *w->layers);
    out->n_simai++;
    snprintf(sc->name, sizeof sc->name, "%s", o->name ? o->name : "traffic");
    sc->iterations = o->iterations;
    sc->start = o->start;

    struct gen g = {.out = out, .t = t, .w = w, .o = o, .G = G};
    g.nic = malloc(G * sizeof *g.nic), g.nvl = malloc(G * sizeof *g.nvl), g.server = malloc(G * sizeof *g.server);
    g.rank_of = malloc((size_t)(t->n_nodes ? t->n_nodes : 1) * sizeof *g.rank_of);
    g.sync = calloc(G, sizeof *g.sync), g.last = calloc(G, sizeof *g.last);
    g.wgp = calloc((size_t)nl * G, sizeof *g.wgp);
    g.acc = calloc(G, sizeof *g.acc), g.in = malloc(G), g.ranks = malloc(G * sizeof *g.ranks);
    int rc = 0;
    size_t n0 = out->n, d0 = out->n_deps, j0 = out->n_jobs;
    if (!g.nic || !g.nvl || !g.server || !g.rank_of || !g.sync || !g.last || !g.wgp || !g.acc || !g.in || !g.ranks) {
        rc = errf(e, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < t->n_nodes; i++)
        g.rank_of[i] = -1;
    for (uint32_t r = 0; r < G; r++) {
        uint32_t gi = o->gpus[r];
        g.nic[r] = topo_gpu_nic(t, gi);
        g.nvl[r] = topo_gpu_nvl(t, gi);
        g.server[r] = topo_gpu_server(t, gi);
        g.rank_of[g.nic[r]] = (int32_t)r;
    }
    sc->rank0_nic = g.nic[0];
    sc->rank0_nvl = g.nvl[0] != UINT32_MAX ? g.nvl[0] : g.nic[0];
    for (uint32_t it = 0; it < o->iterations && !rc; it++) {
        for (uint32_t L = 0; L < nl && !rc; L++) {
            for (uint32_t r = 0; it > 0 && r < G && !rc; r++) { /* the previous iteration's wg collective */
                struct ulist *p = &g.wgp[(size_t)L * G + r];
                for (uint32_t k = 0; k < p->n && !rc; k++)
                    if (ul_push(&g.sync[r], p->v[k]) < 0)
                        rc = errf(e, "out of memory");
                p->n = 0;
            }
            if (!rc)
                rc = phase(&g, it, L, SIMAI_FWD, e);
        }
        for (uint32_t L = nl; L-- > 0 && !rc;)
            if ((rc = phase(&g, it, L, SIMAI_IG, e)) == 0)
                rc = phase(&g, it, L, SIMAI_WG, e);
    }
    sc->job_lo = g.job_lo ? g.job_lo : 1;
    sc->job_hi = g.job_lo ? g.job_hi : 0;
done:
    if (rc < 0) {
        out->n = n0, out->n_deps = d0, out->n_jobs = j0;
        simai_sched_free(&out->simai[--out->n_simai]);
    }
    for (uint32_t r = 0; g.sync && r < G; r++)
        free(g.sync[r].v);
    for (uint32_t r = 0; g.last && r < G; r++)
        free(g.last[r].v);
    for (size_t k = 0; g.wgp && k < (size_t)nl * G; k++)
        free(g.wgp[k].v);
    free(g.nic), free(g.nvl), free(g.server), free(g.rank_of), free(g.sync), free(g.last), free(g.wgp), free(g.acc);
    free(g.in), free(g.ranks);
    return rc;
}
