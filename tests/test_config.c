/* Scenario input: INI files, ns-3 HPCC config.txt, --set, whole-config
 * checks and unit parsing. Every error must be "FILE:LINE: ..." with the
 * right line (or "--set OPT: ..."). */
#include "testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "scenario/load.h"
#include "core/units.h"
#include "net/cc.h"
#include "topo/topo.h"
#include "net/net.h"
#include "simrun.h"

#ifndef ROCESIM_SHARED_DIR
#define ROCESIM_SHARED_DIR "../shared"
#endif

/* ----------------------------------------------------------------- helpers */

static void fresh(struct config *c)
{
    assert_int_equal(config_init(c), 0);
}

static void done(struct config *c)
{
    config_load_free(c);
    config_free(c);
}

static void check_msg(const char *msg, const char *prefix, const char *sub)
{
    if (strncmp(msg, prefix, strlen(prefix)) != 0 || (sub && !strstr(msg, sub))) {
        print_error("message '%s'\n  wanted prefix '%s' and '%s'\n", msg, prefix, sub ? sub : "");
        fail();
    }
}

/* stderr capture, to count warnings. */
struct cap {
    int saved;
    FILE *tmp;
};

static void cap_begin(struct cap *k)
{
    fflush(stderr);
    k->tmp = tmpfile();
    assert_non_null(k->tmp);
    k->saved = dup(2);
    dup2(fileno(k->tmp), 2);
}

static char *cap_end(struct cap *k)
{
    fflush(stderr);
    dup2(k->saved, 2);
    close(k->saved);
    long n = ftell(k->tmp);
    char *s = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    assert_non_null(s);
    rewind(k->tmp);
    if (n > 0 && fread(s, 1, (size_t)n, k->tmp) != (size_t)n)
        fail();
    fclose(k->tmp);
    return s;
}

static int count(const char *s, const char *sub)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, sub)) != NULL; p += strlen(sub))
        n++;
    return n;
}

/* A [cc.NAME] parameter, found through the registry's own table. */
static const void *ccp(const struct config *c, const char *cc, const char *key, enum ptype t)
{
    int i = cc_index(cc);
    assert_true(i >= 0);
    const struct param *p = param_find(cc_registry[i]->params, key);
    assert_non_null(p);
    assert_int_equal(p->type, t);
    return (const char *)c->cc_params[i] + p->offset;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return s;
}

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

/* 1-based line of the first line starting with `key`. */
static int line_of(const char *text, const char *key)
{
    int line = 1;
    for (const char *p = text; *p; line++) {
        if (strncmp(p, key, strlen(key)) == 0)
            return line;
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return -1;
}

/* Loads INI text as "dir/t.ini"; -1 expected means: check the message. */
static void ini_err(const char *text, const char *prefix, const char *sub)
{
    struct config c;
    struct err e = {{0}};
    fresh(&c);
    assert_int_equal(config_load_ini(&c, text, "t.ini", &e), -1);
    check_msg(e.msg, prefix, sub);
    done(&c);
}

static void ns3_err(const char *text, const char *prefix, const char *sub)
{
    struct config c;
    struct err e = {{0}};
    struct cap k;
    fresh(&c);
    cap_begin(&k);
    int r = config_load_ns3(&c, text, "n.txt", &e);
    free(cap_end(&k));
    assert_int_equal(r, -1);
    check_msg(e.msg, prefix, sub);
    done(&c);
}

/* Loads ns-3 text that must succeed; returns the warnings. */
static char *ns3_ok(struct config *c, const char *text, const char *fname)
{
    struct err e = {{0}};
    struct cap k;
    fresh(c);
    cap_begin(&k);
    int r = config_load_ns3(c, text, fname, &e);
    char *w = cap_end(&k);
    if (r != 0)
        print_error("unexpected error: %s\n", e.msg);
    assert_int_equal(r, 0);
    return w;
}

static void set_err(const char *opt, const char *sub)
{
    struct config c;
    struct err e = {{0}};
    char prefix[256];
    fresh(&c);
    assert_int_equal(config_apply_set(&c, opt, &e), -1);
    snprintf(prefix, sizeof prefix, "--set %s: ", opt);
    check_msg(e.msg, prefix, sub);
    done(&c);
}

/* ------------------------------------------------------------------- INI */

static void test_ini_valid(void **state)
{
    (void)state;
    static const char text[] = "; comment\n"
                               "# another\n"
                               "[run]\n"
                               "seed = 7\n"
                               "stop = 2ms\n"
                               "[ topology ]\n"
                               "  type = dumbbell\n"
                               "  senders = 4\n"
                               "host_link = 25G\n"
                               "[switch]\n"
                               "buffer = 12MB ; inline\n"
                               "kmin = 100KB # inline too\n"
                               "kmax = 400KB\n"
                               "pfc = off\n"
                               "[transport]\n"
                               "cc = none\n"
                               "window = 64KB\n"
                               "[cc.dcqcn]\n"
                               "rate_ai = 50Mbps\n"
                               "min_rate: 1Gb/s\n"
                               "[lb]\n"
                               "scheme = ecmp\n"
                               "[traffic]\n"
                               "load = 0.3\n";
    struct config c;
    struct err e = {{0}};
    fresh(&c);
    assert_int_equal(config_load_ini(&c, text, "dir/t.ini", &e), 0);
    assert_int_equal(c.run.seed, 7);
    assert_int_equal(c.run.stop, 2 * T_MS);
    assert_string_equal(c.run.name, "t");
    assert_string_equal(c.source, "dir/t.ini");
    assert_int_equal(c.topology.type, TOPO_DUMBBELL);
    assert_int_equal(c.topology.senders, 4);
    assert_int_equal(c.topology.host_link, 25000000000ULL);
    assert_int_equal(c.sw.buffer, 12000000);
    assert_int_equal(c.sw.kmin, 100000);
    assert_int_equal(c.sw.kmax, 400000);
    assert_false(c.sw.pfc);
    assert_string_equal(c.transport.cc, "none");
    assert_int_equal(c.transport.window, 64000);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 50000000);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "min_rate", P_RATE), 1000000000);
    assert_true(c.traffic.load == 0.3);
    assert_string_equal(config_origin(&c, "switch.buffer"), "dir/t.ini:11");
    assert_string_equal(config_origin(&c, "topology.type"), "dir/t.ini:7");
    assert_null(config_origin(&c, "switch.reserve"));
    assert_int_equal(config_validate(&c, &e), 0);
    done(&c);

    /* run.name given in the file wins; an empty file is fine. */
    fresh(&c);
    assert_int_equal(config_load_ini(&c, "[run]\nname = mine\n", "x/y.ini", &e), 0);
    assert_string_equal(c.run.name, "mine");
    done(&c);
    fresh(&c);
    assert_int_equal(config_load_ini(&c, "", "empty.ini", &e), 0);
    assert_string_equal(c.run.name, "empty");
    assert_int_equal(config_validate(&c, &e), 0);
    done(&c);
}

