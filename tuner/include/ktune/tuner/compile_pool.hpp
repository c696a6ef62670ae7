#pragma once
#include <ktune/cache/database.hpp>
#include <ktune/runtime/program_store.hpp>

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
    double milliseconds = 0;  // NVRTC time; 0 when it came from the binary store
    bool stored = false;      // read back from the binary store, not compiled
  };
  std::vector<Unit> units;
  std::vector<std::pair<std::size_t, std::string>> errors;  // candidate index, NVRTC error
};

// Compiles candidates on worker threads, several instances per NVRTC program, and
// hands batches back in completion order so timing overlaps compilation. A failing
// program is retried one instance at a time, so each candidate gets its own error.
// With a store, a kernel compiled before in any program (another problem's batch, an
// earlier run) is loaded from that program instead of compiled again.
// Candidates with equal name expressions are compiled once and all delivered.
class CompilePool {
 public:
  // With `store`, each program is looked up by binary_key() first and saved after
  // compiling, so a second run over the same space compiles nothing.
  // instances_per_program 0: enough programs to keep every thread busy, at most 8 each.
  CompilePool(std::string source, std::vector<std::string> name_expressions, int arch, int threads,
              std::string program_name, Database* store = nullptr, int instances_per_program = 0);
  ~CompilePool();  // joins the workers
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  // The next finished batch, or nullopt when all were handed out.
  std::optional<CompiledBatch> next();
  std::size_t batch_count() const { return batches_.size(); }
  std::size_t kernel_count() const { return names_.size(); }  // distinct kernels compiled
  // Workers finish the program in hand and start no other; call next() no more.
  void cancel();

 private:
  void work();
  CompiledBatch build(const std::vector<std::size_t>& batch);
  std::string source_, program_name_;
  std::vector<std::string> names_;               // distinct name expressions
  std::vector<std::vector<std::size_t>> users_;  // per distinct name: the candidates
  int arch_;
  Database* store_;
  std::vector<std::vector<std::size_t>> batches_;
  std::size_t next_batch_ = 0, delivered_ = 0;
  std::deque<CompiledBatch> done_;
  std::mutex mutex_;
  std::condition_variable ready_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ktune
