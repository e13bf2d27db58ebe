// The REPL session: commands, definitions and printing (statements are in
// repl_statements.cpp).
#include "tools/teval/repl_session.h"

#include "core/error.h"
#include "core/lower.h"
#include "core/npy.h"
#include "interp/backends.h"
#include "interp/interpreter.h"
#include "interp/random_inputs.h"
#include "jit/hexagon/hexagon.h"
#include "jit/jit.h"
#include "tools/teval/cli_support.h"
#include "tools/teval/repl_definition.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace teval::tools::repl {

using core::Error;
using core::ErrorKind;
using core::Span;

const char* const Session::kHelp =
    R"(Entries (an entry continues on the next line while brackets or quotes are
open, or after a trailing backslash):
  x = float32[4, 8]            define x as seeded random data (floats in [-1, 1),
                               integers in [-10, 10])
  y = int32[16] in [0, 8)      random data drawn from a range
  w = load("w.npy")            read a numpy .npy file
  out[N] +=! x[N, K] * 2       a statement in the current notation; its outputs
                               become tensors of the session
  x                            print a tensor
  z = x                        a copy of tensor x under another name
  out[N] = x[N, 0] + 1;        a trailing ; runs an entry without printing (in
                               Tile, whose statements end in ;, end it with ;;)
Commands:
  :help                        this text
  :vars                        the session's tensors
  :type EXPR                   the dtype and shape of a tensor, a statement or
                               (Antares) an expression, without evaluating it
  :lang [antares|tile]         show or choose the notation (default antares)
  :set [OPTION VALUE]          show the settings or set one:
         precision N|full      digits after the point (full: exact, the default)
         summarize N           summarise tensors of more than N elements (1000)
         seed N                the seed of random definitions (0)
         engine E              who evaluates: interp (default), ireval, jit or
                               hexagon (the DSP, under qemu-hexagon)
         time on|off           report every entry's wall time (off)
  :time ENTRY                  run ENTRY and report its wall time
  :save NAME PATH.npy          write a tensor to a .npy file
  :load NAME PATH.npy          read a tensor from a .npy file
  :lower                       the loop nest of the last statement
  :jit [llvm|asm]              the LLVM IR or assembly of the last statement
  :reset                       forget every tensor and Tile declaration
  :quit                        leave (so does Ctrl-D)
)";

namespace {

// "time: 12.3 ms\n", the wall time since \p start.
std::string wall_time(std::chrono::steady_clock::time_point start) {
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  char text[64];
  std::snprintf(text, sizeof text, ms < 10 ? "time: %.3f ms\n" : "time: %.1f ms\n", ms);
  return text;
}

// One word of a command and where it is.
struct Word {
  std::string text;
  Span span;
};

// The words of a command line; "..." and '...' quote a word with spaces.
std::vector<Word> words(const core::SourceFile& entry) {
  const std::string& t = entry.text();
  std::vector<Word> out;
  size_t i = 0;
  while (true) {
    while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i])))
      ++i;
    if (i == t.size())
      return out;
    size_t begin = i;
    std::string text;
    if (t[i] == '"' || t[i] == '\'') {
      char quote = t[i++];
      while (i < t.size() && t[i] != quote)
        text += t[i++];
      if (i == t.size())
        throw Error(ErrorKind::Syntax,
                    Span{&entry, static_cast<uint32_t>(begin), static_cast<uint32_t>(i)},
                    "unterminated quote");
      ++i;
    } else {
      while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i])))
        text += t[i++];
    }
    out.push_back({text, Span{&entry, static_cast<uint32_t>(begin), static_cast<uint32_t>(i)}});
  }
}

void expect_words(const std::vector<Word>& w, size_t min, size_t max, const char* usage) {
  if (w.size() < min)
    throw Error(ErrorKind::Syntax, Span{w[0].span.file, w.back().span.end, w.back().span.end},
                std::string("missing argument; usage: ") + usage);
  if (w.size() > max)
    throw Error(ErrorKind::Syntax, w[max].span,
                std::string("unexpected argument; usage: ") + usage);
}

int64_t count_argument(const Word& w, int64_t min, int64_t max) {
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(w.text.c_str(), &end, 10);
  if (w.text.empty() || *end || errno || v < min || v > max)
    throw Error(ErrorKind::Syntax, w.span,
                "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                    ", not `" + w.text + "`");
  return v;
}

// True when every line of \p text is blank or a `#` or `//` comment.
bool is_comment(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    size_t end = std::min(text.find('\n', i), text.size());
    std::string_view line = text.substr(i, end - i);
    size_t b = line.find_first_not_of(" \t\r");
    if (b != std::string_view::npos && line[b] != '#' && line.substr(b, 2) != "//")
      return false;
    i = end + 1;
  }
  return true;
}

