/* bench/parallel/mpicosts.c: what a window costs across MPI ranks, for the
 * scaling model (bench/parallel/model.py --ranks). Per window a run across
 * ranks does three collectives (src/engine/): the exchange (an all-to-all of
 * each rank's cut-link messages, B bytes to every other rank here), the
 * window's sums (an all-gather of 64 bytes a rank) and the records for rank 0
 * (an all-to-all of a few bytes). This does exactly those N times with no
 * work between, and prints the microseconds per window for B = 0 (the
 * latency part) and for larger B (the rest over the bytes: ns per byte sent
 * by a rank), median and minimum of 7 repetitions. Run it with the mpirun
 * line of the runs it should price (ranks on one machine, or one per node):
 *
 *     mpicc -O2 bench/parallel/mpicosts.c -o mpicosts
 *     mpirun -np 2 ./mpicosts            # here: two ranks, shared memory
 *     mpirun -np 4 --map-by node ./mpicosts
 *
 * Standalone (not built with rocesim). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 7

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seconds per window of the three collectives, B bytes to every other rank. */
static double windows(int n, size_t B, int rank, int size, char *sbuf, char *rbuf, int *sc, int *sd, int *rc, int *rd)
{
    char sums[64], all[64 * 1024];
    memset(sums, rank, sizeof sums);
    for (int r = 0; r < size; r++) {
        sc[r] = r == rank ? 0 : (int)B;
        sd[r] = r * (int)B;
        rc[r] = r == rank ? 0 : (int)B;
        rd[r] = r * (int)B;
    }
    int tc[1024], td[1024], uc[1024], ud[1024];
    for (int r = 0; r < size; r++) { /* records: 16 bytes from every rank to rank 0 */
        tc[r] = r == 0 ? 16 : 0;
        td[r] = 0;
        uc[r] = rank == 0 ? 16 : 0;
        ud[r] = 16 * r;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        MPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, MPI_COMM_WORLD);
        MPI_Allgather(sums, 64, MPI_BYTE, all, 64, MPI_BYTE, MPI_COMM_WORLD);
        MPI_Alltoallv(sums, tc, td, MPI_BYTE, all, uc, ud, MPI_BYTE, MPI_COMM_WORLD);
    }
    double t = (MPI_Wtime() - t0) / n;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > 1024) {
        if (rank == 0)
            fprintf(stderr, "mpicosts: run it under mpirun with 2 to 1024 ranks\n");
        MPI_Finalize();
        return 2;
    }
    const size_t sizes[] = {0, 16384, 262144};
    size_t maxb = sizes[sizeof sizes / sizeof sizes[0] - 1];
    char *sbuf = calloc(maxb * (size_t)size + 1, 1), *rbuf = calloc(maxb * (size_t)size + 1, 1);
    int *cnt = calloc(4 * (size_t)size, sizeof *cnt);
    if (!sbuf || !rbuf || !cnt)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        printf("ranks %d: us per window (median, min of %d), 3 collectives, B bytes to each other rank\n", size, REPS);
    double lat = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t B = sizes[k];
        int n = B >= 262144 ? 200 : 2000;
        double t[REPS];
        windows(n / 10, B, rank, size, sbuf, rbuf, cnt, cnt + size, cnt + 2 * size, cnt + 3 * size); /* warm-up */
        for (int r = 0; r < REPS; r++)
            t[r] = windows(n, B, rank, size, sbuf, rbuf, cnt, cnt + size, cnt + 2 * size, cnt + 3 * size);
        qsort(t, REPS, sizeof t[0], cmp_double);
        if (B == 0)
            lat = t[REPS / 2];
        if (rank == 0) {
            printf("B %7zu: %8.2f us (min %.2f)", B, t[REPS / 2] * 1e6, t[0] * 1e6);
            if (B)
                printf(", %.3f ns per byte a rank sends beyond B = 0", (t[REPS / 2] - lat) * 1e9 / ((double)B * (size - 1)));
            printf("\n");
        }
    }
    free(sbuf);
    free(rbuf);
    free(cnt);
    MPI_Finalize();
    return 0;
}
