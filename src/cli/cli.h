/* The command line's own parts (executable only): the table of subcommands
 * main.c runs, and the documents generated from it and from the parameter
 * tables and scheme registries (gendoc.c): the man page and the shell
 * completions, built at build time so they cannot drift from --help. */
#ifndef ROCESIM_CLI_H
#define ROCESIM_CLI_H
#include <stdio.h>

struct command {
    const char *name;
    const char *synopsis; /* after "rocesim " */
    const char *help;     /* printed by `rocesim NAME --help` */
    int (*run)(int argc, char **argv);
};

/* The subcommands, ending with a NULL name. */
extern const struct command cli_commands[];
/* What `rocesim --help` prints after the synopses. */
extern const char cli_usage_text[];

/* rocesim(1) in roff: every command's synopsis and help, every key with its
 * default and help, the schemes, environment, files and exit codes. */
void gendoc_man(FILE *f, const char *version);
/* A completion script for `shell` ("bash" or "zsh"): commands, options,
 * every --set key (section.key=), and the values of the scheme and choice
 * keys; -1 for another shell. */
int gendoc_completion(FILE *f, const char *shell);

#endif