static void test_ini_errors(void **state)
{
    (void)state;
    char longline[400];
    ini_err("[run]\nseed = 1\n[foo]\n", "t.ini:3: ", "unknown section [foo]");
    ini_err("[run]\nseed = 1\n[foo]\nx = 1\n", "t.ini:3: ", "unknown section [foo]");
    ini_err("[switch]\nfoo = 1\n", "t.ini:2: ", "unknown key 'foo' in [switch]");
    ini_err("[switch]\n\nbuffer = 12XB\n", "t.ini:3: ", "switch.buffer: bad size '12XB': unknown size unit");
    ini_err("[traffic]\nload = 1.7\n", "t.ini:2: ", "traffic.load: bad number '1.7': value out of range");
    ini_err("[transport]\ncc = foo\n", "t.ini:2: ", "unknown congestion control 'foo' (known: dcqcn");
    ini_err("[lb]\nscheme = foo\n", "t.ini:2: ", "unknown load balancer 'foo' (known: ecmp");
    ini_err("[run]\n\n[cc.foo]\n", "t.ini:3: ", "unknown section [cc.foo]: no congestion control 'foo'");
    ini_err("[lb.bar]\nx = 1\n", "t.ini:1: ", "unknown section [lb.bar]: no load balancer 'bar'");
    ini_err("[run]\nseed = 1\nstop = 1ms\nseed = 2\n", "t.ini:4: ", "duplicate key 'seed' in [run] (first set at line 2)");
    ini_err("[switch]\nbuffer = 1MB\n[run]\n[switch]\nbuffer = 2MB\n", "t.ini:5: ", "duplicate key 'buffer'");
    ini_err("[run]\nseed = 1\nthis is not ini\n", "t.ini:3: ", "cannot parse 'this is not ini'");
    ini_err("[run\nseed = 1\n", "t.ini:1: ", "cannot parse");
    /* A parse error before a bad key is the one reported. */
    ini_err("[run]\nbad line\nfoo = 1\n", "t.ini:2: ", "cannot parse");
    ini_err("seed = 1\n", "t.ini:1: ", "key 'seed' outside any section");
    ini_err("[run]\n= 5\n", "t.ini:2: ", "missing key name");
    ini_err("[cc.dcqcn]\nrate_ai = fast\n", "t.ini:2: ", "cc.dcqcn.rate_ai: bad rate 'fast'");
    ini_err("[transport]\nrecovery = foo\n", "t.ini:2: ", "bad choice 'foo': expected one of gbn|irn");
    ini_err("[run]\nstop = 1 parsec\n", "t.ini:2: ", "run.stop: bad time");
    /* A unit-less rate or size is an error naming the units, not 100 bps. */
    ini_err("[topology]\nhost_link = 100\n", "t.ini:2: ", "topology.host_link: bad rate '100': a rate needs a unit: bps, Kbps, Mbps, Gbps");
    ini_err("[switch]\nbuffer = 32\n", "t.ini:2: ", "switch.buffer: bad size '32': a size needs a unit: B, KB, MB");
    ini_err("[flow.x]\nsize = 1000\n", "t.ini:2: ", "flow.x.size: bad size '1000'");
    memset(longline, 'x', sizeof longline);
    memcpy(longline, "[run]\nname = ", 13);
    strcpy(longline + 300, "\n");
    ini_err(longline, "t.ini:2: ", "line too long");
    /* CRLF line ends count lines the same way. */
    ini_err("[run]\r\nseed = 1\r\n[nope]\r\n", "t.ini:3: ", "unknown section [nope]");
}

/* ----------------------------------------------------------------- --set */

