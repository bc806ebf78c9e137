// Errors inside Canopy: C++ code throws canopy::Error; every C entry point and
// every tool's main converts it with guard() into a status code plus a message.
#pragma once
#include <canopy/status.h>

#include <stdexcept>
#include <string>

namespace canopy {

class Error : public std::runtime_error {
 public:
  Error(canopy_status_t status, const std::string &message)
      : std::runtime_error(message), status_(status) {}
  canopy_status_t status() const { return status_; }

 private:
  canopy_status_t status_;
};

/** A parse error at @p file : @p line, formatted the way compilers do. */
Error parse_error(const std::string &file, size_t line, const std::string &what);

void set_last_error(const std::string &message);

/** Runs @p body, turning any exception into a status and the thread's last error. */
template <class Body>
canopy_status_t guard(Body &&body) noexcept {
  try {
    body();
    return CANOPY_SUCCESS;
  } catch (const Error &e) {
    set_last_error(e.what());
    return e.status();
  } catch (const std::bad_alloc &) {
    set_last_error("out of memory");
    return CANOPY_ERR_NO_MEMORY;
  } catch (const std::exception &e) {
    set_last_error(e.what());
    return CANOPY_ERR_INTERNAL;
  }
}

}  // namespace canopy
