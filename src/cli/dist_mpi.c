/* Sharing a sweep among MPI ranks (exp.h's struct exp_dist). Compiled into
 * the executable only, with MPI when CMake found it: the library and the
 * tests never link MPI. MPI is started only for `rocesim sweep` launched by
 * mpirun, so plain runs (and the sweep's own children) never touch it. */
#include <stdlib.h>
#include <string.h>
#include "exp/exp.h"

#ifdef ROCESIM_MPI
#include <mpi.h>

const bool exp_mpi_built = true;

static char *mpi_gather(const char *mine)
{
    int rank, size, len = (int)strlen(mine);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *lens = rank == 0 ? calloc((size_t)size, sizeof *lens) : NULL;
    int *offs = rank == 0 ? calloc((size_t)size, sizeof *offs) : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char *all = NULL;
    if (rank == 0) {
        size_t total = 0;
        for (int i = 0; i < size; i++) {
            offs[i] = (int)total;
            total += (size_t)lens[i];
        }
        all = malloc(total + 1);
        if (!all)
            abort();
        all[total] = 0;
    }
    MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
    free(lens);
    free(offs);
    return all;
}

static void mpi_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mpi_finish(void)
{
    MPI_Finalize();
}

const struct exp_dist *exp_dist_mpi(int *argc, char ***argv)
{
    static struct exp_dist d = {0, 1, "MPI", mpi_gather, mpi_barrier};
    /* Only under a launcher: a singleton MPI_Init would be slow and noisy. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK"))
        return NULL;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &d.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &d.size);
    atexit(mpi_finish);
    return &d;
}
#else
const bool exp_mpi_built = false;

const struct exp_dist *exp_dist_mpi(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return NULL;
}
#endif
