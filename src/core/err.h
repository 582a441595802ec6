/* Error reporting for every input path: a message that names FILE:LINE (or the
 * --set option) and what is wrong. Parsers fill a struct err and return -1;
 * only the CLI prints it and exits with code 2, so parsers stay fuzzable. */
#ifndef ROCESIM_ERR_H
#define ROCESIM_ERR_H
#include <stdarg.h>

/* The CLI's exit codes beyond 0 and 1 (sweeps read them from their children). */
#define EXIT_BADINPUT 2
#define EXIT_DEADLOCK 3 /* a run stopped on a PFC deadlock; its outputs are complete */
#define EXIT_STALLED 4  /* run.watchdog stopped a run that delivered nothing for that long; outputs complete */

struct err {
    char msg[1024];
};

/* Formats into e->msg (if e is non-NULL) and returns -1, so callers can write
 * `return errf(e, "%s:%d: ...", file, line, ...)`. */
int errf(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning about input we accept but do not act on; goes to stderr. */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While muted, warnf prints nothing (a command that loads many configurations
 * only to compare them, not to run them). Returns the previous setting. */
int warn_mute(int on);

#endif
