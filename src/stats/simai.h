/* SimAI jobs' reports (simai.c): ncclFlowModel_EndToEnd.csv shaped as
 * SimAI_simulator writes it, and summary.json's "simai_jobs". */
#ifndef ROCESIM_STATS_SIMAI_H
#define ROCESIM_STATS_SIMAI_H
#include <stdio.h>
#include "core/err.h"
#include "scenario/scenario.h"

/* ncclFlowModel_EndToEnd.csv (the first job) and ncclFlowModel_EndToEnd_NAME.csv
 * ([traffic.NAME] jobs after it) in dir, when the scenario has SimAI jobs. */
int simai_write_csv(const struct scenario *sc, const char *dir, struct err *e);
/* summary.json's "simai_jobs": [...] entry with the trailing ",\n"; nothing without SimAI jobs. */
void simai_write_json(FILE *f, const struct scenario *sc);

#endif
