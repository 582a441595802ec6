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

void warnf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rocesim: warning: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
