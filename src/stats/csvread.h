/* A small strict CSV reader (runread.c): a header line, then rows with as
 * many comma-separated fields as the header (at most CSV_MAXF); FILE:LINE
 * errors. Used for the run folders' files by stats/ and exp/. */
#ifndef ROCESIM_CSVREAD_H
#define ROCESIM_CSVREAD_H
#include <stdio.h>
#include "core/err.h"

#define CSV_MAXF 32

struct csv {
    FILE *f;
    const char *path;
    int line;
    char *buf;
    size_t cap;
    char *hdr[CSV_MAXF];
    char *hdrbuf;
    int nh;
    char *fld[CSV_MAXF]; /* the row's fields, nf of them */
    int nf;
};

/* Opens path and reads its header; 0, or -1 with e set. */
int csv_open(struct csv *c, const char *path, struct err *e);
/* 1: a row in c->fld, 0: end of file, -1: error (e set). */
int csv_next(struct csv *c, struct err *e);
void csv_close(struct csv *c);
/* The column named name, -1 if the header has none. */
int csv_col_opt(const struct csv *c, const char *name);

#endif
