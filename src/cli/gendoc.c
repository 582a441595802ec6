/* Documents generated from the command table (main.c), the parameter tables
 * (scenario/config.c) and the scheme registries, at build time (see
 * CMakeLists.txt): the man page rocesim(1) and the bash and zsh completions.
 * Nothing here is written by hand twice: a new key, scheme or command
 * appears in all three on the next build. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "cli/cli.h"
#include "net/cc.h"
#include "net/lb.h"
#include "scenario/config.h"

/* Text as roff: backslashes doubled, a line that starts with '.' or '\''
 * guarded, blank lines as paragraph breaks. */
static void roff(FILE *f, const char *s)
{
    bool bol = true;
    for (; *s; s++) {
        if (bol && (*s == '.' || *s == '\''))
            fputs("\\&", f);
        if (*s == '\\')
            fputs("\\e", f);
        else if (*s == '-')
            fputs("\\-", f);
        else
            fputc(*s, f);
        bol = *s == '\n';
    }
    if (!bol)
        fputc('\n', f);
}

static void man_params(FILE *f, const struct param *tab, const char *prefix)
{
    for (const struct param *p = tab; p && p->name; p++) {
        fprintf(f, ".TP\n\\fB%s.%s\\fR = ", prefix, p->name); /* (names: letters, digits, '_', '.') */
        roff(f, p->def[0] ? p->def : "(empty)");
        roff(f, p->help);
        if (p->type == P_ENUM) {
            fprintf(f, "(one of: %s)\n", p->choices);
        }
    }
}

void gendoc_man(FILE *f, const char *version)
{
    fprintf(f, ".TH ROCESIM 1 \"\" \"rocesim %s\" \"User Commands\"\n", version);
    fputs(".SH NAME\nrocesim \\- packet-level simulator of RDMA datacenter fabrics (RoCE with PFC, IRN)\n", f);
    fputs(".SH SYNOPSIS\n", f);
    for (const struct command *c = cli_commands; c->name; c++) {
        fputs(".B rocesim\n", f);
        roff(f, c->synopsis);
        fputs(".br\n", f);
    }
    fputs(".SH DESCRIPTION\n", f);
    roff(f, cli_usage_text);
    fputs(".SH COMMANDS\n", f);
    for (const struct command *c = cli_commands; c->name; c++) {
        fprintf(f, ".SS %s\n.nf\n", c->name);
        roff(f, c->help);
        fputs(".fi\n", f);
    }
    fputs(".SH SCENARIO KEYS\nIn an INI file, \\fB[section]\\fR then \\fBkey = value\\fR; on the command line, "
          "\\fB\\-\\-set section.key=value\\fR. Each key with its default:\n",
          f);
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        man_params(f, s->params, s->name);
    fputs(".PP\n\\fB[traffic.NAME]\\fR (repeatable): one more traffic generator with every key of [traffic]. "
          "\\fB[flow.NAME]\\fR (repeatable): one explicit flow:\n",
          f);
    man_params(f, cfg_flow_params, "flow.NAME");
    fputs(".SH CONGESTION CONTROL\n\\fBtransport.cc\\fR; parameters in \\fB[cc.NAME]\\fR.\n", f);
    for (int i = 0; cc_registry[i]; i++) {
        char sec[80];
        fprintf(f, ".SS %s%s\n", cc_registry[i]->name, cc_registry[i]->companion ? " (companion: transport.NAME = on)" : "");
        roff(f, cc_registry[i]->help);
        snprintf(sec, sizeof sec, "cc.%s", cc_registry[i]->name);
        man_params(f, cc_registry[i]->params, sec);
    }
    fputs(".SH LOAD BALANCING\n\\fBlb.scheme\\fR; parameters in \\fB[lb.NAME]\\fR.\n", f);
    for (int i = 0; lb_registry[i]; i++) {
        char sec[80];
        fprintf(f, ".SS %s\n", lb_registry[i]->name);
        roff(f, lb_registry[i]->help);
        snprintf(sec, sizeof sec, "lb.%s", lb_registry[i]->name);
        man_params(f, lb_registry[i]->params, sec);
    }
    fputs(".SH ENVIRONMENT\n.TP\n.B ROCESIM_WORKLOADS\nthe folder of workload CDFs (traffic.cdf = NAME)\n"
          ".TP\n.B ROCESIM_EXPERIMENTS\nthe folder of paper experiments (rocesim reproduce)\n"
          ".SH FILES\n.TP\n.I PREFIX/share/rocesim/\nworkloads/, experiments/ and scenarios/ of an installed "
          "rocesim; a clone's own folders are used from its root, or from the clone it was built from\n"
          ".SH EXIT STATUS\n0: done; 1: a write error; 2: bad input (FILE:LINE or the option, and what is wrong); "
          "3: a PFC deadlock stopped the run; 4: the watchdog stopped a run that made no progress; 130, 143: "
          "stopped by SIGINT, SIGTERM.\n",
          f);
}

