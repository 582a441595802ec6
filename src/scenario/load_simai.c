/* Scenario input: a SimAI training workload given as the scenario file
 * (`rocesim run workload.txt --set topology.file=TOPO --set simai.conf=SimAI.conf`),
 * recognised by its first line (simai_looks_workload). See load.h and docs/simai.md. */
#include <stdio.h>
#include <string.h>
#include "scenario/load_impl.h"
#include "traffic/simai.h"

int config_load_simai(struct config *c, const char *text, const char *fname, struct err *e)
{
    struct simai_workload w;
    if (simai_parse(&w, text, fname, e) < 0) /* here, so a bad file is named before any other key */
        return -1;
    simai_free(&w);
    char where[WHERE_MAX];
    snprintf(where, sizeof where, "%.500s:1", fname);
    cfg_set_source(c, fname);
    if (cfg_set_key(c, "traffic", "pattern", "simai", where, true, e) < 0 ||
        cfg_set_key(c, "traffic", "file", fname, where, true, e) < 0 ||
        /* SimAI always runs on a topology file (-n): topology.file names it */
        cfg_set_key(c, "topology", "type", "file", where, false, e) < 0)
        return -1;
    cfg_default_name(c, fname, false);
    return 0;
}
