/* MRG32k3a and ns-3's stream layout: see mrg32k3a.h. */
#include "core/mrg32k3a.h"
#include <string.h>

/* L'Ecuyer (1999), table III: the two components' moduli and multipliers.
 *   x1[n] = (a12 x1[n-2] - a13 x1[n-3]) mod m1
 *   x2[n] = (a21 x2[n-1] - a23 x2[n-3]) mod m2
 *   z[n]  = (x1[n] - x2[n]) mod m1 */
#define M1 4294967087ULL /* 2^32 - 209 */
#define M2 4294944443ULL /* 2^32 - 22853 */
#define A12 1403580ULL
#define A13N 810728ULL
#define A21 527612ULL
#define A23N 1370589ULL
/* 1 / (m1 + 1), as the RngStreams package writes it */
#define NORM 2.328306549295727688e-10

typedef uint64_t mat3[3][3];

/* The one-step transition matrices on (x[n-3], x[n-2], x[n-1]). */
static void step_matrices(mat3 a1, mat3 a2)
{
    static const mat3 s1 = {{0, 1, 0}, {0, 0, 1}, {M1 - A13N, A12, 0}};
    static const mat3 s2 = {{0, 1, 0}, {0, 0, 1}, {M2 - A23N, 0, A21}};
    memcpy(a1, s1, sizeof s1);
    memcpy(a2, s2, sizeof s2);
}

/* c = a b mod m (c may be a or b): entries below m < 2^32, so each product
 * fits 64 bits and three reduced ones add without overflow */
static void mat_mul(mat3 c, mat3 a, mat3 b, uint64_t m)
{
    mat3 t;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[i][j] = (a[i][0] * b[0][j] % m + a[i][1] * b[1][j] % m + a[i][2] * b[2][j] % m) % m;
    memcpy(c, t, sizeof t);
}

/* v = a v mod m */
static void mat_vec(mat3 a, uint64_t v[3], uint64_t m)
{
    uint64_t t[3];
    for (int i = 0; i < 3; i++)
        t[i] = (a[i][0] * v[0] % m + a[i][1] * v[1] % m + a[i][2] * v[2] % m) % m;
    memcpy(v, t, sizeof t);
}

/* a1, a2 = the transition matrices to the power 2^e */
static void pow2_matrices(mat3 a1, mat3 a2, int e)
{
    step_matrices(a1, a2);
    for (int i = 0; i < e; i++) {
        mat_mul(a1, a1, a1, M1);
        mat_mul(a2, a2, a2, M2);
    }
}

bool mrg32k3a_seed(struct mrg32k3a *g, uint64_t seed)
{
    if (seed == 0 || seed >= M2)
        return false;
    for (int i = 0; i < 6; i++)
        g->s[i] = seed;
    return true;
}

void mrg32k3a_jump(struct mrg32k3a *g, uint64_t n, int e)
{
    if (n == 0)
        return;
    mat3 a1, a2;
    pow2_matrices(a1, a2, e);
    /* n 2^e = sum of its bits' 2^(e+b); the powers of one matrix commute */
    for (; n; n >>= 1) {
        if (n & 1) {
            mat_vec(a1, g->s, M1);
            mat_vec(a2, g->s + 3, M2);
        }
        if (n > 1) {
            mat_mul(a1, a1, a1, M1);
            mat_mul(a2, a2, a2, M2);
        }
    }
}

double mrg32k3a_u01(struct mrg32k3a *g)
{
    uint64_t *s = g->s;
    uint64_t p1 = (A12 * s[1] % M1 + M1 - A13N * s[0] % M1) % M1;
    s[0] = s[1];
    s[1] = s[2];
    s[2] = p1;
    uint64_t p2 = (A21 * s[5] % M2 + M2 - A23N * s[3] % M2) % M2;
    s[3] = s[4];
    s[4] = s[5];
    s[5] = p2;
    return (double)(p1 > p2 ? p1 - p2 : p1 + M1 - p2) * NORM;
}

bool ns3_streams_init(struct ns3_streams *n, uint64_t seed, uint64_t run, uint64_t first)
{
    if (!mrg32k3a_seed(&n->next, seed))
        return false;
    mrg32k3a_jump(&n->next, first, 127);
    mrg32k3a_jump(&n->next, run, 76);
    n->index = first;
    pow2_matrices(n->j1, n->j2, 127);
    return true;
}

void ns3_streams_skip(struct ns3_streams *n)
{
    mat_vec(n->j1, n->next.s, M1);
    mat_vec(n->j2, n->next.s + 3, M2);
    n->index++;
}

double ns3_streams_first(struct ns3_streams *n)
{
    struct mrg32k3a g = n->next;
    ns3_streams_skip(n);
    return mrg32k3a_u01(&g);
}
