/* ECMP exactly as the ns-3 HPCC simulator does it (switch-node.cc GetOutDev),
 * so identical inputs take identical paths: MurmurHash3 (x86, 32-bit) over the
 * host-order words {sip, dip, sport | dport << 16}, seeded with the switch's
 * node id, modulo the number of next hops (ordered by neighbour node id). */
#include <string.h>
#include "net/lb.h"

uint32_t ecmp_hash(const uint8_t *key, size_t len, uint32_t seed)
{
    uint32_t h = seed;
    size_t nblocks = len >> 2;
    for (size_t i = 0; i < nblocks; i++) {
        uint32_t k;
        memcpy(&k, key + 4 * i, 4);
        k *= 0xcc9e2d51;
        k = (k << 15) | (k >> 17);
        k *= 0x1b873593;
        h ^= k;
        h = (h << 13) | (h >> 19);
        h += (h << 2) + 0xe6546b64;
    }
    if (len & 3) {
        const uint8_t *tail = key + 4 * nblocks;
        uint32_t k = 0;
        for (size_t i = len & 3; i > 0; i--)
            k = (k << 8) | tail[i - 1];
        k *= 0xcc9e2d51;
        k = (k << 15) | (k >> 17);
        k *= 0x1b873593;
        h ^= k;
    }
    h ^= (uint32_t)len;
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

static int ecmp_choose(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)ports;
    (void)par;
    return lb_ecmp_pick(s, sw, p, n);
}

static const struct param ecmp_params[] = { PARAM_END };

const struct lb_ops lb_ecmp = {
    .name = "ecmp",
    .help = "per-flow hashing, bit-compatible with the ns-3 HPCC simulator",
    .params = ecmp_params,
    .params_size = 0,
    .all_packets = true,
    .choose = ecmp_choose,
};
