/* `rocesim plot`: figures with gnuplot. */
#include "exp/exp.h"
bool exp_have_gnuplot(void) { return exp_on_path("gnuplot"); }
int exp_plot(int argc, char **argv) { (void)argc; (void)argv; return 1; }
