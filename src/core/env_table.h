/*
 * THE table of environment variables. Every variable Weft reads is declared
 * here once; the parsed struct (shmi_env), the SHMEM_INFO=1 printout,
 * `shmem_info --env` and docs/env.md are all generated from it. Defaults
 * appear nowhere else.
 *
 * SHMI_ENV(NAME, TYPE, DEFAULT, CATEGORY, HELP)
 *   NAME     the variable is SHMEM_<NAME> (legacy SMA_<NAME> is also read,
 *            SHMEM_ taking precedence); the parsed value is shmi_env.NAME
 *   TYPE     BOOL (0/1/yes/no/true/false/on/off), INT (decimal long),
 *            SIZE (the specification's size form: 1.5g, 20kk, ...),
 *            STRING (free text), CHOICE ("a|b|c": one of the words listed
 *            first in HELP before the colon)
 *   DEFAULT  text parsed exactly as a user value would be
 *   CATEGORY "report", "heap", "transport", "placement", "collectives",
 *            "device", "launch"
 *   HELP     one line; for CHOICE it starts with "a|b|c:"
 *
 * This file is included several times with different SHMI_ENV definitions;
 * it has no include guard on purpose.
 */
SHMI_ENV(VERSION, BOOL, "0", "report",
         "Print the library version at start-up (PE 0)")
SHMI_ENV(INFO, BOOL, "0", "report",
         "Print the library version and every variable with its value at start-up (PE 0)")
SHMI_ENV(DEBUG, BOOL, "0", "report",
         "Print debugging messages and enable the costlier argument checks")
SHMI_ENV(SYMMETRIC_SIZE, SIZE, "256m", "heap",
         "Bytes of symmetric heap per PE (k/m/g/t suffixes, powers of 2; reserved lazily)")
SHMI_ENV(LOCAL, BOOL, "1", "transport",
         "Reach the memory of PEs on this node by load/store; 0 sends all traffic through libfabric")
SHMI_ENV(OFI_PROVIDER, STRING, "", "transport",
         "libfabric provider to use (e.g. shm, tcp;ofi_rxm, sockets, cxi); empty: FI_PROVIDER, else by preference")
SHMI_ENV(OFI_DOMAIN, STRING, "", "transport",
         "libfabric domain (NIC) to use; empty: the one nearest to this PE")
SHMI_ENV(WAIT_SPIN, INT, "2000", "transport",
         "Polls of a waited-on word before a waiting PE starts to yield the core")
SHMI_ENV(BIND, CHOICE, "none", "placement",
         "core|numa|none: bind each PE to a core or a NUMA domain near its NIC and GPU")
