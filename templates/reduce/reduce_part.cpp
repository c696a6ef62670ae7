#include <ktune/tuner/array_part.hpp>
#include <reduce/reduce_family.hpp>

KTUNE_FAMILY_PART(reduce, ArrayPart(reduce_family(), Lines::whole))
KTUNE_FAMILY_PART(reduce_rows, ArrayPart(reduce_family(), Lines::rows))
KTUNE_FAMILY_PART(reduce_cols, ArrayPart(reduce_family(), Lines::cols))
