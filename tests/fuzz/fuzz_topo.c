/* The ns-3 topology reader; what it accepts must be a consistent graph, and
 * small graphs go through routing too. */
#include "fuzz.h"
#include "topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct topo t;
    struct err e = {{0}};
    int r = topo_parse_ns3(&t, text, "fuzz.topo", &e);
    fuzz_check(r, &e, "fuzz.topo", 0);
    if (r == 0) {
        for (uint32_t i = 0; i < t.n_links; i++)
            if (t.links[i].a >= t.n_nodes || t.links[i].b >= t.n_nodes || t.links[i].a == t.links[i].b)
                fuzz_fail("accepted a bad link", "");
        for (uint32_t h = 0; h < t.n_hosts; h++)
            if (t.nodes[t.hosts[h]].is_switch || t.host_index[t.hosts[h]] != (int32_t)h)
                fuzz_fail("host index inconsistent", "");
        if (t.n_nodes <= 512) {
            struct routes rt;
            if (routes_build(&rt, &t, &e) == 0) {
                for (uint32_t n = 0; n < t.n_nodes; n++)
                    for (uint32_t h = 0; h < t.n_hosts; h++) {
                        int k;
                        const uint32_t *nb = routes_next(&rt, n, h, &k);
                        for (int j = 0; j < k; j++)
                            if (nb[j] >= t.n_nodes || !topo_link_between(&t, n, nb[j]))
                                fuzz_fail("next hop is not a neighbour", "");
                    }
                routes_free(&rt);
            }
        }
        topo_free(&t);
    }
    free(text);
    return 0;
}
