/**
 * @file canopy.h
 * Canopy: topology-aware communication toolkit for MPI clusters — public C API.
 *
 * Every exported symbol has the `canopy_` prefix; every call returns a
 * ::canopy_status_t. No call writes to stdout, throws, or exits; diagnostics
 * go to stderr by level (CANOPY_LOG_LEVEL) and the detail of the last failure
 * on the calling thread is available from canopy_last_error().
 */
#ifndef CANOPY_H
#define CANOPY_H

#include <canopy/status.h>
#include <canopy/config.h>
#include <canopy/topology.h>
#include <canopy/service.h>

#endif
