/*
 * Parsed environment (see env_table.h, the only list of variables).
 */
#ifndef SHMI_ENV_H
#define SHMI_ENV_H

#include <stddef.h>
#include <stdio.h>

/* The C type each TYPE column parses into. */
typedef int shmi_env_BOOL_t;
typedef long shmi_env_INT_t;
typedef size_t shmi_env_SIZE_t;
typedef const char *shmi_env_STRING_t;  /* never NULL; "" when empty */
typedef const char *shmi_env_CHOICE_t;  /* one of the listed words */

typedef struct shmi_env {
#define SHMI_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP) shmi_env_##TYPE##_t NAME;
#include "services/env_table.h"
#undef SHMI_ENV
} shmi_env_t;

extern shmi_env_t shmi_env;

/* Reads every variable from the environment into shmi_env. On a bad value
 * returns SHMI_EINVAL and writes a message naming the variable, the value and
 * the accepted form into err (errlen bytes). */
int shmi_env_load(char *err, size_t errlen);

/* Prints the table (name, value, default, help) to out, grouped by category;
 * used by SHMEM_INFO=1 and shmem_info --env. */
void shmi_env_print(FILE *out);

/* Writes docs/env.md (Markdown) to out. */
void shmi_env_print_markdown(FILE *out);

/*
 * The specification's SHMEM_SYMMETRIC_SIZE form: an integer or floating
 * value with an optional k/K/m/M/g/G/t/T suffix (powers of 2), as the
 * specification's examples define it (size_parse.c cites them); the result is
 * at least the integer ceiling of the product. Returns 0 or SHMI_EINVAL.
 */
int shmi_size_parse(const char *text, size_t *bytes);

#endif /* SHMI_ENV_H */