static void test_set(void **state)
{
    (void)state;
    struct config c;
    struct err e = {{0}};
    fresh(&c);
    assert_int_equal(config_apply_set(&c, "switch.buffer=12MiB", &e), 0);
    assert_int_equal(c.sw.buffer, 12582912);
    assert_string_equal(config_origin(&c, "switch.buffer"), "--set switch.buffer=12MiB");
    assert_int_equal(config_apply_set(&c, "cc.dcqcn.rate_ai=50Mbps", &e), 0);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 50000000);
    assert_string_equal(config_origin(&c, "cc.dcqcn.rate_ai"), "--set cc.dcqcn.rate_ai=50Mbps");
    assert_int_equal(config_apply_set(&c, "run.name=a.b=c", &e), 0);
    assert_string_equal(c.run.name, "a.b=c");
    assert_int_equal(config_apply_set(&c, "transport.cc=none", &e), 0);
    assert_string_equal(c.transport.cc, "none");
    /* --set after a file overrides it, and the origin follows. */
    assert_int_equal(config_load_ini(&c, "[switch]\nbuffer = 1MB\n", "f.ini", &e), 0);
    assert_string_equal(config_origin(&c, "switch.buffer"), "f.ini:2");
    assert_int_equal(config_apply_set(&c, "switch.buffer=2MB", &e), 0);
    assert_int_equal(c.sw.buffer, 2000000);
    assert_string_equal(config_origin(&c, "switch.buffer"), "--set switch.buffer=2MB");
    done(&c);

    set_err("switch.buffer", "expected section.key=value");
    set_err("buffer=1MB", "expected section.key=value");
    set_err(".buffer=1MB", "empty section");
    set_err("switch.=1MB", "empty key");
    set_err("switch.buffer=", "empty value");
    set_err("foo.bar=1", "unknown section [foo]");
    set_err("switch.foo=1", "unknown key 'foo' in [switch]");
    set_err("switch.buffer=12XB", "switch.buffer: bad size '12XB'");
    set_err("transport.cc=foo", "unknown congestion control 'foo' (known: dcqcn");
    set_err("lb.scheme=foo", "unknown load balancer 'foo' (known: ecmp");
    set_err("cc.foo.rate_ai=1G", "unknown section [cc.foo]");
    set_err("cc.dcqcn.nope=1", "unknown key 'nope' in [cc.dcqcn]");
    set_err("traffic.load=1.7", "value out of range");
    set_err("topology.fabric_link=400", "a rate needs a unit");
    set_err("cc.dcqcn.rate_ai=5", "a rate needs a unit");
    set_err("=", "expected section.key=value");
}

/* ------------------------------------------------------------------ ns-3 */

static void test_ns3_reference(void **state)
{
    (void)state;
    const char *path = ROCESIM_SHARED_DIR "/ns3-reference/config.txt";
    char *text = slurp(path), prefix[600];
    struct config c;
    struct err e = {{0}};
    struct cap k;

    /* As published it asks for HPCC (CC_MODE 3): an error until HPCC is registered. */
    fresh(&c);
    cap_begin(&k);
    int r = config_load_file(&c, path, &e);
    free(cap_end(&k));
    if (cc_find("hpcc")) {
        assert_int_equal(r, 0);
        assert_string_equal(c.transport.cc, "hpcc");
    } else {
        assert_int_equal(r, -1);
        snprintf(prefix, sizeof prefix, "%s:%d: ", path, line_of(text, "CC_MODE"));
        check_msg(e.msg, prefix, "CC_MODE 3 (hpcc) is not implemented yet");
    }
    done(&c);

    /* The same file with DCQCN. */
    char *p = strstr(text, "CC_MODE 3");
    assert_non_null(p);
    p[8] = '1';
    char *w = ns3_ok(&c, text, "mix/config.txt");
    assert_true(c.ns3.active);
    assert_string_equal(c.transport.cc, "dcqcn");
    assert_int_equal(c.topology.type, TOPO_FILE);
    assert_string_equal(c.topology.file, "mix/topology.txt");
    assert_int_equal(c.traffic.pattern, TRAFFIC_FILE);
    assert_string_equal(c.traffic.file, "mix/flow.txt");
    assert_string_equal(c.ns3.fct_file, "mix/fct.txt");
    assert_string_equal(c.ns3.pfc_file, "mix/pfc.txt");
    assert_string_equal(c.run.name, "mix");
    assert_int_equal(c.sw.n_ecn_map, 3);
    int at100 = -1;
    for (int i = 0; i < c.sw.n_ecn_map; i++)
        if (c.sw.ecn_map[i].rate == 100000000000ULL)
            at100 = i;
    assert_true(at100 >= 0);
    assert_int_equal(c.sw.ecn_map[at100].kmin, 400000);
    assert_int_equal(c.sw.ecn_map[at100].kmax, 1600000);
    assert_true(c.sw.ecn_map[at100].pmax == 0.2);
    assert_int_equal(c.sw.ecn_map[0].rate, 25000000000ULL);
    assert_int_equal(c.sw.ecn_map[0].kmin, 100000);
    assert_int_equal(c.sw.buffer, 32 * 1048576);
    assert_true(c.sw.ecn);
    assert_true(c.sw.pfc);
    assert_int_equal(c.transport.mtu, 1000);
    assert_int_equal(c.transport.window, PARAM_WIN_BDP);
    assert_true(c.transport.window_global);
    assert_true(c.transport.var_win);
    assert_int_equal(c.transport.ack_high_prio, ACK_PRIO_OFF);
    assert_int_equal(c.transport.ack_interval, 1);
    assert_int_equal(c.transport.chunk, 4000);
    assert_false(c.transport.back_to_zero);
    assert_int_equal(c.run.stop, 4 * T_SEC);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 50000000);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_hai", P_RATE), 100000000);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "min_rate", P_RATE), 100000000);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rp_timer", P_TIME), 900 * T_US);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "alpha_resume_interval", P_TIME), 1 * T_US);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rate_decrease_interval", P_TIME), 4 * T_US);
    assert_true(*(const double *)ccp(&c, "dcqcn", "ewma_gain", P_DOUBLE) == 0.00390625);
    assert_int_equal(*(const int64_t *)ccp(&c, "dcqcn", "fast_recovery_times", P_INT), 1);
    assert_false(*(const bool *)ccp(&c, "dcqcn", "clamp_target_rate", P_BOOL));
    snprintf(prefix, sizeof prefix, "mix/config.txt:%d", line_of(text, "TOPOLOGY_FILE"));
    assert_string_equal(config_origin(&c, "topology.file"), prefix);
    /* One warning per unmodelled key, one combined line for keys of CCs not registered. */
    bool other = !cc_find("hpcc") || !cc_find("hpcc-pint") || !cc_find("dctcp");
    assert_int_equal(count(w, "warning:"), 3 + other);
    assert_int_equal(count(w, "TRACE_FILE"), 1);
    assert_int_equal(count(w, "TRACE_OUTPUT_FILE"), 1);
    assert_int_equal(count(w, "ENABLE_TRACE"), 1);
    /* QLEN_MON_* are modelled (stats/monitor.c): no warning, times in ns */
    assert_int_equal(count(w, "QLEN_MON_"), 0);
    assert_string_equal(c.ns3.qlen_mon_file, "mix/qlen.txt");
    assert_int_equal(c.ns3.qlen_mon_start, 2000000000LL * T_NS);
    assert_int_equal(c.ns3.qlen_mon_end, 2010000000LL * T_NS);
    if (!cc_find("hpcc") && !cc_find("hpcc-pint"))
        assert_non_null(strstr(w, "ignored keys for CC modes not implemented yet (CC_MODE here is dcqcn): U_TARGET"));
    if (!cc_find("dctcp"))
        assert_non_null(strstr(w, "DCTCP_RATE_AI"));
    free(w);

    /* Paths resolve against the current directory, as in ns-3. */
    char cwd[4096], tmpl[] = "/tmp/rocesim_cfgXXXXXX";
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_non_null(mkdtemp(tmpl));
    assert_int_equal(chdir(tmpl), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    snprintf(prefix, sizeof prefix, "mix/config.txt:%d: ", line_of(text, "TOPOLOGY_FILE"));
    check_msg(e.msg, prefix, "topology.file 'mix/topology.txt': cannot open");
    assert_int_equal(mkdir("mix", 0700), 0);
    write_file("mix/topology.txt", "x\n", 2);
    assert_int_equal(config_validate(&c, &e), -1);
    snprintf(prefix, sizeof prefix, "mix/config.txt:%d: ", line_of(text, "FLOW_FILE"));
    check_msg(e.msg, prefix, "traffic.file 'mix/flow.txt': cannot open");
    write_file("mix/flow.txt", "0\n", 2);
    assert_int_equal(config_validate(&c, &e), 0);
    unlink("mix/topology.txt");
    unlink("mix/flow.txt");
    rmdir("mix");
    assert_int_equal(chdir(cwd), 0);
    rmdir(tmpl);
    done(&c);
    free(text);
}

