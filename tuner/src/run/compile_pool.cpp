#include <ktune/tuner/compile_pool.hpp>

#include <algorithm>
#include <map>

namespace ktune {

CompilePool::CompilePool(std::string source, std::vector<std::string> name_expressions, int arch, int threads,
                         std::string program_name, Database* store, int instances_per_program)
    : source_(std::move(source)), program_name_(std::move(program_name)), arch_(arch), store_(store) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Candidates with the same name expression (they differ in runtime tunables only)
  // share one compiled kernel.
  std::map<std::string, std::size_t> unique;
  for (std::size_t i = 0; i < name_expressions.size(); ++i) {
    const auto [it, added] = unique.emplace(name_expressions[i], names_.size());
    if (added) {
      names_.push_back(name_expressions[i]);
      users_.emplace_back();
    }
    users_[it->second].push_back(i);
  }
  // Several instances per program amortize parsing; enough programs to keep every
  // thread busy and to hand the first candidates to the GPU early.
  const std::size_t n = names_.size();
  const std::size_t per = instances_per_program > 0
                              ? static_cast<std::size_t>(instances_per_program)
                              : std::clamp<std::size_t>(n / (static_cast<std::size_t>(threads) * 4), 1, 8);
  for (std::size_t i = 0; i < n; i += per) {
    std::vector<std::size_t> b;
    for (std::size_t j = i; j < std::min(n, i + per); ++j) b.push_back(j);
    batches_.push_back(std::move(b));
  }
  const int workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), batches_.size()));
  for (int t = 0; t < workers; ++t) workers_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  cancel();
  for (auto& w : workers_) w.join();
}

void CompilePool::cancel() {
  std::lock_guard<std::mutex> lock(mutex_);
  stop_ = true;
}

void CompilePool::work() {
  for (;;) {
    std::vector<std::size_t> batch;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_ || next_batch_ == batches_.size()) return;
      batch = batches_[next_batch_++];
    }
    CompiledBatch result = build(batch);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      done_.push_back(std::move(result));
    }
    ready_.notify_one();
  }
}

// The batch's program as stored, else each kernel that other batches (other problems,
// earlier runs) compiled from its program, and the rest compiled together; a failing
// program is retried one instance at a time.
CompiledBatch CompilePool::build(const std::vector<std::size_t>& batch) {
  CompiledBatch result;
  std::map<std::string, std::size_t> unit_of;  // CUBIN -> its unit: one module per program
  const auto add = [&](Program p, const std::vector<std::size_t>& indices) {
    const auto [at, added] = unit_of.emplace(p.cubin, result.units.size());
    if (added) result.units.push_back({std::move(p.cubin), {}, p.compile_ms, p.stored});
    CompiledBatch::Unit& unit = result.units[at->second];
    for (std::size_t k = 0; k < indices.size(); ++k)
      for (auto user : users_[indices[k]]) unit.entries.emplace_back(user, p.entries[k]);
  };
  const auto names_of = [&](const std::vector<std::size_t>& indices) {
    std::vector<std::string> names;
    for (auto i : indices) names.push_back(names_[i]);
    return names;
  };
  if (auto whole = load_stored(store_, source_, names_of(batch), arch_)) {
    add(std::move(*whole), batch);
    return result;
  }
  std::vector<std::size_t> rest;
  for (auto i : batch) {
    auto stored = batch.size() > 1 ? load_stored(store_, source_, {names_[i]}, arch_) : std::nullopt;
    if (stored) add(std::move(*stored), {i});
    else rest.push_back(i);
  }
  if (rest.empty()) return result;
  try {
    add(load_or_compile(store_, source_, names_of(rest), arch_, program_name_), rest);
  } catch (const std::exception&) {
    for (auto i : rest) {
      try {
        add(load_or_compile(store_, source_, {names_[i]}, arch_, program_name_), {i});
      } catch (const std::exception& e) {
        for (auto user : users_[i]) result.errors.emplace_back(user, e.what());
      }
    }
  }
  return result;
}

std::optional<CompiledBatch> CompilePool::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (delivered_ == batches_.size()) return std::nullopt;
  ready_.wait(lock, [this] { return !done_.empty(); });
  CompiledBatch b = std::move(done_.front());
  done_.pop_front();
  ++delivered_;
  return b;
}

}  // namespace ktune
