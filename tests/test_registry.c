/* The scheme registries check themselves: every cc_ops and lb_ops has a name
 * usable as a section name ([cc.NAME], [lb.NAME]) and unique in its registry,
 * a help line and a parameter table whose defaults fill its parameter block;
 * the hooks the simulator calls without asking are present (a balancer's
 * choose, its on_release if it has hold queues); state sizes, counter names
 * and pairings fit the limits; the companion list agrees with the companion
 * flag. Each check is first shown to catch a planted fault. */
#include "testutil.h"
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net/cc.h"
#include "net/lb.h"

static char why[256];

static bool good_name(const char *n)
{
    if (!n || !*n || strlen(n) >= 32)
        return false;
    for (const char *c = n; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_')
            return false;
    return true;
}

static int count_names(const char *const *names)
{
    int n = 0;
    while (names && names[n])
        n++;
    return n;
}

/* The defaults of a parameter table fill a block of the declared size. */
static bool params_fill(const struct param *tab, size_t size)
{
    if (!tab)
        return false;
    void *b = calloc(1, size ? size : 1);
    bool ok = param_defaults(tab, b) == 0;
    for (const struct param *p = tab; ok && p->name; p++)
        ok = p->help && p->help[0] && p->offset < (size ? size : 1);
    free(b);
    return ok;
}

/* 0, or -1 with `why` naming the first fault. */
static int check_lb(const struct lb_ops *const *reg)
{
    for (int i = 0; reg[i]; i++) {
        const struct lb_ops *o = reg[i];
        const char *n = o->name ? o->name : "(null)";
        if (!good_name(o->name))
            return snprintf(why, sizeof why, "lb %d: name '%s' is not [a-z0-9_]{1,31}", i, n), -1;
        for (int j = 0; j < i; j++)
            if (strcmp(reg[j]->name, o->name) == 0)
                return snprintf(why, sizeof why, "lb %s: listed twice", n), -1;
        if (!o->help || !o->help[0])
            return snprintf(why, sizeof why, "lb %s: no help line", n), -1;
        if (!params_fill(o->params, o->params_size))
            return snprintf(why, sizeof why, "lb %s: its parameter table does not fill its block", n), -1;
        if (!o->choose) /* net/switch.c calls it for every packet without a path */
            return snprintf(why, sizeof why, "lb %s: no choose hook", n), -1;
        if (o->hold_queues && !o->on_release)
            return snprintf(why, sizeof why, "lb %s: hold queues but no on_release", n), -1;
        if (count_names(o->stat_names) > LB_STATS)
            return snprintf(why, sizeof why, "lb %s: more than LB_STATS counters", n), -1;
        if ((o->host_send || o->host_ack || o->host_timeout || o->host_probe) && !o->host_state_size && !o->flow_state_size)
            return snprintf(why, sizeof why, "lb %s: host hooks without any state", n), -1;
    }
    return 0;
}

static int check_cc(const struct cc_ops *const *reg, const struct cc_ops *const *comp)
{
    int ncomp = 0;
    for (int i = 0; reg[i]; i++) {
        const struct cc_ops *o = reg[i];
        const char *n = o->name ? o->name : "(null)";
        if (!good_name(o->name))
            return snprintf(why, sizeof why, "cc %d: name '%s' is not [a-z0-9_]{1,31}", i, n), -1;
        for (int j = 0; j < i; j++)
            if (strcmp(reg[j]->name, o->name) == 0)
                return snprintf(why, sizeof why, "cc %s: listed twice", n), -1;
        if (!o->help || !o->help[0])
            return snprintf(why, sizeof why, "cc %s: no help line", n), -1;
        if (!params_fill(o->params, o->params_size))
            return snprintf(why, sizeof why, "cc %s: its parameter table does not fill its block", n), -1;
        if (count_names(o->stat_names) > CC_STATS)
            return snprintf(why, sizeof why, "cc %s: more than CC_STATS counters", n), -1;
        if (o->lb_pair && !lb_find(o->lb_pair))
            return snprintf(why, sizeof why, "cc %s: pairs with '%s', which is no load balancer", n, o->lb_pair), -1;
        bool listed = false;
        for (int k = 0; comp[k]; k++)
            listed |= comp[k] == o;
        if (o->companion != listed)
            return snprintf(why, sizeof why, "cc %s: companion flag %d but %s cc_companions", n, o->companion,
                            listed ? "in" : "not in"), -1;
        if (o->companion && (o->int_bytes || o->int_stamp || o->multipath || o->sw_mark || o->on_timer))
            return snprintf(why, sizeof why, "cc %s: a companion with a hook only the CC's slot gets", n), -1;
        if (!o->companion && o->flowlet_lb)
            return snprintf(why, sizeof why, "cc %s: flowlet_lb is for companions", n), -1;
        ncomp += o->companion;
    }
    for (int k = 0; comp[k]; k++) {
        bool in = false;
        for (int i = 0; reg[i]; i++)
            in |= reg[i] == comp[k];
        if (!in)
            return snprintf(why, sizeof why, "companion %s: not in cc_registry", comp[k]->name), -1;
    }
    if (ncomp > CC_COMPANIONS_MAX)
        return snprintf(why, sizeof why, "%d companions, CC_COMPANIONS_MAX is %d", ncomp, CC_COMPANIONS_MAX), -1;
    return 0;
}

static void test_registries(void **state)
{
    (void)state;
    if (check_lb(lb_registry) < 0)
        fail_msg("%s", why);
    if (check_cc(cc_registry, cc_companions) < 0)
        fail_msg("%s", why);
    for (int i = 0; lb_registry[i]; i++) /* lb_find and lb_index agree with the list */
        assert_int_equal(lb_index(lb_registry[i]->name), i);
    for (int i = 0; cc_registry[i]; i++)
        assert_ptr_equal(cc_find(cc_registry[i]->name), cc_registry[i]);
}

/* Whether file `path` defines an ops table (a line "const struct KIND_ops
 * NAME = {"): a scheme. Files without one are building blocks the schemes
 * share (lb/pathtab.c). */
static bool defines_ops(const char *path, const char *kind)
{
    char want[32], line[512];
    snprintf(want, sizeof want, "const struct %s_ops ", kind);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        found = strncmp(line, want, strlen(want)) == 0 && line[strlen(want)] != '*' && strstr(line, " = {");
    fclose(f);
    return found;
}

/* One scheme per file, named as its file: every src/cc/NAME.c and
 * src/lb/NAME.c that defines an ops table is registered as NAME (a scheme
 * file left out of its registry would build and never run), and every
 * registered scheme has its file. */
static void test_files_registered(void **state)
{
    (void)state;
    const char *dirs[] = {"cc", "lb"};
    int seen = 0;
    for (int d = 0; d < 2; d++) {
        char path[512];
        snprintf(path, sizeof path, "%s/src/%s", ROCESIM_SOURCE_DIR, dirs[d]);
        DIR *dir = opendir(path);
        assert_non_null(dir);
        for (struct dirent *e; (e = readdir(dir));) {
            size_t n = strlen(e->d_name);
            if (n < 3 || strcmp(e->d_name + n - 2, ".c") != 0 || strcmp(e->d_name, "registry.c") == 0)
                continue;
            char name[64], file[sizeof path + sizeof e->d_name + 2];
            snprintf(name, sizeof name, "%.*s", (int)(n - 2), e->d_name);
            snprintf(file, sizeof file, "%s/%s", path, e->d_name);
            if (!defines_ops(file, dirs[d]))
                continue; /* a shared building block, not a scheme */
            bool found = d == 0 ? cc_find(name) != NULL : lb_find(name) != NULL;
            if (!found)
                fail_msg("src/%s/%s: no scheme '%s' in %s/registry.c", dirs[d], e->d_name, name, dirs[d]);
            seen++;
        }
        closedir(dir);
    }
    int n = 0;
    for (int i = 0; cc_registry[i]; i++)
        n++;
    for (int i = 0; lb_registry[i]; i++)
        n++;
    assert_int_equal(seen, n); /* and nothing registered without its file */
}

static int pick0(struct sim *s, struct lb_switch *sw, const void *par, struct pkt *p, const uint32_t *ports, int n)
{
    (void)s, (void)sw, (void)par, (void)p, (void)ports, (void)n;
    return 0;
}
static const struct param no_params[] = {PARAM_END};
static uint32_t two(const void *par)
{
    (void)par;
    return 2;
}

/* Each fault planted in an otherwise good registry is caught, by name. */
static void test_planted_faults(void **state)
{
    (void)state;
    struct lb_ops a = {.name = "aa", .help = "h", .params = no_params, .choose = pick0};
    struct lb_ops b = a;
    b.name = "bb";
    const struct lb_ops *good[] = {&a, &b, NULL};
    assert_int_equal(check_lb(good), 0);

    b.choose = NULL;
    assert_int_equal(check_lb(good), -1);
    assert_string_equal(why, "lb bb: no choose hook");
    b.choose = pick0;
    b.name = "aa";
    assert_int_equal(check_lb(good), -1);
    assert_string_equal(why, "lb aa: listed twice");
    b.name = "b.b";
    assert_int_equal(check_lb(good), -1);
    b.name = "bb";
    b.hold_queues = two;
    assert_int_equal(check_lb(good), -1);
    assert_string_equal(why, "lb bb: hold queues but no on_release");
    b.hold_queues = NULL;
    b.params = NULL;
    assert_int_equal(check_lb(good), -1);

    struct cc_ops c = {.name = "cc1", .help = "h", .params = no_params};
    struct cc_ops d = c;
    d.name = "cc2";
    const struct cc_ops *reg[] = {&c, &d, NULL};
    const struct cc_ops *none[] = {NULL};
    const struct cc_ops *comp[] = {&d, NULL};
    assert_int_equal(check_cc(reg, none), 0);
    d.companion = true; /* flagged, not listed */
    assert_int_equal(check_cc(reg, none), -1);
    assert_string_equal(why, "cc cc2: companion flag 1 but not in cc_companions");
    assert_int_equal(check_cc(reg, comp), 0);
    d.int_stamp = true; /* slot 0 only */
    assert_int_equal(check_cc(reg, comp), -1);
    d.int_stamp = false;
    d.name = "cc1";
    assert_int_equal(check_cc(reg, comp), -1);
    assert_string_equal(why, "cc cc1: listed twice");
    d.name = "cc2";
    d.lb_pair = "nosuch";
    assert_int_equal(check_cc(reg, comp), -1);
    d.lb_pair = "flb";
    assert_int_equal(check_cc(reg, comp), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registries),
        cmocka_unit_test(test_files_registered),
        cmocka_unit_test(test_planted_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
