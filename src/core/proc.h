/* The process's own clock and memory, as the outputs report them. */
#ifndef ROCESIM_PROC_H
#define ROCESIM_PROC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seconds of a monotonic clock (differences only). */
double proc_wall(void);
/* Peak resident memory so far, in bytes (getrusage; 0 if unknown). */
uint64_t proc_peak_rss(void);
/* Resident memory now, in bytes (Linux: /proc/self/statm; 0 elsewhere). */
uint64_t proc_rss(void);
/* Of the bytes [p, p + len), those in pages this process holds on its own
 * (Linux: /proc/self/pagemap, present and mapped once: a page never written
 * is not held, nor is one only read, which maps the shared zero page);
 * UINT64_MAX if unknown. */
uint64_t proc_held_bytes(const void *p, size_t len);
/* CPUs this process may run on: its affinity mask (Linux), which a launcher
 * or a batch system may have narrowed to fewer than the machine's (mpirun
 * binds each of 2 ranks to one core by default): *bound is then true. Else
 * the CPUs online; 0 if unknown. */
unsigned proc_cpus(bool *bound);
/* This process's CPU affinity as opaque bytes, to compare with another
 * process's (proc_cpuset_overlap); every bit set where it is unknown. */
#define PROC_CPUSET_BYTES 128
void proc_cpuset(unsigned char mask[PROC_CPUSET_BYTES]);
/* Whether two processes' affinities share a CPU. */
bool proc_cpuset_overlap(const unsigned char *a, const unsigned char *b);
/* Memory the machine can give a new process, in bytes: MemAvailable of
 * /proc/meminfo, else the physical memory; 0 if unknown. */
uint64_t proc_mem_available(void);
/* The folder of rocesim's shipped data NAME ("workloads", "experiments"):
 * $ENV when set; NAME in the current folder (a clone's root); beside an
 * installed binary PREFIX/bin/rocesim, PREFIX/share/rocesim/NAME; else
 * SRC/NAME (the clone it was built from). Written into buf. */
const char *proc_data_dir(const char *name, const char *env, const char *src, char *buf, size_t n);

#endif
