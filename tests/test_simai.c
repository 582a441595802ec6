/* SimAI workloads (traffic/simai.c): every header key and every one of the 12
 * layer columns read into its field; the communication types and the
 * communicators they pick; SimAI's communicators (MockNcclGroup as
 * Sys::mock_nccl_grobal_group_init builds it: PP_size = 1 whatever the
 * header's pp); and every malformed field refused as FILE:LINE. The
 * workloads are ours, in SimAI's format. */
#include "testutil.h"
#include <stdio.h>
#include <string.h>
#include "core/err.h"
#include "traffic/simai.h"

#define HDR "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 ep: 1 pp: 1 vpp: 1 ga: 1 all_gpus: 8\n"
#define LAYER "l -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1\n"

/* Every column a distinct value: each must land in its own field. */
static void test_every_column(void **st)
{
    (void)st;
    const char *text = "HYBRID_TRANSFORMER model_parallel_NPU_group: 4 ep: 2 pp: 2 vpp: 3 ga: 5 all_gpus: 32 "
                       "pp_comm: 777 checkpoints: 0 checkpoint_initiates: 0\n"
                       "2\n"
                       "attn_0 -1 11 ALLGATHER 12 13 REDUCESCATTER 14 15 ALLREDUCE 16 17\n"
                       "\n"
                       "moe_1 4 21 ALLTOALL_EP 22 23 ALLREDUCE_DP_EP 24 25 ALLTOALL 26 27\n";
    struct simai_workload w;
    struct err e = {{0}};
    assert_int_equal(simai_parse(&w, text, "w.txt", &e), 0);
    assert_int_equal(w.policy, SIMAI_TRANSFORMER);
    assert_int_equal(w.tp, 4);
    assert_int_equal(w.ep, 2);
    assert_int_equal(w.pp, 2);
    assert_int_equal(w.vpp, 3);
    assert_int_equal(w.ga, 5);
    assert_int_equal(w.all_gpus, 32);
    assert_int_equal(w.pp_comm, 777);
    assert_int_equal(w.n_layers, 2);
    const struct simai_layer *a = &w.layers[0], *b = &w.layers[1];
    assert_string_equal(a->name, "attn_0");
    assert_int_equal(a->depen, -1);
    assert_int_equal(a->line, 3);
    assert_int_equal(a->c[SIMAI_FWD].compute, 11);
    assert_int_equal(a->c[SIMAI_FWD].type, SIMAI_ALLGATHER);
    assert_int_equal(a->c[SIMAI_FWD].group, SIMAI_G_TP);
    assert_int_equal(a->c[SIMAI_FWD].size, 12);
    assert_int_equal(a->c[SIMAI_IG].compute, 13);
    assert_int_equal(a->c[SIMAI_IG].type, SIMAI_REDUCESCATTER);
    assert_int_equal(a->c[SIMAI_IG].group, SIMAI_G_TP);
    assert_int_equal(a->c[SIMAI_IG].size, 14);
    assert_int_equal(a->c[SIMAI_WG].compute, 15);
    assert_int_equal(a->c[SIMAI_WG].type, SIMAI_ALLREDUCE);
    assert_int_equal(a->c[SIMAI_WG].group, SIMAI_G_DP); /* a plain type in the wg column: DP */
    assert_int_equal(a->c[SIMAI_WG].size, 16);
    assert_int_equal(a->wg_update, 17);
    assert_string_equal(b->name, "moe_1");
    assert_int_equal(b->depen, 4);
    assert_int_equal(b->line, 5); /* the blank line 4 is skipped, lines still counted */
    assert_int_equal(b->c[SIMAI_FWD].type, SIMAI_ALLTOALL);
    assert_int_equal(b->c[SIMAI_FWD].group, SIMAI_G_EP);
    assert_int_equal(b->c[SIMAI_FWD].compute, 21);
    assert_int_equal(b->c[SIMAI_FWD].size, 22);
    assert_int_equal(b->c[SIMAI_IG].type, SIMAI_ALLREDUCE);
    assert_int_equal(b->c[SIMAI_IG].group, SIMAI_G_DP_EP);
    assert_int_equal(b->c[SIMAI_IG].compute, 23);
    assert_int_equal(b->c[SIMAI_IG].size, 24);
    assert_int_equal(b->c[SIMAI_WG].type, SIMAI_ALLTOALL);
    assert_int_equal(b->c[SIMAI_WG].group, SIMAI_G_DP);
    assert_int_equal(b->c[SIMAI_WG].compute, 25);
    assert_int_equal(b->c[SIMAI_WG].size, 26);
    assert_int_equal(b->wg_update, 27);
    simai_free(&w);
}

/* Absent keys take SimAI's defaults (ep, pp, vpp, ga 1; pp_comm 0); NONE is no
 * communication whatever the size; a prefix decides the type, as in
 * Workload.cc (ALLREDUCE before ALLTOALL). */
