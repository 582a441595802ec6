/* A whole-simulator run for tests: a scenario from an INI string, flows added
 * by hand, and the invariants every finished run must keep. */
#ifndef ROCESIM_SIMRUN_H
#define ROCESIM_SIMRUN_H
#include "cli/config_load.h"
#include "scenario/scenario.h"

struct run {
    struct config cfg;
    struct scenario sc;
};

/* Loads the INI text and builds topology and generated flows (fails the test on error). */
void run_setup(struct run *r, const char *ini);
void run_add_flow(struct run *r, uint32_t src, uint32_t dst, uint64_t size, simtime_t start);
/* Builds the network and schedules the flows; then call sim_run(&r->sc.sim). */
void run_build(struct run *r);
void run_free(struct run *r);
/* Every flow done; lossless => no drop; bytes delivered = bytes sent = total
 * flow bytes; no packet left anywhere; switch buffers back to zero. */
void run_check_invariants(const struct run *r);

#endif
