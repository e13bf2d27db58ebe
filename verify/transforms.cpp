// Random sequences of loop transformations (see transforms.h).
#include "verify/transforms.h"

#include "core/transform.h"

namespace teval::verify {

namespace {

const char* kind_name(TransformStep::Kind k) {
  switch (k) {
  case TransformStep::Split:
    return "split";
  case TransformStep::SplitMasked:
    return "split-masked";
  case TransformStep::Reorder:
    return "reorder";
  case TransformStep::Tile:
    return "tile";
  case TransformStep::Unroll:
    return "unroll";
  case TransformStep::Vectorize:
    return "vectorize";
  case TransformStep::Fuse:
    return "fuse";
  case TransformStep::RegisterTile:
    return "register tile";
  case TransformStep::DropDeadFills:
    return "drop dead fills";
  case TransformStep::SplitRange:
    return "split range";
  case TransformStep::PadGuardedReads:
    return "pad guarded reads";
  }
  return "?";
}

} // namespace

void showValue(const TransformStep& s, std::ostream& os) {
  os << kind_name(s.kind) << "(loop #" << s.loop << ", factors " << s.factor << ", "
     << s.other_factor << ")";
}

rc::Gen<std::vector<TransformStep>> transform_steps(std::optional<TransformStep::Kind> kind) {
  return rc::gen::exec([kind] {
    int n = *rc::gen::inRange(1, 6);
    std::vector<TransformStep> steps;
    for (int i = 0; i < n; ++i) {
      TransformStep s;
      s.kind = kind ? *kind : static_cast<TransformStep::Kind>(*rc::gen::inRange(0, 11));
      s.loop = *rc::gen::inRange(0, 8);
      s.factor = *rc::gen::inRange(1, 5);
      s.other_factor = *rc::gen::inRange(1, 5);
      steps.push_back(s);
    }
    return steps;
  });
}

core::LoopNest apply_steps(const core::LoopNest& nest, const std::vector<TransformStep>& steps,
                           std::string* log) {
  core::LoopNest current = nest;
  for (const TransformStep& s : steps) {
    std::vector<int> loops = core::loop_vars(current);
    if (loops.empty())
      break;
    // Reorder and tile take the loop after the chosen one in pre-order (the
    // one directly inside, when they are perfectly nested); fuse takes a
    // pair of adjacent loops.
    size_t at = static_cast<size_t>(s.loop) % loops.size();
    int a = loops[at];
    int b = loops[at + 1 < loops.size() ? at + 1 : at];
    if (s.kind == TransformStep::Fuse) {
      std::vector<std::pair<int, int>> pairs = core::adjacent_loops(current);
      if (!pairs.empty())
        std::tie(a, b) = pairs[static_cast<size_t>(s.loop) % pairs.size()];
    }
    std::string why;
    std::optional<core::LoopNest> next;
    switch (s.kind) {
    case TransformStep::Split:
    case TransformStep::SplitMasked:
      next = core::split(
          current, a, s.factor,
          s.kind == TransformStep::Split ? core::SplitTail::Separate : core::SplitTail::Mask, &why);
      break;
    case TransformStep::Reorder:
      next = core::reorder(current, a, b, &why);
      break;
    case TransformStep::Tile:
      next = core::tile(current, a, b, s.factor, s.other_factor, &why);
      break;
    case TransformStep::Unroll:
      next = core::unroll(current, a, &why);
      break;
    case TransformStep::Vectorize:
      next = core::vectorize(current, a, &why);
      break;
    case TransformStep::Fuse:
      next = core::fuse(current, a, b, &why);
      break;
    case TransformStep::RegisterTile:
      next = core::register_tile(current, a, s.factor, &why);
      break;
    case TransformStep::SplitRange: {
      const core::For* loop = core::find_loop(current.root, a);
      const auto* begin = std::get_if<core::Const>(&loop->begin->node);
      if (begin)
        next = core::split_range(current, a, begin->value.i + s.factor, &why);
      else
        why = "the loop's begin is not a constant";
      break;
    }
    case TransformStep::PadGuardedReads:
      next = core::pad_guarded_reads(current, a, INT64_MAX, &why);
      break;
    case TransformStep::DropDeadFills: {
      std::vector<int> dropped;
      core::LoopNest r = core::drop_dead_fills(current, &dropped);
      if (dropped.empty())
        why = "no dead fill";
      else
        next = std::move(r);
      break;
    }
    }
    if (log) {
      *log += std::string(kind_name(s.kind));
      if (s.kind != TransformStep::DropDeadFills)
        *log += " " + current.vars[a].name;
      if (s.kind == TransformStep::Reorder || s.kind == TransformStep::Tile ||
          s.kind == TransformStep::Fuse)
        *log += ", " + current.vars[b].name;
      *log += next ? ": applied\n" : ": skipped (" + why + ")\n";
    }
    if (next)
      current = std::move(*next);
  }
  return current;
}

} // namespace teval::verify