static void test_ns3_defaults(void **state)
{
    (void)state;
    struct config c;
    char *w = ns3_ok(&c, "TOPOLOGY_FILE t.txt\nFLOW_FILE f.txt\nL2_ACK_INTERVAL 1\n", "cfg/x.txt");
    assert_int_equal(count(w, "warning:"), 1); /* no ECN maps */
    assert_non_null(strstr(w, "no KMAX_MAP"));
    free(w);
    assert_string_equal(c.run.name, "x");
    assert_string_equal(c.transport.cc, "dcqcn");
    assert_int_equal(c.sw.buffer, 16 * 1048576);
    assert_int_equal(c.sw.n_ecn_map, 0);
    assert_true(c.sw.ecn);
    assert_int_equal(c.run.stop, 3010 * T_MS);
    assert_int_equal(c.transport.mtu, 1000);
    assert_int_equal(c.transport.window, PARAM_WIN_BDP);
    assert_true(c.transport.window_global);
    assert_false(c.transport.var_win);
    assert_int_equal(c.transport.chunk, 0);
    assert_true(c.run.ns3_timing); /* an ns-3 config gets ns-3's whole-ns timing */
    assert_null(config_origin(&c, "run.ns3_timing"));
    assert_string_equal(c.ns3.fct_file, "fct.txt");
    assert_string_equal(c.ns3.pfc_file, "pfc.txt");
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "alpha_resume_interval", P_TIME), 55 * T_US);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rate_decrease_interval", P_TIME), 4 * T_US);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rp_timer", P_TIME), 1500 * T_US);
    assert_int_equal(*(const int64_t *)ccp(&c, "dcqcn", "fast_recovery_times", P_INT), 5);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "min_rate", P_RATE), 100000000);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 5000000);
    assert_true(*(const double *)ccp(&c, "dcqcn", "ewma_gain", P_DOUBLE) == 1.0 / 16);
    assert_null(config_origin(&c, "switch.buffer")); /* a default, not from a line */
    done(&c);

    /* ns-3's DataRate reads a bare number as bits per second: still does here. */
    w = ns3_ok(&c, "L2_ACK_INTERVAL 1\nRATE_AI 5000000\nMIN_RATE 100Mb/s\n", "x.txt");
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 5000000);
    free(w);
    done(&c);

    /* run.name: ns-3 calls every config "config.txt", so take the folder. */
    w = ns3_ok(&c, "L2_ACK_INTERVAL 1\n", "a/b/config.txt");
    assert_string_equal(c.run.name, "b");
    free(w);
    done(&c);
    w = ns3_ok(&c, "L2_ACK_INTERVAL 1\n", "config.txt");
    assert_string_equal(c.run.name, "config");
    free(w);
    /* No TOPOLOGY_FILE: ns-3 has no default, validate says so. */
    struct err e = {{0}};
    assert_int_equal(config_validate(&c, &e), -1);
    check_msg(e.msg, "config.txt: ", "topology.type=file needs topology.file (ns-3 TOPOLOGY_FILE)");
    done(&c);
}

/* ns-3 third.cc gives ACK_HIGH_PRIO to its NICs only (SwitchNode::AckHighPrio
 * keeps its default 0), so 1 maps to `nic`; an INI file may ask for `on`. */
