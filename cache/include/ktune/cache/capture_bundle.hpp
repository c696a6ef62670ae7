#pragma once
// A capture bundle: one problem as an application launched it (KTUNE_CAPTURE), for
// `ktune tune --capture` to tune offline on the same data.
//
// File: "KTUNECAP", u32 format version, u32 header length, the header (JSON: what was
// captured, and per buffer its name, phase, size, compressed size and FNV-1a hash),
// then each buffer's bytes compressed with zlib, in the header's order. A reader checks
// the magic, the version, the header, every size (a truncated file is caught before
// anything is decompressed) and every hash.
#include <ktune/error.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

// A bundle that cannot be used: not one, truncated, corrupted, or of another format
// version. The message names the file and the reason.
class CaptureError : public Error {
 public:
  using Error::Error;
};
// A bundle of a format version this ktune does not read: not damaged (prune keeps it).
class CaptureVersionError : public CaptureError {
 public:
  using CaptureError::CaptureError;
};

struct CaptureBuffer {
  std::string name;   // the kernel argument
  std::string phase;  // "input": its bytes before the launch; "expected": after it
  std::vector<unsigned char> bytes;
};

struct CaptureBundle {
  // kind "kernel" (a user's kernel: source, problem, launch, buffers) or "problem" (a
  // built-in call: its record key); the writer adds "buffers" and "content_hash".
  nlohmann::json header;
  std::vector<CaptureBuffer> buffers;
  // Recomputed by read_capture (with data) from the header and the buffers' bytes: what
  // tells copies apart, whatever the header's own "content_hash" says.
  std::string content_hash;

  const CaptureBuffer* find(const std::string& name, const std::string& phase) const;
};

constexpr std::uint32_t k_capture_format = 1;

// Writes `bundle` to `path` atomically (a temporary file linked into place), never
// over an existing file: false when `path` exists. Throws CaptureError on I/O errors
// (disk full, read-only folder) with the path and the reason.
bool write_capture(const std::filesystem::path& path, CaptureBundle bundle);

// with_data = false: the header only, after every size was checked against the file.
CaptureBundle read_capture(const std::filesystem::path& path, bool with_data = true);

// The bundle files of a folder (*.ktcap, sorted), or the one file given.
std::vector<std::filesystem::path> capture_files(const std::filesystem::path& file_or_folder);

// Where bundles go and are looked for: $KTUNE_CAPTURE_DIR, else captures/ beside the
// database.
std::filesystem::path capture_folder(const std::filesystem::path& database);

// "jacobi-1f2e3d4c-f32-8192x8192-a1.ktcap": the key the application looks up (its
// alignment class last: a pitched call is another problem), so a problem is captured once.
std::string capture_file_name(const std::string& family, const std::string& variant, const std::string& dtype,
                              const std::vector<std::int64_t>& shape, std::int64_t align);

}  // namespace ktune
