#pragma once
// Matrix files: what `ktune tune spmv --matrix FILE` reads and KTUNE_CAPTURE=spmv writes.
#include <spmv/spmv_matrix.hpp>

#include <string>

namespace ktune {

// A ktune matrix file: a JSON header line {"format": "ktune-csr", "version": 1, "rows",
// "cols", "nnz", "dtype", "index": "i32"}, then the offsets, indices and values in
// little-endian binary, nothing after. Throws ktune::Error naming the file (and what is
// wrong) on anything else, before allocating more than the file's size justifies.
CsrMatrix read_csr_file(const std::string& path);
// Writes a new file (aside first, then linked into place): a file already at `path` is
// never replaced (ktune::Error says so).
void write_csr_file(const std::string& path, const CsrMatrix& m);

}  // namespace ktune
