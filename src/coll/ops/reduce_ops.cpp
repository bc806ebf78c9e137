#include "coll/ops/reduce_ops.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace canopy::coll {
namespace {

template <class V>
struct Pair {  // the layout of MPI_2INT and MPI_FLOAT_INT
  V value;
  int index;
};
static_assert(sizeof(Pair<int>) == 2 * sizeof(int) && sizeof(Pair<float>) == sizeof(float) + sizeof(int),
              "value-index pairs without padding");

// Integer sums and products wrap around (two's complement), as MPI implementations' do: computed
// in an unsigned type, because signed overflow is undefined in C++, and at least as wide as
// unsigned int, because uint16_t * uint16_t would otherwise be promoted to an overflowing int.
template <class T, bool = std::is_integral_v<T>>
struct ArithOf {
  using type = T;
};
template <class T>
struct ArithOf<T, true> {
  using type = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
};
template <class T>
using Arith = typename ArithOf<T>::type;

struct Sum {
  template <class T> static T apply(T a, T b) { return static_cast<T>(static_cast<Arith<T>>(a) + static_cast<Arith<T>>(b)); }
};
struct Prod {
  template <class T> static T apply(T a, T b) { return static_cast<T>(static_cast<Arith<T>>(a) * static_cast<Arith<T>>(b)); }
};
struct Min {
  template <class T> static T apply(T a, T b) { return b < a ? b : a; }
};
struct Max {
  template <class T> static T apply(T a, T b) { return a < b ? b : a; }
};
// Logical operations yield 0 or 1 in the operands' type (C semantics).
struct Land {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a != 0 && b != 0); }
};
struct Lor {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a != 0 || b != 0); }
};
struct Lxor {
  template <class T> static T apply(T a, T b) { return static_cast<T>((a != 0) != (b != 0)); }
};
struct Band {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a & b); }
};
struct Bor {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a | b); }
};
struct Bxor {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};
// MINLOC/MAXLOC: the better value wins; on equal values the smaller index (MPI's definition).
struct MinLoc {
  template <class V> static Pair<V> apply(Pair<V> a, Pair<V> b) {
    return b.value < a.value || (b.value == a.value && b.index < a.index) ? b : a;
  }
};
struct MaxLoc {
  template <class V> static Pair<V> apply(Pair<V> a, Pair<V> b) {
    return a.value < b.value || (b.value == a.value && b.index < a.index) ? b : a;
  }
};

// Element by element, each read and written through memcpy: user buffers need not be aligned
// for T, and out may be left or right (an element is read before it is written). At -O3 GCC
// vectorises the loop behind a run-time overlap check that lets out == left through (distance
// 0), the common case. Copying through local blocks instead, as before 2026-11-28, cost about
// 35 ns a call from two elements on and twice the time per element (docs/benchmarks.md).
template <class T, class Op>
void combine(void *out, const void *left, const void *right, size_t count) {
  auto *o = static_cast<unsigned char *>(out);
  auto *l = static_cast<const unsigned char *>(left), *r = static_cast<const unsigned char *>(right);
  for (size_t i = 0; i < count; ++i) {
    T a, b;
    std::memcpy(&a, l + i * sizeof(T), sizeof(T));
    std::memcpy(&b, r + i * sizeof(T), sizeof(T));
    a = Op::apply(a, b);
    std::memcpy(o + i * sizeof(T), &a, sizeof(T));
  }
}

using Row = std::array<CombineFn, kReduceOps>;

template <class T, class Op>
void set(Row &row, ReduceOp op) {
  row[static_cast<size_t>(op)] = combine<T, Op>;
}

template <class T>
Row numeric_row() {  // integers and floating point
  Row row{};
  set<T, Sum>(row, ReduceOp::Sum);
  set<T, Prod>(row, ReduceOp::Prod);
  set<T, Min>(row, ReduceOp::Min);
  set<T, Max>(row, ReduceOp::Max);
  if constexpr (std::is_integral_v<T>) {
    set<T, Land>(row, ReduceOp::Land);
    set<T, Lor>(row, ReduceOp::Lor);
    set<T, Lxor>(row, ReduceOp::Lxor);
    set<T, Band>(row, ReduceOp::Band);
    set<T, Bor>(row, ReduceOp::Bor);
    set<T, Bxor>(row, ReduceOp::Bxor);
  }
  return row;
}

Row logical_row() {  // C_BOOL
  Row row{};
  set<unsigned char, Land>(row, ReduceOp::Land);
  set<unsigned char, Lor>(row, ReduceOp::Lor);
  set<unsigned char, Lxor>(row, ReduceOp::Lxor);
  return row;
}

Row bitwise_row() {  // BYTE
  Row row{};
  set<unsigned char, Band>(row, ReduceOp::Band);
  set<unsigned char, Bor>(row, ReduceOp::Bor);
  set<unsigned char, Bxor>(row, ReduceOp::Bxor);
  return row;
}

template <class V>
Row pair_row() {
  Row row{};
  set<Pair<V>, MinLoc>(row, ReduceOp::MinLoc);
  set<Pair<V>, MaxLoc>(row, ReduceOp::MaxLoc);
  return row;
}

// In ElemType order.
const std::array<Row, kElemTypes> &table() {
  static const std::array<Row, kElemTypes> rows = {
      numeric_row<int8_t>(),  numeric_row<int16_t>(),  numeric_row<int32_t>(),  numeric_row<int64_t>(),
      numeric_row<uint8_t>(), numeric_row<uint16_t>(), numeric_row<uint32_t>(), numeric_row<uint64_t>(),
      numeric_row<float>(),   numeric_row<double>(),   numeric_row<long double>(),
      logical_row(),          bitwise_row(),           pair_row<int>(),          pair_row<float>()};
  return rows;
}

constexpr std::array<size_t, kElemTypes> kElemBytes = {
    1, 2, 4, 8, 1, 2, 4, 8, sizeof(float), sizeof(double), sizeof(long double), 1, 1, sizeof(Pair<int>),
    sizeof(Pair<float>)};
constexpr std::array<const char *, kElemTypes> kElemNames = {
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float", "double", "long_double",
    "bool", "byte", "2int", "float_int"};
constexpr std::array<const char *, kReduceOps> kOpNames = {"sum",  "prod", "min",  "max",  "land",   "lor",
                                                           "lxor", "band", "bor", "bxor", "minloc", "maxloc"};

}  // namespace

Reduction reduction_of(ElemType type, ReduceOp op) {
  return {table()[static_cast<size_t>(type)][static_cast<size_t>(op)], elem_bytes(type)};
}

size_t elem_bytes(ElemType type) { return kElemBytes[static_cast<size_t>(type)]; }
const char *elem_type_name(ElemType type) { return kElemNames[static_cast<size_t>(type)]; }
const char *reduce_op_name(ReduceOp op) { return kOpNames[static_cast<size_t>(op)]; }

}  // namespace canopy::coll
