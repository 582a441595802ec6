/* The message FLB's source edge switch forwards to a sender (lb/flb.c §3.2)
 * and FLB's minimal rate control reads (cc/flbrc.c §3.3): a PKT_FEEDBACK made
 * with cc_switch_packet for the congested flow. */
#ifndef ROCESIM_FLBRC_H
#define ROCESIM_FLBRC_H

/* p->fb[0]: FLBRC_CONGESTED or FLBRC_RELEASE; p->aux: n, the number of
 * congested flows at the congested egress port; p->fb[1]: that port's rate C
 * (bps). The sender's next rate is C / n. */
enum { FLBRC_RELEASE = 0, FLBRC_CONGESTED = 1 };
#define FLBRC_MSG_BYTES 64 /* a QCN-sized CNM (802.1Qau frames are 64 B) */

#endif
