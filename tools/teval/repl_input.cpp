// REPL input, apart from the terminal: when an entry is complete, and what
// Tab completes.
#include "tools/teval/repl_input.h"

#include "core/dtype.h"
#include "core/kernel.h"
#include "tools/teval/cli_support.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

namespace teval::tools::repl {

namespace {

const std::vector<std::string>& commands() {
  static const std::vector<std::string> names = {":help",  ":jit",  ":lang",  ":load",
                                                 ":lower", ":quit", ":reset", ":save",
                                                 ":set",   ":type", ":vars"};
  return names;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
#define TEVAL_DTYPE(e, name, size, kind, descr) out.push_back(name);
#include "core/dtype.def"
  return out;
}

// Functions `.call` and Tile know: the kernel operators spelled as words.
std::vector<std::string> math_functions() {
  std::vector<std::string> out;
  for (core::Op op : core::named_functions())
    out.emplace_back(core::spelling(op));
  return out;
}

// Files and directories (with a trailing /) whose path starts with \p prefix.
std::vector<std::string> paths(const std::string& prefix) {
  namespace fs = std::filesystem;
  size_t slash = prefix.rfind('/');
  std::string dir = slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? prefix : prefix.substr(slash + 1);
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir.empty() ? "." : dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.rfind(base, 0) != 0 || (base.empty() && name[0] == '.'))
      continue;
    bool is_dir = it->is_directory(ec);
    out.push_back(dir + name + (is_dir ? "/" : ""));
  }
  return out;
}

std::vector<std::string> matching(const std::vector<std::string>& words, std::string_view prefix) {
  std::set<std::string> out;
  for (const std::string& w : words)
    if (w.rfind(prefix, 0) == 0)
      out.insert(w);
  return {out.begin(), out.end()};
}

} // namespace

void EntryScanner::feed(std::string_view t) {
  size_t i = next_;
  continued_ = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (quote_) {
      if (c == '\\') {
        ++i;
      } else if (c == quote_ && (!triple_ || t.substr(i, 3) == std::string(3, quote_))) {
        i += triple_ ? 2 : 0;
        quote_ = 0;
        quote_at_.reset();
      }
      continue;
    }
    if (c == '#') {
      while (i + 1 < t.size() && t[i + 1] != '\n')
        ++i;
    } else if (c == '\'' || c == '"' || c == '`') {
      quote_ = c;
      quote_at_ = i;
      triple_ = c != '`' && t.substr(i, 3) == std::string(3, c);
      i += triple_ ? 2 : 0;
    } else if (c == '(' || c == '[' || c == '{') {
      open_.push_back(i);
    } else if ((c == ')' || c == ']' || c == '}') && !open_.empty()) {
      open_.pop_back();
    } else if (c == '\\') {
      size_t next = t.find_first_not_of(" \t\r", i + 1);
      if (next == std::string_view::npos) {
        // The line may yet be followed by another: look at this backslash
        // again then.
        continued_ = true;
        next_ = i;
        return;
      }
      if (t[next] == '\n') {
        if (open_.empty())
          joins_.push_back(i);
        i = next; // a line joined to the next
      }
    }
  }
  next_ = i;
}

EntryState EntryScanner::state() const {
  EntryState state;
  if (quote_at_)
    state.open_at = quote_at_;
  else if (!open_.empty())
    state.open_at = open_.back();
  state.complete = !state.open_at && !continued_;
  return state;
}

EntryState scan_entry(std::string_view text) {
  EntryScanner s;
  s.feed(text);
  return s.state();
}

std::string join_continuations(std::string_view text) {
  EntryScanner s;
  s.feed(text);
  std::string out(text);
  for (size_t at : s.joins())
    out[at] = ' ';
  return out;
}

std::shared_ptr<const core::SourceFile> EntryReader::add(const std::string& line) {
  ++line_no_;
  if (pending_.empty())
    first_line_ = line_no_;
  else
    pending_ += '\n';
  pending_ += line;
  scanner_.feed(pending_);
  if (!scanner_.state().complete)
    return nullptr;
  std::string text = pending_;
  for (size_t at : scanner_.joins())
    text[at] = ' ';
  auto entry = core::SourceFile::make(name_, std::move(text), first_line_);
  clear();
  return entry;
}

