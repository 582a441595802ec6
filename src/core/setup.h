/* Set-up progress of a run: the long steps of building a fabric (routing
 * tables, ports, flows) say how far they are and learn whether the run was
 * asked to stop (SIGINT/SIGTERM). The CLI installs one watcher for the
 * process while a run sets up; without one (tests, a reroute during the run)
 * the steps are silent and never stop. */
#ifndef ROCESIM_SETUP_H
#define ROCESIM_SETUP_H
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include "core/err.h"

struct setup_watch {
    /* called at most every `every` seconds (after `first` seconds of set-up)
     * with the step's name and its share done, 0..1 */
    void (*show)(void *ctx, const char *step, double share);
    void *ctx;
    double first, every;
    volatile sig_atomic_t *stop; /* non-zero: the signal that asks the run to stop */
};

/* Install w (copied) or, with NULL, remove it. */
void setup_watch(const struct setup_watch *w);
/* The step `step` has done `done` of `total`. True when a signal asks to
 * stop: the caller then returns -1 with setup_stopped's error. */
bool setup_progress(const char *step, uint64_t done, uint64_t total);
/* The error of a set-up stopped by a signal ("interrupted during set-up"),
 * and whether the last -1 was one (the CLI tells it from bad input). */
int setup_stopped(struct err *e);
int setup_signal(void);
/* The step seen last and its share (for the message of a stopped set-up). */
const char *setup_last_step(double *share);

#endif
