// MPI's predefined operations and basic datatypes mapped onto the local
// reduction kernel (coll/ops/reduce_ops.h).
#pragma once
#include <mpi.h>

#include "coll/ops/reduce_ops.h"

namespace canopy::coll {

/** The kernel entry for @p op on @p type, or an empty Reduction (fall back to PMPI) for
    user-defined operations, MPI_REPLACE/MPI_NO_OP, operations MPI does not define on the
    type, and types other than the C basic types and Fortran's integers, reals and
    MPI_2INTEGER (of the sizes of C's): MPI_CHAR, MPI_LOGICAL, the complex types, the padded
    pairs MPI_DOUBLE_INT & co., and every derived type. A predefined operation on a
    derived type, even a contiguous one, is erroneous in MPI_Reduce & co. (the standard
    allows it only for MPI_Accumulate), so PMPI reports it (Open MPI: MPI_ERR_OP) exactly as
    it would without Canopy. */
Reduction mpi_reduction(MPI_Datatype type, MPI_Op op);

}  // namespace canopy::coll
