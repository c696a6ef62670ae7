#include <ktune/tuner/array_part.hpp>
#include <scan/scan_family.hpp>

KTUNE_FAMILY_PART(scan, ArrayPart(scan_family(), Lines::whole))
KTUNE_FAMILY_PART(scan_rows, ArrayPart(scan_family(), Lines::rows))
