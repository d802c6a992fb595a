/*
 * The core symbol the bootstrap uses (the heap objects' names), for test
 * programs that link src/boot alone and not the whole library (logging
 * comes from src/services/error.c, which needs nothing above it).
 */
#include "config.h"

#include "core/heap/shm_names.h"

/* The heap's names in /dev/shm: a program without a heap has none. */
void shmi_shm_names_abandon(const char *jobid)
{
    (void)jobid;
}
