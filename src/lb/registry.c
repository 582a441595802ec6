/* Every load balancer, by name. Adding a scheme: one file, its extern line
 * and its line in lb_registry[] (docs/adding-a-scheme.md). */
#include <string.h>
#include "net/lb.h"

extern const struct lb_ops lb_ecmp, lb_spray, lb_drill, lb_letflow, lb_conga;
extern const struct lb_ops lb_hermes, lb_proteus, lb_flb, lb_conweave;

const struct lb_ops *const lb_registry[] = {
    &lb_ecmp,
    &lb_spray,
    &lb_drill,
    &lb_letflow,
    &lb_conga,
    &lb_hermes,
    &lb_proteus,
    &lb_flb,
    &lb_conweave,
    NULL,
};

int lb_index(const char *name)
{
    for (int i = 0; lb_registry[i]; i++)
        if (strcmp(lb_registry[i]->name, name) == 0)
            return i;
    return -1;
}

const struct lb_ops *lb_find(const char *name)
{
    int i = lb_index(name);
    return i < 0 ? NULL : lb_registry[i];
}
