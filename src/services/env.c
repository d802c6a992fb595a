/*
 * The environment table at run time: parsing, the SHMEM_INFO printout and
 * docs/env.md, all driven by env_table.h (see env.h).
 */
#include "config.h"

#include "services/env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "services/error.h"

shmi_env_t shmi_env;

extern char **environ; /* POSIX; declared by unistd.h only with _GNU_SOURCE */

typedef enum env_type {
    ENV_BOOL,
    ENV_INT,
    ENV_SIZE,
    ENV_STRING,
    ENV_CHOICE
} env_type_t;

/* Where a value came from, for the printout. */
typedef enum env_source {
    ENV_FROM_DEFAULT,
    ENV_FROM_SHMEM,
    ENV_FROM_SMA
} env_source_t;

/* One row of env_table.h, with where its value lives in shmi_env_t. */
typedef struct env_var {
    const char *name; /* without prefix: "SYMMETRIC_SIZE" */
    env_type_t type;
    const char *def;
    const char *category;
    const char *help;
    size_t offset; /* of the field in shmi_env_t */
} env_var_t;

static const env_var_t env_vars[] = {
#define SHMI_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP)                          \
    {#NAME, ENV_##TYPE, DEFAULT, CATEGORY, HELP, offsetof(shmi_env_t, NAME)},
#include "services/env_table.h"
#undef SHMI_ENV
};

#define ENV_COUNT (sizeof(env_vars) / sizeof(env_vars[0]))

/* The SHMI_ENV_RANGE lines of env_table.h: the values an INT row accepts. */
typedef struct env_range {
    const char *name;
    long min, max;
} env_range_t;

static const env_range_t env_ranges[] = {
#define SHMI_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP)
#define SHMI_ENV_RANGE(NAME, MIN, MAX) {#NAME, MIN, MAX},
#include "services/env_table.h"
#undef SHMI_ENV_RANGE
#undef SHMI_ENV
};

/* The range of INT row v: its SHMI_ENV_RANGE, else any long. */
static env_range_t env_range_of(const env_var_t *v)
{
    env_range_t any = {v->name, LONG_MIN, LONG_MAX};

    for (size_t i = 0; i < sizeof(env_ranges) / sizeof(env_ranges[0]); i++)
        if (!strcmp(env_ranges[i].name, v->name))
            return env_ranges[i];
    return any;
}

/* Per variable: where the current value came from, and the owned copy of a
 * STRING/CHOICE value (so setenv() after loading cannot change it). A
 * STRING/CHOICE pointer in shmi_env stays valid until the next
 * shmi_env_load. */
static env_source_t env_sources[ENV_COUNT];
static char *env_strings[ENV_COUNT];

/*
 * The specification gives SHMEM_VERSION, SHMEM_INFO and SHMEM_DEBUG the
 * value "Any": being set at all turns them on. Weft still reads 0/no/false/
 * off as off, but any other text (even empty) means on for these three.
 */
static int env_is_spec_any(const char *name)
{
    return !strcmp(name, "VERSION") || !strcmp(name, "INFO") ||
           !strcmp(name, "DEBUG");
}

static void *env_field(shmi_env_t *env, const env_var_t *v)
{
    return (char *)env + v->offset;
}

static void env_accepted_int(const env_var_t *v, char *buf, size_t len)
{
    env_range_t r = env_range_of(v);

    if (r.min == LONG_MIN && r.max == LONG_MAX)
        snprintf(buf, len, "a decimal integer");
    else if (r.max == LONG_MAX)
        snprintf(buf, len, "a decimal integer of at least %ld", r.min);
    else
        snprintf(buf, len, "a decimal integer from %ld to %ld", r.min, r.max);
}

/* The accepted form of a variable, for error messages and the docs. */
static void env_accepted(const env_var_t *v, char *buf, size_t len)
{
    const char *colon;

    switch (v->type) {
    case ENV_BOOL:
        snprintf(buf, len, "%s",
                 env_is_spec_any(v->name)
                     ? "any value turns it on; 0, no, false or off turn it off"
                     : "0/1, yes/no, true/false or on/off");
        break;
    case ENV_INT: env_accepted_int(v, buf, len); break;
    case ENV_SIZE:
        snprintf(buf, len,
                 "%sa positive number with at most one k/K, m/M, "
                 "g/G or t/T suffix (powers of 2), e.g. 512m, 1.5g, .5k",
                 strcmp(v->name, "SYMMETRIC_SIZE") ? "0 or " : "");
        break;
    case ENV_CHOICE:
        colon = strchr(v->help, ':');
        snprintf(buf, len, "one of %.*s",
                 (int)(colon ? colon - v->help : (ptrdiff_t)strlen(v->help)),
                 v->help);
        break;
    default: snprintf(buf, len, "%s", "any text"); break;
    }
}

static int env_parse_bool(const env_var_t *v, const char *text, int *out)
{
    static const char *const on[] = {"1", "yes", "true", "on", "y"};
    static const char *const off[] = {"0", "no", "false", "off", "n"};

    for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
        if (!strcasecmp(text, on[i])) {
            *out = 1;
            return 0;
        }
        if (!strcasecmp(text, off[i])) {
            *out = 0;
            return 0;
        }
    }
    if (env_is_spec_any(v->name)) {
        *out = 1;
        return 0;
    }
    return SHMI_EINVAL;
}

