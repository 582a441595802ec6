/* reproduce.c: `rocesim reproduce NAME` and `--list` (exp.c sends `--page` to page.c). */
#ifndef ROCESIM_EXP_REPRODUCE_H
#define ROCESIM_EXP_REPRODUCE_H

int exp_reproduce(int argc, char **argv);

#endif
