// A campaign's state on disk (see fuzz_state.h).
#include "verify/fuzz_state.h"

#include "core/error.h"
#include "core/json.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace teval::verify::state {

namespace fs = std::filesystem;

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      out += s[i + 1] == 'n' ? '\n' : s[i + 1];
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      // XML 1.0 has no place for most control characters.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
        out += '?';
      else
        out += c;
    }
  }
  return out;
}

std::string compare_name(Target::Compare c) {
  return c == Target::Compare::Bits ? "bits" : "check";
}

} // namespace

void write_atomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    if (!out.flush())
      throw core::Error(core::ErrorKind::Input, tmp, "cannot write this file");
  }
  fs::rename(tmp, path);
}

std::string settings_text(const CampaignSettings& s) {
  std::string engines;
  for (const std::string& e : s.target.engines)
    engines += (engines.empty() ? "" : ",") + e;
  std::string t = "teval-fuzz-campaign 1\n";
  t += "lang " + s.space.lang + "\n";
  t += "seed " + std::to_string(s.space.seed) + "\n";
  if (!s.space.profile.empty()) // a line only when set: older campaigns read as before
    t += "profile " + s.space.profile.text() + "\n";
  if (s.space.valid_only) // likewise
    t += "valid-only 1\n";
  t += "shard " + std::to_string(s.shard_index) + "/" + std::to_string(s.shard_count) + "\n";
  t += "engines " + engines + "\n";
  if (s.target.external) {
    t += "backend-cmd " + escape(s.target.external->command) + "\n";
    t += "backend-timeout-ms " + std::to_string(s.target.external->timeout.count()) + "\n";
    t += "backend-memory " + std::to_string(s.target.external->memory) + "\n";
    for (const auto& [name, value] : s.target.external->environment)
      t += "backend-env " + escape(name + "=" + value) + "\n";
    t += "compare " + compare_name(s.target.compare) + "\n";
    t += "expect-errors " + std::to_string(s.target.expect_errors) + "\n";
    if (s.target.fma) // a line only when set: older campaigns read as before
      t += "fma 1\n";
  }
  return t;
}

CampaignSettings parse_settings(const std::string& text, const std::string& path) {
  CampaignSettings s;
  std::istringstream in(text);
  std::string line;
  auto bad = [&](const std::string& why) {
    return core::Error(core::ErrorKind::Input, path, "not a campaign's settings: " + why);
  };
  if (!std::getline(in, line) || line != "teval-fuzz-campaign 1")
    throw bad("the first line is not `teval-fuzz-campaign 1`");
  while (std::getline(in, line)) {
    size_t sp = line.find(' ');
    std::string key = line.substr(0, sp);
    std::string value = sp == std::string::npos ? "" : line.substr(sp + 1);
    try {
      if (key == "lang") {
        s.space.lang = value;
      } else if (key == "seed") {
        s.space.seed = std::stoull(value);
      } else if (key == "valid-only") {
        s.space.valid_only = value == "1";
      } else if (key == "profile") {
        std::string why;
        std::optional<Profile> p = Profile::parse(value, &why);
        if (!p)
          throw bad(why);
        s.space.profile = *p;
      } else if (key == "shard") {
        s.shard_index = std::stoull(value.substr(0, value.find('/')));
        s.shard_count = std::stoull(value.substr(value.find('/') + 1));
      } else if (key == "engines") {
        for (size_t b = 0; b < value.size();) {
          size_t e = value.find(',', b);
          s.target.engines.push_back(value.substr(b, e == std::string::npos ? e : e - b));
          b = e == std::string::npos ? value.size() : e + 1;
        }
      } else if (key == "backend-cmd") {
        s.target.external.emplace();
        s.target.external->command = unescape(value);
      } else if (key == "backend-timeout-ms" && s.target.external) {
        s.target.external->timeout = std::chrono::milliseconds(std::stoll(value));
      } else if (key == "backend-memory" && s.target.external) {
        s.target.external->memory = std::stoll(value);
      } else if (key == "backend-env" && s.target.external) {
        std::string entry = unescape(value);
        size_t eq = entry.find('=');
        if (eq == std::string::npos)
          throw bad("a backend-env line without NAME=VALUE");
        s.target.external->environment[entry.substr(0, eq)] = entry.substr(eq + 1);
      } else if (key == "compare") {
        s.target.compare = value == "bits" ? Target::Compare::Bits : Target::Compare::Check;
      } else if (key == "expect-errors") {
        s.target.expect_errors = value == "1";
      } else if (key == "fma") {
        s.target.fma = value == "1";
      } else {
        throw bad("unknown line `" + line + "`");
      }
    } catch (const std::logic_error&) {
      throw bad("the line `" + line + "` has no valid value");
    }
  }
  return s;
}

