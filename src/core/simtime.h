/* Simulated time: integer picoseconds, never floating point. */
#ifndef ROCESIM_SIMTIME_H
#define ROCESIM_SIMTIME_H
#include <stdint.h>

typedef int64_t simtime_t;

#define T_PS  ((simtime_t)1)
#define T_NS  ((simtime_t)1000)
#define T_US  ((simtime_t)1000000)
#define T_MS  ((simtime_t)1000000000)
#define T_SEC ((simtime_t)1000000000000LL)
#define T_NEVER INT64_MAX

/* Serialisation time of `bytes` at `bps`, rounded up so a port never beats
 * its line rate. 128-bit intermediate: bytes * 8e12 overflows 64 bits past 2 MB. */
static inline simtime_t tx_time(uint64_t bytes, uint64_t bps)
{
    unsigned __int128 num = (unsigned __int128)bytes * 8u * 1000000000000ULL;
    return (simtime_t)((num + bps - 1) / bps);
}

static inline double ps_to_ns(simtime_t t) { return (double)t / 1000.0; }

#endif
