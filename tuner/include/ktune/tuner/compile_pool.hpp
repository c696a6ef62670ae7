#pragma once
#include <ktune/runtime/nvrtc_compiler.hpp>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ktune {

// One NVRTC program's worth of candidates, compiled.
struct CompiledBatch {
  struct Unit {  // one CUBIN and the candidates in it
    std::string cubin;
    std::vector<std::pair<std::size_t, std::string>> entries;  // candidate index, lowered name
    double milliseconds = 0;
  };
  std::vector<Unit> units;
  std::vector<std::pair<std::size_t, std::string>> errors;  // candidate index, NVRTC error
};

// Compiles candidates on worker threads, several instances per NVRTC program, and
// hands batches back in completion order so timing overlaps compilation. A failing
// program is retried one instance at a time, so each candidate gets its own error.
class CompilePool {
 public:
  CompilePool(std::string source, std::vector<std::string> name_expressions, int arch, int threads,
              std::string program_name);
  ~CompilePool();  // joins the workers
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // The next finished batch, or nullopt when all were handed out.
  std::optional<CompiledBatch> next();
  std::size_t batch_count() const { return batches_.size(); }

 private:
  void work();
  std::string source_, program_name_;
  std::vector<std::string> names_;
  int arch_;
  std::vector<std::vector<std::size_t>> batches_;
  std::size_t next_batch_ = 0, delivered_ = 0;
  std::deque<CompiledBatch> done_;
  std::mutex mutex_;
  std::condition_variable ready_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ktune
