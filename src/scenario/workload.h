/* The flows of a scenario, from every traffic source of its config:
 * [traffic], each [traffic.NAME] (in the order the sections first appear)
 * and each [flow.NAME]. See workload.c for the order of the final list and
 * the random streams. */
#ifndef ROCESIM_WORKLOAD_H
#define ROCESIM_WORKLOAD_H
#include <stdbool.h>
#include "core/err.h"
#include "scenario/config.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

/* The key(s) a workload error is about, as "section.key": point at where
 * `key` was set, else where `alt` was (either may be empty). */
struct wl_key {
    char key[96], alt[96];
};

/* Checks every traffic source. With t == NULL only what needs no topology
 * (key values, host-list syntax, required [flow.NAME] keys, files exist);
 * with a topology also that every host id is a host, fan-ins fit, etc.
 * -1: e->msg says what is wrong (starting with the section.key, no file
 * location) and *k names the key(s) to locate it by. */
int workload_check(const struct config *c, const struct topo *t, struct wl_key *k, struct err *e);
/* Whether workload_check has anything to check against a topology. */
bool workload_needs_topology(const struct config *c);
/* Checks (with t), then appends every source's flows to `out`. */
int workload_build(struct flow_list *out, const struct config *c, const struct topo *t, struct err *e);
/* The random stream of a generator section: 1 for [traffic] (as before
 * sections existed), a hash of "traffic.NAME" for [traffic.NAME]. */
uint64_t workload_stream(const char *section);

#endif
