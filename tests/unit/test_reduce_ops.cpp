// The local reduction kernel (src/coll/ops/reduce_ops.*), without MPI: which
// (type, operation) pairs exist, and their results on every type family.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "coll/ops/reduce_ops.h"

using namespace canopy::coll;

namespace {

struct IntPair {
  int value, index;
  bool operator==(const IntPair &o) const { return value == o.value && index == o.index; }
};
struct FloatPair {
  float value;
  int index;
  bool operator==(const FloatPair &o) const { return value == o.value && index == o.index; }
};

// left op right through the table, written over left (the in-place use of the algorithms).
template <class T>
std::vector<T> combine(ElemType type, ReduceOp op, std::vector<T> left, const std::vector<T> &right) {
  Reduction r = reduction_of(type, op);
  EXPECT_TRUE(r) << elem_type_name(type) << " " << reduce_op_name(op);
  EXPECT_EQ(r.elem_bytes, sizeof(T));
  if (r) r.apply(reinterpret_cast<char *>(left.data()), reinterpret_cast<const char *>(left.data()),
                 reinterpret_cast<const char *>(right.data()), left.size() * sizeof(T));
  return left;
}

const std::vector<ElemType> kIntegers = {ElemType::Int8,  ElemType::Int16,  ElemType::Int32,  ElemType::Int64,
                                         ElemType::UInt8, ElemType::UInt16, ElemType::UInt32, ElemType::UInt64};

}  // namespace

// MPI-4.1 section 6.9.2: the operations each type family admits.
TEST(ReduceOps, TableFollowsTheMpiStandard) {
  using Op = ReduceOp;
  const std::set<Op> arithmetic = {Op::Sum, Op::Prod, Op::Min, Op::Max};
  const std::set<Op> logical = {Op::Land, Op::Lor, Op::Lxor}, bitwise = {Op::Band, Op::Bor, Op::Bxor};
  auto allowed = [&](ElemType t, Op op) {
    bool integer = static_cast<int>(t) <= static_cast<int>(ElemType::UInt64);
    switch (t) {
      case ElemType::Float:
      case ElemType::Double:
      case ElemType::LongDouble: return arithmetic.count(op) > 0;
      case ElemType::Bool: return logical.count(op) > 0;
      case ElemType::Byte: return bitwise.count(op) > 0;
      case ElemType::TwoInt:
      case ElemType::FloatInt: return op == Op::MinLoc || op == Op::MaxLoc;
      default: return integer && op != Op::MinLoc && op != Op::MaxLoc;
    }
  };
  int defined = 0;
  for (int t = 0; t < kElemTypes; ++t)
    for (int o = 0; o < kReduceOps; ++o) {
      auto type = static_cast<ElemType>(t);
      auto op = static_cast<Op>(o);
      Reduction r = reduction_of(type, op);
      EXPECT_EQ(static_cast<bool>(r), allowed(type, op)) << elem_type_name(type) << " " << reduce_op_name(op);
      EXPECT_EQ(r.elem_bytes, elem_bytes(type));
      defined += r ? 1 : 0;
    }
  EXPECT_EQ(defined, 8 * 10 + 3 * 4 + 3 + 3 + 2 * 2);
  EXPECT_EQ(elem_bytes(ElemType::Int64), 8u);
  EXPECT_EQ(elem_bytes(ElemType::FloatInt), 8u);
  EXPECT_STREQ(elem_type_name(ElemType::UInt16), "uint16");
  EXPECT_STREQ(reduce_op_name(ReduceOp::Bxor), "bxor");
}

