#pragma once
// Binomial checkpointing (Griewank 1992; Griewank and Walther 2000, "Algorithm 799: revolve"): reversing l
// states x_0 .. x_{l-1} of a step-by-step computation with s checkpoint slots (one of them holding x_0) needs at
// least p(l, s) forward steps, and the recursive split below attains it. A forward run of N steps has l = N + 1
// states; its N steps are part of p, so the backward sweep recomputes p(N + 1, s) - N steps.
//
// The formulas are Griewank and Walther 2000, sec. 3: beta(s, t) = (s + t)! / (s! t!) is the longest chain that s
// slots reverse with t repetitions (no state advanced more than t times), and for beta(s, t - 1) < l <= beta(s, t)
//   p(l, s) = t l - beta(s + 1, t - 1).
// Written here instead of linking revolve: the closed forms are a few lines, and the schedule must drive a
// trajectory that serves states on request (CheckpointedTrajectory), not call back into the integrator.
#include <cstdint>
#include <string>
#include <vector>

namespace flexadj::storage {

// beta(s, t), saturated at UINT64_MAX.
std::uint64_t binomial_reach(std::uint64_t slots, std::uint64_t repetitions);
// The repetition number t: the least t with beta(s, t) >= l (0 for l = 1). s >= 1.
std::uint64_t repetition_number(std::uint64_t states, std::uint64_t slots);
// p(l, s): the least number of forward steps that reverse l states with s slots. l >= 1, s >= 1.
std::uint64_t optimal_forward_steps(std::uint64_t states, std::uint64_t slots);
// Where to place the next checkpoint: the distance m in [1, l - 1] from the checkpoint holding the first of l
// states, with s slots (that one included, s >= 2), that minimises m + p(l - m, s - 1) + p(m, s) (the cost of
// advancing m steps, reversing the tail with one slot fewer, then the head with all s). The cost is convex in m
// (p is piecewise linear with nondecreasing slope t), so a bisection on its forward difference finds a minimiser.
std::uint64_t optimal_split(std::uint64_t states, std::uint64_t slots);

// Two levels, memory and disk (periodic two-level checkpointing): the forward run writes a disk checkpoint every
// m steps (the disk interval) and keeps s memory slots for the last interval only; the backward sweep reverses the
// intervals from the last to the first, each from its disk checkpoint with the binomial schedule over s slots.
// Aupy and Herrmann 2017 ("Periodicity in optimal hierarchical checkpointing schemes for adjoint computations",
// Optim. Methods Softw. 32(3)) show that optimal two-level schedules are periodic in this way, asymptotically in
// N; the optimal period depends on the costs of disk writes and reads relative to a step, which flexadj does not
// model: it takes m from the user, or m = s (default_disk_interval), which recomputes every step once. The
// recomputed steps are then, with K = floor(N / m) intervals of m states and a last one of l = N - K m + 1,
//   K p(m, s) + p(l, s) - (l - 1)                                            (two_level_recomputed_steps)
std::uint64_t two_level_recomputed_steps(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval);

// The whole schedule of a backward sweep over N steps with s slots (and with disk_interval m > 0, a disk checkpoint
// every m steps), as data: what CheckpointedTrajectory does, action by action. For printing
// (`flexadj gradient --print-schedule`) and for tests.
struct ScheduleAction {
  enum class Kind { Advance, Store, Restore, Reverse, DiskStore, DiskRead } kind;
  std::uint64_t from = 0, to = 0;  // Advance: steps from -> to; the others: from = the step
};

struct BinomialSchedule {
  std::uint64_t steps = 0, slots = 0, disk_interval = 0;
  std::vector<ScheduleAction> actions;  // the forward run's stores first, then the backward sweep
  std::uint64_t recomputed_steps = 0;   // forward steps taken during the backward sweep
  std::uint64_t stores = 0, restores = 0;
  std::uint64_t disk_writes = 0, disk_reads = 0;
  bool listed = true;            // the actions and every count are there (else the counts of schedule_counts)
  std::string summary() const;   // one line: the counts and the optimum they are compared with
  std::string describe() const;  // summary(), then one action per line (if listed)
  // A warning when the sweep recomputes more than kRecomputationWarning times the forward run's steps; else "".
  std::string recomputation_warning() const;
};

// The schedule is listed action by action up to this many steps (a long one takes long to build and to print).
inline constexpr std::uint64_t kMaxListedSteps = 100000;
inline constexpr std::uint64_t kRecomputationWarning = 10;

BinomialSchedule binomial_schedule(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval = 0);
// The counts only, from the closed forms (recomputed steps, restores, disk writes and reads; no actions, no
// stores): at once for any number of steps.
BinomialSchedule schedule_counts(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval = 0);
// binomial_schedule() if `actions` are wanted and there are at most kMaxListedSteps steps, else schedule_counts().
BinomialSchedule plan_schedule(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval, bool actions);

}  // namespace flexadj::storage
