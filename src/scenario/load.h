/* Filling a struct config from the outside world: an INI scenario file, an
 * ns-3 HPCC config.txt, and --set options, then whole-config checks.
 * Every error is "FILE:LINE: what is wrong" (or "--set OPT: what is wrong")
 * in e->msg with -1 returned; the CLI prints it and exits 2. Each key
 * remembers where it was set, so later checks can point at that line. */
#ifndef ROCESIM_SCENARIO_LOAD_H
#define ROCESIM_SCENARIO_LOAD_H
#include "core/err.h"
#include "scenario/config.h"

/* Load a scenario file into c (already config_init'ed). Tells an INI file
 * from an ns-3 HPCC config.txt by content: the first non-blank, non-comment
 * line is "[section]" or "key = value" for INI, "UPPER_CASE_KEY value" for ns-3;
 * a SimAI workload starts with its parallelism policy (simai_looks_workload). */
int config_load_file(struct config *c, const char *path, struct err *e);
/* text is the whole file; fname is only used in messages and for run.name. */
int config_load_ini(struct config *c, const char *text, const char *fname, struct err *e);
int config_load_ns3(struct config *c, const char *text, const char *fname, struct err *e);
/* A SimAI training workload as the scenario (load_simai.c): traffic.pattern =
 * simai with the file as traffic.file, topology.type = file (topology.file
 * names the SimAI topology). */
int config_load_simai(struct config *c, const char *text, const char *fname, struct err *e);
/* A SimAI.conf applied to c (simai.conf does it where it is set): its keys as
 * an ns-3 config's, less those SimAI's frontend does not use (docs/simai.md). */
int config_load_simai_conf(struct config *c, const char *path, struct err *e);
/* One --set option "section.key=value"; the section is everything before the
 * last '.' of the key part (cc.dcqcn.rate_ai=50Mbps -> [cc.dcqcn] rate_ai). */
int config_apply_set(struct config *c, const char *opt, struct err *e);
/* Relative file paths in an INI file (topology.file, traffic.file, a
 * traffic.cdf that is a path, and those of [traffic.NAME]) are read from the
 * file's folder: cfg_is_path says whether [sec] key = val is a path, and
 * cfg_path_join writes val as seen from where `file` was named from (its
 * folder joined, leading ../ taken off it). Paths given with --set, and
 * absolute ones, stay as they are. */
bool cfg_is_path(const char *sec, const char *key, const char *val);
void cfg_path_join(char *out, size_t n, const char *file, const char *val);
/* Checks that need the whole config (after the file and every --set). */
int config_validate(struct config *c, struct err *e);
/* Each [cc.NAME] / [lb.NAME] key set for a scheme the configuration does not
 * run (config_validate warns of them, unless c->sweep_point): fn(ctx, key,
 * where it was set, why it is unused). Returns how many. */
typedef void (*config_unused_fn)(void *ctx, const char *key, const char *where, const char *why);
size_t config_unused_scheme_keys(const struct config *c, config_unused_fn fn, void *ctx);
/* Where "section.key" was last set: "file:line", "--set OPT", or NULL if it
 * still has its default. Valid until the next load/set or config_load_free. */
const char *config_origin(const struct config *c, const char *section_key);
/* Frees what the functions above hang off c (c->origins). Safe to call twice. */
void config_load_free(struct config *c);

#endif