static int env_parse_int(const env_var_t *v, const char *text, long *out)
{
    env_range_t r = env_range_of(v);
    char *end;
    long val;

    errno = 0;
    val = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE ||
        isspace((unsigned char)*text) || val < r.min || val > r.max)
        return SHMI_EINVAL;
    *out = val;
    return 0;
}

/* Is text one of the '|'-separated words before the colon of the help? */
static int env_choice_ok(const env_var_t *v, const char *text)
{
    const char *w = v->help;
    size_t len = strlen(text);

    if (len == 0)
        return 0;
    for (;;) {
        size_t wl = strcspn(w, "|:");

        if (wl == len && !strncmp(w, text, len))
            return 1;
        if (w[wl] != '|')
            return 0;
        w += wl + 1;
    }
}

/* Parses text into the field of v in env; 0 or SHMI_EINVAL. */
static int env_parse_one(const env_var_t *v, const char *text, shmi_env_t *env)
{
    void *field = env_field(env, v);
    size_t bytes;
    int rc = 0;

    switch (v->type) {
    case ENV_BOOL:
        rc = env_parse_bool(v, text, (shmi_env_BOOL_t *)field);
        break;
    case ENV_INT: rc = env_parse_int(v, text, (shmi_env_INT_t *)field); break;
    case ENV_SIZE:
        /* Weft's own size variables may be 0 (off); the specification's
         * SHMEM_SYMMETRIC_SIZE must be positive. */
        if (!strcmp(text, "0") && strcmp(v->name, "SYMMETRIC_SIZE")) {
            *(shmi_env_SIZE_t *)field = 0;
            break;
        }
        rc = shmi_size_parse(text, &bytes);
        if (rc == 0)
            *(shmi_env_SIZE_t *)field = bytes;
        break;
    case ENV_CHOICE: rc = env_choice_ok(v, text) ? 0 : SHMI_EINVAL; break;
    case ENV_STRING: break; /* the caller stores a copy of the text */
    }
    return rc;
}

/*
 * The user's text for v: SHMEM_<NAME>, else the deprecated SMA_<NAME> (the
 * specification makes SHMEM_ the controlling value when both are set), else
 * NULL. An empty value counts as unset, except for the "Any" variables and
 * STRING variables, where empty is a value.
 */
static const char *env_lookup(const env_var_t *v, char *varname, size_t len,
                              env_source_t *src)
{
    static const char *const prefixes[] = {"SHMEM_", "SMA_"};
    static const env_source_t sources[] = {ENV_FROM_SHMEM, ENV_FROM_SMA};

    for (int i = 0; i < 2; i++) {
        const char *text;

        snprintf(varname, len, "%s%s", prefixes[i], v->name);
        text = getenv(varname);
        if (!text)
            continue;
        if (text[0] == '\0' && v->type != ENV_STRING &&
            !(v->type == ENV_BOOL && env_is_spec_any(v->name)))
            continue;
        *src = sources[i];
        return text;
    }
    *src = ENV_FROM_DEFAULT;
    return NULL;
}

/* Is the environment entry "PREFIX_NAME=value" a variable of the table? */
static int env_is_known(const char *entry, size_t prefix_len)
{
    const char *name = entry + prefix_len;
    size_t len = strcspn(name, "=");

    for (size_t i = 0; i < ENV_COUNT; i++)
        if (strlen(env_vars[i].name) == len &&
            !strncmp(env_vars[i].name, name, len))
            return 1;
    return 0;
}

