/* page.c: `rocesim reproduce --page`, the verdict page of every experiment
 * (it runs or reads each through exp_reproduce, below it). */
#ifndef ROCESIM_EXP_PAGE_H
#define ROCESIM_EXP_PAGE_H

int exp_page(int argc, char **argv);

#endif
