/* Deterministic mutation fuzzing of the scenario loaders: every input must
 * give 0 or -1, never crash, and every error must start with the file name
 * and ':' (or "--set "). Run under ASan/UBSan in the sanitizer build. */
#include "testutil.h"
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "scenario/load.h"

static const char seed_ini[] = "# fuzz seed\n"
                               "[run]\nseed = 3\nstop = 2ms\nname = fz\n"
                               "[topology]\ntype = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n"
                               "host_link = 100Gbps\nfabric_link = 400G\nlink_delay = 1us\n"
                               "[switch]\nbuffer = 32MiB ; comment\npfc = on\necn = on\nkmin = 100KB\nkmax = 400KB\npmax = 0.2\n"
                               "[transport]\ncc = dcqcn\nmtu = 1000\nwindow = bdp\nrecovery = gbn\nchunk = 4000\n"
                               "[cc.dcqcn]\nrate_ai = 50Mb/s\nrp_timer = 900us\newma_gain = 0.00390625\n"
                               "[lb]\nscheme = ecmp\n"
                               "[traffic]\npattern = poisson\ncdf = web_search\nload = 0.3\nduration = 1ms\n"
                               "[output]\ndir = out\n";

static const char seed_ns3[] = "ENABLE_QCN 1\nUSE_DYNAMIC_PFC_THRESHOLD 1\nPACKET_PAYLOAD_SIZE 1000\n"
                               "TOPOLOGY_FILE mix/topology.txt\nFLOW_FILE mix/flow.txt\nTRACE_FILE mix/trace.txt\n"
                               "FCT_OUTPUT_FILE mix/fct.txt\nPFC_OUTPUT_FILE mix/pfc.txt\nSIMULATOR_STOP_TIME 4.00\n"
                               "CC_MODE 1\nALPHA_RESUME_INTERVAL 1\nRATE_DECREASE_INTERVAL 4\nCLAMP_TARGET_RATE 0\n"
                               "RP_TIMER 900\nEWMA_GAIN 0.00390625\nFAST_RECOVERY_TIMES 1\nRATE_AI 50Mb/s\n"
                               "RATE_HAI 100Mb/s\nMIN_RATE 100Mb/s\nDCTCP_RATE_AI 1000Mb/s\nERROR_RATE_PER_LINK 0.0000\n"
                               "L2_CHUNK_SIZE 4000\nL2_ACK_INTERVAL 1\nL2_BACK_TO_ZERO 0\nHAS_WIN 1\nGLOBAL_T 1\nVAR_WIN 1\n"
                               "FAST_REACT 1\nU_TARGET 0.95\nMI_THRESH 0\nRATE_BOUND 1\nACK_HIGH_PRIO 0\nLINK_DOWN 0 0 0\n"
                               "KMAX_MAP 3 25000000000 400 50000000000 800 100000000000 1600\n"
                               "KMIN_MAP 3 25000000000 100 50000000000 200 100000000000 400\n"
                               "PMAX_MAP 3 25000000000 0.2 50000000000 0.2 100000000000 0.2\n"
                               "BUFFER_SIZE 32\nQLEN_MON_START 2000000000\n";

static const char *const seed_sets[] = {
    "switch.buffer=32MiB", "cc.dcqcn.rate_ai=50Mbps", "transport.cc=dcqcn", "lb.scheme=ecmp",
    "traffic.load=0.5",    "topology.type=file",      "run.name=x.y",       "transport.window=bdp",
};

#define CAP 4096

static void check(int r, const struct err *e, const char *prefix)
{
    assert_true(r == 0 || r == -1);
    if (r == -1) {
        size_t n = strlen(prefix);
        if (!e->msg[0] || strncmp(e->msg, prefix, n) != 0 || e->msg[n] != ':') {
            print_error("bad message for prefix '%s': '%s'\n", prefix, e->msg);
            fail();
        }
    }
}

/* Warnings go to stderr; thousands of them would only slow the run down. */
static int quiet_begin(void)
{
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    assert_true(saved >= 0 && null >= 0);
    dup2(null, 2);
    close(null);
    return saved;
}

static void quiet_end(int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* One input through one loader, then (if it loaded) through validate.
 * Returns the loader's result. */
static int one(const char *text, bool ns3, const char *fname)
{
    struct config c;
    struct err e = {{0}};
    assert_int_equal(config_init(&c), 0);
    int r = ns3 ? config_load_ns3(&c, text, fname, &e) : config_load_ini(&c, text, fname, &e);
    check(r, &e, fname);
    if (r == 0) { /* validate names where a key was set: here always the file */
        e.msg[0] = 0;
        check(config_validate(&c, &e), &e, fname);
    }
    config_load_free(&c);
    config_free(&c);
    return r;
}

static void fuzz_text(const char *seed, bool ns3, uint64_t st)
{
    char buf[CAP + 1];
    size_t seedlen = strlen(seed), len = 0;
    int n = fuzz_iterations(20000), saved = quiet_begin(), loaded = 0;
    for (int i = 0; i < n; i++) {
        if (i % 8 == 0) { /* restart from the seed now and then, else mutations pile up */
            memcpy(buf, seed, seedlen);
            len = seedlen;
        }
        len = fuzz_mutate(buf, len, CAP, &st);
        buf[len] = 0;
        loaded += one(buf, ns3, ns3 ? "fz.txt" : "fz.ini") == 0;
        one(buf, !ns3, ns3 ? "fz.ini" : "fz.txt"); /* the other reader on the same bytes */
    }
    quiet_end(saved);
    /* The mutations should reach both outcomes, or the fuzzing tests little. */
    print_message("loaded %d of %d\n", loaded, n);
    assert_true(loaded > n / 50 && loaded < n - n / 50);
}

static void test_fuzz_ini(void **state)
{
    (void)state;
    fuzz_text(seed_ini, false, 1);
}

static void test_fuzz_ns3(void **state)
{
    (void)state;
    fuzz_text(seed_ns3, true, 2);
}

static void test_fuzz_set(void **state)
{
    (void)state;
    char buf[512];
    uint64_t st = 3;
    size_t len = 0;
    int n = fuzz_iterations(20000);
    for (int i = 0; i < n; i++) {
        if (i % 8 == 0) {
            const char *s = seed_sets[(i / 8) % (sizeof seed_sets / sizeof seed_sets[0])];
            len = strlen(s);
            memcpy(buf, s, len);
        }
        len = fuzz_mutate(buf, len, sizeof buf - 1, &st);
        buf[len] = 0;
        struct config c;
        struct err e = {{0}};
        assert_int_equal(config_init(&c), 0);
        int r = config_apply_set(&c, buf, &e);
        assert_true(r == 0 || r == -1);
        /* "--set OPT: why", OPT as given (shortened past 300 characters) */
        if (r == -1 && (strncmp(e.msg, "--set ", 6) != 0 || strncmp(e.msg + 6, buf, strlen(buf) < 300 ? strlen(buf) : 300) != 0)) {
            print_error("bad message for --set '%s': '%s'\n", buf, e.msg);
            fail();
        }
        config_load_free(&c);
        config_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fuzz_ini),
        cmocka_unit_test(test_fuzz_ns3),
        cmocka_unit_test(test_fuzz_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