std::optional<core::Error> EntryReader::unfinished() const {
  if (pending_.find_first_not_of(" \t\r\n") == std::string::npos)
    return std::nullopt;
  auto text = core::SourceFile::make(name_, pending_, first_line_);
  EntryState state = scan_entry(pending_);
  uint32_t at = static_cast<uint32_t>(state.open_at ? *state.open_at : pending_.rfind('\\'));
  std::string what = state.open_at ? "`" + pending_.substr(*state.open_at, 1) + "` is not closed"
                                   : "the last line continues with `\\`";
  return core::Error(core::ErrorKind::Syntax, core::Span{text.get(), at, at + 1},
                     "the input ends inside an entry: " + what);
}

std::string common_prefix(const std::vector<std::string>& words) {
  if (words.empty())
    return "";
  std::string p = words[0];
  for (const std::string& w : words) {
    size_t n = 0;
    while (n < p.size() && n < w.size() && p[n] == w[n])
      ++n;
    p.resize(n);
  }
  return p;
}

std::vector<std::string> complete(const Session& session, std::string_view line,
                                  size_t& word_start) {
  // The command and its arguments so far.
  size_t first = line.find_first_not_of(" \t");
  if (first != std::string_view::npos && line[first] == ':') {
    std::vector<std::string> args;
    size_t i = first;
    while (i < line.size()) {
      size_t end = line.find_first_of(" \t", i);
      if (end == std::string_view::npos)
        break;
      args.emplace_back(line.substr(i, end - i));
      i = line.find_first_not_of(" \t", end);
      if (i == std::string_view::npos)
        i = line.size();
    }
    word_start = i;
    std::string_view word = line.substr(i);
    if (args.empty())
      return matching(commands(), word);
    const std::string& cmd = args[0];
    size_t n = args.size(); // the argument being typed is number n
    if (cmd == ":lang" && n == 1)
      return matching({"antares", "tile"}, word);
    if (cmd == ":set" && n == 1)
      return matching({"precision", "seed", "summarize"}, word);
    if (cmd == ":set" && n == 2 && args[1] == "precision")
      return matching({"full"}, word);
    if (cmd == ":jit" && n == 1)
      return matching({"asm", "llvm"}, word);
    if ((cmd == ":save" || cmd == ":type") && n == 1)
      return matching(session.variable_names(), word);
    if (cmd == ":load" && n == 1)
      return {};
    if ((cmd == ":save" || cmd == ":load") && n == 2)
      return paths(std::string(word));
    if (cmd != ":type")
      return {};
  }

  // Inside a string: a path in load("...), a dtype in .cast(`...), a
  // function in .call(`...).
  EntryState state = scan_entry(line);
  if (state.open_at && (line[*state.open_at] == '"' || line[*state.open_at] == '\'' ||
                        line[*state.open_at] == '`')) {
    size_t q = *state.open_at;
    word_start = q + 1;
    std::string_view word = line.substr(q + 1);
    std::string_view before = line.substr(0, q);
    size_t b = before.find_last_not_of(" \t");
    before = before.substr(0, b == std::string_view::npos ? 0 : b + 1);
    auto ends_with = [&](std::string_view s) {
      return before.size() >= s.size() && before.substr(before.size() - s.size()) == s;
    };
    if (ends_with("load("))
      return paths(std::string(word));
    if (ends_with(".cast("))
      return matching(dtype_names(), word);
    if (ends_with(".call("))
      return matching(math_functions(), word);
    return {};
  }

  size_t start = line.size();
  while (start > 0 && is_identifier_char(line[start - 1]))
    --start;
  word_start = start;
  std::string_view word = line.substr(start);
  if (start > 0 && line[start - 1] == '.') {
    if (session.lang() == Lang::Antares)
      return matching({"call", "cast", "dtype", "val", "when"}, word);
    return matching({"add_constraint", "bind_dims"}, word);
  }
  std::vector<std::string> words = session.variable_names();
  for (const std::string& d : dtype_names())
    words.push_back(d);
  words.push_back("load");
  if (session.lang() == Lang::Antares) {
    for (const char* b : {"const", "where", "in"})
      words.push_back(b);
  } else {
    for (const char* b : {"TensorDim", "TensorDims", "TensorIndex", "TensorIndexes", "TensorOutput",
                          "cond", "select", "return"})
      words.push_back(b);
    for (const std::string& f : math_functions())
      words.push_back(f);
  }
  return matching(words, word);
}

} // namespace teval::tools::repl
