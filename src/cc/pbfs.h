/* PB-FS's counters (cc/pbfs.c), by index for cc_stat(s, &cc_pbfs, i): the
 * names summary.json prints are pbfs_stat_names in pbfs.c. */
#ifndef ROCESIM_CC_PBFS_H
#define ROCESIM_CC_PBFS_H

#define PBFS_HOP_BINS 8
enum {
    PBFS_ST_POSTCARDS, /* postcards switches sent */
    PBFS_ST_FLOWS,     /* flows that marked at least one packet */
    PBFS_ST_HOPS,      /* PBFS_HOP_BINS counters: postcards by links from their switch to the flow's
                        * source, [d-1]; the last bin d >= PBFS_HOP_BINS */
};

#endif
