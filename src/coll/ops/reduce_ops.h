// The local reduction kernel: MPI's predefined operations on the basic element
// types, as one table of element-wise functions looked up once per call. Pure
// C++ without MPI (src/coll/mpi_reduction.* maps MPI handles onto these enums),
// so it is unit-tested on its own.
//
// Which operation applies to which type follows the MPI standard's table
// (MPI-4.1 section 6.9.2): SUM/PROD/MIN/MAX on integers and floating point,
// LAND/LOR/LXOR on integers and C_BOOL, BAND/BOR/BXOR on integers and BYTE,
// MINLOC/MAXLOC on the value-index pairs. Everything else has no function.
#pragma once
#include <cstddef>

namespace canopy::coll {

enum class ElemType {
  Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64,
  Float, Double, LongDouble,
  Bool,     // C _Bool / C++ bool: one byte, 0 or 1
  Byte,     // MPI_BYTE: bits without a value
  TwoInt,   // MPI_2INT: struct { int value, index; }
  FloatInt  // MPI_FLOAT_INT: struct { float value; int index; }
};
inline constexpr int kElemTypes = static_cast<int>(ElemType::FloatInt) + 1;

enum class ReduceOp { Sum, Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor, MinLoc, MaxLoc };
inline constexpr int kReduceOps = static_cast<int>(ReduceOp::MaxLoc) + 1;

/** out[i] = left[i] op right[i] for @p count elements; @p out may be @p left or @p right
    (same element positions), and no pointer needs any alignment. */
using CombineFn = void (*)(void *out, const void *left, const void *right, size_t count);

/** An operation bound to an element type: what the collective algorithms carry. */
struct Reduction {
  CombineFn combine = nullptr;  // nullptr: MPI does not define this operation on this type
  size_t elem_bytes = 0;

  explicit operator bool() const { return combine != nullptr; }
  /** out = left op right over @p bytes (a whole number of elements). */
  void apply(char *out, const char *left, const char *right, size_t bytes) const {
    if (bytes) combine(out, left, right, bytes / elem_bytes);
  }
};

/** The table entry for (@p type, @p op); its combine is nullptr where MPI forbids the pair. */
Reduction reduction_of(ElemType type, ReduceOp op);
size_t elem_bytes(ElemType type);
const char *elem_type_name(ElemType type);  // "int32", "float_int", ...
const char *reduce_op_name(ReduceOp op);    // "sum", "minloc", ...

}  // namespace canopy::coll
