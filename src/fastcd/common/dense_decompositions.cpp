// The one instantiation of each dense decomposition declared in dense_decompositions.hpp.
#include "fastcd/common/dense_decompositions.hpp"

FASTCD_DENSE_DECOMPOSITIONS()
