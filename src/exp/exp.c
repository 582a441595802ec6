/* The experiments layer's entry point; see exp.h. */
#include "exp/exp.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An executable named prog on $PATH? */
bool exp_on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[1024];
    for (const char *p = path; *p;) {
        size_t l = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)l, p, prog);
        if (l && access(buf, X_OK) == 0)
            return true;
        p += l + (p[l] == ':');
    }
    return false;
}

void exp_print_features(FILE *out, bool mpi_built)
{
    fprintf(out, "\noptional parts\n");
    fprintf(out, "    MPI        %s\n", mpi_built ? "built in: `mpirun -np K rocesim sweep FILE` shares the points among ranks; "
                                                   "`mpirun -np R rocesim run ...` runs one scenario across R ranks"
                                                 : "not built in (install libopenmpi-dev and rebuild)");
    fprintf(out, "    gnuplot    %s\n", exp_have_gnuplot() ? "found: `rocesim plot` and `report --html` draw figures"
                                                          : "not found: `rocesim plot` needs it (Debian gnuplot-nox)");
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
        return exp_reproduce(argc, argv);
    if (strcmp(cmd, "report") == 0)
        for (int i = 2; i < argc; i++)
            if (strcmp(argv[i], "--html") == 0)
                return exp_report_html(argc, argv);
    return -1;
}
