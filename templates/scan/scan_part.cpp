#include <scan/scan_part.hpp>

KTUNE_FAMILY_PART(scan, ScanPart(ScanKind::whole))
