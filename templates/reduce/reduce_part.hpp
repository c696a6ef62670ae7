#pragma once
// The registered part of the three reduction families (reduce, reduce_rows,
// reduce_cols): --op, --dtype, and --n or --shape ROWSxCOLS.
#include <ktune/error.hpp>
#include <reduce/reduce_family.hpp>
#include <ktune/tuner/family.hpp>
#include <reduce/reduce_harness.hpp>

namespace ktune {

class ReducePart : public FamilyPart {
 public:
  explicit ReducePart(ReduceKind kind) : kind_(kind) {}
  const KernelSpec& spec() const override { return reduce_spec(kind_); }

  std::vector<ProblemOption> options() const override {
    std::vector<ProblemOption> o{{"op", "sum | max | min | mean", "sum"},
                                 {"dtype", "element type of the input: f32, f16, bf16, f64", "f32"}};
    if (kind_ == ReduceKind::whole)
      o.push_back({"n", "number of elements", "268435456"});
    else
      o.push_back({"shape", "ROWSxCOLS of the input matrix", "8192x2048"});
    return o;
  }

  TuneTarget target(const OptionValues& values) const override {
    const std::string& op_name = single_option(values, "op");
    const auto op = parse_enum<ReduceOp>(op_name);
    if (!op) throw InvalidArgument("unknown --op '" + op_name + "' (sum, max, min, mean)");
    const DType dtype = dtype_option(values);
    std::int64_t rows = 1, cols = 0;
    if (kind_ == ReduceKind::whole) {
      cols = count_option(values, "n", std::int64_t{1} << 40);
    } else {
      const auto shape = shape_option(values, 2, "16384x16384");
      rows = shape[0], cols = shape[1];
    }
    const ReduceKind kind = kind_;
    return {reduce_tuning_problem(kind, reduce_probe_args({*op, dtype, rows, cols, cols, 0, 0, kind == ReduceKind::cols})),
            [=](const DeviceInfo& dev, const TimingProtocol& t) {
              return std::make_unique<ReduceHarness>(dev, kind, *op, dtype, rows, cols, t);
            }};
  }

  OptionValues options_of(const TuningRecord& r) const override {
    const std::size_t dims = kind_ == ReduceKind::whole ? 1 : 2;
    if (r.shape.size() != dims) throw InvalidArgument("a " + name() + " record has " + std::to_string(dims) + " size(s)");
    OptionValues o{{"op", {r.variant}}, {"dtype", {r.dtype}}};
    o[dims == 1 ? "n" : "shape"] = {shape_to_string(r.shape)};
    return o;
  }

 private:
  ReduceKind kind_;
};

}  // namespace ktune
