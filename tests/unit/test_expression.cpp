#include "flexadj/functions/expression.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "flexadj/core/error.hpp"

namespace {

using flexadj::InputError;
using flexadj::functions::Expression;

constexpr double pi = 3.14159265358979323846;

// Minimal forward-mode dual number: v + d*eps with eps^2 = 0, so d carries the derivative.
struct Dual {
  double v = 0.0, d = 0.0;
  Dual() = default;
  Dual(double value, double derivative = 0.0) : v(value), d(derivative) {}
};
int log_calls = 0;  // counts log(Dual) to check that if() evaluates one branch only

Dual operator-(Dual a) { return {-a.v, -a.d}; }
Dual operator+(Dual a, Dual b) { return {a.v + b.v, a.d + b.d}; }
Dual operator-(Dual a, Dual b) { return {a.v - b.v, a.d - b.d}; }
Dual operator*(Dual a, Dual b) { return {a.v * b.v, a.d * b.v + a.v * b.d}; }
Dual operator/(Dual a, Dual b) { return {a.v / b.v, (a.d * b.v - a.v * b.d) / (b.v * b.v)}; }
bool operator<(Dual a, Dual b) { return a.v < b.v; }
bool operator<=(Dual a, Dual b) { return a.v <= b.v; }
bool operator>(Dual a, Dual b) { return a.v > b.v; }
bool operator>=(Dual a, Dual b) { return a.v >= b.v; }
bool operator==(Dual a, Dual b) { return a.v == b.v; }
bool operator!=(Dual a, Dual b) { return a.v != b.v; }
Dual sin(Dual a) { return {std::sin(a.v), std::cos(a.v) * a.d}; }
Dual cos(Dual a) { return {std::cos(a.v), -std::sin(a.v) * a.d}; }
Dual tan(Dual a) { return {std::tan(a.v), a.d / (std::cos(a.v) * std::cos(a.v))}; }
Dual asin(Dual a) { return {std::asin(a.v), a.d / std::sqrt(1 - a.v * a.v)}; }
Dual acos(Dual a) { return {std::acos(a.v), -a.d / std::sqrt(1 - a.v * a.v)}; }
Dual atan(Dual a) { return {std::atan(a.v), a.d / (1 + a.v * a.v)}; }
Dual atan2(Dual y, Dual x) { return {std::atan2(y.v, x.v), (x.v * y.d - y.v * x.d) / (x.v * x.v + y.v * y.v)}; }
Dual exp(Dual a) { return {std::exp(a.v), std::exp(a.v) * a.d}; }
Dual log(Dual a) {
  ++log_calls;
  return {std::log(a.v), a.d / a.v};
}
Dual sqrt(Dual a) { return {std::sqrt(a.v), a.d / (2 * std::sqrt(a.v))}; }
Dual abs(Dual a) { return a.v < 0 ? -a : a; }
Dual tanh(Dual a) { return {std::tanh(a.v), a.d * (1 - std::tanh(a.v) * std::tanh(a.v))}; }
Dual sinh(Dual a) { return {std::sinh(a.v), std::cosh(a.v) * a.d}; }
Dual cosh(Dual a) { return {std::cosh(a.v), std::sinh(a.v) * a.d}; }
Dual pow(Dual a, double p) { return {std::pow(a.v, p), p * std::pow(a.v, p - 1) * a.d}; }
Dual pow(Dual a, Dual b) { return exp(b * log(a)); }

// Value and derivative of `text` at t.
Dual differentiate(const std::string& text, double t) { return Expression::parse(text).evaluate(Dual(t, 1.0)); }

double eval(const std::string& text, double t = 0.0) { return Expression::parse(text)(t); }

TEST(Expression, PrecedenceAndAssociativity) {
  EXPECT_EQ(eval("2^3^2"), 512.0);
  EXPECT_EQ(eval("(2^3)^2"), 64.0);
  EXPECT_EQ(eval("-2^2"), -4.0);
  EXPECT_EQ(eval("2^-1"), 0.5);
  EXPECT_EQ(eval("1+2*3"), 7.0);
  EXPECT_EQ(eval("(1+2)*3"), 9.0);
  EXPECT_EQ(eval("10-4-3"), 3.0);
  EXPECT_EQ(eval("8/4/2"), 1.0);
  EXPECT_EQ(eval("2*3/4"), 1.5);
  EXPECT_EQ(eval("(1<2)+(3<=2)"), 1.0);
  EXPECT_EQ(eval("1+2 < 4"), 1.0);  // comparisons bind looser than +
  EXPECT_EQ(eval("3 > 2 > 1"), 0.0);  // (3 > 2) > 1 = 1 > 1
  EXPECT_EQ(eval("--3"), 3.0);
  EXPECT_EQ(eval("+3 - -t", 2.0), 5.0);
  EXPECT_EQ(eval(" \t2 *\n t ", 1.5), 3.0);
}

TEST(Expression, NumbersAndConstants) {
  EXPECT_EQ(eval("1e-3"), 1e-3);
  EXPECT_EQ(eval("2.5E2"), 250.0);
  EXPECT_EQ(eval(".5"), 0.5);
  EXPECT_EQ(eval("1e+2"), 100.0);
  EXPECT_EQ(eval("pi"), pi);
  EXPECT_DOUBLE_EQ(eval("e"), std::exp(1.0));
  EXPECT_DOUBLE_EQ(eval("2*e"), 2 * std::exp(1.0));
}

TEST(Expression, Comparisons) {
  EXPECT_EQ(eval("t < 1", 0.5), 1.0);
  EXPECT_EQ(eval("t < 1", 1.0), 0.0);
  EXPECT_EQ(eval("t <= 1", 1.0), 1.0);
  EXPECT_EQ(eval("t > 1", 1.0), 0.0);
  EXPECT_EQ(eval("t >= 1", 1.0), 1.0);
  EXPECT_EQ(eval("t == 1", 1.0), 1.0);
  EXPECT_EQ(eval("t != 1", 1.0), 0.0);
}

TEST(Expression, FunctionsMatchTheStandardLibrary) {
  const double t = 0.3;
  const std::vector<std::pair<std::string, double>> cases = {
      {"sin(t)", std::sin(t)},           {"cos(t)", std::cos(t)},
      {"tan(t)", std::tan(t)},           {"asin(t)", std::asin(t)},
      {"acos(t)", std::acos(t)},         {"atan(t)", std::atan(t)},
      {"atan2(t, -2)", std::atan2(t, -2.0)}, {"exp(t)", std::exp(t)},
      {"log(t)", std::log(t)},           {"sqrt(t)", std::sqrt(t)},
      {"abs(-t)", t},                    {"tanh(t)", std::tanh(t)},
      {"sinh(t)", std::sinh(t)},         {"cosh(t)", std::cosh(t)},
      {"min(t, 0.2)", 0.2},              {"max(t, 0.2)", t},
      {"t^2.5", std::pow(t, 2.5)},       {"2^t", std::pow(2.0, t)},
      {"t^t", std::pow(t, t)},           {"t^-3", 1 / (t * t * t)},
  };
  for (const auto& [text, expected] : cases) EXPECT_DOUBLE_EQ(eval(text, t), expected) << text;
}

TEST(Expression, StepAndIf) {
  EXPECT_EQ(eval("step(t - 1)", 0.5), 0.0);
  EXPECT_EQ(eval("step(t - 1)", 1.0), 1.0);
  EXPECT_EQ(eval("step(t - 1)", 2.0), 1.0);
  const Expression ramp = Expression::parse("if(t < 1, 2*t, 3)");
  EXPECT_EQ(ramp(0.25), 0.5);
  EXPECT_EQ(ramp(1.0), 3.0);
  EXPECT_EQ(eval("if(t, 4, 5)", 0.0), 5.0);
  EXPECT_EQ(eval("if(t, 4, 5)", -2.0), 4.0);
  EXPECT_EQ(eval("if(t > 0, if(t > 1, 2, 1), 0)", 1.5), 2.0);
  EXPECT_EQ(eval("if(t > 0, if(t > 1, 2, 1), 0)", 0.5), 1.0);
  EXPECT_EQ(eval("if(t > 0, if(t > 1, 2, 1), 0)", -0.5), 0.0);
  EXPECT_EQ(eval("1 + if(1 < 2, t, log(-1))", 3.0), 4.0);  // constant condition
}

TEST(Expression, IfEvaluatesOnlyTheChosenBranch) {
  const Expression guarded = Expression::parse("if(t > 0, log(t), 0)");
  log_calls = 0;
  EXPECT_EQ(guarded.evaluate(Dual(-1.0, 1.0)).v, 0.0);
  EXPECT_EQ(log_calls, 0);
  EXPECT_DOUBLE_EQ(guarded.evaluate(Dual(2.0, 1.0)).d, 0.5);
  EXPECT_EQ(log_calls, 1);
}

TEST(Expression, Variables) {
  const Expression expression = Expression::parse("k*t + c_0 - k", "", "", {"k", "c_0"});
  const double variables[] = {3.0, 0.5};
  EXPECT_EQ(expression.evaluate(2.0, variables), 3.5);
  EXPECT_FALSE(expression.is_constant());
  EXPECT_FALSE(Expression::parse("k", "", "", {"k"}).is_constant());
}

TEST(Expression, ConstantsAndText) {
  EXPECT_EQ(Expression()(5.0), 0.0);
  EXPECT_TRUE(Expression().is_constant());
  const Expression c = Expression::constant(2.5);
  EXPECT_EQ(c(-1.0), 2.5);
  EXPECT_TRUE(c.is_constant());
  EXPECT_EQ(Expression::parse(c.text())(0.0), 2.5);

  const Expression folded = Expression::parse("2*sin(pi/2) + max(1, 3)");
  EXPECT_TRUE(folded.is_constant());
  EXPECT_EQ(folded(0.0), 5.0);
  EXPECT_EQ(folded.text(), "2*sin(pi/2) + max(1, 3)");
  EXPECT_TRUE(Expression::parse("t^0").is_constant());
  EXPECT_FALSE(Expression::parse("0*t").is_constant());

  const Expression original = Expression::parse("t^2 + 1");
  Expression copy = original;
  EXPECT_EQ(copy(3.0), 10.0);
  copy = Expression::parse("t");
  EXPECT_EQ(original(3.0), 10.0);
}

TEST(Expression, Derivatives) {
  // Periodic force of a model file; d/dt = 0.05 cos(2 pi (t - 0.25)) 2 pi.
  for (double t : {0.0, 0.3, 0.9}) {
    const Dual f = differentiate("0.05*(1+sin(6*pi/3*(t-0.25)))", t);
    EXPECT_DOUBLE_EQ(f.v, 0.05 * (1 + std::sin(2 * pi * (t - 0.25))));
    EXPECT_NEAR(f.d, 0.05 * std::cos(2 * pi * (t - 0.25)) * 2 * pi, 1e-14);
  }
  const Dual square = differentiate("t^2", 0.0);
  EXPECT_EQ(square.v, 0.0);
  EXPECT_EQ(square.d, 0.0);  // finite, unlike exp(2 log t)
  EXPECT_EQ(differentiate("t^3", 2.0).d, 12.0);
  EXPECT_EQ(differentiate("t^-1", 2.0).d, -0.25);
  EXPECT_DOUBLE_EQ(differentiate("t^2.5", 4.0).d, 20.0);
  EXPECT_DOUBLE_EQ(differentiate("t^70", 1.0).d, 70.0);
  EXPECT_EQ(differentiate("min(t, 1)", 0.5).d, 1.0);
  EXPECT_EQ(differentiate("min(t, 1)", 2.0).d, 0.0);
  EXPECT_EQ(differentiate("max(2*t, 1)", 2.0).d, 2.0);
  EXPECT_EQ(differentiate("step(t)", 0.0).d, 0.0);
  EXPECT_EQ(differentiate("3*step(t)*t", 1.0).d, 3.0);
  EXPECT_EQ(differentiate("(t > 1)*t", 2.0).d, 1.0);
  EXPECT_DOUBLE_EQ(differentiate("atan2(t, 1)", 1.0).d, 0.5);
  EXPECT_DOUBLE_EQ(differentiate("exp(-t)/t", 1.0).d, -2 * std::exp(-1.0));
}

// Each malformed text fails with an InputError naming the file, the key, the problem and the column.
TEST(Expression, ParseErrors) {
  struct Case {
    std::string text, problem;
    int column;
  };
  std::string stacked = "t";
  for (int i = 0; i < 70; ++i) stacked = "t+(" + stacked + ")";
  const std::vector<Case> cases = {
      {"", "expression is empty", 1},
      {"   ", "expression is empty", 1},
      {"2*sin(t", "expected ')' but found end of expression", 8},
      {"(t + 1", "expected ')' but found end of expression", 7},
      {"2 +", "expected a number, name or '(' but found end of expression", 4},
      {"2 * * 3", "expected a number, name or '(' but found '*'", 5},
      {"2 (1)", "unexpected '(' after a complete expression", 3},
      {"(t))", "unexpected ')' after a complete expression", 4},
      {"t = 1", "unexpected '=' after a complete expression", 3},
      {"t # 1", "unexpected '#' after a complete expression", 3},
      {"foo + 1", "unknown name 'foo'", 1},
      {"1 + foo(t)", "unknown function 'foo'", 5},
      {"sin + 1", "function 'sin' needs its arguments in parentheses", 1},
      {"atan2(t)", "function 'atan2' takes 2 arguments but was given 1", 1},
      {"1 + sin(t, 2)", "function 'sin' takes 1 argument but was given 2", 5},
      {"if(t, 1)", "function 'if' takes 3 arguments but was given 2", 1},
      {"cos()", "function 'cos' takes 1 argument but was given 0", 1},
      {"sin(t,)", "expected a number, name or '(' but found ')'", 7},
      {"1.2.3", "malformed number '1.2.3'", 1},
      {"t*2t", "malformed number '2t'", 3},
      {"1e", "malformed number '1e'", 1},
      {"1e999", "number '1e999' is out of range", 1},
      {std::string(300, '-') + "t", "expression is nested too deeply", 257},
      // t+(t+(...)): the 65th '+' would put its value at stack index 64
      {stacked, "expression is nested too deeply (it needs more than 64 evaluation stack entries)", 3 * 64 + 2},
  };
  for (const Case& c : cases) {
    try {
      Expression::parse(c.text, "model.yaml", "bodies[1].force");
      ADD_FAILURE() << "no error for '" << c.text << "'";
    } catch (const InputError& error) {
      const std::string what = error.what();
      EXPECT_EQ(error.file(), "model.yaml");
      EXPECT_EQ(error.key(), "bodies[1].force");
      EXPECT_NE(what.find("model.yaml: bodies[1].force: cannot parse expression '" + c.text + "': "),
                std::string::npos)
          << what;
      EXPECT_NE(what.find(c.problem + " at column " + std::to_string(c.column)), std::string::npos) << what;
    }
  }
}

// A chain of 60 000 terms used to overflow the code generator's stack (segfault); it is an input error now, and
// a chain below the limit still evaluates.
TEST(Expression, LongChainsAreRefusedWithoutCrashing) {
  std::string huge = "t";
  for (int i = 0; i < 60000; ++i) huge += "+t";
  try {
    Expression::parse(huge, "model.yaml", "forces[0].force[0]");
    ADD_FAILURE() << "no error for a chain of 60001 terms";
  } catch (const InputError& error) {
    EXPECT_EQ(error.key(), "forces[0].force[0]");
    EXPECT_NE(std::string(error.what()).find("expression is too long"), std::string::npos) << error.what();
  }
  std::string long_sum = "t";
  for (int i = 0; i < 4999; ++i) long_sum += "+t";
  EXPECT_DOUBLE_EQ(Expression::parse(long_sum)(0.5), 2500.0);
}

TEST(Expression, InvalidVariableNames) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"2k"}, "invalid variable name '2k'"},
      {{""}, "invalid variable name ''"},
      {{"a.b"}, "invalid variable name 'a.b'"},
      {{"t"}, "variable name 't' is reserved"},
      {{"sin"}, "variable name 'sin' is reserved"},
      {{"pi"}, "variable name 'pi' is reserved"},
      {{"k", "k"}, "variable name 'k' is given twice"},
  };
  for (const auto& [names, problem] : cases) {
    try {
      Expression::parse("t", "model.yaml", "f", names);
      ADD_FAILURE() << "no error for " << problem;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("model.yaml: f: " + problem), std::string::npos) << error.what();
    }
  }
}

}  // namespace