std::string log_line_text(const LogLine& l) {
  return std::to_string(l.index) + " " + l.status + (l.signature.empty() ? "" : " " + l.signature) +
         "\n";
}

void write_meta(const std::string& finding_dir, const FindingMeta& m) {
  std::ofstream out(fs::path(finding_dir) / "meta", std::ios::binary);
  out << "backend " << m.backend << "\nkind " << m.kind << "\nlang " << m.lang << "\nstatements "
      << m.statements << "\ninputs " << m.inputs << "\n";
}

std::optional<FindingMeta> read_meta(const std::string& finding_dir) {
  std::ifstream in(fs::path(finding_dir) / "meta");
  if (!in)
    return std::nullopt;
  FindingMeta m;
  std::string key, value;
  while (in >> key >> value) {
    if (key == "backend")
      m.backend = value;
    else if (key == "kind")
      m.kind = value;
    else if (key == "lang")
      m.lang = value;
    else if (key == "statements")
      m.statements = std::atoi(value.c_str());
    else if (key == "inputs")
      m.inputs = std::atoi(value.c_str());
  }
  return m;
}

void account(FuzzSummary& s, const LogLine& l, const std::string& dir) {
  ++s.cases;
  if (l.status == "error" || l.status == "skip")
    ++s.reference_errors;
  if (l.status == "skip")
    ++s.external_skipped;
  if (l.status == "unrun")
    ++s.engine_unsupported;
  if (l.status == "unsupported")
    ++s.unsupported;
  if (l.status != "finding")
    return;
  ++s.finding_cases;
  FindingGroup& g = s.findings[l.signature];
  if (g.signature.empty()) {
    g.signature = l.signature;
    if (auto m = read_meta((fs::path(dir) / "findings" / l.signature).string())) {
      g.backend = m->backend;
      g.kind = m->kind;
      g.lang = m->lang;
      g.statements = m->statements;
      g.inputs = m->inputs;
    }
  }
  ++g.count;
  if (g.cases.size() < 20)
    g.cases.push_back(l.index);
}

void load_log(const std::string& dir, FuzzSummary& s, std::set<uint64_t>& done) {
  std::string text = read_all(fs::path(dir) / "cases.log");
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof() && text.back() != '\n')
      break; // torn
    std::istringstream fields(line);
    LogLine l;
    if (!(fields >> l.index >> l.status))
      continue;
    fields >> l.signature;
    if (!done.insert(l.index).second)
      continue;
    account(s, l, dir);
  }
}

void append_log(const std::string& dir, const LogLine& l) {
  std::string path = (fs::path(dir) / "cases.log").string();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0)
    throw core::Error(core::ErrorKind::Input, path,
                      std::string("cannot append: ") + std::strerror(errno));
  std::string text = log_line_text(l);
  ssize_t w = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (w != static_cast<ssize_t>(text.size()))
    throw core::Error(core::ErrorKind::Input, path, "cannot append");
}