static void test_ns3_ack_high_prio(void **state)
{
    (void)state;
    struct config c;
    char *w = ns3_ok(&c, "L2_ACK_INTERVAL 1\nACK_HIGH_PRIO 1\n", "n.txt");
    free(w);
    assert_int_equal(c.transport.ack_high_prio, ACK_PRIO_NIC);
    done(&c);
    w = ns3_ok(&c, "L2_ACK_INTERVAL 1\nACK_HIGH_PRIO 0\n", "n.txt");
    free(w);
    assert_int_equal(c.transport.ack_high_prio, ACK_PRIO_OFF);
    done(&c);
    struct err e = {{0}};
    fresh(&c);
    assert_int_equal(config_load_ini(&c, "[transport]\nack_high_prio = on\n", "t.ini", &e), 0);
    assert_int_equal(c.transport.ack_high_prio, ACK_PRIO_ON);
    done(&c);
}

static void test_ns3_warnings(void **state)
{
    (void)state;
    struct config c;
    static const char maps[] = "KMAX_MAP 1 100000000000 1600\nKMIN_MAP 1 100000000000 400\nPMAX_MAP 1 100000000000 0.2\n";
    char text[1024];
    snprintf(text, sizeof text, "%sL2_ACK_INTERVAL 1\nFOO 1 2\nRP_TIMER 900 us\nPAUSE_TIME 5\n", maps);
    char *w = ns3_ok(&c, text, "n.txt");
    assert_int_equal(count(w, "warning:"), 2);
    assert_non_null(strstr(w, "n.txt:5: unknown ns-3 key FOO (ignored, as ns-3 does)"));
    assert_non_null(strstr(w, "n.txt:6: unknown ns-3 key us"));
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rp_timer", P_TIME), 900 * T_US);
    free(w);
    done(&c);

    snprintf(text, sizeof text, "%sL2_ACK_INTERVAL 1\nCC_MODE 0\n# a comment line\n", maps);
    w = ns3_ok(&c, text, "n.txt");
    assert_int_equal(count(w, "warning:"), 1);
    assert_non_null(strstr(w, "n.txt:5: CC_MODE 0"));
    assert_string_equal(c.transport.cc, "none");
    free(w);
    done(&c);

    snprintf(text, sizeof text,
             "%sL2_ACK_INTERVAL 4000\nUSE_DYNAMIC_PFC_THRESHOLD 0\nRATE_BOUND 1\nENABLE_TRACE 0\nLINK_DOWN 5 1 2\n"
             "ERROR_RATE_PER_LINK 0.01\nBUFFER_SIZE 8\nBUFFER_SIZE 9\nPAUSE_TIME 0\nDATA_RATE 100Gb/s\nLINK_DELAY 1us\n",
             maps);
    w = ns3_ok(&c, text, "n.txt");
    assert_non_null(strstr(w, "n.txt:4: L2_ACK_INTERVAL 4000"));
    assert_non_null(strstr(w, "n.txt:5: USE_DYNAMIC_PFC_THRESHOLD"));
    assert_null(strstr(w, "RATE_BOUND"));
    assert_null(strstr(w, "ENABLE_TRACE"));
    assert_null(strstr(w, "LINK_DOWN")); /* modelled now: checked against the topology in config_validate */
    assert_null(strstr(w, "ERROR_RATE_PER_LINK")); /* modelled: random loss on every link */
    assert_non_null(strstr(w, "n.txt:11: BUFFER_SIZE given again (first at line 10)"));
    assert_non_null(strstr(w, "n.txt:12: PAUSE_TIME 0"));
    assert_non_null(strstr(w, "DATA_RATE"));
    assert_non_null(strstr(w, "LINK_DELAY"));
    assert_int_equal(count(w, "warning:"), 6);
    assert_int_equal(c.ns3.link_down_us, 5);
    assert_int_equal(c.ns3.link_down_a, 1);
    assert_int_equal(c.ns3.link_down_b, 2);
    assert_int_equal(c.sw.buffer, 9 * 1048576);
    assert_int_equal(c.transport.ack_interval, 1);
    assert_true(c.ns3.error_rate == 0.01);
    assert_true(c.topology.loss == 0.01);
    free(w);
    done(&c);
}