TEST(ReduceOps, IntegerArithmeticLogicAndBits) {
  std::vector<int32_t> a = {5, -3, 0, 12, 7}, b = {2, 4, 0, -12, 7};
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Sum, a, b), (std::vector<int32_t>{7, 1, 0, 0, 14}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Prod, a, b), (std::vector<int32_t>{10, -12, 0, -144, 49}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Min, a, b), (std::vector<int32_t>{2, -3, 0, -12, 7}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Max, a, b), (std::vector<int32_t>{5, 4, 0, 12, 7}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Land, a, b), (std::vector<int32_t>{1, 1, 0, 1, 1}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Lor, a, b), (std::vector<int32_t>{1, 1, 0, 1, 1}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Lxor, std::vector<int32_t>{0, 3, 0, 9}, {0, 0, 5, 2}),
            (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Band, a, b), (std::vector<int32_t>{5 & 2, -3 & 4, 0, 12 & -12, 7}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Bor, a, b), (std::vector<int32_t>{5 | 2, -3 | 4, 0, 12 | -12, 7}));
  EXPECT_EQ(combine(ElemType::Int32, ReduceOp::Bxor, a, b), (std::vector<int32_t>{5 ^ 2, -3 ^ 4, 0, 12 ^ -12, 0}));
  EXPECT_EQ(combine(ElemType::UInt64, ReduceOp::Max, std::vector<uint64_t>{1, UINT64_MAX}, {UINT64_MAX - 1, 3}),
            (std::vector<uint64_t>{UINT64_MAX - 1, UINT64_MAX}));
  EXPECT_EQ(combine(ElemType::Int16, ReduceOp::Min, std::vector<int16_t>{-32768, 5}, {0, -5}),
            (std::vector<int16_t>{-32768, -5}));
}

