#include "core/proc.h"
#include <stdio.h>
#include <sys/resource.h>
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
