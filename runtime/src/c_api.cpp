// The C ABI (ktune/c_api.h): each call runs the C++ one and turns its exception into an
// error kind and message of this thread. Each family's calls are in its folder
// (templates/<family>/<family>_c_api.cpp).
#include <ktune/runtime/c_api_support.hpp>
#include <ktune/runtime/workspaces.hpp>

#include <string>
#include <vector>

struct ktune_c_kernel {
  ktune::Kernel kernel;
  std::string variables;
  std::vector<std::string> dtypes;  // per argument, declared
  std::string names;                // the arguments' names joined by ','
};

namespace ktune::c_api {
namespace {

struct ThreadState {
  int kind = KTUNE_C_OK, cuda_result = 0;
  std::string error, match, config, tuned_shape;
};
thread_local ThreadState state;

int fail(int kind, const char* what, int cuda_result = 0) {
  state.kind = kind, state.error = what, state.cuda_result = cuda_result;
  return -1;
}

}  // namespace

int succeeded() {
  state.kind = KTUNE_C_OK;
  return 0;
}

int failed() {
  try {
    throw;  // the exception being handled, caught by its type
  } catch (const InvalidArgument& e) {
    return fail(KTUNE_C_INVALID_ARGUMENT, e.what());
  } catch (const CudaError& e) {
    return fail(KTUNE_C_CUDA, e.what(), e.result());
  } catch (const CompileError& e) {
    return fail(KTUNE_C_COMPILE, e.what());
  } catch (const DatabaseError& e) {
    return fail(KTUNE_C_DATABASE, e.what());
  } catch (const std::exception& e) {
    return fail(KTUNE_C_OTHER, e.what());
  } catch (...) {
    return fail(KTUNE_C_OTHER, "unknown error");
  }
}

int invalid(const char* what) { return fail(KTUNE_C_INVALID_ARGUMENT, what); }

void keep(const LaunchInfo& info) {
  state.match = std::string(to_string(info.match));
  state.config = info.config;
  state.tuned_shape = info.tuned_shape;
}

DType dtype_of(const char* name) {
  const auto type = name ? parse_dtype(name) : std::nullopt;
  if (!type)
    throw InvalidArgument(std::string("unknown dtype '") + (name ? name : "(null)") +
                          "' (known: " + std::string(dtype_names()) + ")");
  return *type;
}

}  // namespace ktune::c_api

using namespace ktune::c_api;

