/* No congestion control: every flow sends at line rate, paced only by the
 * NIC (and by PFC). ns-3 HPCC's CC_MODE 0. */
#include "net/cc.h"

static const struct param none_params[] = { PARAM_END };

const struct cc_ops cc_none = {
    .name = "none",
    .help = "line rate, no reaction to congestion (ns-3 CC_MODE 0)",
    .params = none_params,
};
