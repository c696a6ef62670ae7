// Registers scan_rows (the parts are one class, scan_part.cpp).
#include <scan/scan_part.hpp>

KTUNE_FAMILY_PART(scan_rows, ScanPart(ScanKind::rows))