static void test_defaults_and_none(void **st)
{
    (void)st;
    struct simai_workload w;
    struct err e = {{0}};
    assert_int_equal(simai_parse(&w,
                                 "HYBRID_TRANSFORMER_FWD_IN_BCKWD all_gpus: 16 model_parallel_NPU_group: 8\n1\n"
                                 "x 0 0 NONE 99 0 NONE 0 0 REDUCESCATTER_DP_EP 5 0\n",
                                 "d.txt", &e),
                     0);
    assert_int_equal(w.policy, SIMAI_TRANSFORMER_FIB);
    assert_int_equal(w.ep, 1);
    assert_int_equal(w.pp, 1);
    assert_int_equal(w.vpp, 1);
    assert_int_equal(w.ga, 1);
    assert_int_equal(w.pp_comm, 0);
    assert_int_equal(w.layers[0].c[SIMAI_FWD].type, SIMAI_NONE);
    assert_int_equal(w.layers[0].c[SIMAI_FWD].group, SIMAI_G_NONE);
    assert_int_equal(w.layers[0].c[SIMAI_WG].type, SIMAI_REDUCESCATTER);
    assert_int_equal(w.layers[0].c[SIMAI_WG].group, SIMAI_G_DP_EP);
    simai_free(&w);
    /* pp_comm is also read without its colon, as SimAI's header writers spell it */
    assert_int_equal(simai_parse(&w, "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 pp: 2 pp_comm 4096 "
                                     "all_gpus: 16\n1\n" LAYER, "c.txt", &e), 0);
    assert_int_equal(w.pp_comm, 4096);
    simai_free(&w);
}

static void expect_group(const struct simai_workload *w, int g, uint32_t r, const uint32_t *want, uint32_t n)
{
    uint32_t got[256];
    uint32_t m = simai_group_ranks(w, g, r, got);
    if (m != n) {
        fprintf(stderr, "group %s of rank %u: %u ranks, want %u\n", simai_group_name(g), r, m, n);
        fail();
    }
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "group %s of rank %u: [%u] = %u, want %u\n", simai_group_name(g), r, i, got[i], want[i]);
            fail();
        }
}

/* SimAI's communicators (MockNcclGroup): TP 2, ep 2 on 8 GPUs. */
static void test_communicators(void **st)
{
    (void)st;
    struct simai_workload w = {.tp = 2, .ep = 2, .pp = 1, .all_gpus = 8};
    expect_group(&w, SIMAI_G_TP, 5, (uint32_t[]){4, 5}, 2);
    expect_group(&w, SIMAI_G_DP, 5, (uint32_t[]){1, 3, 5, 7}, 4);   /* i + j * DP_nums, DP_nums = all / DP = 2 */
    expect_group(&w, SIMAI_G_EP, 5, (uint32_t[]){5, 7}, 2);         /* GPU 1 of TP groups 2, 3 */
    expect_group(&w, SIMAI_G_DP_EP, 5, (uint32_t[]){1, 5}, 2);      /* GPU 1 of TP groups 0, 2 */
    expect_group(&w, SIMAI_G_NONE, 5, (uint32_t[]){5}, 1);
}

/* SimAI builds its communicators with PP_size = 1 (Sys.cc), so with pp 2 the
 * DP group still spans all_gpus / TP GPUs, and every GPU is in its own DP_EP
 * group (the fuzz finding tests/fuzz/regress/simai/pp2-communicator). */
static void test_communicators_pp(void **st)
{
    (void)st;
    struct simai_workload w = {.tp = 8, .ep = 1, .pp = 2, .all_gpus = 16};
    expect_group(&w, SIMAI_G_DP, 3, (uint32_t[]){3, 11}, 2);
    expect_group(&w, SIMAI_G_DP, 11, (uint32_t[]){3, 11}, 2);
    expect_group(&w, SIMAI_G_DP_EP, 11, (uint32_t[]){3, 11}, 2);
    expect_group(&w, SIMAI_G_EP, 11, (uint32_t[]){11}, 1);
    struct simai_workload w4 = {.tp = 4, .ep = 2, .pp = 2, .all_gpus = 16}; /* DP 4, DP_EP 2 */
    expect_group(&w4, SIMAI_G_DP, 6, (uint32_t[]){2, 6, 10, 14}, 4);
    expect_group(&w4, SIMAI_G_EP, 6, (uint32_t[]){2, 6}, 2);
    expect_group(&w4, SIMAI_G_DP_EP, 6, (uint32_t[]){6, 14}, 2);
    /* and the parser takes ep against all_gpus / TP as SimAI does: DP 4 / ep 4 */
    struct simai_workload p;
    struct err e = {{0}};
    assert_int_equal(simai_parse(&p,
                                 "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4 ep: 4 pp: 2 pp_comm: 8 "
                                 "all_gpus: 16\n1\n" LAYER,
                                 "p.txt", &e),
                     0);
    simai_free(&p);
}

