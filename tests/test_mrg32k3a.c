/* MRG32k3a and ns-3's stream layout (core/mrg32k3a.h), which RED uses under
 * run.ns3_timing:
 * - the jump matrices this file's squaring gives are the ones L'Ecuyer,
 *   Simard, Chen and Kelton publish (Operations Research 50(6), 2002:
 *   A1p76, A2p76, A1p127, A2p127);
 * - first outputs of chosen (seed, stream, substream) and the draws of ns-3's
 *   legacy UniformVariable(0, 1) through its stream counter equal what ns-3's
 *   own generator printed (tests/data/ns3-mrg32k3a.txt says how it was made);
 *   a stream index or a draw off by one fails;
 * - the counter where ns-3 HPCC's set-up leaves it, for the topologies the
 *   ns-3 tie tests run (measured in ns-3: the data file again). */
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "core/mrg32k3a.h"

/* Column j of a jump matrix: the jump applied to the unit vector e_j. */
static void jump_matrix(uint64_t m1[3][3], uint64_t m2[3][3], int e)
{
    for (int j = 0; j < 3; j++) {
        struct mrg32k3a g = {{0}};
        g.s[j] = g.s[3 + j] = 1;
        mrg32k3a_jump(&g, 1, e);
        for (int i = 0; i < 3; i++) {
            m1[i][j] = g.s[i];
            m2[i][j] = g.s[3 + i];
        }
    }
}

static void test_jump_matrices(void **state)
{
    (void)state;
    static const uint64_t a1p76[3][3] = {{82758667, 1871391091, 4127413238}, {3672831523, 69195019, 1871391091},
                                         {3672091415, 3528743235, 69195019}};
    static const uint64_t a2p76[3][3] = {{1511326704, 3759209742, 1610795712}, {4292754251, 1511326704, 3889917532},
                                         {3859662829, 4292754251, 3708466080}};
    static const uint64_t a1p127[3][3] = {{2427906178, 3580155704, 949770784}, {226153695, 1230515664, 3580155704},
                                          {1988835001, 986791581, 1230515664}};
    static const uint64_t a2p127[3][3] = {{1464411153, 277697599, 1610723613}, {32183930, 1464411153, 1022607788},
                                          {2824425944, 32183930, 2093834863}};
    uint64_t m1[3][3], m2[3][3];
    jump_matrix(m1, m2, 76);
    assert_memory_equal(m1, a1p76, sizeof m1);
    assert_memory_equal(m2, a2p76, sizeof m2);
    jump_matrix(m1, m2, 127);
    assert_memory_equal(m1, a1p127, sizeof m1);
    assert_memory_equal(m2, a2p127, sizeof m2);
    /* the cached one-stream jump is the same matrix */
    struct ns3_streams n;
    assert_true(ns3_streams_init(&n, 1, 1, 0));
    assert_memory_equal(n.j1, a1p127, sizeof m1);
    assert_memory_equal(n.j2, a2p127, sizeof m2);
    /* ns-3 refuses seed 0 and seeds from m2 = 4294944443 up */
    assert_false(ns3_streams_init(&n, 0, 1, 0));
    assert_false(ns3_streams_init(&n, 4294944443ULL, 1, 0));
    assert_true(ns3_streams_init(&n, 4294944442ULL, 1, 0));
}

/* tests/data/ns3-mrg32k3a.txt: "SEED STREAM RUN U1 U2 U3" from ns-3's
 * RngStream(SEED, STREAM, RUN), and "counter I U": the I-th draw of
 * UniformVariable(0, 1).GetValue() in a fresh ns-3 process (seed 1, run 1). */
static FILE *vectors(void)
{
    FILE *f = fopen(ROCESIM_SOURCE_DIR "/tests/data/ns3-mrg32k3a.txt", "r");
    assert_non_null(f);
    return f;
}

static void test_ns3_vectors(void **state)
{
    (void)state;
    FILE *f = vectors();
    char line[512];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long seed, stream, run;
        double u[3];
        if (sscanf(line, "%llu %llu %llu %lf %lf %lf", &seed, &stream, &run, &u[0], &u[1], &u[2]) != 6)
            continue;
        struct mrg32k3a g;
        assert_true(mrg32k3a_seed(&g, seed));
        mrg32k3a_jump(&g, stream, 127);
        mrg32k3a_jump(&g, run, 76);
        for (int i = 0; i < 3; i++) {
            double v = mrg32k3a_u01(&g);
            if (v != u[i])
                fail_msg("seed %llu stream %llu run %llu output %d: %.17g, ns-3 %.17g", seed, stream, run, i, v, u[i]);
        }
        /* the counter's way: stream `stream`'s first output after starting lower and skipping up */
        struct ns3_streams ns;
        uint64_t back = stream < 3 ? stream : 3;
        assert_true(ns3_streams_init(&ns, seed, run, stream - back));
        for (uint64_t k = 0; k < back; k++)
            ns3_streams_skip(&ns);
        assert_int_equal(ns.index, stream);
        assert_true(ns3_streams_first(&ns) == u[0]);
        assert_int_equal(ns.index, stream + 1);
        n++;
    }
    fclose(f);
    assert_true(n >= 100);
}

/* ns-3's legacy UniformVariable(0, 1): each takes the counter's next stream
 * and draws its first output, as RED does under run.ns3_timing. */
static void test_ns3_counter(void **state)
{
    (void)state;
    FILE *f = vectors();
    char line[512];
    struct ns3_streams ns;
    assert_true(ns3_streams_init(&ns, 1, 1, 0));
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        int i;
        double u;
        if (sscanf(line, "counter %d %lf", &i, &u) != 2)
            continue;
        assert_int_equal(i, n);
        double v = ns3_streams_first(&ns);
        if (v != u)
            fail_msg("draw %d: %.17g, ns-3 %.17g", i, v, u);
        n++;
    }
    fclose(f);
    assert_true(n >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jump_matrices),
        cmocka_unit_test(test_ns3_vectors),
        cmocka_unit_test(test_ns3_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
