/* oshrun's command line. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/oshrun.h"

void oshrun_usage(FILE *out)
{
    fputs("usage: oshrun -n N [options] program [args...]\n"
          "Start N PEs of an OpenSHMEM program.\n\n"
          "  -n, -np N            number of PEs (at least 1)\n"
          "  -x VAR[=VAL]         give VAR (with VAL, or its value here) to "
          "every PE\n"
          "  --tag-output         prefix every output line with \"[pe N] \"\n"
          "  --bind core|numa|none\n"
          "                       bind each PE to a core or NUMA domain "
          "(sets SHMEM_BIND)\n"
          "  --launcher local|srun|mpirun\n"
          "                       local: oshrun hosts the PEs on this node "
          "(default\n"
          "                       outside Slurm); srun: srun --mpi=pmix "
          "(default inside\n"
          "                       a Slurm allocation); mpirun: Open MPI's "
          "mpirun\n"
          "  -h, --help           show this help\n\n"
          "stdin goes to PE 0. SIGINT, SIGTERM and every other signal that "
          "would end\noshrun (SIGHUP, SIGUSR1, SIGALRM, ...) are passed to "
          "every PE and end the job\nwith status 128+N. When a PE fails, the "
          "others are stopped and oshrun exits\nwith that PE's status (128+N "
          "for signal N).\n",
          out);
}

static int usage_error(const char *fmt, const char *arg)
{
    fputs("oshrun: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(oshrun --help shows the options)\n", stderr);
    return OSHRUN_EUSAGE;
}

static int parse_npes(const char *text, int *npes)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(text, &end, 10);
    if (errno || end == text || *end || n < 1 || n > 1000000)
        return usage_error("-n needs a number of PEs of at least 1, not '%s'",
                           text);
    *npes = (int)n;
    return 0;
}

/* Is the part of "VAR[=VALUE]" before any '=' a name a shell could export
 * ([A-Za-z_][A-Za-z0-9_]*)? Others could not be read back by the PE, and
 * one holding '=' or a space would give it a variable the user did not
 * mean. */
static int env_name_ok(const char *entry)
{
    size_t n = strcspn(entry, "=");

    if (n == 0 || !(isalpha((unsigned char)entry[0]) || entry[0] == '_'))
        return 0;
    for (size_t k = 1; k < n; k++)
        if (!(isalnum((unsigned char)entry[k]) || entry[k] == '_'))
            return 0;
    return 1;
}

/* Value of an option given as "--opt=value" or "--opt value". */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);

    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int is_opt(const char *arg, const char *name)
{
    size_t n = strlen(name);

    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_one(int argc, char **argv, int *i, oshrun_opts_t *o)
{
    const char *a = argv[*i], *v;

    if (is_opt(a, "-n") || is_opt(a, "-np") || is_opt(a, "--np")) {
        v = opt_value(argc, argv, i,
                      is_opt(a, "-n")    ? "-n"
                      : is_opt(a, "-np") ? "-np"
                                         : "--np");
        return v ? parse_npes(v, &o->npes) : usage_error("%s needs a value", a);
    }
    if (is_opt(a, "-x")) {
        v = opt_value(argc, argv, i, "-x");
        if (!v || !*v || *v == '=')
            return usage_error("%s needs VAR or VAR=VALUE", a);
        if (!env_name_ok(v))
            return usage_error("-x takes VAR or VAR=VALUE with VAR a variable "
                               "name (letters, digits and _, not starting "
                               "with a digit), not '%s'",
                               v);
        o->env[o->n_env++] = (char *)v;
        return 0;
    }
    if (strcmp(a, "--tag-output") == 0) {
        o->tag_output = 1;
        return 0;
    }
    if (is_opt(a, "--bind")) {
        v = opt_value(argc, argv, i, "--bind");
        if (!v || (strcmp(v, "core") && strcmp(v, "numa") && strcmp(v, "none")))
            return usage_error("--bind takes core, numa or none, not '%s'",
                               v ? v : "");
        o->bind = v;
        return 0;
    }
    if (is_opt(a, "--launcher")) {
        v = opt_value(argc, argv, i, "--launcher");
        if (!v ||
            (strcmp(v, "local") && strcmp(v, "srun") && strcmp(v, "mpirun")))
            return usage_error("--launcher takes local, srun or mpirun, not "
                               "'%s'",
                               v ? v : "");
        o->launcher = v;
        return 0;
    }
    return usage_error("unknown option '%s'", a);
}

void oshrun_opts_free(oshrun_opts_t *o)
{
    free(o->env); /* its entries point into argv */
    o->env = NULL;
    o->n_env = 0;
}

static int parse_all(int argc, char **argv, oshrun_opts_t *o)
{
    int i, ret;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            oshrun_opts_free(o);
            oshrun_usage(stdout);
            exit(0);
        }
        ret = parse_one(argc, argv, &i, o);
        if (ret)
            return ret;
    }
    if (o->npes == 0)
        return usage_error("%s", "give the number of PEs with -n N");
    if (i >= argc)
        return usage_error("%s", "no program to run");
    o->argv = argv + i;
    return 0;
}

int oshrun_parse(int argc, char **argv, oshrun_opts_t *o)
{
    int ret;

    memset(o, 0, sizeof(*o));
    o->env = calloc((size_t)argc, sizeof(char *));
    if (!o->env)
        return 1;
    ret = parse_all(argc, argv, o);
    /* A job oshrun hosts itself (the launcher main() chooses) must fit
     * this node; srun and mpirun judge their own. Before anything starts,
     * so that -n 100000 is refused at once. */
    if (!ret && (o->launcher ? strcmp(o->launcher, "local") == 0
                             : !getenv("SLURM_JOB_ID")))
        ret = oshrun_limits_check(o->npes);
    if (ret)
        oshrun_opts_free(o);
    return ret;
}
