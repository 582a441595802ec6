/* The flow-size CDF reader (both formats); an accepted CDF must be a
 * distribution: p non-decreasing from 0 to 1, sizes non-decreasing, samples
 * at least one byte and within the support. */
#include "fuzz.h"
#include "core/rng.h"
#include "traffic/traffic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct cdf c;
    struct err e = {{0}};
    int r = cdf_parse(&c, text, "fuzz.cdf", &e);
    fuzz_check(r, &e, "fuzz.cdf", 1);
    if (r == 0) {
        if (c.n < 1 || c.p[c.n - 1] != 1.0)
            fuzz_fail("accepted a CDF that does not end at 1", "");
        for (int i = 1; i < c.n; i++)
            if (c.p[i] < c.p[i - 1] || c.x[i] < c.x[i - 1])
                fuzz_fail("accepted a decreasing CDF", "");
        struct rng rg;
        rng_seed(&rg, 1, 0);
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 16; k++) {
                uint64_t v = cdf_sample(&c, &rg, s);
                if (v < 1)
                    fuzz_fail("sample below one byte", "");
            }
        cdf_free(&c);
    }
    free(text);
    return 0;
}
