/* Sharing a sweep among MPI ranks (exp.h's struct exp_dist), and one run
 * across ranks (net.h's struct eng_comm). Compiled into the executable only,
 * with MPI when CMake found it: the library and the tests never link MPI.
 * MPI is started only for `rocesim sweep` or `rocesim run` launched by
 * mpirun, so plain runs (and the sweep's own children) never touch it. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/proc.h"
#include "exp/exp.h"
#include "net/net.h"
#include "engine/engine.h"

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

/* ---- one run across ranks (struct eng_comm, net/shard.c) ---- */

static int world_size(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

static void comm_allgather(const void *mine, void *all, size_t n)
{
    MPI_Allgather(mine, (int)n, MPI_BYTE, all, (int)n, MPI_BYTE, MPI_COMM_WORLD);
}

static int as_count(size_t n)
{
    if (n > INT_MAX) { /* a window's messages between two ranks: megabytes, not gigabytes */
        fprintf(stderr, "rocesim: MPI rank: %zu bytes in one exchange, more than MPI counts\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return (int)n;
}

static void comm_alltoallv(const void *send, const size_t *scount, void **recv, size_t *rcap, size_t *rcount)
{
    int size = world_size();
    int *c = malloc(4 * (size_t)size * sizeof *c);
    if (!c)
        abort();
    int *sc = c, *sd = c + size, *rc = c + 2 * size, *rd = c + 3 * size;
    size_t off = 0;
    for (int r = 0; r < size; r++) {
        sc[r] = as_count(scount[r]);
        sd[r] = as_count(off);
        off += scount[r];
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int r = 0; r < size; r++) {
        rd[r] = as_count(total);
        rcount[r] = (size_t)rc[r];
        total += (size_t)rc[r];
    }
    if (total > *rcap || !*recv) {
        *rcap = total > 2 * *rcap ? total : 2 * *rcap;
        *recv = realloc(*recv, *rcap ? *rcap : 1);
        if (!*recv)
            abort();
    }
    MPI_Alltoallv(send, sc, sd, MPI_BYTE, *recv, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
    free(c);
}

/* Under a launcher (its environment), and not a sweep's own run, which
 * inherits the sweep rank's environment (exp/sweep.c launch). */
static bool launched(void)
{
    return (getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK")) && !getenv("ROCESIM_SWEEP_CHILD");
}

const struct eng_comm *run_comm_mpi(int *argc, char ***argv)
{
    static struct eng_comm c = {0, 1, 1, comm_allgather, comm_alltoallv};
    if (!launched() || MPI_Init(argc, argv) != MPI_SUCCESS)
        return NULL;
    atexit(mpi_finish);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.size);
    /* the ranks of this machine (MPI-3) whose CPUs overlap this one's: all of
     * them unbound, none but itself when mpirun binds each to its own core,
     * those of its socket when it binds to sockets (every rank calls this) */
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, c.rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        int n;
        MPI_Comm_size(node, &n);
        unsigned char mine[PROC_CPUSET_BYTES], *all = malloc((size_t)n * PROC_CPUSET_BYTES);
        if (!all)
            abort();
        proc_cpuset(mine);
        MPI_Allgather(mine, PROC_CPUSET_BYTES, MPI_BYTE, all, PROC_CPUSET_BYTES, MPI_BYTE, node);
        c.node_sharing = 0;
        for (int i = 0; i < n; i++)
            c.node_sharing += proc_cpuset_overlap(mine, all + (size_t)i * PROC_CPUSET_BYTES);
        free(all);
        MPI_Comm_free(&node);
    }
    return c.size > 1 ? &c : NULL;
}

const struct exp_dist *exp_dist_mpi(int *argc, char ***argv)
{
    static struct exp_dist d = {0, 1, "MPI", mpi_gather, mpi_barrier};
    /* Only under a launcher: a singleton MPI_Init would be slow and noisy. */
    if (!launched())
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

const struct eng_comm *run_comm_mpi(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return NULL;
}

const struct exp_dist *exp_dist_mpi(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return NULL;
}
#endif
