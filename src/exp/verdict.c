/* verdict.c: an experiment file's [verdict] section, checked and printed as
 * its row of the verdict page (page.c) and after `rocesim reproduce NAME`
 * (reproduce.c). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/err.h"
#include "exp/expdef.h"
#include "exp/verdict.h"

/* The [verdict] keys; verdict takes one of the values below, cause (for
 * every verdict but "reproduces") "CLASS" or "CLASS: what shows it", CLASS
 * one of cause_classes: genuine (a faithful scheme on the paper's setup
 * cannot meet the claim, shown by a measurement or the paper's own model),
 * setup not reproducible here (e.g. runs this machine cannot afford), open
 * (the cause is not yet known). A row says "does not" only when its cause
 * is genuine: a difference of setup or an unknown cause is no finding about
 * the paper. */
static const char *const verdict_keys[] = {"claim", "setup", "verdict", "cause", "why", "judged", "skipped", NULL};
static const char *const verdict_values[] = {"reproduces", "same direction, smaller", "does not", "not judged", NULL};
static const char *const cause_classes[] = {"genuine", "setup not reproducible here", "open", NULL};

/* Words of the project's own bookkeeping that mean nothing to a reader of
 * the page (an issue number, a branch, a review or a file outside the
 * repository); any value of an experiment file may reach the page. */
static const char *const internal_refs[] = {"issue ", "this branch", "lb-baselines", "audit", NULL};


static bool is_one_of(const char *v, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(v, list[i]) == 0)
            return true;
    return false;
}

/* A cell of a markdown table: '|' escaped, no line breaks. */
static void cell(FILE *f, const char *s)
{
    for (; s && *s; s++)
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s == '\n' ? ' ' : *s, f);
}

/* The cause's class: the text before ':' (all of it without one). */
static void cause_class(const char *cause, char *cls, size_t n)
{
    snprintf(cls, n, "%.*s", (int)strcspn(cause, ":"), cause);
}

/* The first internal reference in v (NULL if none): "issue" followed by a
 * number, or one of the other words (any case). */
static const char *internal_ref(const char *v, size_t *len)
{
    for (const char *p = v; *p; p++)
        for (int i = 0; internal_refs[i]; i++) {
            size_t l = strlen(internal_refs[i]);
            if (strncasecmp(p, internal_refs[i], l) != 0)
                continue;
            if (i == 0 && !(p[l] >= '0' && p[l] <= '9'))
                continue;
            *len = l + (i == 0 ? strspn(p + l, "0123456789") : 0);
            return p;
        }
    return NULL;
}

/* Checks an experiment file's [verdict] (keys, verdict, cause, why) and
 * that no value the page shows carries an internal reference: 0, or
 * EXIT_BADINPUT with PATH:LINE: what is wrong. */
