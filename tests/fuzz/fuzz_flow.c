/* The ns-3 flow-file reader against a fixed 8-host leaf-spine (hosts 0-7,
 * switches 8-11): accepted flows must be between distinct hosts. */
#include "fuzz.h"
#include "topo/topo.h"
#include "traffic/traffic.h"

static const char topo_text[] = "12 4 12\n8 9 10 11\n"
                                "0 8 100Gbps 1us 0\n1 8 100Gbps 1us 0\n2 8 100Gbps 1us 0\n3 8 100Gbps 1us 0\n"
                                "4 9 100Gbps 1us 0\n5 9 100Gbps 1us 0\n6 9 100Gbps 1us 0\n7 9 100Gbps 1us 0\n"
                                "8 10 400Gbps 1us 0\n8 11 400Gbps 1us 0\n9 10 400Gbps 1us 0\n9 11 400Gbps 1us 0\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct topo t;
    static int have_topo;
    struct err e = {{0}};
    if (!have_topo) {
        if (topo_parse_ns3(&t, topo_text, "builtin", &e))
            fuzz_fail("fixed topology", e.msg);
        have_topo = 1;
    }
    char *text = fuzz_text(data, size);
    struct flow_list l = {0};
    int r = flowfile_parse(&l, text, "fuzz.flows", &t, &e);
    fuzz_check(r, &e, "fuzz.flows", 1);
    if (r == 0)
        for (size_t i = 0; i < l.n; i++) {
            const struct flow_spec *f = &l.v[i];
            if (f->src >= t.n_nodes || f->dst >= t.n_nodes || f->src == f->dst || t.host_index[f->src] < 0 ||
                t.host_index[f->dst] < 0 || f->size == 0)
                fuzz_fail("accepted a bad flow", "");
        }
    flow_list_free(&l);
    free(text);
    return 0;
}
