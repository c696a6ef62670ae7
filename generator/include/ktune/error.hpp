#pragma once
// ktune's exceptions, thrown at API boundaries and caught by type. Every one is a
// ktune::Error, whose message carries the context (instance, options, file, log).
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ktune {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad argument or input: a call's sizes, pointers or dtypes, an option, an expression,
// a kernel description, a file's content. Nothing was launched or written.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A CUDA driver call failed: result() is its CUresult (CUDA_ERROR_*), call() the call.
class CudaError : public Error {
 public:
  CudaError(int result, std::string call, const std::string& message)
      : Error(message), result_(result), call_(std::move(call)) {}
  int result() const noexcept { return result_; }
  const std::string& call() const noexcept { return call_; }
  // A sticky error: the context answers every later call with it, so nothing more can
  // run in it (a kernel faulted, or was stopped for taking too long).
  bool context_lost() const noexcept {
    switch (result_) {
      case 214:  // CUDA_ERROR_ECC_UNCORRECTABLE
      case 700:  // CUDA_ERROR_ILLEGAL_ADDRESS
      case 702:  // CUDA_ERROR_LAUNCH_TIMEOUT
      case 714:  // CUDA_ERROR_HARDWARE_STACK_ERROR
      case 715:  // CUDA_ERROR_ILLEGAL_INSTRUCTION
      case 716:  // CUDA_ERROR_MISALIGNED_ADDRESS
      case 717:  // CUDA_ERROR_INVALID_ADDRESS_SPACE
      case 718:  // CUDA_ERROR_INVALID_PC
      case 719:  // CUDA_ERROR_LAUNCH_FAILED
        return true;
      default:
        return false;
    }
  }

 private:
  int result_;
  std::string call_;
};

// NVRTC could not compile a program: log() is its compiler log, options() what it was
// given.
class CompileError : public Error {
 public:
  CompileError(const std::string& message, std::string log, std::vector<std::string> options)
      : Error(message), log_(std::move(log)), options_(std::move(options)) {}
  const std::string& log() const noexcept { return log_; }
  const std::vector<std::string>& options() const noexcept { return options_; }

 private:
  std::string log_;
  std::vector<std::string> options_;
};

// A tuning database (or program store) cannot be opened, read or written: path() is the
// file, reason() why. The file was left as it was.
class DatabaseError : public Error {
 public:
  DatabaseError(std::string path, std::string reason)
      : Error("tuning database " + path + ": " + reason), path_(std::move(path)), reason_(std::move(reason)) {}
  // A message of its own, e.g. "tuning database X cannot be used: ... (left as it is)".
  DatabaseError(std::string path, std::string reason, const std::string& message)
      : Error(message), path_(std::move(path)), reason_(std::move(reason)) {}
  const std::string& path() const noexcept { return path_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string path_;
  std::string reason_;
};

}  // namespace ktune