// Sums and products wrap around in two's complement, like MPI implementations' C loops.
TEST(ReduceOps, IntegerOverflowWrapsAround) {
  EXPECT_EQ(combine(ElemType::Int8, ReduceOp::Sum, std::vector<int8_t>{127, -128}, {1, -1}),
            (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(combine(ElemType::UInt16, ReduceOp::Prod, std::vector<uint16_t>{65535, 300}, {65535, 300}),
            (std::vector<uint16_t>{1, static_cast<uint16_t>(90000 % 65536)}));
  EXPECT_EQ(combine(ElemType::Int64, ReduceOp::Sum, std::vector<int64_t>{INT64_MAX}, {1}),
            (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ(combine(ElemType::UInt8, ReduceOp::Sum, std::vector<uint8_t>{200}, {100}), (std::vector<uint8_t>{44}));
  for (ElemType t : kIntegers) {  // every integer width: 3 * 5 in one element
    std::vector<unsigned char> a(elem_bytes(t), 0), b(elem_bytes(t), 0);
    a[0] = 3;  // little-endian low byte (x86, ARM)
    b[0] = 5;
    Reduction r = reduction_of(t, ReduceOp::Prod);
    r.apply(reinterpret_cast<char *>(a.data()), reinterpret_cast<char *>(a.data()), reinterpret_cast<char *>(b.data()),
            a.size());
    EXPECT_EQ(a[0], 15) << elem_type_name(t);
  }
}

TEST(ReduceOps, FloatingPoint) {
  std::vector<double> a = {1.5, -2.0, 0.25}, b = {2.5, 3.0, -0.25};
  EXPECT_EQ(combine(ElemType::Double, ReduceOp::Sum, a, b), (std::vector<double>{4.0, 1.0, 0.0}));
  EXPECT_EQ(combine(ElemType::Double, ReduceOp::Prod, a, b), (std::vector<double>{3.75, -6.0, -0.0625}));
  EXPECT_EQ(combine(ElemType::Double, ReduceOp::Min, a, b), (std::vector<double>{1.5, -2.0, -0.25}));
  EXPECT_EQ(combine(ElemType::Float, ReduceOp::Max, std::vector<float>{1.f, -7.f}, {0.5f, -6.f}),
            (std::vector<float>{1.f, -6.f}));
  std::vector<long double> la = {1.0L / 3, 2.0L}, lb = {1.0L / 3, 0.5L};
  std::vector<long double> sum = combine(ElemType::LongDouble, ReduceOp::Sum, la, lb);
  EXPECT_EQ(sum[0], 2.0L / 3);
  EXPECT_EQ(sum[1], 2.5L);
}

TEST(ReduceOps, BoolAndByte) {
  std::vector<unsigned char> a = {0, 1, 0, 1, 2}, b = {0, 0, 1, 1, 1};
  EXPECT_EQ(combine(ElemType::Bool, ReduceOp::Land, a, b), (std::vector<unsigned char>{0, 0, 0, 1, 1}));
  EXPECT_EQ(combine(ElemType::Bool, ReduceOp::Lor, a, b), (std::vector<unsigned char>{0, 1, 1, 1, 1}));
  EXPECT_EQ(combine(ElemType::Bool, ReduceOp::Lxor, a, b), (std::vector<unsigned char>{0, 1, 1, 0, 0}));
  std::vector<unsigned char> x = {0xF0, 0x0F, 0xAA}, y = {0xFF, 0xF0, 0x55};
  EXPECT_EQ(combine(ElemType::Byte, ReduceOp::Bxor, x, y), (std::vector<unsigned char>{0x0F, 0xFF, 0xFF}));
  EXPECT_EQ(combine(ElemType::Byte, ReduceOp::Band, x, y), (std::vector<unsigned char>{0xF0, 0x00, 0x00}));
  EXPECT_EQ(combine(ElemType::Byte, ReduceOp::Bor, x, y), (std::vector<unsigned char>{0xFF, 0xFF, 0xFF}));
}

// The better value wins; equal values keep the smaller index, whichever side it is on.
TEST(ReduceOps, MinLocAndMaxLocBreakTiesByIndex) {
  std::vector<IntPair> a = {{3, 0}, {5, 4}, {5, 1}, {-1, 9}}, b = {{2, 7}, {5, 2}, {5, 3}, {-1, 8}};
  EXPECT_EQ(combine(ElemType::TwoInt, ReduceOp::MinLoc, a, b),
            (std::vector<IntPair>{{2, 7}, {5, 2}, {5, 1}, {-1, 8}}));
  EXPECT_EQ(combine(ElemType::TwoInt, ReduceOp::MaxLoc, a, b),
            (std::vector<IntPair>{{3, 0}, {5, 2}, {5, 1}, {-1, 8}}));
  std::vector<FloatPair> fa = {{1.5f, 3}, {0.f, 1}}, fb = {{1.5f, 2}, {-1.f, 0}};
  EXPECT_EQ(combine(ElemType::FloatInt, ReduceOp::MinLoc, fa, fb), (std::vector<FloatPair>{{1.5f, 2}, {-1.f, 0}}));
  EXPECT_EQ(combine(ElemType::FloatInt, ReduceOp::MaxLoc, fa, fb), (std::vector<FloatPair>{{1.5f, 2}, {0.f, 1}}));
}

// The algorithms combine into either operand and into unaligned places of user buffers.
TEST(ReduceOps, OutputMayAliasEitherOperandAndNeedsNoAlignment) {
  Reduction sum = reduction_of(ElemType::Double, ReduceOp::Sum);
  std::vector<char> raw(1 + 4 * sizeof(double));
  char *left = raw.data() + 1;  // misaligned for double
  const double l[4] = {1, 2, 3, 4}, r[4] = {10, 20, 30, 40};
  std::memcpy(left, l, sizeof l);
  sum.apply(left, left, reinterpret_cast<const char *>(r), sizeof r);
  double out[4];
  std::memcpy(out, left, sizeof out);
  EXPECT_EQ(out[3], 44.0);
  Reduction min = reduction_of(ElemType::Int32, ReduceOp::Min);
  int32_t x[3] = {5, 1, 9}, y[3] = {2, 8, 9};
  min.apply(reinterpret_cast<char *>(y), reinterpret_cast<char *>(x), reinterpret_cast<char *>(y), sizeof y);
  EXPECT_EQ(std::vector<int32_t>(y, y + 3), (std::vector<int32_t>{2, 1, 9}));
  sum.apply(left, left, left, 0);  // zero bytes: nothing happens
  std::memcpy(out, left, sizeof out);
  EXPECT_EQ(out[0], 11.0);
}
