/* bench/parallel/costs.c: the two costs the scaling model of docs/parallel.md
 * cannot take from a serial run, measured on this machine with T threads:
 *   barrier   one window barrier: T threads each do no work and meet, N times;
 *             pthread_barrier_wait and a sense-reversing spin barrier (what a
 *             window-synchronised engine would use: waits are short)
 *   message   one packet over a cut link: a 320-byte record (struct pkt is
 *             296 bytes, rounded up to 5 lines) written into a single-producer
 *             ring by one thread and copied out by another, 2048 per window with two
 *             barriers per window (their cost spread over the 2048: an upper
 *             bound on the message's own cost)
 * Prints the minimum and the median of 7 repetitions in ns: on a loaded
 * machine the minimum is the better estimate of what the code costs, the
 * median of what it costs there. Standalone: cc -O2 -pthread. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct spin_barrier {
    _Alignas(64) atomic_uint count;
    _Alignas(64) atomic_uint sense;
    unsigned n;
};

static void spin_wait(struct spin_barrier *b, unsigned *local)
{
    unsigned s = *local ^= 1;
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) == b->n - 1) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_store_explicit(&b->sense, s, memory_order_release);
    } else {
        unsigned spins = 0;
        while (atomic_load_explicit(&b->sense, memory_order_acquire) != s)
            if (++spins > 4096) /* a loaded machine: give the core up now and then */
                sched_yield(), spins = 0;
    }
}

enum { MSG = 320, BATCH = 2048, RING = 2048 };
struct msg {
    unsigned char b[MSG];
};

static struct {
    unsigned T, iters, mode; /* mode 0 pthread barrier, 1 spin, 2 messages */
    pthread_barrier_t pb;
    struct spin_barrier sb;
    struct msg *ring;
    uint64_t sink;
} G;

static void *worker(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg, local = 0;
    struct msg m;
    memset(&m, (int)id, sizeof m);
    for (unsigned i = 0; i < G.iters; i++) {
        if (G.mode == 0) {
            pthread_barrier_wait(&G.pb);
        } else if (G.mode == 1) {
            spin_wait(&G.sb, &local);
        } else {
            /* window i: thread 0 sends BATCH messages, then both meet, then
             * thread 1 copies them out (into its own event records) */
            if (id == 0)
                for (unsigned k = 0; k < BATCH; k++) {
                    m.b[0] = (unsigned char)k;
                    G.ring[(i * BATCH + k) % RING] = m;
                }
            spin_wait(&G.sb, &local);
            if (id == 1) {
                uint64_t s = 0;
                for (unsigned k = 0; k < BATCH; k++) {
                    struct msg x = G.ring[(i * BATCH + k) % RING];
                    s += x.b[0] + x.b[MSG - 1];
                }
                G.sink += s;
            }
            spin_wait(&G.sb, &local);
        }
    }
    return NULL;
}

static double run(unsigned T, unsigned mode, unsigned iters)
{
    G.T = T, G.mode = mode, G.iters = iters;
    pthread_barrier_init(&G.pb, NULL, T);
    G.sb.n = T;
    atomic_store(&G.sb.count, 0);
    atomic_store(&G.sb.sense, 0);
    pthread_t th[256];
    double t0 = now_ns();
    for (unsigned i = 0; i < T; i++)
        pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
    for (unsigned i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    double dt = now_ns() - t0;
    pthread_barrier_destroy(&G.pb);
    return dt / iters;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void stats(unsigned T, unsigned mode, unsigned iters, double div, double *mn, double *med)
{
    double v[7];
    for (int r = 0; r < 7; r++)
        v[r] = run(T, mode, iters) / div;
    qsort(v, 7, sizeof *v, cmp);
    *mn = v[0], *med = v[3];
}

int main(int argc, char **argv)
{
    unsigned T = argc > 1 ? (unsigned)atoi(argv[1]) : 2, iters = argc > 2 ? (unsigned)atoi(argv[2]) : 100000;
    if (T < 2 || T > 256)
        T = 2;
    G.ring = aligned_alloc(64, RING * sizeof *G.ring);
    memset(G.ring, 0, RING * sizeof *G.ring);
    double mn, med;
    printf("threads %u (min, median ns)\n", T);
    stats(T, 0, iters, 1, &mn, &med);
    printf("pthread_barrier %.1f %.1f\n", mn, med);
    stats(T, 1, iters, 1, &mn, &med);
    printf("spin_barrier %.1f %.1f\n", mn, med);
    stats(2, 2, iters / 100 + 1, BATCH, &mn, &med);
    printf("message %.2f %.2f\n", mn, med);
    return (int)(G.sink & 0);
}