std::string type_text(const core::Tensor& t) {
  return tools::type_text(t.dtype(), t.shape());
}

} // namespace

std::vector<std::string> Session::variable_names() const {
  std::vector<std::string> names;
  for (const auto& [name, v] : vars_)
    names.push_back(name);
  return names;
}

std::string Session::show(const std::string& name, const core::Tensor& t) const {
  return name + ": " + type_text(t) + "\n" + format_array(t, print_) + "\n";
}

Outcome Session::execute(const std::shared_ptr<const core::SourceFile>& entry) {
  std::shared_ptr<const core::SourceFile> silent = without_silencer(entry);
  auto start = std::chrono::steady_clock::now();
  Outcome out = execute_entry(silent ? silent : entry);
  if (silent)
    out.text.clear();
  if (time_ && !out.quit)
    out.text += wall_time(start);
  return out;
}

std::shared_ptr<const core::SourceFile>
Session::without_silencer(const std::shared_ptr<const core::SourceFile>& entry) const {
  std::string text = entry->text();
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || text[first] == ':' || is_comment(text))
    return nullptr;
  size_t last = text.find_last_not_of(" \t\r\n");
  if (text[last] != ';')
    return nullptr;
  if (lang_ == Lang::Tile && !looks_like_definition(text, false) &&
      (last == 0 || text[last - 1] != ';'))
    return nullptr; // a C++ statement's own `;`
  text[last] = ' '; // columns stay where they were
  return core::SourceFile::make(entry->name(), text, entry->location(0).line);
}

Outcome Session::execute_entry(const std::shared_ptr<const core::SourceFile>& entry) {
  std::string_view text = entry->text();
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || is_comment(text))
    return {};
  if (text[first] == ':')
    return command(entry);
  if (std::optional<Outcome> copied = copy(*entry))
    return *copied;
  if (looks_like_definition(text, lang_ == Lang::Antares))
    return define(entry);
  size_t last = text.find_last_not_of(" \t\r\n");
  std::string word(text.substr(first, last - first + 1));
  if (is_identifier(word)) {
    auto it = vars_.find(word);
    if (it == vars_.end())
      throw Error(ErrorKind::Name,
                  Span{entry.get(), static_cast<uint32_t>(first), static_cast<uint32_t>(last + 1)},
                  "unknown tensor `" + word + "`; :vars lists the session's tensors");
    return {show(word, it->second.value)};
  }
  return statements(entry);
}

std::optional<Outcome> Session::copy(const core::SourceFile& entry) {
  // NAME = OTHER, where OTHER is a session tensor: a copy under a new name
  // (how a Tile result `C` becomes readable from Antares, as `c = C`).
  std::string_view text = entry.text();
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || (eq + 1 < text.size() && text[eq + 1] == '='))
    return std::nullopt;
  auto trimmed = [](std::string_view t) {
    size_t b = t.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos)
      return std::string();
    return std::string(t.substr(b, t.find_last_not_of(" \t\r\n") - b + 1));
  };
  std::string name = trimmed(text.substr(0, eq)), other = trimmed(text.substr(eq + 1));
  if (!is_identifier(name) || !is_identifier(other) || !vars_.count(other))
    return std::nullopt;
  Variable v = vars_.at(other);
  v.origin = "copy of " + other;
  std::string line = name + ": " + type_text(v.value) + " (" + v.origin + ")\n";
  vars_[name] = std::move(v);
  return Outcome{line};
}

Outcome Session::define(const std::shared_ptr<const core::SourceFile>& entry) {
  Definition d = read_definition(*entry);
  Variable v;
  if (!d.path.empty()) {
    try {
      v.value = core::read_npy(d.path);
    } catch (const Error& e) {
      throw Error(e.kind(), d.path_span, e.message());
    }
    v.origin = "load(\"" + d.path + "\")";
  } else {
    try {
      v.value = d.has_bounds ? interp::random_tensor_in(d.dtype, d.shape, seed_, d.name, d.bounds)
                             : interp::random_tensor(d.dtype, d.shape, seed_, d.name);
    } catch (const Error& e) {
      throw Error(e.kind(), d.value_span, e.message());
    }
    v.origin = "random, seed " + std::to_string(seed_);
    if (d.has_bounds)
      v.origin += ", in " + std::string(d.bounds_span.text());
  }
  std::string line = d.name + ": " + type_text(v.value) + " (" + v.origin + ")\n";
  vars_[d.name] = std::move(v);
  return {line};
}

