/* The process's own clock and memory, as the outputs report them. */
#ifndef ROCESIM_PROC_H
#define ROCESIM_PROC_H
#include <stdint.h>

/* Seconds of a monotonic clock (differences only). */
double proc_wall(void);
/* Peak resident memory so far, in bytes (getrusage; 0 if unknown). */
uint64_t proc_peak_rss(void);
/* Resident memory now, in bytes (Linux: /proc/self/statm; 0 elsewhere). */
uint64_t proc_rss(void);

#endif
