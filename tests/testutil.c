#include "testutil.h"
#include <stdlib.h>
#include <string.h>

int fuzz_iterations(int normal)
{
    const char *s = getenv("ROCESIM_SANITIZED");
    return (s && *s == '1') ? normal / 10 + 1 : normal;
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Byte flips, inserts of interesting characters, deletions, duplications and
 * truncations: cheap, deterministic, and good at finding parser crashes. */
size_t fuzz_mutate(char *buf, size_t len, size_t cap, uint64_t *st)
{
    static const char interesting[] = " \t\n=.-:#;[]0123456789eE+xGgMmKkuns%/\\\"'\0\xff";
    int n = 1 + (int)(next(st) % 4);
    for (int i = 0; i < n; i++) {
        uint64_t r = next(st);
        size_t pos = len ? (size_t)(r >> 8) % len : 0;
        switch (r % 6) {
        case 0: if (len) buf[pos] = (char)(next(st) & 0xff); break;
        case 1: if (len < cap) { memmove(buf + pos + 1, buf + pos, len - pos); buf[pos] = interesting[next(st) % (sizeof interesting - 1)]; len++; } break;
        case 2: if (len) { memmove(buf + pos, buf + pos + 1, len - pos - 1); len--; } break;
        case 3: { size_t l = 1 + next(st) % 16; if (pos + l <= len && len + l <= cap) { memmove(buf + pos + l, buf + pos, len - pos); len += l; } } break;
        case 4: len = pos; break;
        case 5: if (len) buf[pos] = interesting[next(st) % (sizeof interesting - 1)]; break;
        }
    }
    return len;
}
