/* MRG32k3a, L'Ecuyer's combined multiple recursive generator (P. L'Ecuyer,
 * "Good parameters and implementations for combined multiple recursive random
 * number generators", Operations Research 47(1), 1999), with the stream and
 * substream jumps of his RngStreams package (L'Ecuyer, Simard, Chen, Kelton,
 * "An object-oriented random-number package with many long streams and
 * substreams", Operations Research 50(6), 2002): streams 2^127 steps apart,
 * substreams 2^76. Written from those descriptions; the jump matrices are
 * computed here by squaring the one-step transition matrices.
 *
 * ns-3 draws its random numbers from this generator, and so does rocesim's
 * RED marking under run.ns3_timing (switch.c): ns-3 gives every new random
 * stream the next value of a process-wide counter as its stream index, the
 * run number (RngRun, default 1) as its substream and the global seed
 * (RngSeed, default 1) as all six words of the starting state.
 * struct ns3_streams follows that counter: it keeps the starting state of the
 * stream the counter names next, so a new stream costs one jump of 2^127
 * steps (two 3x3 matrix-vector products modulo m1 and m2), not a jump from
 * the seed. */
#ifndef ROCESIM_MRG32K3A_H
#define ROCESIM_MRG32K3A_H
#include <stdbool.h>
#include <stdint.h>

struct mrg32k3a {
    uint64_t s[6]; /* x1[n-3], x1[n-2], x1[n-1] (mod m1), then x2 likewise (mod m2) */
};

/* Every word of the state = seed; false unless 0 < seed < m2 (the smaller modulus). */
bool mrg32k3a_seed(struct mrg32k3a *g, uint64_t seed);
/* Advances the state by n * 2^e steps (e + bit length of n <= 191). */
void mrg32k3a_jump(struct mrg32k3a *g, uint64_t n, int e);
/* The next output, in (0, 1): z / (m1 + 1), or m1 / (m1 + 1) when z = 0. */
double mrg32k3a_u01(struct mrg32k3a *g);

/* ns-3's automatically numbered streams (see above). */
struct ns3_streams {
    struct mrg32k3a next; /* the starting state of stream `index`, substream run */
    uint64_t index;       /* the counter: the stream index the next new stream takes */
    uint64_t j1[3][3], j2[3][3]; /* one stream's jump, A1^(2^127) mod m1 and A2^(2^127) mod m2 */
};

/* Streams of global seed `seed`, substream `run`, the counter at `first`;
 * false if the seed is not one ns-3 accepts (0 < seed < m2). */
bool ns3_streams_init(struct ns3_streams *n, uint64_t seed, uint64_t run, uint64_t first);
/* A new stream that is not drawn from here: the counter moves on. */
void ns3_streams_skip(struct ns3_streams *n);
/* A new stream's first output (as ns-3's UniformVariable(0, 1).GetValue()); the counter moves on. */
double ns3_streams_first(struct ns3_streams *n);

#endif
