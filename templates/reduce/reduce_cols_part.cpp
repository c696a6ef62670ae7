#include "reduce_part.hpp"

KTUNE_FAMILY_PART(reduce_cols, ReducePart(ReduceKind::cols))
