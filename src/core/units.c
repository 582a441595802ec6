#include "core/units.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Split "12.5Gbps" into a finite non-negative number and its suffix. */
static const char *num_suffix(const char *s, double *v, const char **suffix)
{
    if (!s || !*s)
        return "empty value";
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '-')
        return "negative value";
    if (!isdigit((unsigned char)*s) && *s != '.')
        return "expected a number";
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(x) || x < 0)
        return "bad number";
    /* strtod accepts hex and inf/nan spellings; refuse anything but decimal. */
    for (const char *p = s; p < end; p++)
        if (!isdigit((unsigned char)*p) && *p != '.' && *p != 'e' && *p != 'E' && *p != '+' && *p != '-')
            return "bad number";
    while (isspace((unsigned char)*end))
        end++;
    *v = x;
    *suffix = end;
    return NULL;
}

static int suffix_is(const char *suf, const char *unit)
{
    size_t n = strlen(suf);
    while (n > 0 && isspace((unsigned char)suf[n - 1]))
        n--;
    return n == strlen(unit) && strncmp(suf, unit, n) == 0;
}

static const char *rate_with(const char *s, uint64_t *bps, bool bare_bps)
{
    double v;
    const char *suf, *why = num_suffix(s, &v, &suf);
    if (why)
        return why;
    /* A bare number is refused (host_link = 100 is a slip, not 100 bps),
     * except 0, which is 0 in every unit, and in ns-3's own files, whose
     * DataRate reads a bare number as bits per second. */
    if (suffix_is(suf, "") && v != 0 && !bare_bps)
        return "a rate needs a unit: bps, Kbps, Mbps, Gbps, Tbps (or K, M, G, T, Mb/s, Gb/s), e.g. 100Gbps";
    static const struct { const char *u; double m; } tab[] = {
        {"", 1}, {"bps", 1}, {"b/s", 1},
        {"K", 1e3}, {"Kbps", 1e3}, {"Kb/s", 1e3}, {"kbps", 1e3}, {"kb/s", 1e3},
        {"M", 1e6}, {"Mbps", 1e6}, {"Mb/s", 1e6},
        {"G", 1e9}, {"Gbps", 1e9}, {"Gb/s", 1e9},
        {"T", 1e12}, {"Tbps", 1e12}, {"Tb/s", 1e12},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (suffix_is(suf, tab[i].u)) {
            double r = v * tab[i].m;
            if (r < 1 || r > 1e15)
                return "rate out of range (1 bps .. 1000 Tbps)";
            *bps = (uint64_t)llround(r);
            return NULL;
        }
    /* 100Gb, 100GB: a size where a rate is meant; name the rate */
    static const char *const per_second[] = {"unknown rate unit: did you mean Kbps? (a rate is bits per second: 100Kbps, 100K, 100Kb/s)",
                                             "unknown rate unit: did you mean Mbps? (a rate is bits per second: 100Mbps, 100M, 100Mb/s)",
                                             "unknown rate unit: did you mean Gbps? (a rate is bits per second: 100Gbps, 100G, 100Gb/s)",
                                             "unknown rate unit: did you mean Tbps? (a rate is bits per second: 100Tbps, 100T, 100Tb/s)"};
    const char *pre = strchr("KMGT", toupper((unsigned char)suf[0]));
    if (suf[0] && pre && (suffix_is(suf + 1, "b") || suffix_is(suf + 1, "B") || suffix_is(suf + 1, "B/s")))
        return per_second[pre - "KMGT"];
    return "unknown rate unit (use e.g. 100Gbps, 25G, 100Mb/s)";
}

const char *parse_rate(const char *s, uint64_t *bps) { return rate_with(s, bps, false); }
const char *parse_rate_ns3(const char *s, uint64_t *bps) { return rate_with(s, bps, true); }

const char *parse_time(const char *s, simtime_t *ps)
{
    double v;
    const char *suf, *why = num_suffix(s, &v, &suf);
    if (why)
        return why;
    static const struct { const char *u; double m; } tab[] = {
        {"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"µs", 1e6}, {"ms", 1e9}, {"s", 1e12},
    };
    if (suffix_is(suf, "")) {
        if (v == 0) {
            *ps = 0;
            return NULL;
        }
        return "time needs a unit (ps, ns, us, ms, s)";
    }
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (suffix_is(suf, tab[i].u)) {
            double r = v * tab[i].m;
            if (r > 9.2e18)
                return "time out of range";
            *ps = (simtime_t)llround(r);
            return NULL;
        }
    return "unknown time unit (use ps, ns, us, ms, s)";
}

const char *parse_size(const char *s, uint64_t *bytes)
{
    double v;
    const char *suf, *why = num_suffix(s, &v, &suf);
    if (why)
        return why;
    if (suffix_is(suf, "") && v != 0) /* as for rates: a bare number is a slip, except 0 */
        return "a size needs a unit: B, KB, MB, GB (10^3..), KiB, MiB, GiB (2^10..), e.g. 1500B or 32MiB";
    static const struct { const char *u; double m; } tab[] = {
        {"", 1}, {"B", 1},
        {"KB", 1e3}, {"kB", 1e3}, {"K", 1e3}, {"MB", 1e6}, {"M", 1e6}, {"GB", 1e9}, {"G", 1e9},
        {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (suffix_is(suf, tab[i].u)) {
            double r = v * tab[i].m;
            if (r > 1.8e19)
                return "size out of range";
            if (r != floor(r))
                return "size must be a whole number of bytes";
            *bytes = (uint64_t)r;
            return NULL;
        }
    return "unknown size unit (use B, KB, MB, GB, KiB, MiB, GiB)";
}

const char *parse_double(const char *s, double *v)
{
    if (!s || !*s)
        return "empty value";
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (end == s || *end || errno == ERANGE || !isfinite(x))
        return "expected a number";
    *v = x;
    return NULL;
}

bool parse_whole(const char *s, uint64_t max, uint64_t *v)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return false;
    errno = 0;
    unsigned long long x = strtoull(s, NULL, 10);
    if (errno == ERANGE || x > max)
        return false;
    *v = x;
    return true;
}

const char *parse_int(const char *s, int64_t *v)
{
    if (!s || !*s)
        return "empty value";
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    while (isspace((unsigned char)*end))
        end++;
    if (end == s || *end || errno == ERANGE)
        return "expected a whole number";
    *v = x;
    return NULL;
}

const char *parse_bool(const char *s, bool *v)
{
    static const char *yes[] = {"on", "true", "yes", "1"}, *no[] = {"off", "false", "no", "0"};
    for (int i = 0; i < 4; i++) {
        if (s && strcasecmp(s, yes[i]) == 0) {
            *v = true;
            return NULL;
        }
        if (s && strcasecmp(s, no[i]) == 0) {
            *v = false;
            return NULL;
        }
    }
    return "expected on/off";
}

void fmt_rate(char *buf, int n, uint64_t bps)
{
    if (bps >= 1000000000ULL && bps % 1000000000ULL == 0)
        snprintf(buf, n, "%lluGbps", (unsigned long long)(bps / 1000000000ULL));
    else if (bps >= 1000000ULL && bps % 1000000ULL == 0)
        snprintf(buf, n, "%lluMbps", (unsigned long long)(bps / 1000000ULL));
    else
        snprintf(buf, n, "%llubps", (unsigned long long)bps);
}

void fmt_time(char *buf, int n, simtime_t ps)
{
    if (ps == 0)
        snprintf(buf, n, "0");
    else if (ps % T_SEC == 0)
        snprintf(buf, n, "%llds", (long long)(ps / T_SEC));
    else if (ps % T_MS == 0)
        snprintf(buf, n, "%lldms", (long long)(ps / T_MS));
    else if (ps % T_US == 0)
        snprintf(buf, n, "%lldus", (long long)(ps / T_US));
    else if (ps % T_NS == 0)
        snprintf(buf, n, "%lldns", (long long)(ps / T_NS));
    else
        snprintf(buf, n, "%lldps", (long long)ps);
}

void fmt_size(char *buf, int n, uint64_t b)
{
    if (b >= 1048576 && b % 1048576 == 0)
        snprintf(buf, n, "%lluMiB", (unsigned long long)(b / 1048576));
    else if (b >= 1000000 && b % 1000000 == 0)
        snprintf(buf, n, "%lluMB", (unsigned long long)(b / 1000000));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, n, "%lluKiB", (unsigned long long)(b / 1024));
    else if (b >= 1000 && b % 1000 == 0)
        snprintf(buf, n, "%lluKB", (unsigned long long)(b / 1000));
    else
        snprintf(buf, n, "%lluB", (unsigned long long)b);
}
