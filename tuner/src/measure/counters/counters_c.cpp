// The C ABI of ktune/tuner/counters_c.h over CounterSession.
#include <ktune/error.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/driver.hpp>
#include <ktune/tuner/counters.hpp>
#include <ktune/tuner/counters_c.h>

#include <cstring>
#include <exception>

struct ktune_counters {
  std::unique_ptr<ktune::PrimaryContext> primary;  // when no context was current: the device's primary one
  std::unique_ptr<ktune::CounterSession> session;
  std::vector<std::string> metrics;
};

namespace {

void write_text(char* to, std::size_t size, const std::string& text) {
  if (!to || size == 0) return;
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(to, text.data(), n);
  to[n] = '\0';
}

}  // namespace

extern "C" ktune_counters* ktune_counters_open(int device, const char* metrics, char* why, std::size_t why_size,
                                               int* invalid) {
  if (invalid) *invalid = 0;
  try {
    if (!metrics) throw ktune::InvalidArgument("counters: no metrics given (\"default\" or names separated by commas)");
    auto out = std::make_unique<ktune_counters>();
    out->metrics = ktune::parse_counter_metrics(metrics);
    if (out->metrics.empty()) throw ktune::InvalidArgument("counters: 'none' asks for no metrics");
    std::string reason;
    if (!ktune::driver::available(&reason)) throw ktune::Error("counters: no GPU: " + reason);
    CUcontext ctx = nullptr;
    ktune::driver::check(ktune::driver::api().cuCtxGetCurrent(&ctx), "cuCtxGetCurrent");
    if (!ctx) {
      out->primary = std::make_unique<ktune::PrimaryContext>(ktune::query_device_ordinal(device).device);
      ctx = out->primary->get();
    }
    out->session = ktune::CounterSession::open(device, ctx, out->metrics, reason);
    if (!out->session) throw ktune::Error(reason);
    return out.release();
  } catch (const ktune::InvalidArgument& e) {
    if (invalid) *invalid = 1;
    write_text(why, why_size, e.what());
    return nullptr;
  } catch (const std::exception& e) {
    write_text(why, why_size, e.what());
    return nullptr;
  }
}

extern "C" void ktune_counters_close(ktune_counters* session) {
  if (!session) return;
  session->session.reset();  // before the context it may have retained
  delete session;
}

extern "C" std::size_t ktune_counters_metric_count(const ktune_counters* session) {
  return session ? session->metrics.size() : 0;
}

extern "C" const char* ktune_counters_metric_name(const ktune_counters* session, std::size_t i) {
  return session && i < session->metrics.size() ? session->metrics[i].c_str() : nullptr;
}

extern "C" std::size_t ktune_counters_passes(const ktune_counters* session) {
  return session ? session->session->passes() : 0;
}

extern "C" const char* ktune_counters_chip(const ktune_counters* session) {
  return session ? session->session->chip().c_str() : "";
}

extern "C" int ktune_counters_collect(ktune_counters* session, void (*launch)(void*), void (*before_pass)(void*),
                                      void* user, double* values, std::size_t n, char* error, std::size_t error_size) {
  try {
    if (!session || !launch || !values) throw ktune::InvalidArgument("counters: a null session, launch or values");
    if (n != session->metrics.size())
      throw ktune::InvalidArgument("counters: room for " + std::to_string(n) + " values, the session has " +
                                   std::to_string(session->metrics.size()) + " metrics");
    std::function<void()> before;
    if (before_pass) before = [&] { before_pass(user); };
    const ktune::CounterValues v = session->session->collect([&] { launch(user); }, before);
    for (std::size_t i = 0; i < n; ++i) values[i] = v.at(session->metrics[i]);
    return 0;
  } catch (const std::exception& e) {
    write_text(error, error_size, e.what());
    return -1;
  }
}