static void test_ns3_errors(void **state)
{
    (void)state;
    ns3_err("L2_ACK_INTERVAL 0\n", "n.txt:1: ", "L2_ACK_INTERVAL 0 turns ACKs off");
    ns3_err("BUFFER_SIZE 4\n", "n.txt: ", "no L2_ACK_INTERVAL");
    ns3_err("L2_ACK_INTERVAL 1\nRP_TIMER\n", "n.txt:2: ", "RP_TIMER needs a value");
    ns3_err("L2_ACK_INTERVAL 1\nLINK_DOWN 0 0\n", "n.txt:2: ", "LINK_DOWN needs 3 values");
    ns3_err("L2_ACK_INTERVAL 1\n\nBUFFER_SIZE 3x\n", "n.txt:3: ", "BUFFER_SIZE: bad value '3x'");
    ns3_err("L2_ACK_INTERVAL 1\nBUFFER_SIZE -3\n", "n.txt:2: ", "BUFFER_SIZE: bad value '-3'");
    ns3_err("L2_ACK_INTERVAL 1\nEWMA_GAIN 0x10\n", "n.txt:2: ", "EWMA_GAIN: bad value");
    ns3_err("L2_ACK_INTERVAL 1\nEWMA_GAIN nan\n", "n.txt:2: ", "EWMA_GAIN: bad value");
    ns3_err("PACKET_PAYLOAD_SIZE 10\nL2_ACK_INTERVAL 1\n", "n.txt:1: ", "transport.mtu: bad byte count '10': value out of range");
    ns3_err("L2_ACK_INTERVAL 1\nSIMULATOR_STOP_TIME -1\n", "n.txt:2: ", "run.stop: bad time");
    ns3_err("L2_ACK_INTERVAL 1\nRATE_AI fast\n", "n.txt:2: ", "cc.dcqcn.rate_ai: bad rate 'fast'");
    if (!cc_find("hpcc"))
        ns3_err("L2_ACK_INTERVAL 1\nCC_MODE 3\n", "n.txt:2: ", "CC_MODE 3 (hpcc) is not implemented yet");
    if (!cc_find("timely"))
        ns3_err("CC_MODE 7\n", "n.txt:1: ", "CC_MODE 7 (timely) is not implemented yet");
    ns3_err("L2_ACK_INTERVAL 1\nCC_MODE x\n", "n.txt:2: ", "CC_MODE: bad value 'x'");
    ns3_err("L2_ACK_INTERVAL 1\nERROR_RATE_PER_LINK 2\n", "n.txt:2: ", "not a probability");
    ns3_err("L2_ACK_INTERVAL 1\nKMAX_MAP 3 25000000000 400\n", "n.txt:2: ", "KMAX_MAP: 3 entries need 4 more values");
    ns3_err("KMAX_MAP 17\n", "n.txt:1: ", "17 entries, at most 16");
    ns3_err("KMAX_MAP 1 0 1\n", "n.txt:1: ", "bad rate '0'");
    ns3_err("PMAX_MAP 1 100 1.5\n", "n.txt:1: ", "bad probability '1.5'");
    ns3_err("KMIN_MAP 1 100 4.5\n", "n.txt:1: ", "bad threshold '4.5'");
    ns3_err("L2_ACK_INTERVAL 1\nKMAX_MAP 1 100000000000 1600\n", "n.txt:2: ", "KMAX_MAP without KMIN_MAP");
    ns3_err("L2_ACK_INTERVAL 1\n"
            "KMAX_MAP 2 25000000000 400 100000000000 1600\n"
            "KMIN_MAP 2 25000000000 100 50000000000 200\n"
            "PMAX_MAP 2 25000000000 0.2 100000000000 0.2\n",
            "n.txt:3: ", "KMIN_MAP has rate 50000000000, which KMAX_MAP (line 2) lacks");
    ns3_err("L2_ACK_INTERVAL 1\n"
            "KMAX_MAP 2 25000000000 400 100000000000 1600\n"
            "KMIN_MAP 2 25000000000 100 100000000000 400\n"
            "PMAX_MAP 1 25000000000 0.2\n",
            "n.txt:4: ", "PMAX_MAP lacks rate 100000000000");
    ns3_err("L2_ACK_INTERVAL 1\n"
            "KMAX_MAP 1 25000000000 400\n"
            "KMIN_MAP 1 25000000000 500\n"
            "PMAX_MAP 1 25000000000 0.2\n",
            "n.txt:3: ", "kmin 500 KB > kmax 400 KB");
}

/* ----------------------------------------------------------- load_file */

static void test_load_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/rocesim_cfgXXXXXX", path[128];
    struct config c;
    struct err e = {{0}};
    struct cap k;
    assert_non_null(mkdtemp(dir));

    snprintf(path, sizeof path, "%s/a.ini", dir);
    static const char ini[] = "# INI after a comment\n\n[run]\nseed=3\n";
    write_file(path, ini, sizeof ini - 1);
    fresh(&c);
    assert_int_equal(config_load_file(&c, path, &e), 0);
    assert_int_equal(c.run.seed, 3);
    assert_false(c.ns3.active);
    assert_string_equal(c.run.name, "a");
    done(&c);

    snprintf(path, sizeof path, "%s/b.txt", dir);
    static const char ns3[] = "# ns-3 after a comment\nL2_ACK_INTERVAL 1\nBUFFER_SIZE 2\n";
    write_file(path, ns3, sizeof ns3 - 1);
    fresh(&c);
    cap_begin(&k);
    int r = config_load_file(&c, path, &e);
    free(cap_end(&k));
    assert_int_equal(r, 0);
    assert_true(c.ns3.active);
    assert_int_equal(c.sw.buffer, 2 * 1048576);
    done(&c);

    /* Upper-case "KEY = value" is INI (and here a key outside any section). */
    snprintf(path, sizeof path, "%s/c.ini", dir);
    write_file(path, "SEED = 1\n", 9);
    fresh(&c);
    assert_int_equal(config_load_file(&c, path, &e), -1);
    snprintf(path, sizeof path, "%s/c.ini:1: ", dir);
    check_msg(e.msg, path, "outside any section");
    done(&c);

    snprintf(path, sizeof path, "%s/d.ini", dir);
    write_file(path, "[run]\nseed = 1\0\n", 15);
    fresh(&c);
    assert_int_equal(config_load_file(&c, path, &e), -1);
    snprintf(path, sizeof path, "%s/d.ini:2: ", dir);
    check_msg(e.msg, path, "NUL byte");
    done(&c);

    snprintf(path, sizeof path, "%s/missing.ini", dir);
    fresh(&c);
    assert_int_equal(config_load_file(&c, path, &e), -1);
    snprintf(path, sizeof path, "%s/missing.ini: ", dir);
    check_msg(e.msg, path, "cannot open scenario file");
    done(&c);

    for (const char *n = "abcd"; *n; n++) {
        snprintf(path, sizeof path, "%s/%c.%s", dir, *n, *n == 'b' ? "txt" : "ini");
        unlink(path);
    }
    rmdir(dir);
}

/* -------------------------------------------------------------- validate */

static void validate_err(const char *text, const char *set, const char *prefix, const char *sub)
{
    struct config c;
    struct err e = {{0}};
    fresh(&c);
    assert_int_equal(config_load_ini(&c, text, "t.ini", &e), 0);
    if (set)
        assert_int_equal(config_apply_set(&c, set, &e), 0);
    assert_int_equal(config_validate(&c, &e), -1);
    check_msg(e.msg, prefix, sub);
    done(&c);
}

