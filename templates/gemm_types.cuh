// Device code shared by the GEMM templates (a fragment, not a family): the operation
// type that gemm_type_argument() names.

template <class In, class Acc, int TA, int TB> struct ktune_gemm_types {
  using in = In;    // A, B and C as stored
  using acc = Acc;  // accumulators, alpha, beta (and the SIMT gemm's shared tiles)
  static constexpr bool ta = TA, tb = TB;
};
