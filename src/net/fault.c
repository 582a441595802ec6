/* Injected faults that need no new routes. Random loss: a link with loss > 0
 * corrupts each packet crossing it (either direction) with that probability,
 * drawn from the link direction's own seeded stream; the receiver discards
 * it, so it counts as a drop ("corrupted") and the transport recovers it
 * (go-back-N NACK or timeout, IRN selective repeat). PFC frames are exempt:
 * PAUSE here is a state without expiry, so a lost RESUME would stall a queue
 * forever, where real PFC refreshes its pauses. */
#include "net/net_impl.h"

bool fault_lose(struct sim *s, uint32_t pid, struct pkt *p)
{
    if (rng_uniform(&s->loss_rng[pid]) >= s->ports[pid].loss)
        return false;
    s->c.packets_dropped++;
    s->c.packets_corrupted++;
    if (p->flow < s->n_flows)
        s->flows[p->flow].lost++;
    pkt_free(s, p);
    return true;
}
