#include "flexadj/functions/expression.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string_view>
#include <system_error>
#include <utility>

#include "flexadj/core/error.hpp"

namespace flexadj::functions {
namespace {

using detail::Instruction;
using detail::Op;

constexpr double pi = 3.14159265358979323846;
constexpr double euler = 2.71828182845904523536;
constexpr int max_nesting = 256;          // bounds the parser's recursion
constexpr int max_tree_depth = 10000;     // bounds the code generator's recursion (chains of binary operators)
constexpr int max_integer_exponent = 64;  // larger constant exponents use pow(x, double)

struct Function {
  std::string_view name;
  Op op;
  int arity;
};

// `if` is not listed: it compiles to jumps, see Parser::emit.
constexpr Function functions[] = {
    {"sin", Op::Sin, 1},   {"cos", Op::Cos, 1},   {"tan", Op::Tan, 1},     {"asin", Op::Asin, 1},
    {"acos", Op::Acos, 1}, {"atan", Op::Atan, 1}, {"atan2", Op::Atan2, 2}, {"exp", Op::Exp, 1},
    {"log", Op::Log, 1},   {"sqrt", Op::Sqrt, 1}, {"abs", Op::Abs, 1},     {"tanh", Op::Tanh, 1},
    {"sinh", Op::Sinh, 1}, {"cosh", Op::Cosh, 1}, {"min", Op::Min, 2},     {"max", Op::Max, 2},
    {"step", Op::Step, 1},
};

const Function* find_function(std::string_view name) {
  for (const Function& function : functions) {
    if (function.name == name) return &function;
  }
  return nullptr;
}

struct Symbol {
  std::string_view text;
  Op op;
};
constexpr Symbol comparison_symbols[] = {{"<=", Op::LessEqual}, {">=", Op::GreaterEqual}, {"==", Op::Equal},
                                         {"!=", Op::NotEqual},  {"<", Op::Less},          {">", Op::Greater}};
constexpr Symbol additive_symbols[] = {{"+", Op::Add}, {"-", Op::Subtract}};
constexpr Symbol term_symbols[] = {{"*", Op::Multiply}, {"/", Op::Divide}};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

bool is_reserved(std::string_view name) {
  return name == "t" || name == "pi" || name == "e" || name == "if" || find_function(name) != nullptr;
}

std::string format_number(double value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

void check_variable_names(const std::vector<std::string>& names, const std::string& file, const std::string& key) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (name.empty() || !is_name_start(name[0]) || !std::all_of(name.begin(), name.end(), is_name_char)) {
      throw InputError(file, key,
                       "invalid variable name '" + name + "': use letters, digits and '_', not starting with a digit");
    }
    if (is_reserved(name)) throw InputError(file, key, "variable name '" + name + "' is reserved");
    if (std::find(names.begin(), names.begin() + i, name) != names.begin() + i) {
      throw InputError(file, key, "variable name '" + name + "' is given twice");
    }
  }
}

// Recursive-descent parser building a syntax tree (folding constant subexpressions on the way), then compiling
// the tree into postfix code.
class Parser {
 public:
  Parser(const std::string& text, const std::string& file, const std::string& key,
         const std::vector<std::string>& variable_names)
      : text_(text), file_(file), key_(key), variable_names_(variable_names) {}

  std::vector<Instruction> compile() {
    if (skip_space() == text_.size()) fail("expression is empty", 0);
    const int root = parse_comparison();
    if (skip_space() < text_.size()) fail("unexpected " + describe_next() + " after a complete expression", pos_);
    std::vector<Instruction> code;
    emit(root, 0, 0, code);
    return code;
  }

 private:
  struct Node {
    Op op;  // JumpIfZero stands for if(condition, if_true, if_false)
    int index = 0;
    double value = 0.0;
    std::size_t position = 0;  // in the text, for error messages
    std::vector<int> children;
  };

  // ---- grammar, see expression.hpp ----

  int parse_comparison() { return parse_chain(comparison_symbols, &Parser::parse_additive); }
  int parse_additive() { return parse_chain(additive_symbols, &Parser::parse_term); }
  int parse_term() { return parse_chain(term_symbols, &Parser::parse_unary); }

