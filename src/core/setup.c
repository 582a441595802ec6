#include "core/setup.h"
#include <stddef.h>
#include "core/proc.h"

static struct setup_watch watch;
static bool watching;
static double t0, next_show;
static const char *last_step;
static double last_share;
static int stopped_by;

void setup_watch(const struct setup_watch *w)
{
    watching = w != NULL;
    if (w) {
        watch = *w;
        t0 = proc_wall();
        next_show = t0 + w->first;
        last_step = NULL;
        stopped_by = 0;
    }
}

bool setup_progress(const char *step, uint64_t done, uint64_t total)
{
    if (!watching)
        return false;
    last_step = step;
    last_share = total ? (double)done / (double)total : 1.0;
    if (watch.stop && *watch.stop) {
        stopped_by = (int)*watch.stop;
        return true;
    }
    if (watch.show) {
        double now = proc_wall();
        if (now >= next_show) {
            next_show = now + watch.every;
            watch.show(watch.ctx, step, last_share);
        }
    }
    return false;
}

int setup_stopped(struct err *e)
{
    return errf(e, "interrupted during set-up (%s)", last_step ? last_step : "before the first step");
}

int setup_signal(void) { return stopped_by; }

const char *setup_last_step(double *share)
{
    if (share)
        *share = last_share;
    return last_step;
}
