/* A whole-simulator run for tests: a scenario from an INI string, flows added
 * by hand, and the invariants every finished run must keep. */
#ifndef ROCESIM_SIMRUN_H
#define ROCESIM_SIMRUN_H
#include "scenario/load.h"
#include "scenario/scenario.h"

struct run {
    struct config cfg;
    struct scenario sc;
};

/* Loads the INI text and builds topology and generated flows (fails the test on error). */
void run_setup(struct run *r, const char *ini);
/* The same from a scenario file (a shipped one: ROCESIM_SOURCE_DIR "/scenarios/..."). */
void run_setup_file(struct run *r, const char *path);
void run_add_flow(struct run *r, uint32_t src, uint32_t dst, uint64_t size, simtime_t start);
/* Builds the network and schedules the flows; then call sim_run(&r->sc.sim). */
void run_build(struct run *r);
void run_free(struct run *r);
/* Every flow done; lossless => no drop; bytes delivered = bytes sent = total
 * flow bytes; no packet left anywhere; switch buffers back to zero. */
void run_check_invariants(const struct run *r);

/* Sets up, builds and runs the INI (a collective job first), checks the
 * invariants and returns job 0's bus bandwidth in GB/s: `size` bytes over
 * nccl-tests' time per iteration, times the algorithm's factor for n ranks
 * (coll_busbw_factor). Leaves *r built, to be run_free'd. */
double run_job_busbw(struct run *r, const char *ini, double size, int algo, uint32_t n);

/* run_check_invariants, and in a lossless run: no timeout, nothing resent. */
void run_check_clean(const struct run *r);
/* A dumbbell's bottleneck: the first switch's port toward the second. */
uint32_t run_dumbbell_bottleneck(const struct sim *s);

/* Two long flows through a dumbbell's 100 Gbps bottleneck: host 0 -> 2 from
 * time 0 and host 1 -> 2 from start2, `size` bytes each, under CC `cc`
 * (`extra` is more INI text for [transport] and after). run_pair_measure runs
 * to `warm`, then over `span` takes each flow's goodput, the bottleneck's
 * utilisation, and its queue sampled every 5 us; the flows must outlast it. */
struct pair_result {
    double gput[2]; /* Gbps */
    double util;
    double max_q_kb, mean_q_kb;
};
void run_pair_start(struct run *r, const char *cc, const char *extra, simtime_t start2, uint64_t size);
void run_pair_measure(struct run *r, simtime_t warm, simtime_t span, struct pair_result *res);
double run_pair_jain(const struct pair_result *res);
/* Each flow's goodput within `tol` (relative) of their mean. */
void run_pair_assert_fair(const struct pair_result *res, double tol);

/* Small lookups several tests need. */
/* Running under the sanitizers (make test sets ROCESIM_SANITIZED=1): tests trim their loops. */
bool run_sanitized(void);
/* Writes `text` to a new /tmp file and puts its path in `path` (the caller unlinks it). */
void run_topo_file(char *path, size_t n, const char *text);
/* The switch whose edge index is `edge`. */
uint32_t run_edge_switch(const struct sim *s, int32_t edge);
/* The port of `node` toward node `peer` (fails the test if they are not linked). */
uint32_t run_port_to(const struct sim *s, uint32_t node, uint32_t peer);

#endif
