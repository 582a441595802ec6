/* Times as the ns-3 HPCC simulator computes them, for run.ns3_timing.
 *
 * ns-3 turns a duration in seconds into its Time through Seconds(double):
 * int64x64_t(double) keeps floor(d * 2^64) (int64x64-128.h), Time::From
 * multiplies by 10^9 exactly and Time(int64x64_t) keeps the integer part
 * (nstime.h, nanosecond resolution). A duration that is a whole number of ns
 * therefore usually comes out 1 ns short: Seconds(1e-5) is 9 999 ns, and a
 * 200-byte packet takes 15 ns at 100 Gbps, not 16. Its serialisation and
 * pacing gaps are Seconds(DataRate::CalculateTxTime(bytes)) with
 * CalculateTxTime = (double)bytes * 8 / bps (data-rate.cc; qbb-net-device.cc,
 * rdma-hw.cc). */
#ifndef ROCESIM_NS3TIME_H
#define ROCESIM_NS3TIME_H
#include "core/simtime.h"

/* Seconds(d) for 0 <= d < 2^34 s, in ps (whole ns). */
static inline simtime_t ns3_seconds(double d)
{
    if (!(d > 0))
        return 0;
    if (d < 1) { /* every gap and serialisation: d * 2^64 fits 64 bits, whose cast floors the same, inline
                  * (the 128-bit cast is a libgcc call, __fixunsdfti) */
        uint64_t v = (uint64_t)(d * 0x1p64);
        return (simtime_t)(uint64_t)(((unsigned __int128)v * 1000000000u) >> 64) * T_NS;
    }
    unsigned __int128 v = (unsigned __int128)(d * 0x1p64); /* exact scaling; the cast floors */
    return (simtime_t)(uint64_t)((v * 1000000000u) >> 64) * T_NS;
}

/* Seconds(CalculateTxTime(bytes)) at bps. */
static inline simtime_t ns3_tx_time(uint64_t bytes, uint64_t bps)
{
    return ns3_seconds((double)bytes * 8 / (double)bps);
}

#endif
