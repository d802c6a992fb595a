/*
 * The core's host path, as a transport that moves data over it is handed
 * it (transports/transport.h, shmt_host_t; host_path.c).
 */
#ifndef SHMI_HOST_PATH_H
#define SHMI_HOST_PATH_H

#include "transports/transport.h"

/* The table, its fabric_up set: path_start.c hands it to the transports in the
 * job before they start (fabric_up: 1 when a network transport started). */
const shmt_host_t *shmi_host_path(int fabric_up);

#endif /* SHMI_HOST_PATH_H */