extern "C" {

int ktune_c_error_kind(void) { return state.kind; }
const char* ktune_c_error_kind_name(void) {
  switch (state.kind) {
    case KTUNE_C_OK: return "ok";
    case KTUNE_C_INVALID_ARGUMENT: return "invalid_argument";
    case KTUNE_C_CUDA: return "cuda";
    case KTUNE_C_COMPILE: return "compile";
    case KTUNE_C_DATABASE: return "database";
    default: return "other";
  }
}
const char* ktune_c_error(void) { return state.error.c_str(); }
int ktune_c_error_cuda_result(void) { return state.cuda_result; }
const char* ktune_c_version(void) { return ktune::version(); }

ktune_c_runtime* ktune_c_runtime_new(const char* database, int read_only) {
  std::unique_ptr<ktune_c_runtime> out;
  if (guarded([&] {
        out = std::make_unique<ktune_c_runtime>();
        out->rt = std::make_unique<ktune::Runtime>(ktune::Runtime::Options{database ? database : "", read_only != 0});
      }) != 0)
    return nullptr;
  return out.release();
}

void ktune_c_runtime_free(ktune_c_runtime* rt) { delete rt; }

int ktune_c_runtime_refresh(ktune_c_runtime* rt) {
  if (!rt) return invalid("ktune_c_runtime_refresh: null runtime");
  return guarded([&] { rt->rt->refresh(); });
}

int ktune_c_stream_capturing(uintptr_t stream) {
  int capturing = 0;
  if (guarded([&] { capturing = ktune::stream_capturing(reinterpret_cast<CUstream>(stream)) ? 1 : 0; }) != 0) return -1;
  return capturing;
}

const char* ktune_c_last_match(void) { return state.match.c_str(); }
const char* ktune_c_last_config(void) { return state.config.c_str(); }
const char* ktune_c_last_tuned_shape(void) { return state.tuned_shape.c_str(); }

ktune_c_kernel* ktune_c_kernel_new(ktune_c_runtime* rt, const char* path_or_source, const char* entry,
                                   const char* type) {
  if (!rt || !path_or_source || !entry) {
    invalid("ktune_c_kernel_new: null runtime, source or entry");
    return nullptr;
  }
  std::unique_ptr<ktune_c_kernel> out;
  if (guarded([&] {
        std::vector<std::string> args;
        if (type && *type) args.emplace_back(type);
        out = std::make_unique<ktune_c_kernel>(ktune_c_kernel{rt->rt->kernel(path_or_source, entry, args), {}, {}, {}});
        out->variables = joined(out->kernel.problem_variables());
        for (const ktune::DType d : out->kernel.argument_dtypes()) out->dtypes.emplace_back(ktune::to_string(d));
        out->names = joined(out->kernel.argument_names());
      }) != 0)
    return nullptr;
  return out.release();
}

void ktune_c_kernel_free(ktune_c_kernel* k) { delete k; }

const char* ktune_c_kernel_variables(ktune_c_kernel* k) { return k ? k->variables.c_str() : ""; }
const char* ktune_c_kernel_arg_names(ktune_c_kernel* k) { return k ? k->names.c_str() : ""; }

int ktune_c_kernel_arg_count(ktune_c_kernel* k) { return k ? static_cast<int>(k->kernel.argument_kinds().size()) : -1; }

int ktune_c_kernel_arg_kind(ktune_c_kernel* k, int i) {
  if (!k || i < 0 || static_cast<std::size_t>(i) >= k->kernel.argument_kinds().size()) return -1;
  switch (k->kernel.argument_kinds()[static_cast<std::size_t>(i)]) {
    case ktune::LaunchArg::Kind::pointer: return KTUNE_C_POINTER;
    case ktune::LaunchArg::Kind::f32: return KTUNE_C_F32;
    case ktune::LaunchArg::Kind::f64: return KTUNE_C_F64;
    case ktune::LaunchArg::Kind::i32: return KTUNE_C_I32;
    case ktune::LaunchArg::Kind::i64: return KTUNE_C_I64;
  }
  return -1;
}

int ktune_c_kernel_arg_role(ktune_c_kernel* k, int i) {
  if (!k || i < 0) return -1;
  const auto roles = k->kernel.argument_roles();
  return static_cast<std::size_t>(i) < roles.size() ? static_cast<int>(roles[static_cast<std::size_t>(i)]) : -1;
}

const char* ktune_c_kernel_arg_dtype(ktune_c_kernel* k, int i) {
  if (!k || i < 0 || static_cast<std::size_t>(i) >= k->dtypes.size()) return "";
  return k->dtypes[static_cast<std::size_t>(i)].c_str();
}

int ktune_c_kernel_launch(ktune_c_kernel* k, uintptr_t stream, const char* const* names, const int64_t* values,
                          int problem_count, const ktune_c_arg* args, int arg_count) {
  return ktune_c_kernel_launch_checked(k, stream, names, values, problem_count, args, nullptr, nullptr, arg_count);
}

int ktune_c_kernel_launch_checked(ktune_c_kernel* k, uintptr_t stream, const char* const* names,
                                  const int64_t* values, int problem_count, const ktune_c_arg* args,
                                  const int64_t* counts, const char* const* dtypes, int arg_count) {
  if (!k || problem_count < 0 || arg_count < 0 || (problem_count && (!names || !values)) || (arg_count && !args) ||
      (!counts != !dtypes))
    return invalid("ktune_c_kernel_launch: null kernel, names, values, arguments, counts or dtypes");
  return guarded([&] {
    std::vector<ktune::Kernel::ProblemValue> problem;
    for (int i = 0; i < problem_count; ++i) {
      if (!names[i]) throw ktune::InvalidArgument("a problem variable's name is null");
      problem.emplace_back(names[i], values[i]);
    }
    std::vector<ktune::LaunchArg> list;
    for (int i = 0; i < arg_count; ++i) {
      const ktune_c_arg& a = args[i];
      switch (a.kind) {
        case KTUNE_C_POINTER:
          if (counts && dtypes && counts[i] >= 0 && dtypes[i])
            list.emplace_back(ktune::Array{reinterpret_cast<const void*>(a.value.pointer), counts[i], dtype_of(dtypes[i])});
          else
            list.emplace_back(reinterpret_cast<const void*>(a.value.pointer));
          break;
        case KTUNE_C_F32: list.emplace_back(a.value.f32); break;
        case KTUNE_C_F64: list.emplace_back(a.value.f64); break;
        case KTUNE_C_I32: list.emplace_back(a.value.i32); break;
        case KTUNE_C_I64: list.emplace_back(a.value.i64); break;
        default: throw ktune::InvalidArgument("argument " + std::to_string(i) + " has no kind " + std::to_string(a.kind));
      }
    }
    keep(k->kernel.launch_args(stream_of(stream), problem.data(), problem.size(), list.data(), list.size()));
  });
}

}  // extern "C"
