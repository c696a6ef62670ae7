#include "reduce_part.hpp"

KTUNE_FAMILY_PART(reduce, ReducePart(ReduceKind::whole))
