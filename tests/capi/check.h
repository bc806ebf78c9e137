/* CHECK(cond) for the C API tests: a failed condition is reported with the
   library's last error and counted in `failures`; the test goes on. */
#ifndef CANOPY_TEST_CHECK_H
#define CANOPY_TEST_CHECK_H
#include <canopy.h>
#include <stdio.h>

static int failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "FAIL %s:%d: %s (last error: %s)\n", __FILE__, \
              __LINE__, #cond, canopy_last_error());                  \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

#endif
