#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "core/proc.h"
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

double proc_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t proc_peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss * 1024 : 0; /* ru_maxrss: KB on Linux */
}

uint64_t proc_rss(void)
{
    unsigned long long size, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu", &size, &res) != 2)
            res = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE);
    return (uint64_t)res * (uint64_t)(page > 0 ? page : 4096);
}

uint64_t proc_held_bytes(const void *p, size_t len)
{
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    FILE *f = fopen("/proc/self/pagemap", "rb");
    if (!f || !len) {
        if (f)
            fclose(f);
        return f ? 0 : UINT64_MAX;
    }
    uintptr_t a = (uintptr_t)p, first = a / page, last = (a + len - 1) / page;
    uint64_t held = 0, buf[512];
    bool ok = fseeko(f, (off_t)(first * sizeof(uint64_t)), SEEK_SET) == 0;
    for (uintptr_t pg = first; ok && pg <= last;) {
        size_t want = last - pg + 1 < 512 ? (size_t)(last - pg + 1) : 512;
        ok = fread(buf, sizeof buf[0], want, f) == want;
        for (size_t i = 0; ok && i < want; i++, pg++) {
            if (!(buf[i] >> 63 & 1) || !(buf[i] >> 56 & 1)) /* present, exclusively mapped */
                continue;
            uintptr_t lo = pg * page > a ? pg * page : a, hi = (pg + 1) * page < a + len ? (pg + 1) * page : a + len;
            held += hi - lo;
        }
    }
    fclose(f);
    return ok ? held : UINT64_MAX;
}

/* Whether the mask is the process's affinity (else every bit is set). */
static bool cpuset_read(unsigned char mask[PROC_CPUSET_BYTES])
{
    memset(mask, 0xff, PROC_CPUSET_BYTES);
#ifdef __linux__
    _Static_assert(sizeof(cpu_set_t) == PROC_CPUSET_BYTES, "glibc's cpu_set_t is 1024 bits");
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
        memcpy(mask, &set, PROC_CPUSET_BYTES);
        return true;
    }
#endif
    return false;
}

void proc_cpuset(unsigned char mask[PROC_CPUSET_BYTES]) { cpuset_read(mask); }

unsigned proc_cpus(bool *bound)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned char mask[PROC_CPUSET_BYTES];
    *bound = false;
    if (!cpuset_read(mask))
        return online > 0 ? (unsigned)online : 0;
    unsigned n = 0;
    for (size_t i = 0; i < PROC_CPUSET_BYTES; i++)
        n += (unsigned)__builtin_popcount(mask[i]);
    *bound = online > 0 && n < (unsigned long)online;
    return n;
}

bool proc_cpuset_overlap(const unsigned char *a, const unsigned char *b)
{
    for (size_t i = 0; i < PROC_CPUSET_BYTES; i++)
        if (a[i] & b[i])
            return true;
    return false;
}

uint64_t proc_mem_available(void)
{
    unsigned long long kb = 0;
    char line[128];
    FILE *f = fopen("/proc/meminfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb)
        return (uint64_t)kb * 1024;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

const char *proc_data_dir(const char *name, const char *env, const char *src, char *buf, size_t n)
{
    const char *e = env ? getenv(env) : NULL;
    char exe[4096];
    ssize_t l;
    if (e && *e)
        snprintf(buf, n, "%s", e);
    else if (access(name, R_OK) == 0)
        snprintf(buf, n, "%s", name);
    else if ((l = readlink("/proc/self/exe", exe, sizeof exe - 1)) > 0) {
        exe[l] = 0;
        for (int up = 0; up < 2; up++) { /* PREFIX/bin/rocesim -> PREFIX */
            char *slash = strrchr(exe, '/');
            if (slash)
                *slash = 0;
        }
        snprintf(buf, n, "%s/share/rocesim/%s", exe, name);
        if (access(buf, R_OK) != 0)
            snprintf(buf, n, "%s/%s", src, name);
    } else
        snprintf(buf, n, "%s/%s", src, name);
    return buf;
}
