/* The bottom of the experiments layer: helpers every file of src/exp/ may
 * use (files, folders, the gnuplot child, where the experiments are). It
 * includes no other exp/ header. */
#ifndef ROCESIM_EXP_UTIL_H
#define ROCESIM_EXP_UTIL_H
#include <stdbool.h>
#include <stddef.h>

/* A whole file as a NUL-terminated string (its length in *len if len), or
 * NULL if it cannot be opened. */
char *exp_slurp(const char *path, size_t *len);
/* A regular file? */
bool exp_is_file(const char *path);
/* mkdir -p; 0, or -1 with errno set (by the first level that failed). */
int exp_mkdirs(const char *path);
/* An executable named prog on $PATH? */
bool exp_on_path(const char *prog);
bool exp_have_gnuplot(void);
/* Runs gnuplot on script (a file name) in dir, its messages appended to
 * dir/gnuplot.log; 0 or -1. */
int exp_gnuplot(const char *dir, const char *script);
/* The folder of the shipped experiments ($ROCESIM_EXPERIMENTS, ./experiments, or the source's). */
const char *exp_experiments_dir(void);

#endif