int exp_verdict_check(const struct exp_def *d, const char *p)
{
    const char *sec, *key, *val, *v = exp_def_get(d, "verdict", "verdict"), *cause = exp_def_get(d, "verdict", "cause");
    bool any = false;
    int vline = 0, cline = 0, rc = 0;
    for (int k = 0, line; (line = exp_def_item(d, k, &sec, &key, &val)) >= 0; k++) {
        size_t l;
        const char *r = internal_ref(val, &l);
        if (r) {
            fprintf(stderr,
                    "%s:%d: [%s] %s: '%.*s' is an internal reference the page's readers cannot follow: say what it "
                    "is instead\n",
                    p, line, sec, key, (int)l, r);
            rc = EXIT_BADINPUT;
        }
        if (strcmp(sec, "verdict") != 0)
            continue;
        any = true;
        if (!is_one_of(key, verdict_keys)) {
            fprintf(stderr, "%s:%d: unknown [verdict] key '%s' (claim, setup, verdict, cause, why, judged, skipped)\n",
                    p, line, key);
            rc = EXIT_BADINPUT;
        } else if (strcmp(key, "verdict") == 0) {
            vline = line;
            if (!is_one_of(val, verdict_values)) {
                fprintf(stderr,
                        "%s:%d: verdict '%s' is not one of: reproduces | same direction, smaller | does not | "
                        "not judged\n",
                        p, line, val);
                rc = EXIT_BADINPUT;
            }
        } else if (strcmp(key, "cause") == 0) {
            char cls[64];
            cline = line;
            cause_class(val, cls, sizeof cls);
            if (!is_one_of(cls, cause_classes)) {
                fprintf(stderr, "%s:%d: cause '%s' is not one of: genuine | setup not reproducible here | open (then ': "
                        "what shows it')\n", p, line, cls);
                rc = EXIT_BADINPUT;
            }
        }
    }
    if (rc)
        return rc;
    if (any && (!v || !exp_def_get(d, "verdict", "claim"))) {
        fprintf(stderr, "%s: [verdict] needs verdict and claim\n", p);
        return EXIT_BADINPUT;
    }
    if (v && strcmp(v, "reproduces") != 0 && !exp_def_get(d, "verdict", "why")) {
        fprintf(stderr, "%s:%d: verdict '%s' needs why = the measurement that explains it\n", p, vline, v);
        return EXIT_BADINPUT;
    }
    if (v && (strcmp(v, "same direction, smaller") == 0 || strcmp(v, "does not") == 0) && !cause) {
        fprintf(stderr, "%s:%d: verdict '%s' needs cause = genuine | setup not reproducible here | open\n", p, vline, v);
        return EXIT_BADINPUT;
    }
    if (!cause)
        return 0;
    if (v && strcmp(v, "reproduces") == 0) {
        fprintf(stderr, "%s:%d: a verdict 'reproduces' has no cause\n", p, cline);
        return EXIT_BADINPUT;
    }
    char cls[64];
    cause_class(cause, cls, sizeof cls);
    if (v && strcmp(v, "does not") == 0 && strcmp(cls, "genuine") != 0) {
        fprintf(stderr,
                "%s:%d: verdict 'does not' with cause '%s': only a genuine cause (a faithful scheme on the paper's "
                "setup cannot meet the claim) makes a 'does not'; else the verdict is 'not judged' until the cause is "
                "found or removed\n",
                p, cline, cause);
        return EXIT_BADINPUT;
    }
    return 0;
}

/* The experiment's line of the page's summary table, without the form
 * columns: "| [NAME](#NAME) | claim | **verdict** | cause |". */
void exp_verdict_cells(FILE *f, const char *name, const struct exp_def *d)
{
    const char *claim = exp_def_get(d, "verdict", "claim"), *v = exp_def_get(d, "verdict", "verdict");
    const char *cause = exp_def_get(d, "verdict", "cause");
    char cls[64] = "-";
    if (cause)
        cause_class(cause, cls, sizeof cls);
    fprintf(f, "| [%s](#%s) | ", name, name);
    cell(f, claim ? claim : "(no [verdict] section yet)");
    fprintf(f, " | %s%s%s | %s |", v ? "**" : "", v ? v : "-", v ? "**" : "", cls);
}

/* What `rocesim reproduce NAME` prints after its table: the experiment's
 * row of the verdict page and the verdict's why. */
void exp_verdict_print(FILE *f, const char *name, const struct exp_def *d)
{
    const char *v = exp_def_get(d, "verdict", "verdict");
    if (!v) {
        fprintf(f, "\nverdict: none yet (the experiment file has no [verdict] section)\n");
        return;
    }
    const char *cause = exp_def_get(d, "verdict", "cause"), *why = exp_def_get(d, "verdict", "why");
    const char *judged = exp_def_get(d, "verdict", "judged");
    fprintf(f, "\nverdict (its row of docs/reproductions.md; judged on %s, not on the runs above):\n"
               "| experiment | paper's claim | verdict | cause |\n|---|---|---|---|\n",
            judged ? judged : "the runs named in its why");
    exp_verdict_cells(f, name, d);
    fputc('\n', f);
    if (cause)
        fprintf(f, "cause: %s\n", cause);
    if (why)
        fprintf(f, "why: %s\n", why);
}
