/*
 * Jobs oshrun does not host itself: hand them to srun --mpi=pmix (inside a
 * Slurm allocation, or on request) or to Open MPI's mpirun, translating
 * oshrun's options to theirs.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/oshrun.h"

/* Up to this many launcher words come before the program's own. */
#define MAX_WORDS 16

/* "-x VAR=VAL": srun passes our whole environment, so set it here. */
static void export_env(const oshrun_opts_t *o)
{
    for (int i = 0; i < o->n_env; i++) {
        char *eq = strchr(o->env[i], '=');

        if (eq) {
            *eq = '\0';
            setenv(o->env[i], eq + 1, 1);
            *eq = '=';
        }
    }
}

static const char *srun_bind(const char *bind)
{
    if (!strcmp(bind, "core"))
        return "--cpu-bind=cores";
    return !strcmp(bind, "numa") ? "--cpu-bind=ldoms" : "--cpu-bind=none";
}

static int srun_words(const oshrun_opts_t *o, char **w, char *np)
{
    int n = 0;

    export_env(o);
    w[n++] = "srun";
    w[n++] = "--mpi=pmix";
    w[n++] = "-K"; /* without it the others would wait in a fence forever */
    w[n++] = "-n";
    w[n++] = np;
    if (o->tag_output)
        w[n++] = "--label";
    if (o->bind)
        w[n++] = (char *)srun_bind(o->bind);
    return n;
}

static int mpirun_words(const oshrun_opts_t *o, char **w, char *np)
{
    int n = 0;

    w[n++] = access("/usr/bin/mpirun.openmpi", X_OK) == 0 ? "mpirun.openmpi"
                                                          : "mpirun";
    w[n++] = "--allow-run-as-root";
    w[n++] = "--oversubscribe";
    w[n++] = "-np";
    w[n++] = np;
    if (o->tag_output)
        w[n++] = "--tag-output";
    if (o->bind) {
        w[n++] = "--bind-to";
        w[n++] = (char *)o->bind;
    }
    return n;
}

int oshrun_delegate(const oshrun_opts_t *o, const char *launcher)
{
    char np[16], ipath[] = OSHRUN_NO_IPATH_HANDLERS;
    int is_srun = strcmp(launcher, "srun") == 0, n, nargs = 0;
    char **argv;

    /* Both launchers pass it on: srun the whole environment, mpirun with
     * -x below. */
    *strchr(ipath, '=') = '\0';
    setenv(ipath, ipath + strlen(ipath) + 1, 0);

    while (o->argv[nargs])
        nargs++;
    argv =
        calloc((size_t)(MAX_WORDS + 2 * o->n_env + nargs + 1), sizeof(char *));
    if (!argv)
        return 1;
    snprintf(np, sizeof(np), "%d", o->npes);
    n = is_srun ? srun_words(o, argv, np) : mpirun_words(o, argv, np);
    for (int i = 0; !is_srun && i < o->n_env; i++) {
        argv[n++] = "-x";
        argv[n++] = o->env[i];
    }
    if (!is_srun) {
        argv[n++] = "-x";
        argv[n++] = ipath;
    }
    for (int i = 0; i < nargs; i++)
        argv[n++] = o->argv[i];
    argv[n] = NULL;
    fflush(NULL);
    execvp(argv[0], argv);
    oshrun_msg("cannot run %s: %s%s", argv[0], strerror(errno),
               is_srun ? " (is Slurm installed?)"
                       : " (is Open MPI installed? Debian: openmpi-bin)");
    free(argv);
    return 127;
}
