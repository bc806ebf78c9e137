#include "coll/mpi_reduction.h"

#include <type_traits>
#include <utility>
#include <vector>

namespace canopy::coll {
namespace {

template <class T>
constexpr ElemType integer_type() {
  static_assert(std::is_integral_v<T> && sizeof(T) <= 8, "a C integer type");
  constexpr bool s = std::is_signed_v<T>;
  if constexpr (sizeof(T) == 1) return s ? ElemType::Int8 : ElemType::UInt8;
  if constexpr (sizeof(T) == 2) return s ? ElemType::Int16 : ElemType::UInt16;
  if constexpr (sizeof(T) == 4) return s ? ElemType::Int32 : ElemType::UInt32;
  return s ? ElemType::Int64 : ElemType::UInt64;
}

// MPI's C and Fortran basic types that have a predefined operation (MPI-4.1 section 6.9.2);
// MPI_CHAR is text, not a C integer, for MPI reductions. The Fortran types are taken at the
// kind of Open MPI's and MPICH's default build (INTEGER and REAL of 4 bytes): the size check
// in mpi_reduction leaves any other to MPI. Not here, so MPI's own: MPI_LOGICAL (.true. is 1
// or -1 by compiler), the complex types, MPI_2REAL and MPI_2DOUBLE_PRECISION.
const std::vector<std::pair<MPI_Datatype, ElemType>> &basic_types() {
  static const std::vector<std::pair<MPI_Datatype, ElemType>> types = {
      {MPI_SIGNED_CHAR, integer_type<signed char>()},
      {MPI_UNSIGNED_CHAR, integer_type<unsigned char>()},
      {MPI_SHORT, integer_type<short>()},
      {MPI_UNSIGNED_SHORT, integer_type<unsigned short>()},
      {MPI_INT, integer_type<int>()},
      {MPI_UNSIGNED, integer_type<unsigned>()},
      {MPI_LONG, integer_type<long>()},
      {MPI_UNSIGNED_LONG, integer_type<unsigned long>()},
      {MPI_LONG_LONG_INT, integer_type<long long>()},
      {MPI_LONG_LONG, integer_type<long long>()},
      {MPI_UNSIGNED_LONG_LONG, integer_type<unsigned long long>()},
      {MPI_INT8_T, ElemType::Int8},
      {MPI_INT16_T, ElemType::Int16},
      {MPI_INT32_T, ElemType::Int32},
      {MPI_INT64_T, ElemType::Int64},
      {MPI_UINT8_T, ElemType::UInt8},
      {MPI_UINT16_T, ElemType::UInt16},
      {MPI_UINT32_T, ElemType::UInt32},
      {MPI_UINT64_T, ElemType::UInt64},
      {MPI_AINT, integer_type<MPI_Aint>()},
      {MPI_OFFSET, integer_type<MPI_Offset>()},
      {MPI_COUNT, integer_type<MPI_Count>()},
      {MPI_FLOAT, ElemType::Float},
      {MPI_DOUBLE, ElemType::Double},
      {MPI_LONG_DOUBLE, ElemType::LongDouble},
      {MPI_C_BOOL, ElemType::Bool},
      {MPI_BYTE, ElemType::Byte},
      {MPI_2INT, ElemType::TwoInt},
      {MPI_FLOAT_INT, ElemType::FloatInt},
      {MPI_INTEGER, ElemType::Int32},
      {MPI_INTEGER1, ElemType::Int8},
      {MPI_INTEGER2, ElemType::Int16},
      {MPI_INTEGER4, ElemType::Int32},
      {MPI_INTEGER8, ElemType::Int64},
      {MPI_REAL, ElemType::Float},
      {MPI_DOUBLE_PRECISION, ElemType::Double},
      {MPI_REAL4, ElemType::Float},
      {MPI_REAL8, ElemType::Double},
      {MPI_2INTEGER, ElemType::TwoInt},
  };
  return types;
}

const std::vector<std::pair<MPI_Op, ReduceOp>> &predefined_ops() {
  static const std::vector<std::pair<MPI_Op, ReduceOp>> ops = {
      {MPI_SUM, ReduceOp::Sum},     {MPI_PROD, ReduceOp::Prod},     {MPI_MIN, ReduceOp::Min},
      {MPI_MAX, ReduceOp::Max},     {MPI_LAND, ReduceOp::Land},     {MPI_LOR, ReduceOp::Lor},
      {MPI_LXOR, ReduceOp::Lxor},   {MPI_BAND, ReduceOp::Band},     {MPI_BOR, ReduceOp::Bor},
      {MPI_BXOR, ReduceOp::Bxor},   {MPI_MINLOC, ReduceOp::MinLoc}, {MPI_MAXLOC, ReduceOp::MaxLoc},
  };
  return ops;
}

// MPI defines the logical operations on C integers, not on Fortran's (MPI-4.1 section 6.9.2).
bool fortran_integer(MPI_Datatype type) {
  for (MPI_Datatype t : {MPI_INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8})
    if (type == t) return true;
  return false;
}

template <class Handle, class Value>
const Value *find(const std::vector<std::pair<Handle, Value>> &list, Handle handle) {
  for (const auto &[h, v] : list)
    if (h == handle) return &v;
  return nullptr;
}

}  // namespace

Reduction mpi_reduction(MPI_Datatype type, MPI_Op op) {
  const ReduceOp *reduce_op = find(predefined_ops(), op);
  const ElemType *elem = find(basic_types(), type);
  if (!reduce_op || !elem) return {};
  bool logical = *reduce_op == ReduceOp::Land || *reduce_op == ReduceOp::Lor || *reduce_op == ReduceOp::Lxor;
  if (logical && fortran_integer(type)) return {};
  Reduction r = reduction_of(*elem, *reduce_op);
  // The C types must match MPI's (a compiler flag like -mlong-double-64 could change one).
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS || static_cast<size_t>(size) != r.elem_bytes) return {};
  return r;
}

}  // namespace canopy::coll