static void test_validate(void **state)
{
    (void)state;
    struct config c;
    struct err e = {{0}};
    fresh(&c);
    assert_int_equal(config_validate(&c, &e), 0); /* the built-in default scenario */
    done(&c);
    validate_err("[run]\nseed = 1\n[topology]\ntype = file\n", NULL, "t.ini:4: ", "topology.type=file needs topology.file");
    validate_err("[topology]\ntype = file\nfile = /nonexistent/topo.txt\n", NULL, "t.ini:3: ",
                 "topology.file '/nonexistent/topo.txt': cannot open");
    validate_err("[traffic]\npattern = file\n", NULL, "t.ini:2: ", "traffic.pattern=file needs traffic.file");
    validate_err("[traffic]\npattern = file\n", "traffic.file=/nonexistent/f.txt", "--set traffic.file=/nonexistent/f.txt: ",
                 "cannot open");
    validate_err("[switch]\nkmin = 2MB\n", NULL, "t.ini:2: ", "switch.kmin (2MB) > switch.kmax (1600KB)");
    validate_err("", "switch.kmax=100KB", "--set switch.kmax=100KB: ", "switch.kmin (400KB) > switch.kmax (100KB)");
    validate_err("[transport]\nrecovery = irn\n", NULL, "t.ini:2: ", "transport.recovery=irn needs switch.pfc=off");
    {   /* IRN on a lossy fabric is valid */
        struct config c;
        struct err e = {{0}};
        fresh(&c);
        assert_int_equal(config_load_ini(&c, "[switch]\npfc = off\n[transport]\nrecovery = irn\n", "t.ini", &e), 0);
        assert_int_equal(config_validate(&c, &e), 0);
        done(&c);
    }
    validate_err("[transport]\n\nback_to_zero = on\n", NULL, "t.ini:3: ", "transport.back_to_zero needs transport.chunk > 0");
    validate_err("[topology]\ntype = fattree\nk = 5\n", NULL, "t.ini:3: ", "topology.k must be even");
    validate_err("[traffic]\nduration = 0\n", NULL, "t.ini:2: ", "traffic.duration must be > 0");
    validate_err("[traffic]\ncdf =\n", NULL, "t.ini:2: ", "traffic.cdf is empty");
}

/* ------------------------------------------------------ DCQCN profiles */

/* [cc.dcqcn] profile = paper: the DCQCN paper's values (SIGCOMM'15: Kmin
 * 5 KB, Kmax 200 KB at 40 Gbps, Pmax 1 %, g 1/256, 55 us timers, F = 5,
 * R_AI 40 Mbps, CNP interval 50 us) for every key not set explicitly. */
static void load_valid(struct config *c, const char *text, const char *set)
{
    struct err e = {{0}};
    fresh(c);
    assert_int_equal(config_load_ini(c, text, "t.ini", &e), 0);
    if (set)
        assert_int_equal(config_apply_set(c, set, &e), 0);
    if (config_validate(c, &e) < 0) {
        print_error("%s\n", e.msg);
        fail();
    }
}

static void test_dcqcn_profile(void **state)
{
    (void)state;
    struct config c;
    /* default: ns-3 HPCC's values, nothing applied */
    load_valid(&c, "[transport]\ncc = dcqcn\n", NULL);
    assert_int_equal(*(const int *)ccp(&c, "dcqcn", "profile", P_ENUM), 0);
    assert_int_equal(c.sw.kmin, 400000);
    assert_int_equal(c.sw.kmax, 1600000);
    assert_true(c.sw.pmax == 0.2);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rp_timer", P_TIME), 900 * T_US);
    assert_null(config_origin(&c, "switch.kmin"));
    done(&c);

    /* paper: every value */
    load_valid(&c, "[transport]\ncc = dcqcn\n[cc.dcqcn]\nprofile = paper\n", NULL);
    assert_int_equal(c.sw.kmin, 12500);  /* 5 KB at 40 Gbps, written for 100 Gbps */
    assert_int_equal(c.sw.kmax, 500000); /* 200 KB at 40 Gbps */
    assert_true(c.sw.pmax == 0.01);
    assert_true(*(const double *)ccp(&c, "dcqcn", "ewma_gain", P_DOUBLE) == 1.0 / 256);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "alpha_resume_interval", P_TIME), 55 * T_US);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rp_timer", P_TIME), 55 * T_US);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rate_decrease_interval", P_TIME), 50 * T_US);
    assert_int_equal(*(const int64_t *)ccp(&c, "dcqcn", "fast_recovery_times", P_INT), 5);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 40000000);
    assert_true(*(const bool *)ccp(&c, "dcqcn", "clamp_target_rate", P_BOOL));
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_hai", P_RATE), 100000000); /* not in the paper: ns3's */
    check_msg(config_origin(&c, "switch.kmax"), "t.ini:4 (cc.dcqcn.profile = paper)", NULL);
    done(&c);

    /* an explicit key wins, in the file or by --set, before or after the profile line */
    load_valid(&c, "[switch]\nkmin = 10KB\n[transport]\ncc = dcqcn\n[cc.dcqcn]\nprofile = paper\nrp_timer = 300us\n",
               "cc.dcqcn.rate_ai=5Mbps");
    assert_int_equal(c.sw.kmin, 10000);
    assert_int_equal(c.sw.kmax, 500000);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "rp_timer", P_TIME), 300 * T_US);
    assert_int_equal(*(const uint64_t *)ccp(&c, "dcqcn", "rate_ai", P_RATE), 5000000);
    assert_int_equal(*(const simtime_t *)ccp(&c, "dcqcn", "alpha_resume_interval", P_TIME), 55 * T_US);
    done(&c);
    load_valid(&c, "[transport]\ncc = dcqcn\n", "cc.dcqcn.profile=paper");
    assert_int_equal(c.sw.kmin, 12500);
    check_msg(config_origin(&c, "switch.kmin"), "--set cc.dcqcn.profile=paper (cc.dcqcn.profile = paper)", NULL);
    done(&c);

    /* DCQCN not running: its profile changes nothing (and its key warns as unused) */
    struct cap k;
    cap_begin(&k);
    load_valid(&c, "[transport]\ncc = hpcc\n[cc.dcqcn]\nprofile = paper\n", NULL);
    char *err = cap_end(&k);
    assert_int_equal(c.sw.kmin, 400000);
    assert_int_equal(count(err, "cc.dcqcn.profile is set, but transport.cc is hpcc"), 1);
    free(err);
    done(&c);

    /* the built switches scale the thresholds with port rate as always: 5 KB / 200 KB at 40 Gbps, a quarter at 10 */
    struct run r;
    run_setup(&r, "[topology]\ntype = dumbbell\nhost_link = 10Gbps\nfabric_link = 40Gbps\n[cc.dcqcn]\nprofile = paper\n");
    run_build(&r);
    int seen40 = 0, seen10 = 0;
    for (uint32_t i = 0; i < r.sc.sim.n_ports; i++) {
        const struct port *pt = &r.sc.sim.ports[i];
        if (pt->rate == 40000000000ULL && pt->kmin == 5000 && pt->kmax == 200000)
            seen40++;
        if (pt->rate == 10000000000ULL && pt->kmin == 1250 && pt->kmax == 50000)
            seen10++;
    }
    assert_true(seen40 == 2 && seen10 >= 4);
    run_free(&r);

    /* a check on a key the profile set names the profile's line */
    validate_err("[switch]\nkmin = 600KB\n[cc.dcqcn]\nprofile = paper\n", NULL, "t.ini:2: ",
                 "switch.kmin (600KB) > switch.kmax (500KB)");
    validate_err("[switch]\nkmax = 10KB\n", NULL, "t.ini:2: ", "switch.kmin (400KB) > switch.kmax (10KB)");
    validate_err("[switch]\nkmax = 10KB\n", "cc.dcqcn.profile=paper",
                 "--set cc.dcqcn.profile=paper (cc.dcqcn.profile = paper): ", "switch.kmin (12500B) > switch.kmax (10KB)");
}

