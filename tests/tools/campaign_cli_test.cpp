// `teval gen` and `teval fuzz` through the command, with
// tests/data/fuzz/backend.sh standing in for another compiler.
#include "tests/support/test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace teval {
namespace {

namespace fs = std::filesystem;
using test::Result;

std::string teval_path() {
  return (test::binary_dir() / "bin" / "teval").string();
}

Result sh(const std::string& command, const fs::path& cwd) {
  return test::run_shell(command, cwd);
}

// --backend-cmd for backend.sh in \p mode.
std::string backend(const std::string& mode) {
  return " --backend-cmd " +
         test::shell_quoted("sh " + (test::source_dir() / "tests/data/fuzz/backend.sh").string() +
                            " " + teval_path() + " " + mode +
                            " {program} {inputs} {outdir} {entry}");
}

Result teval(const std::string& args, const fs::path& cwd) {
  return sh(teval_path() + " " + args, cwd);
}

TEST(Gen, TheSameSeedGivesTheSameBytesAndShardsPartitionTheCases) {
  fs::path dir = test::scratch_dir("gen_determinism");
  ASSERT_EQ(teval("gen --lang all --cases 12 --seed 4 -o a", dir).exit_code, 0);
  ASSERT_EQ(teval("gen --lang all --cases 12 --seed 4 -o b", dir).exit_code, 0);
  EXPECT_EQ(sh("diff -r a b", dir).exit_code, 0);
  std::string manifest = test::read_file(dir / "a/manifest.json");
  EXPECT_EQ(manifest.rfind("{\"schema\": \"teval.gen/1\"", 0), 0u);
  for (const char* key : {"\"id\": ", "\"program\": ", "\"compute_v1\": ", "\"inputs\": [",
                          "\"expect\": ", "\"outputs\": [", "\"claim\": "})
    EXPECT_NE(manifest.find(key), std::string::npos) << key;
  // Shard 1 of 3 holds cases 1, 4, 7, ...: those of the whole corpus.
  ASSERT_EQ(teval("gen --lang all --cases 4 --seed 4 --shard 1/3 -o s", dir).exit_code, 0);
  for (const char* id : {"case-000001", "case-000004", "case-000007", "case-000010"})
    EXPECT_EQ(sh(std::string("diff -r a/") + id + " s/" + id, dir).exit_code, 0) << id;
  EXPECT_FALSE(fs::exists(dir / "s/case-000000"));
}

TEST(Gen, ExpectedOutputsAreWhatTevalRunComputesFromTheSavedFiles) {
  fs::path dir = test::scratch_dir("gen_expected");
  ASSERT_EQ(teval("gen --lang all --cases 6 --seed 9 -o c", dir).exit_code, 0);
  for (int i = 0; i < 6; ++i) {
    char id[32];
    std::snprintf(id, sizeof id, "c/case-%06d", i);
    fs::path c = dir / id;
    std::string program =
        fs::exists(c / "program.tile") ? "program.tile --entry f" : "program.antares";
    std::string inputs;
    for (const auto& f : fs::directory_iterator(c / "inputs"))
      inputs += " -i " + f.path().stem().string() + "=" + f.path().string();
    Result r = teval("run " + (c / program).string() + inputs + " -o " + (dir / "rerun").string() +
                         std::to_string(i),
                     dir);
    if (fs::exists(c / "expected/error.txt")) {
      EXPECT_EQ(r.exit_code, 1);
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& f : fs::directory_iterator(c / "expected"))
      EXPECT_EQ(sh("cmp " + f.path().string() + " rerun" + std::to_string(i) + "/" +
                       f.path().filename().string(),
                   dir)
                    .exit_code,
                0)
          << f.path();
  }
}

TEST(Fuzz, ACorrectBackendHasNoFindings) {
  fs::path dir = test::scratch_dir("fuzz_ok");
  Result r = teval("fuzz --out camp --cases 12 --lang all --quiet" + backend("ok"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string report = test::read_file(dir / "camp/report.json");
  EXPECT_NE(report.find("\"cases\": 12,"), std::string::npos) << report;
  EXPECT_NE(report.find("\"findings\": []"), std::string::npos) << report;
  EXPECT_NE(report.find("\"finished\": true"), std::string::npos) << report;
  EXPECT_NE(test::read_file(dir / "camp/junit.xml").find("failures=\"0\""), std::string::npos);
}

// A command that declines a program (exit status 77: its compiler does not
// support it) gives no verdict: the case is counted as unsupported, never
// a finding and never shrunk; the other cases are judged as before.
TEST(Fuzz, AProgramTheCommandDeclinesIsUnsupportedNotAFinding) {
  fs::path dir = test::scratch_dir("fuzz_decline");
  Result r = teval("fuzz --out camp --cases 12 --lang all --seed 3" + backend("decline-tile"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string report = test::read_file(dir / "camp/report.json");
  EXPECT_NE(report.find("\"findings\": []"), std::string::npos) << report;
  // Half the cases are Tile programs: those the interpreter accepts are declined.
  size_t at = report.find("\"unsupported\": ");
  ASSERT_NE(at, std::string::npos) << report;
  const int declined = std::stoi(report.substr(at + 15));
  EXPECT_GT(declined, 0) << report;
  EXPECT_LE(declined, 6) << report;
  EXPECT_NE(r.out.find(std::to_string(declined) +
                       " cases the command declined (unsupported, no verdict)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir / "camp/findings") && !fs::is_empty(dir / "camp/findings"));
}

// Once every case of --cases is handed out, the campaign waits for the
// last ones, however long their command takes within its budget: a case
// that took over 30 s had been left unlogged (finished: false), as if the
// run had been cut short by --time.
TEST(Fuzz, TheLastCaseIsWaitedForHoweverLongItTakes) {
  fs::path dir = test::scratch_dir("fuzz_last_case");
  Result r = teval("fuzz --out camp --cases 1 --quiet --backend-cmd 'sleep 35; exit 77'", dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string report = test::read_file(dir / "camp/report.json");
  EXPECT_NE(report.find("\"finished\": true"), std::string::npos) << report;
  EXPECT_EQ(test::read_file(dir / "camp/cases.log"), "0 unsupported\n");
}

// A profile narrows the generator to what a compiler supports: against a
// float32-only compiler (backend.sh decline-not-float32), most cases are
// declined without one and at least 90% reach it with --profile
// float32-dense. The profile is the campaign's: campaign.txt and
// report.json keep it, and resuming with another is a usage error.
TEST(Fuzz, AProfileLetsTheCasesReachTheCompiler) {
  fs::path dir = test::scratch_dir("fuzz_profile");
  auto declined = [&](const std::string& out) {
    std::string report = test::read_file(dir / out / "report.json");
    size_t at = report.find("\"unsupported\": ");
    return at == std::string::npos ? -1 : std::stoi(report.substr(at + 15));
  };
  Result r =
      teval("fuzz --out plain --cases 40 --seed 5 --quiet" + backend("decline-not-float32"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GE(declined("plain"), 12) << test::read_file(dir / "plain/report.json");
  r = teval("fuzz --out narrow --cases 40 --seed 5 --quiet --profile float32-dense" +
                backend("decline-not-float32"),
            dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LE(declined("narrow"), 4) << test::read_file(dir / "narrow/report.json");
  EXPECT_NE(test::read_file(dir / "narrow/campaign.txt").find("profile dtypes=float32 no-gather\n"),
            std::string::npos);
  EXPECT_NE(
      test::read_file(dir / "narrow/report.json").find("\"profile\": \"dtypes=float32 no-gather\""),
      std::string::npos);
  r = teval("fuzz --out narrow --cases 41 --dtypes float64", dir);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("other --profile, --dtypes, --ops or --no-gather"), std::string::npos)
      << r.err;
  r = teval("fuzz --out bad --cases 1 --ops add,frobnicate", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown operator 'frobnicate'"), std::string::npos) << r.err;
  r = teval("gen --cases 1 -o g --profile dense", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find("unknown --profile 'dense'; teval knows: float32-dense, float-dense, linalg"),
      std::string::npos)
      << r.err;
}

// The variables a command reads (--backend-env) are recorded when the
// campaign begins: every run of the command sees those values, a resumed
// campaign too, and reproduce.sh exports them.
TEST(Fuzz, TheCommandsEnvironmentIsTheCampaigns) {
  fs::path dir = test::scratch_dir("fuzz_env");
  const std::string args = " --cases 6 --seed 1 --quiet --shrink-time 2s";
  Result r =
      teval("fuzz --out c" + args + " --backend-env BACKEND_MODE" + backend("from-env"), dir);
  EXPECT_EQ(r.exit_code, 2) << r.err; // not set here
  EXPECT_NE(r.err.find("--backend-env BACKEND_MODE: it is not set"), std::string::npos) << r.err;
  r = sh("BACKEND_MODE=negate-first " + teval_path() + " fuzz --out c" + args +
             " --backend-env BACKEND_MODE" + backend("from-env"),
         dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err; // value findings
  EXPECT_NE(test::read_file(dir / "c/campaign.txt").find("backend-env BACKEND_MODE=negate-first\n"),
            std::string::npos);
  bool exported = false;
  for (const auto& f : fs::directory_iterator(dir / "c/findings"))
    exported |=
        test::read_file(f.path() / "reproduce.sh").find("export BACKEND_MODE='negate-first'\n") !=
        std::string::npos;
  EXPECT_TRUE(exported);
  // Resumed where the variable says otherwise: the recorded value holds.
  std::string before = test::read_file(dir / "c/report.json");
  r = sh("BACKEND_MODE=ok " + teval_path() + " fuzz --out c --cases 12 --quiet", dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto finding_cases = [](const std::string& report) {
    size_t at = report.find("\"finding_cases\": ");
    return std::stoi(report.substr(at + 17));
  };
  EXPECT_GT(finding_cases(test::read_file(dir / "c/report.json")), finding_cases(before));
}

// The built-in C backends (teval emit --to c, compiled at -O3
// -march=native) reach every case the interpreter accepts and agree with
// it; they allow fused multiply-adds, as C compilers contract by default.
TEST(Fuzz, TheBuiltInCBackendsAgreeWithTheInterpreter) {
  fs::path dir = test::scratch_dir("fuzz_cc");
  for (const char* backend : {"cc:gcc", "cc:clang"}) {
    const std::string out = std::string("camp-") + (backend + 3);
    Result r = teval(
        "fuzz --out " + out + " --cases 16 --lang all --seed 6 --quiet --backend " + backend, dir);
    if (r.err.find("which is not installed") != std::string::npos)
      GTEST_SKIP() << r.err;
    EXPECT_EQ(r.exit_code, 0) << backend << r.out << r.err;
    std::string report = test::read_file(dir / out / "report.json");
    EXPECT_NE(report.find("\"findings\": []"), std::string::npos) << report;
    EXPECT_NE(report.find("\"unsupported\": 0,"), std::string::npos) << report;
    EXPECT_NE(test::read_file(dir / out / "campaign.txt").find("fma 1\n"), std::string::npos);
  }
  Result both = teval("fuzz --out y --cases 1 --backend cc:gcc --backend-cmd true", dir);
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("give --backend or --backend-cmd, not both"), std::string::npos)
      << both.err;
  Result r = teval("fuzz --out x --cases 1 --backend cc:icc", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown --backend 'cc:icc'; teval fuzz has: cc:gcc, cc:clang"),
            std::string::npos)
      << r.err;
}

TEST(Fuzz, EachWayABackendFailsIsAFindingOfItsKind) {
  fs::path dir = test::scratch_dir("fuzz_kinds");
  struct Mode {
    const char* mode;
    const char* kind;
  };
  for (Mode m : {Mode{"crash", "crash"}, Mode{"exit", "exit"}, Mode{"missing", "missing-output"},
                 Mode{"hog", "memory"}, Mode{"garbage", "unreadable-output"}, Mode{"hang", "hang"},
                 Mode{"negate-first", "value"}}) {
    std::string out = std::string("camp-") + m.mode;
    // Only the hanging backend is meant to meet the timeout: the others get
    // time to do what they do on a loaded machine (the hog, Python filling
    // 900 MiB, was sometimes killed as a hang within 1 s, and a sanitized
    // teval computing the negated outputs takes more than a second).
    const std::string timeout = std::string(m.mode) == "hang" ? "1s" : "20s";
    Result r =
        teval("fuzz --out " + out + " --cases 4 --seed 1 --quiet --backend-timeout " + timeout +
                  " "
                  // The budget leaves room for a teval built with the
                  // sanitizers as the backend (~250 MiB), not for hog's 900.
                  "--backend-memory 500M --shrink-time 4s" +
                  backend(m.mode),
              dir);
    EXPECT_EQ(r.exit_code, 1) << m.mode << r.out << r.err;
    EXPECT_NE(r.out.find(std::string(": ") + m.kind + " in external"), std::string::npos)
        << m.mode << "\n"
        << r.out;
    std::string report = test::read_file(dir / out / "report.json");
    EXPECT_NE(report.find(std::string("\"kind\": \"") + m.kind + "\""), std::string::npos)
        << report;
    // The finding's directory holds the case, the shrunk case and the
    // command that reruns it, with paths that exist.
    for (const auto& f : fs::directory_iterator(dir / out / "findings")) {
      EXPECT_TRUE(fs::exists(f.path() / "finding.txt"));
      EXPECT_TRUE(fs::exists(f.path() / "original" / "inputs"));
      std::string reproduce = test::read_file(f.path() / "reproduce.sh");
      EXPECT_EQ(reproduce.find("<"), std::string::npos) << reproduce; // no placeholder
      EXPECT_NE(reproduce.find(teval_path() + " check "), std::string::npos) << reproduce;
    }
  }
}

TEST(Fuzz, StopAfterEndsTheCampaignAtItsFirstFinding) {
  fs::path dir = test::scratch_dir("fuzz_stop_after");
  Result r = teval("fuzz --out camp --cases 500 --lang all --quiet --stop-after 1" +
                       backend("negate-first"),
                   dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 findings in 1 cases"), std::string::npos) << r.out;
  EXPECT_NE(test::read_file(dir / "camp/report.json").find("\"finished\": false"),
            std::string::npos);
}

// A backend that fuses multiply-adds (and adds in any order) is wrong only
// where fusing is not allowed: judged as teval check judges, it has value
// findings (the first at case 208 of seed 0), and with --fma, as teval
// check --fma, none. The setting is kept in campaign.txt.
TEST(Fuzz, FmaAllowsFusedMultiplyAddsAsCheckDoes) {
  fs::path dir = test::scratch_dir("fuzz_fma");
  Result r = teval("fuzz --out strict --cases 400 --lang all --jobs 2 --quiet --stop-after 1 "
                   "--shrink-time 2s" +
                       backend("fma"),
                   dir);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(": value in external"), std::string::npos) << r.out;
  r = teval("fuzz --out fused --cases 240 --lang all --jobs 2 --quiet --fma" + backend("fma"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 findings"), std::string::npos) << r.out;
  EXPECT_NE(test::read_file(dir / "fused/campaign.txt").find("\nfma 1\n"), std::string::npos);
  EXPECT_EQ(test::read_file(dir / "strict/campaign.txt").find("\nfma "), std::string::npos);
}

TEST(Fuzz, ATevalEngineFindingReproducesWithTheActualEngine) {
  // A backend that is right is judged bit for bit too (--compare bits):
  // teval's own run of the program is bit-identical to the interpreter.
  fs::path dir = test::scratch_dir("fuzz_bits");
  Result r =
      teval("fuzz --out camp --cases 10 --lang tile --quiet --compare bits" + backend("ok"), dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = teval("fuzz --out engines --cases 30 --quiet --engine jit --engine ireval", dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(test::read_file(dir / "engines/report.json").find("\"engines\": [\"jit\", \"ireval\"]"),
            std::string::npos);
}

TEST(Fuzz, ARunResumesWhereTheLastStoppedAndALargerCountContinues) {
  fs::path dir = test::scratch_dir("fuzz_resume");
  ASSERT_EQ(teval("fuzz --out camp --cases 8 --seed 3 --quiet", dir).exit_code, 0);
  Result r = teval("fuzz --out camp --cases 20 --quiet", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("20 cases (12 in this run)"), std::string::npos) << r.out;
  EXPECT_EQ(sh("sort -n camp/cases.log | cut -d' ' -f1 | uniq | wc -l", dir).out, "20\n");
  // One campaign process per directory.
  r = sh("flock camp/lock sleep 2 & sleep 0.5; " + teval_path() +
             " fuzz --out camp --cases 30; "
             "echo \"status $?\"; wait",
         dir);
  EXPECT_NE(r.out.find("status 1"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("another teval fuzz is running"), std::string::npos) << r.err;
  // The saved settings stand; changing them is a usage error.
  EXPECT_EQ(teval("fuzz --out camp --cases 30 --seed 4", dir).exit_code, 2);
  EXPECT_EQ(teval("fuzz --out camp --cases 30 --lang tile", dir).exit_code, 2);
}

TEST(Fuzz, SigintPrintsTheSummaryAndLeavesAResumableCampaign) {
  fs::path dir = test::scratch_dir("fuzz_sigint");
  Result r = sh(teval_path() + " fuzz --out camp --cases 1000000 --jobs 2 --quiet > out.txt & "
                               "pid=$!; sleep 3; kill -INT $pid; wait $pid; echo \"status $?\"",
                dir);
  EXPECT_NE(r.out.find("status 0"), std::string::npos) << r.out << r.err;
  std::string out = test::read_file(dir / "out.txt");
  EXPECT_NE(out.find("(interrupted)"), std::string::npos) << out;
  std::string report = test::read_file(dir / "camp/report.json");
  EXPECT_NE(report.find("\"interrupted\": true"), std::string::npos) << report;
  EXPECT_FALSE(fs::exists(dir / "camp/tmp"));
}

// Ctrl-C in a terminal, `timeout` and a cancelled CI job signal the whole
// process group, workers and the commands they run too. The cases in
// flight are left for the resumed run: never logged as lost (nor as
// findings), as they had been when a worker died of the signal first.
TEST(Fuzz, ASignalToTheProcessGroupLeavesTheCasesInFlightForTheResumedRun) {
  fs::path dir = test::scratch_dir("fuzz_group_signal");
  std::ofstream(dir / "campaign.sh")
      << "exec " << teval_path() << " fuzz --out camp --cases 16 --jobs 2 --quiet --engine none "
      << "--backend-cmd "
      << test::shell_quoted("sleep 0.4; sh " +
                            (test::source_dir() / "tests/data/fuzz/backend.sh").string() + " " +
                            teval_path() + " ok {program} {inputs} {outdir} {entry}")
      << " > out.txt 2>&1\n";
  for (int round = 0; round < 3; ++round) {
    // The campaign leads its own process group; once it has logged 4 more
    // cases, with 2 in flight, the group gets SIGTERM: the workers first
    // (the order that had lost their cases), then the coordinator. The
    // resumed runs continue the count of 16.
    Result r = sh("setsid sh campaign.sh & pid=$!; "
                  "for i in $(seq 200); do "
                  "[ \"$(cat camp/cases.log 2>/dev/null | wc -l)\" -ge " +
                      std::to_string(4 * (round + 1)) +
                      " ] && break; sleep 0.1; done; sleep 0.2; "
                      "for s in /proc/[0-9]*/stat; do "
                      "{ read -r p c st pp pg rest < $s; } 2>/dev/null || continue; "
                      "[ \"$pg\" = $pid ] && [ $p != $pid ] && kill -TERM $p; done; "
                      "sleep 0.5; kill -TERM $pid; wait $pid; echo \"status $?\"",
                  dir);
    EXPECT_NE(r.out.find("status 0"), std::string::npos) << r.out << r.err;
    std::string log = test::read_file(dir / "camp/cases.log");
    EXPECT_EQ(log.find("lost"), std::string::npos) << log;
    EXPECT_EQ(log.find("finding"), std::string::npos) << log;
  }
  // The resumed run does every case, each once.
  Result r = teval("fuzz --out camp --cases 16 --jobs 2 --quiet", dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string report = test::read_file(dir / "camp/report.json");
  EXPECT_NE(report.find("\"finding_cases\": 0"), std::string::npos) << report;
  EXPECT_EQ(test::read_file(dir / "camp/cases.log").find("lost"), std::string::npos);
}

TEST(Fuzz, ShardsNeverRepeatACaseAndMergeIntoOneReport) {
  fs::path dir = test::scratch_dir("fuzz_shards");
  ASSERT_EQ(teval("fuzz --out s0 --cases 6 --shard 0/2 --quiet", dir).exit_code, 0);
  ASSERT_EQ(teval("fuzz --out s1 --cases 6 --shard 1/2 --quiet", dir).exit_code, 0);
  EXPECT_EQ(sh("cut -d' ' -f1 s0/cases.log s1/cases.log | sort -n | tr '\\n' ' '", dir).out,
            "0 1 2 3 4 5 6 7 8 9 10 11 ");
  Result r = teval("fuzz --merge s0 s1 --out merged", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::read_file(dir / "merged/report.json").find("\"cases\": 12,"), std::string::npos);
  // Campaigns of other seeds do not merge.
  ASSERT_EQ(teval("fuzz --out other --cases 2 --seed 5 --quiet", dir).exit_code, 0);
  EXPECT_EQ(teval("fuzz --merge s0 other --out bad", dir).exit_code, 1);
}

TEST(Fuzz, MpiRanksRunShardsAndRankZeroMergesThem) {
#if defined(TEVAL_TEST_ASAN)
  GTEST_SKIP() << "Open MPI's own allocations at exit are leaks to LeakSanitizer";
#endif
  fs::path dir = test::scratch_dir("fuzz_mpi");
  if (sh("command -v mpirun", dir).exit_code != 0)
    GTEST_SKIP() << "no mpirun";
  Result r = sh("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                "mpirun -n 2 --oversubscribe " +
                    teval_path() + " fuzz --mpi --out camp --cases 10 --lang all --quiet",
                dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("2 ranks, merged into camp"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20 cases"), std::string::npos) << r.out;
  EXPECT_NE(test::read_file(dir / "camp/report.json").find("\"cases\": 20,"), std::string::npos);
  // Each rank ran its own shard.
  EXPECT_NE(test::read_file(dir / "camp/rank-1/campaign.txt").find("shard 1/2"), std::string::npos);
}

TEST(Fuzz, TheDspIsAnEngine) {
  fs::path dir = test::scratch_dir("fuzz_dsp");
  Result r = teval("fuzz --out camp --cases 12 --lang all --engine hexagon --quiet", dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(test::read_file(dir / "camp/report.json").find("\"cases\": 12"), std::string::npos);
}

TEST(Fuzz, UsageErrors) {
  fs::path dir = test::scratch_dir("fuzz_usage");
  for (const char* args :
       {"fuzz", "fuzz --out x --engine gpu", "fuzz --out x --compare bits",
        "fuzz --out x --backend-cmd 'cc {prog}'", "fuzz --out x --time 0",
        "fuzz --out x --shard 2/2", "fuzz --out x --jobs 0", "fuzz --out x --engine none",
        "gen --cases 3", "gen -o x --lang c", "fuzz --out x --fma",
        "fuzz --out x --backend-cmd 'cc' --compare bits --fma"})
    EXPECT_EQ(teval(args, dir).exit_code, 2) << args;
  EXPECT_EQ(teval("fuzz --help", dir).exit_code, 0);
  EXPECT_EQ(teval("gen --help", dir).exit_code, 0);
}

// A compiler not asked about errors (no --expect-errors) is given only
// programs the interpreter accepts on their inputs: no case is wasted on
// a program it would only be skipped for.
TEST(Fuzz, ACompilerNotAskedAboutErrorsGetsOnlyProgramsTheInterpreterAccepts) {
  fs::path dir = test::scratch_dir("fuzz_valid_only");
  auto count = [&](const std::string& out, const std::string& key) {
    std::string report = test::read_file(dir / out / "report.json");
    size_t at = report.find("\"" + key + "\": ");
    return at == std::string::npos ? -1 : std::stoi(report.substr(at + key.size() + 4));
  };
  Result r = teval("fuzz --out valid --lang all --cases 40 --seed 2 --quiet" + backend("ok"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(count("valid", "reference_errors"), 0) << test::read_file(dir / "valid/report.json");
  EXPECT_NE(test::read_file(dir / "valid/campaign.txt").find("valid-only 1\n"), std::string::npos);
  EXPECT_NE(test::read_file(dir / "valid/report.json").find("\"valid_only\": true"),
            std::string::npos);
  r = teval("fuzz --out errors --lang all --cases 40 --seed 2 --quiet --expect-errors" +
                backend("ok"),
            dir);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err; // "ok" runs teval, which fails as it should
  EXPECT_GE(count("errors", "reference_errors"), 2) << test::read_file(dir / "errors/report.json");
  EXPECT_EQ(test::read_file(dir / "errors/campaign.txt").find("valid-only"), std::string::npos);
}

// {inputs} holds the program's inputs: an MLIR function's constants are in
// the program, and a command passing every file as an input must work.
TEST(Fuzz, TheCommandsInputsAreNotTheProgramsConstants) {
  fs::path dir = test::scratch_dir("fuzz_mlir_inputs");
  Result r = teval("fuzz --out m --lang mlir --cases 30 --seed 3 --quiet" + backend("ok"), dir);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::string report = test::read_file(dir / "m/report.json");
  EXPECT_NE(report.find("\"findings\": []"), std::string::npos) << report;
}

// A compiler's first diagnostic is found from the start of its standard
// error: a dump after it (MLIR prints the failing operation) longer than
// the tail a campaign keeps must not split one failure into one
// signature per program.
TEST(Fuzz, ACompilersDiagnosticIsFoundBeforeItsDump) {
  fs::path dir = test::scratch_dir("fuzz_dump");
  Result r =
      teval("fuzz --out d --cases 6 --seed 4 --quiet --shrink-time 1s" + backend("exit-dump"), dir);
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  std::string report = test::read_file(dir / "d/report.json");
  size_t signatures = 0;
  for (size_t at = report.find("\"signature\": "); at != std::string::npos;
       at = report.find("\"signature\": ", at + 1))
    ++signatures;
  EXPECT_EQ(signatures, 1u) << report;
  EXPECT_NE(report.find("its first diagnostic:\\nbackend: error: cannot lower this program"),
            std::string::npos)
      << report;
}
} // namespace
} // namespace teval
