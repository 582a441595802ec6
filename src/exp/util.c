/* Shared helpers of the experiments layer (util.h): the bottom of src/exp/. */
#include "exp/util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/xalloc.h"

char *exp_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = 0, cap = 65536;
    char *t = xmalloc(cap);
    size_t k;
    while ((k = fread(t + n, 1, cap - 1 - n, f)) > 0)
        if ((n += k) + 1 == cap)
            t = xrealloc(t, cap *= 2);
    fclose(f);
    t[n] = 0;
    if (len)
        *len = n;
    return t;
}

bool exp_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int exp_mkdirs(const char *path)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) < 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

bool exp_on_path(const char *prog)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    char buf[1024];
    for (const char *p = path; *p;) {
        size_t l = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)l, p, prog);
        if (l && access(buf, X_OK) == 0)
            return true;
        p += l + (p[l] == ':');
    }
    return false;
}

bool exp_have_gnuplot(void)
{
    return exp_on_path("gnuplot");
}

int exp_gnuplot(const char *dir, const char *script)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (chdir(dir) < 0)
            _exit(126);
        /* its warnings into a log, shown only on failure */
        int fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0666);
        if (fd >= 0) {
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

const char *exp_experiments_dir(void)
{
    const char *env = getenv("ROCESIM_EXPERIMENTS");
    if (env && *env)
        return env;
    if (access("experiments", R_OK) == 0)
        return "experiments";
    return ROCESIM_SOURCE_DIR "/experiments";
}