/* ----------------------------------------------------------------- units */

static void test_units(void **state)
{
    (void)state;
    uint64_t u;
    simtime_t t;
    assert_null(parse_rate("100Gbps", &u));
    assert_int_equal(u, 100000000000ULL);
    assert_null(parse_rate("25G", &u));
    assert_int_equal(u, 25000000000ULL);
    assert_null(parse_rate("100Mb/s", &u));
    assert_int_equal(u, 100000000);
    /* A bare rate or size is a slip (host_link = 100 once meant 100 bps and a
     * run of 0 flows): refused with the units named; 0 stays 0. ns-3's own
     * files keep DataRate's reading, bare = bits per second. */
    const char *why = parse_rate("100", &u);
    assert_non_null(why);
    assert_non_null(strstr(why, "Gbps"));
    why = parse_size("1500", &u);
    assert_non_null(why);
    assert_non_null(strstr(why, "KiB"));
    assert_null(parse_size("0", &u));
    assert_int_equal(u, 0);
    assert_null(parse_size("1500B", &u));
    assert_int_equal(u, 1500);
    assert_null(parse_rate_ns3("1000000000", &u));
    assert_int_equal(u, 1000000000);
    assert_null(parse_rate_ns3("25Gbps", &u));
    assert_int_equal(u, 25000000000ULL);
    struct topo tp;
    struct err te;
    assert_int_equal(topo_parse_ns3(&tp, "3 1 2\n2\n0 2 1000000000 1us 0\n1 2 1G 1us 0\n", "s.txt", &te), 0);
    assert_int_equal(tp.links[0].rate, 1000000000);
    topo_free(&tp);
    assert_null(parse_time("1us", &t));
    assert_int_equal(t, T_US);
    assert_null(parse_time("1000ns", &t));
    assert_int_equal(t, T_US);
    assert_null(parse_time("2.5ms", &t));
    assert_int_equal(t, 2500 * T_US);
    assert_null(parse_time("0", &t));
    assert_int_equal(t, 0);
    /* A blank between number and unit is accepted: people write "1 us". */
    assert_null(parse_time("1 us", &t));
    assert_int_equal(t, T_US);
    assert_null(parse_size("32MB", &u));
    assert_int_equal(u, 32000000);
    assert_null(parse_size("32MiB", &u));
    assert_int_equal(u, 33554432);
    assert_null(parse_size("4KB", &u));
    assert_int_equal(u, 4000);
    assert_null(parse_size("4KiB", &u));
    assert_int_equal(u, 4096);
    assert_non_null(parse_size("12XB", &u));
    assert_non_null(parse_time("-1us", &t));
    assert_non_null(parse_time("5", &t)); /* bare non-zero time: unit needed */
    assert_non_null(parse_time("abc", &t));
    assert_non_null(parse_time("", &t));
    assert_non_null(parse_rate("abc", &u));
    assert_non_null(parse_rate("", &u));
    assert_non_null(parse_rate("10XB", &u));
    assert_non_null(parse_size("", &u));
    assert_non_null(parse_size("1.5B", &u));
    assert_non_null(parse_rate("inf", &u));
    assert_non_null(parse_rate("0x10G", &u));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ini_valid),     cmocka_unit_test(test_ini_errors),    cmocka_unit_test(test_set),
        cmocka_unit_test(test_ns3_reference), cmocka_unit_test(test_ns3_defaults), cmocka_unit_test(test_ns3_ack_high_prio),
        cmocka_unit_test(test_ns3_warnings),
        cmocka_unit_test(test_ns3_errors),    cmocka_unit_test(test_load_file),     cmocka_unit_test(test_validate),     cmocka_unit_test(test_dcqcn_profile),
        cmocka_unit_test(test_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
