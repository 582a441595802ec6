/* Unit parsing shared by every input: INI, --set, ns-3 configs and topology
 * files. Each returns NULL on success or a static message saying what is wrong
 * (the caller adds FILE:LINE and the key). Whole string must be consumed. */
#ifndef ROCESIM_UNITS_H
#define ROCESIM_UNITS_H
#include <stdbool.h>
#include <stdint.h>
#include "core/simtime.h"

/* "100Gbps" "25G" "40Gb/s" "100Mb/s" "10Mbps" "1.5Tbps"; a bare number is
 * refused (except 0), as for times and sizes. */
const char *parse_rate(const char *s, uint64_t *bps);
/* The same, but a bare number is bits per second, as ns-3's DataRate reads
 * it: for values in ns-3's own files (topology files, RATE_AI and kin). */
const char *parse_rate_ns3(const char *s, uint64_t *bps);
/* "1us" "1000ns" "2.5ms" "0.001ms" "3s" "500ps"; bare "0" only (a bare number
 * is ambiguous, so it is refused). */
const char *parse_time(const char *s, simtime_t *ps);
/* "32MB"(10^6) "32MiB"(2^20) "4KB" "4KiB" "1GB" "1500B"; bare "0" only. */
const char *parse_size(const char *s, uint64_t *bytes);
const char *parse_double(const char *s, double *v);
const char *parse_int(const char *s, int64_t *v);
/* Decimal digits only (no sign, space or fraction), at most max: what C++'s
 * `>>` into an unsigned reads from an ns-3 or SimAI file. */
bool parse_whole(const char *s, uint64_t max, uint64_t *v);
/* on/off, true/false, yes/no, 1/0. */
const char *parse_bool(const char *s, bool *v);

/* Human-readable forms for `rocesim list` and summaries. */
void fmt_rate(char *buf, int n, uint64_t bps);
void fmt_time(char *buf, int n, simtime_t ps);
void fmt_size(char *buf, int n, uint64_t bytes);

#endif
