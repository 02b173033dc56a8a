#include "flexadj/storage/binomial_schedule.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>

namespace flexadj::storage {
namespace {

constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

std::uint64_t saturating_multiply_divide(std::uint64_t a, std::uint64_t b, std::uint64_t d) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b / d;
  return product > kSaturated ? kSaturated : static_cast<std::uint64_t>(product);
}

}  // namespace

std::uint64_t binomial_reach(std::uint64_t slots, std::uint64_t repetitions) {
  // C(s + t, t) by the product of (s + i) / i, i = 1..t: every partial product is a binomial coefficient.
  std::uint64_t value = 1;
  for (std::uint64_t i = 1; i <= repetitions; ++i) {
    if (value == kSaturated) return kSaturated;
    value = saturating_multiply_divide(value, slots + i, i);
  }
  return value;
}

std::uint64_t repetition_number(std::uint64_t states, std::uint64_t slots) {
  if (slots < 1) throw std::invalid_argument("binomial checkpointing needs at least one slot");
  // beta(s, t) grows with t: the least t by doubling, then bisection (one slot over 10^6 states needs t = 10^6).
  std::uint64_t high = 1;
  while (binomial_reach(slots, high) < states) high *= 2;
  std::uint64_t low = 0;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (binomial_reach(slots, middle) >= states) high = middle;
    else low = middle + 1;
  }
  return low;
}

std::uint64_t optimal_forward_steps(std::uint64_t states, std::uint64_t slots) {
  if (states <= 1) return 0;
  const std::uint64_t t = repetition_number(states, slots);
  return t * states - binomial_reach(slots + 1, t - 1);
}

