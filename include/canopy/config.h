/**
 * @file canopy/config.h  The parameter registry.
 *
 * Every tunable of Canopy is one named parameter with a type, a default and a
 * doc string. Its value comes, in increasing priority, from the default, the
 * JSON file named by CANOPY_CONFIG_FILE (an object of "name": value), and the
 * environment variable CANOPY_<NAME> (upper case). `canopy info --config`
 * prints each value with its source.
 */
#ifndef CANOPY_CONFIG_H
#define CANOPY_CONFIG_H

#include <canopy/status.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes the current value of parameter @p name as text into @p buf
 * (NUL-terminated, truncated to @p len). CANOPY_ERR_NOT_FOUND for an unknown name.
 */
CANOPY_API canopy_status_t canopy_config_get(const char *name, char *buf, int len);

#ifdef __cplusplus
}
#endif
#endif
