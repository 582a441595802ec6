/* SimAI inputs: the workload parser and the topology reader (traffic/simai.c,
 * topo/simaitopo.c). What the workload parser accepts must be a consistent
 * job (communicators inside all_gpus); an accepted topology a consistent
 * graph whose GPUs are hosts. */
#include "fuzz.h"
#include "topo/topo.h"
#include "traffic/simai.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct simai_workload w;
    struct err e = {{0}};
    int r = simai_parse(&w, text, "fuzz.simai", &e);
    fuzz_check(r, &e, "fuzz.simai", 1);
    if (r == 0) {
        if (!w.n_layers || !w.tp || !w.all_gpus || w.all_gpus % (w.tp * w.pp) || (w.all_gpus / w.tp) % w.ep)
            fuzz_fail("accepted an inconsistent header", "");
        uint32_t *ranks = malloc(w.all_gpus * sizeof *ranks);
        for (uint32_t rk = 0; ranks && rk < w.all_gpus && rk < 4096; rk++)
            for (int g = SIMAI_G_TP; g <= SIMAI_G_DP_EP; g++) {
                uint32_t n = simai_group_ranks(&w, g, rk, ranks), self = 0;
                /* SimAI's sizes: TP, DP = all_gpus / TP (pp is not a communicator there), EP, DP / EP */
                uint32_t want[] = {0, w.tp, w.all_gpus / w.tp, w.ep, w.all_gpus / w.tp / w.ep};
                if (n != want[g])
                    fuzz_fail("a communicator of the wrong size", "");
                for (uint32_t i = 0; i < n; i++) {
                    if (ranks[i] >= w.all_gpus)
                        fuzz_fail("a communicator outside all_gpus", "");
                    self += ranks[i] == rk;
                }
                if (self != 1)
                    fuzz_fail("a GPU not once in its own communicator", "");
            }
        free(ranks);
        simai_free(&w);
    }
    struct topo t;
    r = topo_parse_simai(&t, text, "fuzz.topo", &e);
    fuzz_check(r, &e, "fuzz.topo", 0);
    if (r == 0) {
        for (uint32_t g = 0; g < t.n_gpus; g++) {
            uint32_t nic = topo_gpu_nic(&t, g), nvl = topo_gpu_nvl(&t, g);
            if (nic >= t.n_nodes || t.host_index[nic] < 0 || (nvl != UINT32_MAX && (nvl >= t.n_nodes || t.host_index[nvl] < 0)))
                fuzz_fail("a GPU that is not a host", "");
        }
        topo_free(&t);
    }
    free(text);
    return 0;
}