Outcome Session::command(const std::shared_ptr<const core::SourceFile>& entry) {
  std::vector<Word> w = words(*entry);
  const std::string& name = w[0].text;
  if (name == ":help" || name == ":h" || name == ":?") {
    expect_words(w, 1, 1, ":help");
    return {kHelp};
  }
  if (name == ":quit" || name == ":q" || name == ":exit") {
    expect_words(w, 1, 1, ":quit");
    return {"", true};
  }
  if (name == ":vars") {
    expect_words(w, 1, 1, ":vars");
    if (vars_.empty())
      return {"no tensors; define one with x = float32[4, 8] or x = load(\"x.npy\")\n"};
    size_t name_width = 4, type_width = 4;
    for (const auto& [n, v] : vars_) {
      name_width = std::max(name_width, n.size());
      type_width = std::max(type_width, type_text(v.value).size());
    }
    auto row = [&](const std::string& a, const std::string& b, const std::string& c) {
      return a + std::string(name_width - a.size() + 2, ' ') + b +
             std::string(type_width - b.size() + 2, ' ') + c + "\n";
    };
    std::string out = row("name", "type", "from");
    for (const auto& [n, v] : vars_)
      out += row(n, type_text(v.value), v.origin);
    return {out};
  }
  if (name == ":type") {
    if (w.size() < 2)
      expect_words(w, 2, 2, ":type EXPR");
    if (w.size() == 2 && is_identifier(w[1].text) && vars_.count(w[1].text))
      return {w[1].text + ": " + type_text(vars_.at(w[1].text).value) + "\n"};
    // The expression keeps its columns: the command word becomes spaces.
    std::string text = entry->text();
    std::fill(text.begin() + w[0].span.begin, text.begin() + w[0].span.end, ' ');
    auto expr = core::SourceFile::make(entry->name(), text, entry->location(0).line);
    return lang_ == Lang::Antares ? antares(expr, true) : tile(expr, true);
  }
  if (name == ":lang") {
    expect_words(w, 1, 2, ":lang [antares|tile]");
    if (w.size() == 2) {
      if (w[1].text == "antares")
        lang_ = Lang::Antares;
      else if (w[1].text == "tile")
        lang_ = Lang::Tile;
      else
        throw Error(ErrorKind::Syntax, w[1].span,
                    "unknown notation `" + w[1].text + "`; the REPL reads antares and tile");
    }
    return {std::string("notation: ") + (lang_ == Lang::Antares ? "antares" : "tile") + "\n"};
  }
  if (name == ":set") {
    const char* usage = ":set [precision N|full] [summarize N] [seed N] [engine E] [time on|off]";
    expect_words(w, 1, 3, usage);
    if (w.size() == 2)
      expect_words(w, 3, 3, usage);
    if (w.size() == 3) {
      if (w[1].text == "precision") {
        print_.precision = w[2].text == "full" ? -1 : static_cast<int>(count_argument(w[2], 0, 17));
      } else if (w[1].text == "summarize") {
        print_.threshold = count_argument(w[2], 0, INT64_MAX);
      } else if (w[1].text == "seed") {
        seed_ = static_cast<uint64_t>(count_argument(w[2], 0, INT64_MAX));
      } else if (w[1].text == "engine") {
        const std::vector<std::string>& all = engines();
        if (std::find(all.begin(), all.end(), w[2].text) == all.end())
          throw Error(ErrorKind::Syntax, w[2].span,
                      "unknown engine `" + w[2].text +
                          "`; the REPL has interp, ireval, jit, hexagon");
        if (w[2].text != engine_)
          backend_.reset();
        engine_ = w[2].text;
      } else if (w[1].text == "time") {
        if (w[2].text != "on" && w[2].text != "off")
          throw Error(ErrorKind::Syntax, w[2].span, "expected on or off");
        time_ = w[2].text == "on";
      } else {
        throw Error(ErrorKind::Syntax, w[1].span,
                    "unknown setting `" + w[1].text +
                        "`; :set has precision, summarize, seed, engine, time");
      }
    }
    return {"precision " +
            (print_.precision < 0 ? std::string("full") : std::to_string(print_.precision)) +
            ", summarize " + std::to_string(print_.threshold) + ", seed " + std::to_string(seed_) +
            ", engine " + engine_ + ", time " + (time_ ? "on" : "off") + "\n"};
  }
  if (name == ":time") {
    if (w.size() < 2)
      expect_words(w, 2, 2, ":time ENTRY");
    // The entry keeps its columns: the command word becomes spaces.
    std::string text = entry->text();
    std::fill(text.begin() + w[0].span.begin, text.begin() + w[0].span.end, ' ');
    auto timed = core::SourceFile::make(entry->name(), text, entry->location(0).line);
    std::shared_ptr<const core::SourceFile> silent = without_silencer(timed);
    auto start = std::chrono::steady_clock::now();
    Outcome out = execute_entry(silent ? silent : timed);
    if (silent)
      out.text.clear();
    if (!time_) // with time on, execute() reports it anyway
      out.text += wall_time(start);
    return out;
  }
  if (name == ":save" || name == ":load") {
    expect_words(w, 3, 3, name == ":save" ? ":save NAME PATH.npy" : ":load NAME PATH.npy");
    if (!is_identifier(w[1].text))
      throw Error(ErrorKind::Syntax, w[1].span, "expected a tensor name");
    if (name == ":load") {
      Variable v;
      try {
        v.value = core::read_npy(w[2].text);
      } catch (const Error& e) {
        throw Error(e.kind(), w[2].span, e.message());
      }
      v.origin = "load(\"" + w[2].text + "\")";
      std::string line = w[1].text + ": " + type_text(v.value) + " (" + v.origin + ")\n";
      vars_[w[1].text] = std::move(v);
      return {line};
    }
    auto it = vars_.find(w[1].text);
    if (it == vars_.end())
      throw Error(ErrorKind::Name, w[1].span,
                  "unknown tensor `" + w[1].text + "`; :vars lists the session's tensors");
    try {
      core::write_npy(it->second.value, w[2].text);
    } catch (const Error& e) {
      throw Error(e.kind(), w[2].span, e.message());
    }
    return {"saved " + w[1].text + " (" + type_text(it->second.value) + ") to " + w[2].text + "\n"};
  }
  if (name == ":lower" || name == ":jit") {
    expect_words(w, 1, name == ":jit" ? 2 : 1, name == ":jit" ? ":jit [llvm|asm]" : ":lower");
    if (w.size() == 2 && w[1].text != "llvm" && w[1].text != "asm")
      throw Error(ErrorKind::Syntax, w[1].span, "expected llvm or asm");
    if (!last_kernel_)
      throw Error(ErrorKind::Name, w[0].span, "no statement has run yet in this session");
    core::LoopNest nest = core::lower(*last_kernel_);
    if (name == ":lower")
      return {core::to_string(nest)};
    jit::Jit jit;
    return {w.size() == 2 && w[1].text == "asm" ? jit.emit_asm(nest) : jit.emit_llvm(nest)};
  }
  if (name == ":reset") {
    expect_words(w, 1, 1, ":reset");
    vars_.clear();
    tile_declarations_.clear();
    last_kernel_.reset();
    sources_.clear();
    return {"session reset: no tensors, no Tile declarations\n"};
  }
  throw Error(ErrorKind::Syntax, w[0].span,
              "unknown command `" + name + "`; :help lists the commands");
}

