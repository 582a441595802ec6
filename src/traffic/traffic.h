/* Flows to simulate: flow-size CDFs, generators and ns-3 flow files. */
#ifndef ROCESIM_TRAFFIC_H
#define ROCESIM_TRAFFIC_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/err.h"
#include "core/rng.h"
#include "core/simtime.h"

struct topo;

struct flow_spec {
    uint32_t src, dst; /* host node ids */
    uint64_t size;     /* bytes */
    simtime_t start;
    uint16_t pg;       /* priority group */
    uint16_t dport;    /* ns-3 flow files carry it; generators use 100 like traffic_gen.py */
};

struct flow_list {
    struct flow_spec *v;
    size_t n, cap;
};
int flow_list_push(struct flow_list *l, const struct flow_spec *f);
void flow_list_free(struct flow_list *l);
/* Stable sort by start time (ties keep their order). */
void flow_list_sort(struct flow_list *l);

/* A flow-size CDF: points (x bytes, p in [0,1]), p non-decreasing from 0 to 1.
 * Both formats are read: ours ("size prob", '#' comments) and ns-3
 * traffic_gen's ("size percent", last value 100), told apart by the last value. */
struct cdf {
    int n;
    double *x, *p;
    double mean_linear; /* mean when sampling interpolates between points (ns-3) */
    double mean_step;   /* mean when sampling takes the upper point of a step */
    char name[256];
};
int cdf_parse(struct cdf *c, const char *text, const char *fname, struct err *e);
/* `spec` is a name from the workloads folder ("web_search") or a path. */
int cdf_load(struct cdf *c, const char *spec, const char *workloads_dir, struct err *e);
void cdf_free(struct cdf *c);
/* sampling: 0 = linear (CDF_LINEAR), 1 = step (CDF_STEP); result >= 1 byte. */
uint64_t cdf_sample(const struct cdf *c, struct rng *r, int sampling);
double cdf_mean(const struct cdf *c, int sampling);

/* Poisson arrivals per host at `load` of that host's link rate, sizes from the
 * CDF, destinations uniform among the other hosts; arrivals in
 * [start, start+duration), start times rounded to whole nanoseconds. Appends
 * to `out` in (start, src) order, as ns-3's traffic_gen.py emits them. */
int traffic_poisson(struct flow_list *out, const struct topo *t, const struct cdf *c, int sampling,
                    double load, simtime_t start, simtime_t duration, uint16_t pg, struct rng *r,
                    struct err *e);

/* ns-3 flow file: first line the count, then "src dst pg dport size start_s".
 * Errors name fname:line (a non-host endpoint, src == dst, bad numbers, fewer
 * lines than the count, size 0). */
int flowfile_parse(struct flow_list *out, const char *text, const char *fname, const struct topo *t,
                   struct err *e);
int flowfile_read(struct flow_list *out, const char *path, const struct topo *t, struct err *e);
/* Writes the same format (start in seconds with 9 decimals). */
void flowfile_write(FILE *f, const struct flow_list *l);

/* Whole file into a NUL-terminated buffer (caller frees); -1 with "path: why". */
int read_text_file(const char *path, char **out, struct err *e);

#endif
