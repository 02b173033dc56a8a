#pragma once
// Arithmetic expressions of the time t that users write in model files, e.g.
//   "0.05*(1 + sin(2*pi*(t - 0.25)))"   or   "if(t < 1, k*t, k)"  (k an extra named variable).
// Parsed once into postfix code; evaluated with any scalar type S: double, or forward-AD types such as
// Sacado::Fad::SFad<double,1> and SFad<SFad<double,1>,1>, which give exact first and second time derivatives.
// Evaluation does no heap allocation and no string work.
//
// Grammar, from lowest to highest precedence (binary operators are left-associative except ^):
//   comparison  < <= > >= == !=   (1 if true else 0; all at one level)
//   additive    + -
//   term        * /
//   unary       -x +x
//   power       x^y               (right-associative and tighter than unary minus: -t^2 = -(t^2), 2^-1 = 0.5)
//   primary     number | t | pi | e | variable | function(args) | (expression)
// Functions: sin cos tan asin acos atan atan2(y,x) exp log sqrt abs tanh sinh cosh min(a,b) max(a,b)
//   step(x) (1 for x >= 0 else 0, derivative 0), if(c,a,b) (a if c != 0 else b; only that branch is evaluated).
// A constant integer exponent (|n| <= 64) is evaluated by multiplication, so t^2 keeps finite, exact first and
// second derivatives at t = 0. Subexpressions without t or variables are folded into constants when parsing.
#include <array>
#include <cassert>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

namespace flexadj::functions {

namespace detail {

// Stack-machine instructions. Operands are popped from the top of the stack and the result is pushed.
enum class Op : unsigned char {
  Constant, Time, Variable,  // push a value
  Jump, JumpIfZero,          // skip `index` instructions (JumpIfZero pops the condition)
  Negate, Sin, Cos, Tan, Asin, Acos, Atan, Exp, Log, Sqrt, Abs, Tanh, Sinh, Cosh, Step,
  IntegerPower,  // x^index
  RealPower,     // x^value
  Add, Subtract, Multiply, Divide, Power, Atan2, Min, Max,
  Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual,
};

struct Instruction {
  Op op;
  int index = 0;       // variable index, jump distance or integer exponent
  double value = 0.0;  // constant or real exponent
};

inline constexpr int max_stack_depth = 64;  // checked when parsing

// x^n for n != 0 by repeated squaring.
template <class S>
S integer_power(const S& x, int n) {
  assert(n != 0);
  unsigned m = n < 0 ? -n : n;
  S base = x;
  while (!(m & 1u)) {
    base = base * base;
    m >>= 1;
  }
  S result = base;
  while (m >>= 1) {
    base = base * base;
    if (m & 1u) result = result * base;
  }
  return n < 0 ? S(1.0) / result : result;
}

template <class S>
S run(const std::vector<Instruction>& code, const S& t, const S* variables) {
  using std::abs, std::acos, std::asin, std::atan, std::atan2, std::cos, std::cosh, std::exp, std::log, std::pow,
      std::sin, std::sinh, std::sqrt, std::tan, std::tanh;
  const S zero(0.0), one(1.0);
  std::array<S, max_stack_depth> stack;
  int top = -1;  // index of the top value; binary operators combine stack[top] and stack[top + 1] after --top
  const std::size_t size = code.size();
  for (std::size_t pc = 0; pc < size; ++pc) {
    const Instruction& in = code[pc];
    switch (in.op) {
      case Op::Constant: stack[++top] = S(in.value); break;
      case Op::Time: stack[++top] = t; break;
      case Op::Variable: stack[++top] = variables[in.index]; break;
      case Op::Jump: pc += in.index; break;
      case Op::JumpIfZero: if (stack[top--] == zero) pc += in.index; break;

      case Op::Negate: stack[top] = -stack[top]; break;
      case Op::Sin: stack[top] = sin(stack[top]); break;
      case Op::Cos: stack[top] = cos(stack[top]); break;
      case Op::Tan: stack[top] = tan(stack[top]); break;
      case Op::Asin: stack[top] = asin(stack[top]); break;
      case Op::Acos: stack[top] = acos(stack[top]); break;
      case Op::Atan: stack[top] = atan(stack[top]); break;
      case Op::Exp: stack[top] = exp(stack[top]); break;
      case Op::Log: stack[top] = log(stack[top]); break;
      case Op::Sqrt: stack[top] = sqrt(stack[top]); break;
      case Op::Abs: stack[top] = abs(stack[top]); break;
      case Op::Tanh: stack[top] = tanh(stack[top]); break;
      case Op::Sinh: stack[top] = sinh(stack[top]); break;
      case Op::Cosh: stack[top] = cosh(stack[top]); break;
      case Op::Step: stack[top] = stack[top] >= zero ? one : zero; break;
      case Op::IntegerPower: stack[top] = integer_power(stack[top], in.index); break;
      case Op::RealPower: stack[top] = pow(stack[top], in.value); break;

      case Op::Add: --top; stack[top] = stack[top] + stack[top + 1]; break;
      case Op::Subtract: --top; stack[top] = stack[top] - stack[top + 1]; break;
      case Op::Multiply: --top; stack[top] = stack[top] * stack[top + 1]; break;
      case Op::Divide: --top; stack[top] = stack[top] / stack[top + 1]; break;
      case Op::Power: --top; stack[top] = pow(stack[top], stack[top + 1]); break;
      case Op::Atan2: --top; stack[top] = atan2(stack[top], stack[top + 1]); break;
      case Op::Min: --top; if (stack[top + 1] < stack[top]) stack[top] = stack[top + 1]; break;
      case Op::Max: --top; if (stack[top] < stack[top + 1]) stack[top] = stack[top + 1]; break;
      case Op::Less: --top; stack[top] = stack[top] < stack[top + 1] ? one : zero; break;
      case Op::LessEqual: --top; stack[top] = stack[top] <= stack[top + 1] ? one : zero; break;
      case Op::Greater: --top; stack[top] = stack[top] > stack[top + 1] ? one : zero; break;
      case Op::GreaterEqual: --top; stack[top] = stack[top] >= stack[top + 1] ? one : zero; break;
      case Op::Equal: --top; stack[top] = stack[top] == stack[top + 1] ? one : zero; break;
      case Op::NotEqual: --top; stack[top] = stack[top] != stack[top + 1] ? one : zero; break;
    }
  }
  assert(top == 0);
  return stack[0];
}

}  // namespace detail

class Expression {
 public:
  Expression();  // the constant 0

  static Expression constant(double value);

  // Parses `text`. variable_names[i] may then be used in the text and is read from variables[i] when evaluating.
  // Errors throw flexadj::InputError(file, key, message); the message quotes the text and gives the 1-based column.
  static Expression parse(const std::string& text, const std::string& file = "", const std::string& key = "",
                          const std::vector<std::string>& variable_names = {});

  // `variables` may be null if the expression uses no variables.
  template <class S>
  S evaluate(const S& t, const S* variables = nullptr) const {
    static_assert(!std::is_integral_v<S>, "evaluate an expression with a floating-point or AD type");
    assert(variables != nullptr || !uses_variables_);
    return detail::run(code_, t, variables);
  }

  double operator()(double t) const { return evaluate(t); }

  const std::string& text() const { return text_; }

  // True if the value depends on neither t nor any variable.
  bool is_constant() const { return code_.size() == 1 && code_.front().op == detail::Op::Constant; }

 private:
  std::vector<detail::Instruction> code_;
  std::string text_;
  bool uses_variables_ = false;
};

}  // namespace flexadj::functions
