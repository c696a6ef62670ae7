#include <ktune/ktune.hpp>

namespace ktune {

const char* version() noexcept { return KTUNE_VERSION; }

}  // namespace ktune
