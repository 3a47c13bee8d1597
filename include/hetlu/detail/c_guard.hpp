// The C API's error boundary, shared by libhetlu's C functions and libhetlu_distributed's: no
// exception crosses it; the status says what kind of failure, hetlu_last_error() what and where.
#pragma once

#include <new>
#include <string>
#include <utility>

#include "hetlu/hetlu.h"
#include "hetlu/types.hpp"

namespace hetlu::detail {

// Sets what hetlu_last_error() returns on this thread (libhetlu holds it).
void set_last_error(const std::string& message);
void clear_last_error();  // no string built: every successful call clears it

template <class Body>
hetlu_status c_guarded(Body&& body) {
  clear_last_error();
  try {
    return body();
  } catch (const hetlu::InvalidArgument& e) {
    set_last_error(e.what());
    return HETLU_ERROR_INVALID_ARGUMENT;
  } catch (const std::bad_alloc&) {
    set_last_error("out of memory");
    return HETLU_ERROR_OUT_OF_MEMORY;
  } catch (const hetlu::DeviceOutOfMemory& e) {  // a device's memory, said with its sizes
    set_last_error(e.what());
    return HETLU_ERROR_OUT_OF_MEMORY;
  } catch (const hetlu::NotAvailable& e) {
    set_last_error(e.what());
    return HETLU_ERROR_NOT_AVAILABLE;
  } catch (const std::exception& e) {
    set_last_error(e.what());
    return HETLU_ERROR_INTERNAL;
  } catch (...) {
    set_last_error("an exception of unknown type");
    return HETLU_ERROR_INTERNAL;
  }
}

// c_guarded with *info set on every failure other than a singular (or, info = n + 1, singular to
// working precision) matrix, to -status (never an
// argument's position): a caller that reads only info, as LAPACK's do, still sees the call failed.
template <class Body>
hetlu_status c_guarded_info(int* info, Body&& body) {
  const hetlu_status status = c_guarded(std::forward<Body>(body));
  if (info && status != HETLU_SUCCESS && status != HETLU_ERROR_SINGULAR && status != HETLU_ERROR_ILL_CONDITIONED)
    *info = -static_cast<int>(status);
  return status;
}

}  // namespace hetlu::detail
