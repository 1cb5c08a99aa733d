// Small helpers over the OpenCL C API: an error type that carries kite-run's
// one-line message, error-code names, and move-only owners of CL objects.
#pragma once

#include <CL/cl.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace kite::host {

// Every failure kite-run reports: main prints "kite-run: error: <what()>" and
// exits with status 1.
struct RunError : std::runtime_error {
  explicit RunError(const std::string &message) : std::runtime_error(message) {}
};

// "CL_OUT_OF_RESOURCES", or "OpenCL error -1234" for a code we do not know.
std::string cl_error_name(cl_int err);

// Throws RunError("<what>: <CL error name>") unless err is CL_SUCCESS.
void check_cl(cl_int err, std::string_view what);

// Owns one reference to an OpenCL object and releases it on destruction.
template <typename T, cl_int(CL_API_CALL *Release)(T)>
class ClRef {
 public:
  ClRef() = default;
  explicit ClRef(T handle) : handle_(handle) {}
  ClRef(const ClRef &) = delete;
  ClRef &operator=(const ClRef &) = delete;
  ClRef(ClRef &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  ClRef &operator=(ClRef &&other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  ~ClRef() { reset(); }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != nullptr; }
  void reset() {
    if (handle_) Release(handle_);
    handle_ = nullptr;
  }

 private:
  T handle_ = nullptr;
};

using Context = ClRef<cl_context, clReleaseContext>;
using Queue = ClRef<cl_command_queue, clReleaseCommandQueue>;
using Program = ClRef<cl_program, clReleaseProgram>;
using Kernel = ClRef<cl_kernel, clReleaseKernel>;
using Buffer = ClRef<cl_mem, clReleaseMemObject>;

}  // namespace kite::host