  // operand (symbol operand)*, left-associative
  template <std::size_t N>
  int parse_chain(const Symbol (&symbols)[N], int (Parser::*parse_operand)()) {
    int left = (this->*parse_operand)();
    for (;;) {
      const std::size_t position = skip_space();
      const Symbol* symbol = accept_one_of(symbols);
      if (symbol == nullptr) return left;
      left = make(symbol->op, position, {left, (this->*parse_operand)()});
    }
  }

  int parse_unary() {
    const std::size_t position = skip_space();
    if (++nesting_ > max_nesting) fail("expression is nested too deeply", position);
    int result;
    if (accept("-")) {
      result = make(Op::Negate, position, {parse_unary()});
    } else if (accept("+")) {
      result = parse_unary();
    } else {
      result = parse_power();
    }
    --nesting_;
    return result;
  }

  int parse_power() {
    const int base = parse_primary();
    const std::size_t position = skip_space();
    if (!accept("^")) return base;
    return make(Op::Power, position, {base, parse_unary()});  // right-associative; the exponent may be signed
  }

  int parse_primary() {
    const std::size_t position = skip_space();
    if (position < text_.size()) {
      const char c = text_[position];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return parse_number();
      if (is_name_start(c)) return parse_name();
      if (accept("(")) {
        const int inner = parse_comparison();
        expect(")");
        return inner;
      }
    }
    fail("expected a number, name or '(' but found " + describe_next(), position);
  }

  int parse_number() {
    // The token extends over everything that could belong to it, so "2t" and "1.2.3" are reported whole.
    const std::size_t start = pos_;
    auto belongs = [&](std::size_t i) {
      const char c = text_[i];
      return is_name_char(c) || c == '.' || ((c == '+' || c == '-') && (text_[i - 1] == 'e' || text_[i - 1] == 'E'));
    };
    while (pos_ < text_.size() && belongs(pos_)) ++pos_;
    const std::string token = text_.substr(start, pos_ - start);
    double value = 0.0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error == std::errc::result_out_of_range) fail("number '" + token + "' is out of range", start);
    if (error != std::errc() || end != token.data() + token.size()) fail("malformed number '" + token + "'", start);
    return make_constant(value, start);
  }

