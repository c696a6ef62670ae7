#include "reduce_part.hpp"

KTUNE_FAMILY_PART(reduce_rows, ReducePart(ReduceKind::rows))
