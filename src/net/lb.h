/* Load-balancing plug-in interface: at a switch, pick one egress among the
 * equal-cost candidates for a packet. One scheme per file in src/lb/, listed
 * in lb_registry (lb/registry.c). */
#ifndef ROCESIM_LB_H
#define ROCESIM_LB_H
#include <stddef.h>
#include <stdint.h>
#include "core/param.h"

struct sim;
struct pkt;

struct lb_ops {
    const char *name;
    const char *help;
    const struct param *params;
    size_t params_size;
    /* Returns an index into ports[0..n-1]; n >= 2 (a single candidate is
     * taken without asking). `sw` is the switch's node id. */
    int (*choose)(struct sim *s, uint32_t sw, const struct pkt *p, const uint32_t *ports, int n, const void *par);
};

extern const struct lb_ops *const lb_registry[]; /* NULL-terminated */
const struct lb_ops *lb_find(const char *name);
int lb_index(const char *name);

/* ns-3 HPCC's ECMP hash: MurmurHash3 (32-bit) over `len` bytes with `seed`. */
uint32_t ecmp_hash(const uint8_t *key, size_t len, uint32_t seed);

#endif