/* Every --set key as "section.key=": the sections, then [cc.NAME] and [lb.NAME]. */
static void keys(FILE *f, const char *sep)
{
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        for (const struct param *p = s->params; p->name; p++)
            fprintf(f, "%s.%s=%s", s->name, p->name, sep);
    for (int i = 0; cc_registry[i]; i++)
        for (const struct param *p = cc_registry[i]->params; p && p->name; p++)
            fprintf(f, "cc.%s.%s=%s", cc_registry[i]->name, p->name, sep);
    for (int i = 0; lb_registry[i]; i++)
        for (const struct param *p = lb_registry[i]->params; p && p->name; p++)
            fprintf(f, "lb.%s.%s=%s", lb_registry[i]->name, p->name, sep);
}

/* The values a key takes from a fixed list: "section.key=value" words. */
static void values(FILE *f, const char *sep)
{
    for (int i = 0; cc_registry[i]; i++)
        if (!cc_registry[i]->companion)
            fprintf(f, "transport.cc=%s%s", cc_registry[i]->name, sep);
    for (int i = 0; lb_registry[i]; i++)
        fprintf(f, "lb.scheme=%s%s", lb_registry[i]->name, sep);
    for (const struct cfg_section *s = cfg_sections; s->name; s++)
        for (const struct param *p = s->params; p->name; p++) {
            if (p->type == P_BOOL)
                fprintf(f, "%s.%s=on%s%s.%s=off%s", s->name, p->name, sep, s->name, p->name, sep);
            for (const char *c = p->type == P_ENUM ? p->choices : NULL; c && *c;) {
                size_t l = strcspn(c, "|");
                fprintf(f, "%s.%s=%.*s%s", s->name, p->name, (int)l, c, sep);
                c += l + (c[l] == '|');
            }
        }
}

static void commands(FILE *f, const char *sep)
{
    for (const struct command *c = cli_commands; c->name; c++)
        fprintf(f, "%s%s", c->name, sep);
}

int gendoc_completion(FILE *f, const char *shell)
{
    if (strcmp(shell, "bash") == 0) {
        fputs("# bash completion for rocesim (generated by `rocesim help --completion bash`)\n_rocesim() {\n"
              "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
              "    local cmds=\"",
              f);
        commands(f, " ");
        fputs("\"\n    local keys=\"", f);
        keys(f, " ");
        fputs("\"\n    local vals=\"", f);
        values(f, " ");
        fputs("\"\n"
              "    if [ \"$COMP_CWORD\" -eq 1 ]; then COMPREPLY=($(compgen -W \"$cmds --help --version\" -- \"$cur\")); return; fi\n"
              "    if [ \"$prev\" = --set ] || [ \"$prev\" = -s ]; then\n"
              "        compopt -o nospace 2>/dev/null\n"
              "        case $cur in *=*) COMPREPLY=($(compgen -W \"$vals\" -- \"$cur\")) ;;\n"
              "                     *) COMPREPLY=($(compgen -W \"$keys\" -- \"$cur\")) ;; esac\n"
              "        return\n    fi\n"
              "    case $prev in --out|-o) COMPREPLY=($(compgen -d -- \"$cur\")); return ;; esac\n"
              "    case $cur in -*) COMPREPLY=($(compgen -W \"--set --out --quiet --help --jobs --quick --no-run --list "
              "--page --no-title --html --seeds --vs --shard\" -- \"$cur\")); return ;; esac\n"
              "    COMPREPLY=($(compgen -f -- \"$cur\"))\n}\ncomplete -o filenames -F _rocesim rocesim\n",
              f);
        return 0;
    }
    if (strcmp(shell, "zsh") == 0) {
        fputs("#compdef rocesim\n# zsh completion for rocesim (generated by `rocesim help --completion zsh`)\n"
              "_rocesim() {\n    local -a cmds keys vals\n    cmds=(",
              f);
        commands(f, " ");
        fputs(")\n    keys=(", f);
        keys(f, " ");
        fputs(")\n    vals=(", f);
        values(f, " ");
        fputs(")\n"
              "    if (( CURRENT == 2 )); then compadd -a cmds; compadd -- --help --version; return; fi\n"
              "    case ${words[CURRENT-1]} in\n"
              "        --set|-s) if [[ $PREFIX == *=* ]]; then compadd -a vals; else compadd -S '' -a keys; fi; return ;;\n"
              "        --out|-o) _files -/; return ;;\n"
              "    esac\n"
              "    if [[ $PREFIX == -* ]]; then compadd -- --set --out --quiet --help --jobs --quick --no-run --list --page "
              "--no-title --html --seeds --vs --shard; return; fi\n"
              "    _files\n}\n_rocesim \"$@\"\n",
              f);
        return 0;
    }
    return -1;
}