std::uint64_t optimal_split(std::uint64_t states, std::uint64_t slots) {
  if (states < 2 || slots < 2) throw std::invalid_argument("optimal_split needs at least 2 states and 2 slots");
  auto cost = [&](std::uint64_t m) {
    return m + optimal_forward_steps(states - m, slots - 1) + optimal_forward_steps(m, slots);
  };
  // Least m in [1, l - 1] with cost(m + 1) >= cost(m): a minimiser of the convex cost.
  std::uint64_t low = 1, high = states - 1;
  while (low < high) {
    const std::uint64_t middle = low + (high - low) / 2;
    if (cost(middle + 1) >= cost(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}

std::uint64_t two_level_recomputed_steps(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval) {
  if (slots < 1 || disk_interval < 1) throw std::invalid_argument("two-level checkpointing needs slots and m >= 1");
  const std::uint64_t intervals = steps / disk_interval, last = steps - intervals * disk_interval + 1;
  return intervals * optimal_forward_steps(disk_interval, slots) + optimal_forward_steps(last, slots) - (last - 1);
}

BinomialSchedule binomial_schedule(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval) {
  if (slots < 1) throw std::invalid_argument("binomial checkpointing needs at least one slot");
  BinomialSchedule schedule;
  schedule.steps = steps;
  schedule.slots = slots;
  schedule.disk_interval = disk_interval;
  const std::uint64_t period = disk_interval > 0 ? disk_interval : steps + 1;  // no disk: one interval
  using Kind = ScheduleAction::Kind;
  auto& actions = schedule.actions;
  std::vector<std::uint64_t> stored;  // the memory checkpoint stack (step indices), increasing
  // Places the checkpoints while advancing from the top of the stack to `target`, as far as slots remain.
  auto advance_to = [&](std::uint64_t target, bool recomputing) {
    std::uint64_t at = stored.back();
    std::uint64_t available = slots - stored.size() + 1;  // the slot holding `at` included
    while (target - at + 1 > 1 && available > 1) {
      const std::uint64_t next = at + optimal_split(target - at + 1, available);
      actions.push_back({Kind::Advance, at, next});
      if (recomputing) schedule.recomputed_steps += next - at;
      actions.push_back({Kind::Store, next, next});
      stored.push_back(next);
      ++schedule.stores;
      at = next;
      --available;
    }
    if (at < target) {
      actions.push_back({Kind::Advance, at, target});
      if (recomputing) schedule.recomputed_steps += target - at;
    }
  };
  // The forward run: a disk checkpoint at the start of every interval; memory checkpoints in the last one only.
  const std::uint64_t last_start = steps / period * period;
  for (std::uint64_t start = 0; start <= steps; start += period) {
    if (disk_interval > 0) {
      actions.push_back({Kind::DiskStore, start, start});
      ++schedule.disk_writes;
    }
    if (start < last_start) {
      actions.push_back({Kind::Advance, start, start + period});
      continue;
    }
    stored.assign(1, start);
    actions.push_back({Kind::Store, start, start});
    advance_to(steps, false);
  }
  // The backward sweep: x_n is the state the last advance produced, or restored and recomputed.
  for (std::uint64_t n = steps + 1; n-- > 0;) {
    if (n < steps) {
      while (!stored.empty() && stored.back() > n) stored.pop_back();
      if (stored.empty()) {  // below the memory checkpoints: the interval's disk checkpoint
        const std::uint64_t start = n / period * period;
        actions.push_back({Kind::DiskRead, start, start});
        ++schedule.disk_reads;
        stored.push_back(start);
      }
      actions.push_back({Kind::Restore, stored.back(), stored.back()});
      ++schedule.restores;
      advance_to(n, true);
    }
    actions.push_back({Kind::Reverse, n, n});
  }
  return schedule;
}

BinomialSchedule schedule_counts(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval) {
  if (slots < 1) throw std::invalid_argument("binomial checkpointing needs at least one slot");
  BinomialSchedule schedule;
  schedule.steps = steps;
  schedule.slots = slots;
  schedule.disk_interval = disk_interval;
  schedule.listed = false;
  schedule.restores = steps;  // one per state below the last
  if (disk_interval == 0) {
    schedule.recomputed_steps = optimal_forward_steps(steps + 1, slots) - steps;
  } else {
    schedule.recomputed_steps = two_level_recomputed_steps(steps, slots, disk_interval);
    schedule.disk_writes = steps / disk_interval + 1;  // at the start of every interval
    schedule.disk_reads = schedule.disk_writes - 1;   // every interval below the last, once
  }
  return schedule;
}

BinomialSchedule plan_schedule(std::uint64_t steps, std::uint64_t slots, std::uint64_t disk_interval, bool actions) {
  return actions && steps <= kMaxListedSteps ? binomial_schedule(steps, slots, disk_interval)
                                             : schedule_counts(steps, slots, disk_interval);
}

std::string BinomialSchedule::recomputation_warning() const {
  if (recomputed_steps <= kRecomputationWarning * steps) return "";
  std::ostringstream out;
  out << "the checkpoint schedule recomputes " << recomputed_steps << " steps, "
      << (steps > 0 ? recomputed_steps / steps : 0) << " times the " << steps << " steps of the forward run: the "
      << "backward sweep will take that much longer; more checkpoints (--checkpoints, --memory-limit) or disk "
      << "checkpoints (--disk-checkpoints) recompute fewer";
  return out.str();
}

std::string BinomialSchedule::summary() const {
  std::ostringstream out;
  if (!listed) {
    out << (disk_interval == 0 ? "binomial" : "two-level") << " checkpointing: " << steps << " steps, " << slots
        << " slots in memory";
    if (disk_interval > 0) out << ", a disk checkpoint every " << disk_interval << " steps";
    out << "; " << recomputed_steps << " steps recomputed, " << restores << " restores";
    if (disk_interval > 0) out << ", " << disk_writes << " disk writes, " << disk_reads << " disk reads";
    return out.str();
  }
  if (disk_interval == 0) {
    out << "binomial checkpointing: " << steps << " steps, " << slots << " slots in memory; " << recomputed_steps
        << " steps recomputed (optimum p(N+1, s) - N = " << optimal_forward_steps(steps + 1, slots) - steps << "), "
        << stores << " stores, " << restores << " restores";
  } else {
    out << "two-level checkpointing: " << steps << " steps, " << slots << " slots in memory, a disk checkpoint every "
        << disk_interval << " steps; " << recomputed_steps << " steps recomputed (K p(m, s) + p(l, s) - l + 1 = "
        << two_level_recomputed_steps(steps, slots, disk_interval) << "), " << stores << " stores, " << restores
        << " restores, " << disk_writes << " disk writes, " << disk_reads << " disk reads";
  }
  return out.str();
}

std::string BinomialSchedule::describe() const {
  std::ostringstream out;
  out << summary() << "\n";
  if (!listed)
    out << "(the actions are listed for schedules of at most " << kMaxListedSteps << " steps; this one has " << steps
        << ")\n";
  for (const auto& a : actions) {
    switch (a.kind) {
      case ScheduleAction::Kind::Advance: out << "advance " << a.from << " -> " << a.to << "\n"; break;
      case ScheduleAction::Kind::Store: out << "store " << a.from << "\n"; break;
      case ScheduleAction::Kind::Restore: out << "restore " << a.from << "\n"; break;
      case ScheduleAction::Kind::Reverse: out << "reverse " << a.from << "\n"; break;
      case ScheduleAction::Kind::DiskStore: out << "disk store " << a.from << "\n"; break;
      case ScheduleAction::Kind::DiskRead: out << "disk read " << a.from << "\n"; break;
    }
  }
  return out.str();
}

}  // namespace flexadj::storage