/*
 * Calls fn(entry, arg) for every SHMEM_ or SMA_ variable of the environment
 * that the table does not know: most likely a typo, reported rather than
 * silently ignored.
 */
static void env_for_each_unknown(void (*fn)(const char *, void *), void *arg)
{
    for (char **e = environ; e && *e; e++) {
        size_t plen = !strncmp(*e, "SHMEM_", 6) ? 6
                      : !strncmp(*e, "SMA_", 4) ? 4
                                                : 0;

        if (plen && !env_is_known(*e, plen))
            fn(*e, arg);
    }
}

static void env_log_unknown(const char *entry, void *arg)
{
    (void)arg;
    SHMI_LOG(SHMI_LOG_INFO, "env", "%.*s is not a Weft variable; ignored",
             (int)strcspn(entry, "="), entry);
}

/* For the printout: the stream, and how many unknown names so far. */
typedef struct env_unknown_out {
    FILE *out;
    int count;
} env_unknown_out_t;

static void env_print_unknown(const char *entry, void *arg)
{
    env_unknown_out_t *u = arg;

    if (u->count++ == 0)
        fprintf(u->out, "  [not Weft variables, ignored]\n");
    fprintf(u->out, "    %.*s\n", (int)strcspn(entry, "="), entry);
}

static void env_free_strings(char **strings)
{
    for (size_t i = 0; i < ENV_COUNT; i++) {
        free(strings[i]);
        strings[i] = NULL;
    }
}

int shmi_env_load(char *err, size_t errlen)
{
    shmi_env_t env;
    env_source_t sources[ENV_COUNT];
    char *strings[ENV_COUNT] = {0};
    char varname[128], accepted[256];
    int rc = 0;

    memset(&env, 0, sizeof(env));
    for (size_t i = 0; i < ENV_COUNT; i++) {
        const env_var_t *v = &env_vars[i];
        const char *text = env_lookup(v, varname, sizeof(varname), &sources[i]);

        if (!text)
            text = v->def;
        rc = env_parse_one(v, text, &env);
        if (rc) {
            env_accepted(v, accepted, sizeof(accepted));
            if (err && errlen)
                snprintf(err, errlen, "%s%s='%s' is invalid: expected %s",
                         sources[i] == ENV_FROM_DEFAULT ? "default of SHMEM_"
                                                        : "",
                         sources[i] == ENV_FROM_DEFAULT ? v->name : varname,
                         text, accepted);
            goto free_strings;
        }
        if (v->type == ENV_STRING || v->type == ENV_CHOICE) {
            strings[i] = strdup(text);
            if (!strings[i]) {
                rc = SHMI_ENOMEM;
                if (err && errlen)
                    snprintf(err, errlen, "out of memory reading %s", varname);
                goto free_strings;
            }
            *(const char **)env_field(&env, v) = strings[i];
        }
    }

    env_free_strings(env_strings);
    memcpy(env_strings, strings, sizeof(strings));
    memcpy(env_sources, sources, sizeof(sources));
    shmi_env = env;
    if (shmi_env.DEBUG)
        shmi_log_level = SHMI_LOG_DEBUG;
    env_for_each_unknown(env_log_unknown, NULL);
    return 0;

free_strings:
    env_free_strings(strings);
    return rc;
}

/* The value of v in shmi_env as text ("256m (268435456)" for sizes). */
static void env_value_text(const env_var_t *v, char *buf, size_t len)
{
    static const char units[] = "kmgt";
    const void *field = env_field(&shmi_env, v);
    size_t bytes;
    int u = -1;

    switch (v->type) {
    case ENV_BOOL:
        snprintf(buf, len, "%d", *(const shmi_env_BOOL_t *)field);
        break;
    case ENV_INT:
        snprintf(buf, len, "%ld", *(const shmi_env_INT_t *)field);
        break;
    case ENV_SIZE:
        bytes = *(const shmi_env_SIZE_t *)field;
        for (int i = 3; i >= 0 && u < 0; i--) {
            size_t unit = (size_t)1 << (10 * (i + 1));

            if (bytes >= unit && bytes % unit == 0)
                u = i;
        }
        if (u >= 0)
            snprintf(buf, len, "%zu%c (%zu bytes)", bytes >> (10 * (u + 1)),
                     units[u], bytes);
        else
            snprintf(buf, len, "%zu bytes", bytes);
        break;
    default: {
        const char *s = *(const char *const *)field;

        snprintf(buf, len, "%s", s ? s : "");
        break;
    }
    }
}