  int parse_name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    const std::string name = text_.substr(start, pos_ - start);
    if (accept("(")) return parse_call(name, start);
    if (name == "t") return add({Op::Time, 0, 0.0, start, {}});
    if (name == "pi") return make_constant(pi, start);
    if (name == "e") return make_constant(euler, start);
    const auto variable = std::find(variable_names_.begin(), variable_names_.end(), name);
    if (variable != variable_names_.end()) {
      return add({Op::Variable, static_cast<int>(variable - variable_names_.begin()), 0.0, start, {}});
    }
    if (is_reserved(name)) fail("function '" + name + "' needs its arguments in parentheses", start);
    fail("unknown name '" + name + "'", start);
  }

  // After "name(".
  int parse_call(const std::string& name, std::size_t start) {
    const Function* function = find_function(name);
    if (name != "if" && function == nullptr) fail("unknown function '" + name + "'", start);
    const std::size_t arity = function != nullptr ? function->arity : 3;

    std::vector<int> arguments;
    if (!accept(")")) {
      do {
        arguments.push_back(parse_comparison());
      } while (accept(","));
      expect(")");
    }
    if (arguments.size() != arity) {
      fail("function '" + name + "' takes " + std::to_string(arity) + (arity == 1 ? " argument" : " arguments") +
               " but was given " + std::to_string(arguments.size()),
           start);
    }
    if (function != nullptr) return make(function->op, start, std::move(arguments));
    return make_conditional(arguments[0], arguments[1], arguments[2], start);
  }

  // ---- tree construction with constant folding ----

  int add(Node node) {
    nodes_.push_back(std::move(node));
    return static_cast<int>(nodes_.size()) - 1;
  }

  int make_constant(double value, std::size_t position) { return add({Op::Constant, 0, value, position, {}}); }

  bool is_constant(int node) const { return nodes_[node].op == Op::Constant; }

  int make(Op op, std::size_t position, std::vector<int> children) {
    if (std::all_of(children.begin(), children.end(), [&](int child) { return is_constant(child); })) {
      std::vector<Instruction> code;
      for (int child : children) code.push_back({Op::Constant, 0, nodes_[child].value});
      code.push_back({op});
      return make_constant(detail::run(code, 0.0, static_cast<const double*>(nullptr)), position);
    }
    if (op == Op::Power && is_constant(children[1])) {
      const double exponent = nodes_[children[1]].value;
      if (exponent == 0.0) return make_constant(1.0, position);  // as pow(x, 0) = 1 for every x
      if (exponent == std::trunc(exponent) && std::abs(exponent) <= max_integer_exponent) {
        return add({Op::IntegerPower, static_cast<int>(exponent), 0.0, position, {children[0]}});
      }
      return add({Op::RealPower, 0, exponent, position, {children[0]}});
    }
    return add({op, 0, 0.0, position, std::move(children)});
  }

  int make_conditional(int condition, int if_true, int if_false, std::size_t position) {
    if (is_constant(condition)) return nodes_[condition].value != 0.0 ? if_true : if_false;
    return add({Op::JumpIfZero, 0, 0.0, position, {condition, if_true, if_false}});
  }

  // ---- code generation ----

  // Appends the postfix code of `node`, whose value will sit at stack index `depth`; `level` is its depth in the
  // tree (a long chain such as t+t+...+t is deep in its first operands without needing stack entries).
  void emit(int node, int depth, int level, std::vector<Instruction>& code) const {
    const Node& n = nodes_[node];
    if (level >= max_tree_depth) {
      fail("expression is too long: it chains more than " + std::to_string(max_tree_depth) +
               " operations (write it as a control signal from a file, or simplify it)",
           n.position);
    }
    if (depth >= detail::max_stack_depth) {
      fail("expression is nested too deeply (it needs more than " + std::to_string(detail::max_stack_depth) +
               " evaluation stack entries)",
           n.position);
    }
    if (n.op == Op::JumpIfZero) {
      // condition, JumpIfZero over [if_true, Jump], if_true, Jump over [if_false], if_false
      emit(n.children[0], depth, level + 1, code);
      const std::size_t branch = code.size();
      code.push_back({Op::JumpIfZero});
      emit(n.children[1], depth, level + 1, code);
      const std::size_t jump = code.size();
      code.push_back({Op::Jump});
      emit(n.children[2], depth, level + 1, code);
      code[branch].index = static_cast<int>(jump - branch);
      code[jump].index = static_cast<int>(code.size() - jump - 1);
      return;
    }
    for (std::size_t i = 0; i < n.children.size(); ++i)
      emit(n.children[i], depth + static_cast<int>(i), level + 1, code);
    code.push_back({n.op, n.index, n.value});
  }

  // ---- characters ----

  std::size_t skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return pos_;
  }

  bool accept(std::string_view symbol) {
    skip_space();
    if (text_.compare(pos_, symbol.size(), symbol) != 0) return false;
    pos_ += symbol.size();
    return true;
  }

  // Consumes and returns the first of `symbols` found at the current position, or returns null.
  template <std::size_t N>
  const Symbol* accept_one_of(const Symbol (&symbols)[N]) {
    for (const Symbol& symbol : symbols) {
      if (accept(symbol.text)) return &symbol;
    }
    return nullptr;
  }

  void expect(std::string_view symbol) {
    if (!accept(symbol)) fail("expected '" + std::string(symbol) + "' but found " + describe_next(), pos_);
  }

  std::string describe_next() const {
    return pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : "end of expression";
  }

  [[noreturn]] void fail(const std::string& problem, std::size_t position) const {
    throw InputError(file_, key_,
                     "cannot parse expression '" + text_ + "': " + problem + " at column " +
                         std::to_string(position + 1));
  }

  const std::string& text_;
  const std::string& file_;
  const std::string& key_;
  const std::vector<std::string>& variable_names_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
  std::vector<Node> nodes_;
};

}  // namespace

Expression::Expression() : code_{{Op::Constant, 0, 0.0}}, text_("0") {}

Expression Expression::constant(double value) {
  Expression expression;
  expression.code_.front().value = value;
  expression.text_ = format_number(value);
  return expression;
}

Expression Expression::parse(const std::string& text, const std::string& file, const std::string& key,
                             const std::vector<std::string>& variable_names) {
  check_variable_names(variable_names, file, key);
  Expression expression;
  expression.code_ = Parser(text, file, key, variable_names).compile();
  expression.text_ = text;
  expression.uses_variables_ = std::any_of(expression.code_.begin(), expression.code_.end(),
                                           [](const Instruction& in) { return in.op == Op::Variable; });
  return expression;
}

}  // namespace flexadj::functions
