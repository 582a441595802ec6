/* Seeded PRNG: xoshiro256** seeded through splitmix64. Each consumer owns its
 * own stream (traffic, RED marking, ...) so changing one model does not shift
 * the random numbers another sees. */
#ifndef ROCESIM_RNG_H
#define ROCESIM_RNG_H
#include <stdint.h>

struct rng {
    uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed, uint64_t stream);
/* SplitMix64: the next value of the 64-bit state *x (which it advances), for a
 * consumer that keeps one word of state (QCN's per-port sampling jitter). */
uint64_t splitmix64(uint64_t *x);

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1), 53 bits. */
static inline double rng_uniform(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* Uniform integer in [0, n), unbiased (Lemire). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
    unsigned __int128 m = (unsigned __int128)rng_next(r) * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        uint64_t t = -n % n;
        while (l < t) {
            m = (unsigned __int128)rng_next(r) * n;
            l = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* Exponential with the given mean. */
double rng_exp(struct rng *r, double mean);

#endif