/* Is row i the first of its category? Categories print in the order the
 * table first names them. */
static int env_category_first(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (!strcmp(env_vars[j].category, env_vars[i].category))
            return 0;
    return 1;
}

void shmi_env_print(FILE *out)
{
    env_unknown_out_t unknown = {out, 0};
    static const char *const from[] = {"", "SHMEM_", "SMA_"};
    char value[128];

    fprintf(out, "Environment variables (SHMEM_<NAME>; the deprecated "
                 "SMA_<NAME> is read when SHMEM_<NAME> is unset):\n");
    for (size_t c = 0; c < ENV_COUNT; c++) {
        if (!env_category_first(c))
            continue;
        fprintf(out, "  [%s]\n", env_vars[c].category);
        for (size_t i = c; i < ENV_COUNT; i++) {
            const env_var_t *v = &env_vars[i];

            if (strcmp(v->category, env_vars[c].category))
                continue;
            env_value_text(v, value, sizeof(value));
            fprintf(out, "    SHMEM_%-22s = %-24s", v->name, value);
            if (env_sources[i] == ENV_FROM_DEFAULT)
                fprintf(out, " (default)\n");
            else
                fprintf(out, " (from %s%s; default \"%s\")\n",
                        from[env_sources[i]], v->name, v->def);
            fprintf(out, "        %s\n", v->help);
        }
    }
    env_for_each_unknown(env_print_unknown, &unknown);
}

/* The help of v without the "a|b|c:" list of a CHOICE. */
static const char *env_help_text(const env_var_t *v)
{
    const char *colon = strchr(v->help, ':');

    if (v->type != ENV_CHOICE || !colon)
        return v->help;
    for (colon++; *colon == ' '; colon++)
        ;
    return colon;
}

/* Writes text into a Markdown table cell ('|' would end the cell). */
static void md_cell(FILE *out, const char *text)
{
    for (; *text; text++) {
        if (*text == '|')
            fputc('\\', out);
        fputc(*text, out);
    }
}

void shmi_env_print_markdown(FILE *out)
{
    char accepted[256];

    fprintf(out,
            "# Environment variables\n\n"
            "<!-- Generated by `make env-doc` (shmem_info --env-markdown) from "
            "src/services/env_table.h; DO NOT EDIT. -->\n\n"
            "Weft reads every variable below at `shmem_init` as "
            "`SHMEM_<NAME>`; the deprecated `SMA_<NAME>` is read too, and "
            "`SHMEM_<NAME>` wins when both are set. An empty value counts as "
            "unset (except for `SHMEM_VERSION`, `SHMEM_INFO` and "
            "`SHMEM_DEBUG`, which any value turns on, as the specification "
            "says). An invalid value stops the program with a message that "
            "names the variable, the value and the accepted form. "
            "`SHMEM_INFO=1` prints the values in use; `shmem_info --env` "
            "prints them without starting a job.\n\n"
            "Sizes follow the OpenSHMEM specification: a positive integer or "
            "decimal number with at most one suffix k/K (2^10), m/M (2^20), "
            "g/G (2^30) or t/T (2^40), rounded up to a whole byte: `20m` is "
            "20971520, `3.1m` is 3250586, `.5k` is 512, `20kk` is an "
            "error.\n");
    for (size_t c = 0; c < ENV_COUNT; c++) {
        if (!env_category_first(c))
            continue;
        fprintf(out,
                "\n## %s\n\n| Variable | Default | Accepted | "
                "Description |\n|---|---|---|---|\n",
                env_vars[c].category);
        for (size_t i = c; i < ENV_COUNT; i++) {
            const env_var_t *v = &env_vars[i];

            if (strcmp(v->category, env_vars[c].category))
                continue;
            env_accepted(v, accepted, sizeof(accepted));
            fprintf(out, "| `SHMEM_%s` | `%s` | ", v->name,
                    v->def[0] ? v->def : "(empty)");
            md_cell(out, accepted);
            fputs(" | ", out);
            md_cell(out, env_help_text(v));
            fputs(" |\n", out);
        }
    }
}
