#include "core/proc.h"
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
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