/* Every malformed field and line: FILE:LINE: what is wrong. */
static void test_bad_lines(void **st)
{
    (void)st;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"", "b.txt:1: '' is not a SimAI parallelism policy"},
        {"FOO model_parallel_NPU_group: 8 all_gpus: 8\n1\n" LAYER, "b.txt:1: 'FOO' is not a SimAI parallelism policy"},
        {"DATA\n1\n" LAYER, "b.txt:1: policy DATA"},
        {"HYBRID_TRANSFORMER all_gpus: 8\n1\n" LAYER, "b.txt:1: the header needs model_parallel_NPU_group:"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8\n1\n" LAYER, "b.txt:1: the header needs"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 0 all_gpus: 8\n1\n" LAYER,
         "b.txt:1: model_parallel_NPU_group:: bad value '0'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: x\n1\n" LAYER, "b.txt:1: all_gpus:: bad value 'x'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 ep: 0\n1\n" LAYER, "b.txt:1: ep:: bad value '0'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 pp: -1\n1\n" LAYER, "b.txt:1: pp:: bad value '-1'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 vpp: 1.5\n1\n" LAYER, "b.txt:1: vpp:: bad value"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 ga: 0\n1\n" LAYER, "b.txt:1: ga:: bad value '0'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 pp_comm: z\n1\n" LAYER,
         "b.txt:1: pp_comm:: bad value 'z'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 ga:\n1\n" LAYER, "b.txt:1: ga: needs a value"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 12\n1\n" LAYER, "b.txt:1: all_gpus 12 is not a multiple"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 checkpoints: 2 0 1\n1\n" LAYER,
         "b.txt:1: checkpoints: 2: activation recomputation"},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 8 all_gpus: 8 checkpoint_initiates: 1 0\n1\n" LAYER,
         "b.txt:1: checkpoint_initiates: 1: activation recomputation"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 " /* 65 fields */
         "a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h i j k l m n o p q r s t u v w x y z a b c d e f g h\n1\n" LAYER,
         "b.txt:1: the header has 65 fields"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8 pp: 2\n1\n" LAYER,
         "b.txt:1: all_gpus 8 is not a multiple of model_parallel_NPU_group x pp = 16"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 3 all_gpus: 8\n1\n" LAYER, "b.txt:1: ep 3 does not divide"},
        {HDR, "b.txt:2: expected the number of layers"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 8 all_gpus: 8", "b.txt:2: missing: the number of layers"},
        {HDR "0\n", "b.txt:2: expected the number of layers"},
        {HDR "1 2\n" LAYER, "b.txt:2: expected the number of layers"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0\n", "b.txt:3: 11 fields, expected 12"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1 1\n", "b.txt:3: 13 fields, expected 12"},
        {HDR "1\nl y 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1\n", "b.txt:3: depen 'y'"},
        {HDR "1\nl 1x 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1\n", "b.txt:3: depen '1x'"},
        {HDR "1\nl -1 -10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1\n", "b.txt:3: fwd_compute '-10'"},
        {HDR "1\nl -1 10 ALLREDUCE_TP 4096 1 NONE 0 1 NONE 0 1\n", "b.txt:3: fwd_type 'ALLREDUCE_TP'"},
        {HDR "1\nl -1 10 ALLREDUCE 4k 1 NONE 0 1 NONE 0 1\n", "b.txt:3: fwd_size '4k'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1e3 NONE 0 1 NONE 0 1\n", "b.txt:3: ig_compute '1e3'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 SEND 0 1 NONE 0 1\n", "b.txt:3: ig_type 'SEND'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0x10 1 NONE 0 1\n", "b.txt:3: ig_size '0x10'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0 ? NONE 0 1\n", "b.txt:3: wg_compute '?'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0 1 none 0 1\n", "b.txt:3: wg_type 'none'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE -1 1\n", "b.txt:3: wg_size '-1'"},
        {HDR "1\nl -1 10 ALLREDUCE 4096 1 NONE 0 1 NONE 0 1.0\n", "b.txt:3: wg_update '1.0'"},
        {HDR "2\n" LAYER "\n", "b.txt:5: 1 layers, line 2 announces 2"},
        {HDR "1\n" LAYER LAYER, "b.txt:4: more layers than the 1 line 2 announces"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct simai_workload w;
        struct err e = {{0}};
        int r = simai_parse(&w, cases[i].text, "b.txt", &e);
        if (r != -1 || strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)) != 0) {
            fprintf(stderr, "case %zu: rc %d, '%s'\n  want '%s'\n", i, r, e.msg, cases[i].msg);
            fail();
        }
        assert_null(w.layers);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_column),    cmocka_unit_test(test_defaults_and_none),
        cmocka_unit_test(test_communicators),   cmocka_unit_test(test_communicators_pp),
        cmocka_unit_test(test_bad_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
