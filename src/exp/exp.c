/* The experiments layer's entry point (exp.h): it dispatches each command
 * to the file that implements it. src/exp/ reads downward from here:
 *   page.c       reproduce --page   (runs or reads each experiment through reproduce.c)
 *   reproduce.c  reproduce NAME     (sweep.c, plot.c, metric.c, expdef.c)
 *   html.c       report --html      (plot.c, sweep.c)
 *   plot.c       plot               (plot_sweep.c, plot_run.c, plot_collective.c, plot_bars.c, fig.c)
 *   sweep.c      sweep
 *   metric.c, expdef.c, util.c      what the files above share */
#include "exp/exp.h"
#include <string.h>
#include "exp/html.h"
#include "exp/page.h"
#include "exp/plot.h"
#include "exp/reproduce.h"
#include "exp/sweep.h"
#include "exp/util.h"

void exp_print_features(FILE *out, bool mpi_built)
{
    fprintf(out, "\noptional parts\n");
    fprintf(out, "    MPI        %s\n", mpi_built ? "built in: `mpirun -np K rocesim sweep FILE` shares the points among ranks; "
                                                   "`mpirun -np R rocesim run ...` runs one scenario across R ranks"
                                                 : "not built in (install libopenmpi-dev and rebuild)");
    fprintf(out, "    gnuplot    %s\n", exp_have_gnuplot() ? "found: `rocesim plot` and `report --html` draw figures"
                                                          : "not found: `rocesim plot` needs it (Debian gnuplot-nox)");
}

/* `reproduce --page` (unless --list comes first) */
static bool wants_page(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            return false;
        if (strcmp(argv[i], "--page") == 0)
            return true;
    }
    return false;
}

int exp_main(int argc, char **argv, const struct exp_dist *(*dist)(int *argc, char ***argv))
{
    if (argc < 2)
        return -1;
    const char *cmd = argv[1];
    if (strcmp(cmd, "sweep") == 0)
        return exp_sweep(argc, argv, dist ? dist(&argc, &argv) : NULL);
    if (strcmp(cmd, "plot") == 0)
        return exp_plot(argc, argv);
    if (strcmp(cmd, "reproduce") == 0)
        return wants_page(argc, argv) ? exp_page(argc, argv) : exp_reproduce(argc, argv);
    if (strcmp(cmd, "report") == 0)
        for (int i = 2; i < argc; i++)
            if (strcmp(argv[i], "--html") == 0)
                return exp_report_html(argc, argv);
    return -1;
}