void write_reports(const std::string& dir, const CampaignSettings& settings, const FuzzSummary& s,
                   bool finished) {
  const fs::path d = dir;
  std::string engines;
  for (const std::string& e : settings.target.engines)
    engines += (engines.empty() ? "" : ", ") + core::json_string(e);
  std::string j =
      "{\"schema\": \"teval.fuzz/1\", \"lang\": " + core::json_string(settings.space.lang) +
      ", \"seed\": " + std::to_string(settings.space.seed) +
      ", \"profile\": " + core::json_string(settings.space.profile.text()) +
      ", \"valid_only\": " + (settings.space.valid_only ? "true" : "false") +
      ", \"shard\": {\"index\": " + std::to_string(settings.shard_index) +
      ", \"count\": " + std::to_string(settings.shard_count) + "}" + ", \"engines\": [" + engines +
      "]";
  if (settings.target.external)
    j += ", \"backend_cmd\": " + core::json_string(settings.target.external->command) +
         ", \"compare\": " + core::json_string(compare_name(settings.target.compare));
  else
    j += ", \"backend_cmd\": null";
  j += ", \"finished\": " + std::string(finished ? "true" : "false") +
       ", \"interrupted\": " + std::string(s.interrupted ? "true" : "false") +
       ", \"cases\": " + std::to_string(s.cases) +
       ", \"reference_errors\": " + std::to_string(s.reference_errors) +
       ", \"external_skipped\": " + std::to_string(s.external_skipped) +
       ", \"engine_unsupported\": " + std::to_string(s.engine_unsupported) +
       ", \"unsupported\": " + std::to_string(s.unsupported) +
       ", \"finding_cases\": " + std::to_string(s.finding_cases) +
       ", \"run\": {\"cases\": " + std::to_string(s.run_cases) +
       ", \"seconds\": " + std::to_string(s.seconds) + "}, \"findings\": [";
  std::string xml_cases;
  size_t n = 0;
  for (const auto& [sig, g] : s.findings) {
    fs::path fd = d / "findings" / sig;
    std::string reproduce = read_all(fd / "reproduce.sh");
    std::string what = read_all(fd / "finding.txt");
    std::string list;
    for (size_t i = 0; i < g.cases.size(); ++i)
      list += (i ? ", " : "") + std::to_string(g.cases[i]);
    j += std::string(n++ ? ", " : "") + "{\"signature\": " + core::json_string(sig) +
         ", \"backend\": " + core::json_string(g.backend) +
         ", \"kind\": " + core::json_string(g.kind) + ", \"lang\": " + core::json_string(g.lang) +
         ", \"count\": " + std::to_string(g.count) + ", \"cases\": [" + list + "]" +
         ", \"statements\": " + std::to_string(g.statements) +
         ", \"inputs\": " + std::to_string(g.inputs) +
         ", \"dir\": " + core::json_string("findings/" + sig) +
         ", \"what\": " + core::json_string(what) +
         ", \"reproduce\": " + core::json_string(reproduce) + "}";
    xml_cases +=
        "    <testcase classname=\"teval.fuzz." + xml_escape(g.backend) + "\" name=\"" +
        xml_escape(sig) + "\">\n      <failure type=\"" + xml_escape(g.kind) + "\" message=\"" +
        xml_escape(g.kind + " in " + g.backend + ", " + std::to_string(g.count) + " cases") +
        "\">" + xml_escape(what + "\n" + reproduce) + "</failure>\n    </testcase>\n";
  }
  j += "]}\n";
  write_atomically((d / "report.json").string(), j);
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
                    "  <testsuite name=\"teval fuzz\" tests=\"" +
                    std::to_string(s.findings.size() + 1) + "\" failures=\"" +
                    std::to_string(s.findings.size()) + "\" time=\"" + std::to_string(s.seconds) +
                    "\">\n" + "    <testcase classname=\"teval.fuzz\" name=\"" +
                    std::to_string(s.cases) + " cases\"/>\n" + xml_cases +
                    "  </testsuite>\n</testsuites>\n";
  write_atomically((d / "junit.xml").string(), xml);
}

} // namespace teval::verify::state
