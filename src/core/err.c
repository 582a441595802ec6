#include "core/err.h"
#include <stdio.h>

int errf(struct err *e, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int muted;

int warn_mute(int on)
{
    int was = muted;
    muted = on;
    return was;
}

void warnf(const char *fmt, ...)
{
    if (muted)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("rocesim: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
