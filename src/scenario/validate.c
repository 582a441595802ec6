/* Whole-config checks, after the file and every --set. See load.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/units.h"
#include "net/cc.h"
#include "net/lb.h"
#include "scenario/load_impl.h"
#include "scenario/workload.h"

/* ------------------------------------------------------------- validate */

static const char *where_of(const struct config *c, const char *k)
{
    const char *w = config_origin(c, k);
    return w ? w : c->source;
}

/* The origin of whichever of two related keys was set (a, else b). */
static const char *where_of2(const struct config *c, const char *a, const char *b)
{
    const char *w = config_origin(c, a);
    return w ? w : where_of(c, b);
}

static int check_file(const struct config *c, const char *key, const char *path, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errf(e, "%s: %s '%.300s': cannot open: %s", where_of(c, key), key, path, strerror(errno));
    fclose(f);
    return 0;
}

/* Traffic checks that need the topology (host ids, fan-ins), built here
 * only when some source has host ids or counts to check. */
static int validate_workload_hosts(const struct config *c, struct err *e)
{
    /* generators are cheap to run, so always check them here, where keys have places */
    bool lists = c->topology.link_rate[0] || c->topology.fail[0] || c->ns3.link_down_us || c->topology.flap[0] ||
                 c->topology.switch_fail[0] || c->topology.slow[0];
    if (!workload_needs_topology(c) && !lists && c->topology.type == TOPO_FILE)
        return 0;
    struct topo t;
    struct err sub;
    struct wl_key wk;
    /* the generator's own keys first, then each list key, so errors blame the right line */
    struct cfg_topology base = c->topology;
    base.link_rate[0] = base.fail[0] = 0;
    base.flap[0] = base.switch_fail[0] = base.slow[0] = 0;
    if (topo_generate(&t, &base, &sub)) {
        if (c->topology.type == TOPO_FILE)
            return errf(e, "%s", sub.msg); /* names the file and line */
        /* generator messages start with the key at fault: "topology.KEY: ..." */
        char key[64];
        size_t n = strcspn(sub.msg, ": ");
        snprintf(key, sizeof key, "%.*s", (int)(n < sizeof key ? n : sizeof key - 1), sub.msg);
        return errf(e, "%s: %s", where_of2(c, key, "topology.type"), sub.msg);
    }
    int rc = 0;
    if (topo_set_link_rates(&t, c->topology.link_rate, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.link_rate"), sub.msg);
    else if (topo_parse_fails(&t, c->topology.fail, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.fail"), sub.msg);
    else if (c->ns3.link_down_us &&
             topo_add_fail(&t, c->ns3.link_down_a, c->ns3.link_down_b, 2 * T_SEC + (simtime_t)c->ns3.link_down_us * T_US,
                           T_NEVER, "LINK_DOWN", &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "ns3.link_down"), sub.msg);
    else if (topo_parse_flaps(&t, c->topology.flap, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.flap"), sub.msg);
    else if (topo_parse_switch_fails(&t, c->topology.switch_fail, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.switch_fail"), sub.msg);
    else if (topo_parse_slows(&t, c->topology.slow, &sub) < 0)
        rc = errf(e, "%s: %s", where_of(c, "topology.slow"), sub.msg);
    else if (c->run.stop == 0 && c->topology.switch_fail[0] && topo_check_fails_connected(&t, &sub) < 0)
        rc = errf(e, "%s: topology.switch_fail: %s", where_of2(c, "topology.switch_fail", "topology.fail"), sub.msg);
    else if (c->run.stop == 0 && topo_check_fails_connected(&t, &sub) < 0)
        rc = errf(e, "%s: topology.fail: %s", where_of2(c, "topology.fail", "ns3.link_down"), sub.msg);
    else if (workload_needs_topology(c) && workload_check(c, &t, &wk, &sub) < 0)
        rc = wk.key[0] ? errf(e, "%s: %s", where_of2(c, wk.key, wk.alt), sub.msg) : errf(e, "%s", sub.msg);
    topo_free(&t);
    return rc;
}

/* [cc.NAME] / [lb.NAME] keys the user set for a scheme that is not selected
 * do nothing (a typo'd transport.cc or a leftover section): fn gets each,
 * with where it was set and why it is unused. ns-3 configs set every CC's
 * keys by design: not those. */
size_t config_unused_scheme_keys(const struct config *c, config_unused_fn fn, void *ctx)
{
    const struct origins *o = c->origins;
    size_t src_len = strlen(c->source), n = 0;
    for (size_t i = 0; o && i < o->n; i++) {
        const char *k = o->v[i].key, *w = o->v[i].where;
        bool cc = strncmp(k, "cc.", 3) == 0, lb = strncmp(k, "lb.", 3) == 0;
        const char *dot = (cc || lb) ? strrchr(k, '.') : NULL;
        if (!dot || dot == k + 2)
            continue;
        if (c->ns3.active && strncmp(w, c->source, src_len) == 0 && w[src_len] == ':')
            continue;
        size_t conf_len = strlen(c->simai.conf); /* a SimAI.conf sets every CC's keys too, as an ns-3 config */
        if (conf_len && strncmp(w, c->simai.conf, conf_len) == 0 && w[conf_len] == ':')
            continue;
        char name[64], why[200];
        snprintf(name, sizeof name, "%.*s", (int)(dot - k - 3), k + 3);
        const char *sel = cc ? c->transport.cc : c->lb.scheme;
        const struct cc_ops *ops = cc ? cc_find(name) : NULL;
        if (strcmp(name, sel) == 0 || (ops && config_cc_selected(c, ops)))
            continue;
        snprintf(why, sizeof why, "%s is %s: [%s.%s] is not used", cc ? "transport.cc" : "lb.scheme", sel,
                 cc ? "cc" : "lb", name);
        fn(ctx, k, w, why);
        n++;
    }
    return n;
}

static void warn_unused(void *ctx, const char *key, const char *where, const char *why)
{
    (void)ctx;
    warnf("%s: %s is set, but %s", where, key, why);
}

/* Is the scheme of [cc.NAME] running: transport.cc, or a companion that is on. */
static bool cc_in_use(const struct config *c, const char *name)
{
    const struct cc_ops *ops = cc_find(name);
    return strcmp(name, c->transport.cc) == 0 || (ops && config_cc_selected(c, ops));
}

/* [cc.NAME] profile = P for a scheme in use: each of P's settings for a key
 * the input did not set (an explicit key wins). The key's origin becomes the
 * profile's line, so a later check on it points there. */
static int apply_profiles(struct config *c, struct err *e)
{
    for (int i = 0; cc_registry[i]; i++) {
        const struct cc_ops *ops = cc_registry[i];
        const struct param *p = ops->profiles ? param_find(ops->params, "profile") : NULL;
        if (!p || !cc_in_use(c, ops->name))
            continue;
        int idx = *(const int *)((const char *)c->cc_params[i] + p->offset), n = 0;
        while (ops->profiles[n].name && n < idx)
            n++;
        const struct cc_profile *pr = &ops->profiles[n];
        char pkey[96], where[WHERE_MAX], sec[128], key[128];
        snprintf(pkey, sizeof pkey, "cc.%s.profile", ops->name);
        const char *w = config_origin(c, pkey);
        snprintf(where, sizeof where, "%.400s (%.60s = %.40s)", w ? w : c->source, pkey, pr->name ? pr->name : "?");
        for (const char *const *s = pr->name ? pr->set : NULL; s && *s; s++) {
            const char *eq = strchr(*s, '='), *dot = NULL;
            for (const char *q = *s; eq && q < eq; q++)
                if (*q == '.')
                    dot = q;
            if (!eq || !dot || dot - *s >= (long)sizeof sec || eq - dot >= (long)sizeof key)
                return errf(e, "internal: [cc.%s] profile %s: bad setting '%s'", ops->name, pr->name, *s);
            snprintf(sec, sizeof sec, "%.*s", (int)(dot - *s), *s);
            snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
            char full[260];
            snprintf(full, sizeof full, "%s.%s", sec, key);
            if (config_origin(c, full))
                continue; /* set explicitly */
            if (cfg_set_key(c, sec, key, eq + 1, where, true, e) < 0)
                return -1;
        }
    }
    return 0;
}

int config_validate(struct config *c, struct err *e)
{
    if (apply_profiles(c, e) < 0)
        return -1;
    char names[512], a[32], b[32];
    const char *ns3 = c->ns3.active ? " (ns-3 TOPOLOGY_FILE)" : "";
    if (c->topology.type == TOPO_FILE) {
        if (!c->topology.file[0])
            return errf(e, "%s: topology.type=file needs topology.file%s", where_of2(c, "topology.file", "topology.type"), ns3);
        if (check_file(c, "topology.file", c->topology.file, e) < 0)
            return -1;
    }
    if (c->topology.type == TOPO_FATTREE && c->topology.k % 2)
        return errf(e, "%s: topology.k must be even for a fat-tree (got %lld)", where_of2(c, "topology.k", "topology.type"),
                    (long long)c->topology.k);
    static const char *const tname[] = {"leafspine", "fattree", "dumbbell", "clos", "parkinglot", "file", "rail"};
    if (c->topology.type != TOPO_RAIL && (c->topology.planes > 1 || c->topology.dual_tor || !c->topology.rail_optimised)) {
        const char *k = c->topology.planes > 1 ? "topology.planes" : c->topology.dual_tor ? "topology.dual_tor"
                                                                                        : "topology.rail_optimised";
        return errf(e, "%s: %s is for GPU fabrics (topology.type = rail), not %s", where_of2(c, k, "topology.type"), k,
                    tname[c->topology.type]);
    }
    if (strcmp(c->run.watchdog, "auto") != 0 && strcmp(c->run.watchdog, "off") != 0) {
        simtime_t t;
        const char *why = parse_time(c->run.watchdog, &t);
        if (why || t <= 0)
            return errf(e, "%s: run.watchdog = %.80s: expected auto, off or a time > 0 (e.g. 500ms)%s%s",
                        where_of(c, "run.watchdog"), c->run.watchdog, why ? ": " : "", why ? why : "");
    }
    if (c->topology.loss >= 1) /* every packet lost: the run could never end */
        return errf(e, "%s: topology.loss = %g: every packet would be lost, so no flow could ever finish; give a "
                       "probability below 1", where_of(c, "topology.loss"), c->topology.loss);
    struct wl_key wk;
    struct err sub;
    if (workload_check(c, NULL, &wk, &sub) < 0) /* [traffic], [traffic.NAME], [flow.NAME]; the topology comes last */
        return wk.key[0] ? errf(e, "%s: %s", where_of2(c, wk.key, wk.alt), sub.msg) : errf(e, "%s", sub.msg);
    if (!cc_find(c->transport.cc)) {
        cfg_scheme_names(names, sizeof names, false, false, c->transport.cc);
        return errf(e, "%s: transport.cc: unknown congestion control '%.80s' (%s)", where_of(c, "transport.cc"),
                    c->transport.cc, names);
    }
    if (!lb_find(c->lb.scheme)) {
        cfg_scheme_names(names, sizeof names, true, false, c->lb.scheme);
        return errf(e, "%s: lb.scheme: unknown load balancer '%.80s' (%s)", where_of(c, "lb.scheme"), c->lb.scheme, names);
    }
    if (cc_find(c->transport.cc)->companion)
        return errf(e, "%s: transport.cc: '%s' runs beside a congestion control, not as one (use transport.%s = on)",
                    where_of(c, "transport.cc"), c->transport.cc, c->transport.cc);
    for (int k = 0; k < CC_COMPANIONS_MAX && cc_companions[k]; k++) {
        const struct cc_ops *ops = cc_companions[k];
        char key[96];
        snprintf(key, sizeof key, "transport.%s", ops->name);
        if (c->transport.companion[k] && ops->flowlet_lb && !lb_find(c->lb.scheme)->flowlet_gap)
            return errf(e, "%s: %s: %s works with the flowlet timeout of a flowlet load balancer, and lb.scheme = %s "
                           "has none (use letflow or conga)", where_of2(c, key, "lb.scheme"), key, ops->name, c->lb.scheme);
    }
    if (c->sw.kmin > c->sw.kmax) {
        fmt_size(a, sizeof a, c->sw.kmin);
        fmt_size(b, sizeof b, c->sw.kmax);
        return errf(e, "%s: switch.kmin (%s) > switch.kmax (%s)", where_of2(c, "switch.kmin", "switch.kmax"), a, b);
    }
    for (int i = 0; i < c->sw.n_ecn_map && i < ECN_MAP_MAX; i++) {
        const struct ecn_entry *m = &c->sw.ecn_map[i];
        if (m->kmin > m->kmax || !(m->pmax >= 0 && m->pmax <= 1))
            return errf(e, "%s: ECN map at rate %llu: need kmin <= kmax and 0 <= pmax <= 1", where_of(c, "switch.ecn_map"),
                        (unsigned long long)m->rate);
    }
    if (c->sw.pfc_threshold && (c->sw.pfc_threshold <= c->sw.reserve || c->sw.pfc_threshold >= UINT32_MAX)) {
        fmt_size(a, sizeof a, c->sw.pfc_threshold);
        fmt_size(b, sizeof b, c->sw.reserve);
        return errf(e, "%s: switch.pfc_threshold (%s) must exceed switch.reserve (%s) and be below 4 GiB",
                    where_of2(c, "switch.pfc_threshold", "switch.reserve"), a, b);
    }
    if (c->transport.recovery == REC_IRN && c->sw.pfc)
        return errf(e, "%s: transport.recovery=irn needs switch.pfc=off (IRN is for lossy fabrics)",
                    where_of2(c, "transport.recovery", "switch.pfc"));
    if (cc_find(c->transport.cc)->multipath) { /* MP-RDMA: paths by UDP source port, the bitmap receiver */
        const char *cc = c->transport.cc;
        if (strcmp(c->lb.scheme, "ecmp") != 0)
            return errf(e, "%s: transport.cc=%s picks each packet's path at the sender (its UDP source port, which ECMP "
                           "hashes): it needs lb.scheme=ecmp, not %s", where_of2(c, "lb.scheme", "transport.cc"), cc, c->lb.scheme);
        if (c->transport.recovery == REC_IRN)
            return errf(e, "%s: transport.cc=%s recovers losses itself (bounded-window receiver, go back on NACK): "
                           "it cannot run with transport.recovery=irn", where_of2(c, "transport.recovery", "transport.cc"), cc);
        if (config_origin(c, "transport.reorder") && c->transport.reorder != REORDER_BITMAP)
            return errf(e, "%s: transport.cc=%s needs the bounded-window receiver: transport.reorder=bitmap (the default "
                           "with it), not %s", where_of(c, "transport.reorder"), cc,
                        c->transport.reorder == REORDER_GBN ? "gbn" : "buffer");
        c->transport.reorder = REORDER_BITMAP;
    }
    if (c->transport.back_to_zero && c->transport.chunk == 0)
        return errf(e, "%s: transport.back_to_zero needs transport.chunk > 0 (it goes back to the chunk start)",
                    where_of2(c, "transport.back_to_zero", "transport.chunk"));
    if (validate_workload_hosts(c, e) < 0)
        return -1;
    if (!c->sweep_point)
        config_unused_scheme_keys(c, warn_unused, NULL);
    if (c->ns3.active && c->run.ns3_timing && !config_origin(c, "run.ns3_timing"))
        warnf("%s: ns-3 config: run.ns3_timing = on (serialisation, pacing and flow starts truncated to whole ns, as ns-3 "
              "does, so results match ns-3's; --set run.ns3_timing=off for exact picoseconds)",
              c->source);
    if (c->ns3.active && c->topology.next_hop_order == HOP_ORDER_NS3 && !config_origin(c, "topology.next_hop_order"))
        warnf("%s: ns-3 config: topology.next_hop_order = ns3 (equal-cost next hops in the order ns-3 builds them, so "
              "flows take ns-3's ECMP paths; --set topology.next_hop_order=id for ascending node ids)",
              c->source);
    if (c->ns3.active && c->transport.nic_wake == NIC_WAKE_NS3 && !config_origin(c, "transport.nic_wake"))
        warnf("%s: ns-3 config: transport.nic_wake = ns3 (the NIC wakes for paced QPs as ns-3's does, which holds "
              "them while a window-bound QP is due; --set transport.nic_wake=exact to wake at each QP's time)",
              c->source);
    return 0;
}