Outcome Session::run(core::Kernel kernel, const std::map<std::string, std::string>& renamed,
                     const std::vector<std::string>& order,
                     const std::shared_ptr<const core::SourceFile>& entry) {
  std::map<std::string, core::Tensor> given;
  for (int id : interp::input_ids(kernel)) {
    std::string name = kernel.tensors[id].name;
    for (const auto& [original, hidden] : renamed)
      if (hidden == name)
        name = original;
    if (auto it = vars_.find(name); it != vars_.end())
      given.emplace(kernel.tensors[id].name, it->second.value);
  }
  std::vector<core::Tensor> inputs = interp::make_inputs(kernel, given, seed_);
  std::vector<core::Tensor> outputs = backend().prepare(kernel)->run(inputs);
  // Nothing above changed the session; from here on nothing throws.
  std::map<std::string, core::Tensor> results;
  for (size_t i = 0; i < outputs.size(); ++i)
    results[kernel.tensors[kernel.outputs[i]].name] = std::move(outputs[i]);
  std::string origin = "line " + std::to_string(entry->location(0).line);
  Outcome out;
  for (const std::string& name : order) {
    auto it = results.find(name);
    if (it == results.end())
      continue;
    out.text += show(name, it->second);
    vars_[name] = {std::move(it->second), origin};
  }
  last_kernel_ = std::move(kernel);
  sources_.push_back(entry);
  return out;
}

const std::vector<std::string>& Session::engines() {
  static const std::vector<std::string> all = {"interp", "ireval", "jit", "hexagon"};
  return all;
}

Session::Session(std::string engine) : engine_(std::move(engine)) {
  TEVAL_ASSERT(std::find(engines().begin(), engines().end(), engine_) != engines().end(),
               "no engine " + engine_);
}

core::Backend& Session::backend() {
  if (!backend_)
    backend_ = engine_ == "jit"       ? jit::jit_backend()
               : engine_ == "ireval"  ? interp::ireval_backend()
               : engine_ == "hexagon" ? jit::hexagon_backend()
                                      : interp::interpreter_backend();
  return *backend_;
}

} // namespace teval::tools::repl
