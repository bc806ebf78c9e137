/** @file canopy/status.h  Status codes shared by every Canopy call. */
#ifndef CANOPY_STATUS_H
#define CANOPY_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

/** Marks the symbols exported by libcanopy.so. */
#define CANOPY_API __attribute__((visibility("default")))

/** Outcome of every Canopy call. */
typedef enum canopy_status {
  CANOPY_SUCCESS = 0,         /**< The call did what it was asked. */
  CANOPY_ERR_INVALID_ARG,     /**< A null handle, a bad size, an unknown name. */
  CANOPY_ERR_NO_MEMORY,       /**< An allocation failed. */
  CANOPY_ERR_IO,              /**< A file or socket could not be read or written. */
  CANOPY_ERR_PARSE,           /**< Input is malformed; canopy_last_error() says file:line. */
  CANOPY_ERR_NOT_FOUND,       /**< A host, GUID or parameter is not known. */
  CANOPY_ERR_ROUTE,           /**< Forwarding tables have a hole or a loop for this pair. */
  CANOPY_ERR_UNSUPPORTED,     /**< The request is valid but not implemented for this input. */
  CANOPY_ERR_INTERNAL         /**< A bug in Canopy; please report it. */
} canopy_status_t;

/** A static, human-readable name for @p status (never NULL). */
CANOPY_API const char *canopy_status_string(canopy_status_t status);

/** The message of the last failed call on this thread ("" if none). */
CANOPY_API const char *canopy_last_error(void);

/** The library version, "MAJOR.MINOR.PATCH". */
CANOPY_API const char *canopy_version(void);

#ifdef __cplusplus
}
#endif
#endif
