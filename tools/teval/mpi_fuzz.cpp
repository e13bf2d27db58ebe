// `teval fuzz --mpi` (see mpi_fuzz.h).
#include "tools/teval/mpi_fuzz.h"

#include "core/error.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>

#ifdef TEVAL_HAVE_MPI
// The C API only: no MPI C++ bindings to link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#endif

namespace teval::tools {

namespace fs = std::filesystem;

#ifdef TEVAL_HAVE_MPI

namespace {

void start() {
  int started = 0;
  MPI_Initialized(&started);
  if (started)
    return;
  // The workers fork; with MPI started first, Open MPI would warn.
  ::setenv("OMPI_MCA_mpi_warn_on_fork", "0", 0);
  MPI_Init(nullptr, nullptr);
}

std::optional<int> env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v)
    return std::nullopt;
  return std::atoi(v);
}

} // namespace

bool mpi_available() {
  return true;
}

MpiRank mpi_rank() {
  for (auto [rank, size] : {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                            std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    auto r = env_int(rank), s = env_int(size);
    if (r && s && *s >= 1 && *r >= 0 && *r < *s)
      return {*r, *s};
  }
  start();
  MpiRank me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &me.size);
  return me;
}

int mpi_gather(const MpiRank& me, const std::string& rank_dir, const std::string& out,
               const verify::FuzzSummary& mine) {
  start();
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int merged = mine.findings.empty() ? 0 : 1;
  // This run's figures over every rank: cases summed, the longest time.
  unsigned long long run_cases = mine.run_cases, all_cases = 0;
  double seconds = mine.seconds, longest = 0;
  int interrupted = mine.interrupted, any_interrupted = 0;
  MPI_Reduce(&run_cases, &all_cases, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&seconds, &longest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&interrupted, &any_interrupted, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (me.rank != 0) {
    std::string bytes = verify::pack_campaign(rank_dir);
    unsigned long long n = bytes.size();
    MPI_Send(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, 1, MPI_COMM_WORLD);
    // In pieces: an MPI count is an int.
    for (unsigned long long at = 0; at < n; at += 1 << 30) {
      int piece = static_cast<int>(std::min<unsigned long long>(n - at, 1 << 30));
      MPI_Send(bytes.data() + at, piece, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    }
  } else {
    std::vector<std::string> dirs{rank_dir};
    for (int r = 1; r < size; ++r) {
      unsigned long long n = 0;
      MPI_Recv(&n, 1, MPI_UNSIGNED_LONG_LONG, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      std::string bytes(n, '\0');
      for (unsigned long long at = 0; at < n; at += 1 << 30) {
        int piece = static_cast<int>(std::min<unsigned long long>(n - at, 1 << 30));
        MPI_Recv(bytes.data() + at, piece, MPI_CHAR, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      std::string dir = (fs::path(out) / ("rank-" + std::to_string(r))).string();
      try {
        verify::unpack_campaign(bytes, dir);
      } catch (const core::Error& e) {
        std::cerr << e.render();
      }
      dirs.push_back(dir);
    }
    try {
      verify::FuzzSummary s = verify::merge_campaigns(dirs, out);
      s.run_cases = all_cases;
      s.seconds = longest;
      s.interrupted = any_interrupted != 0;
      std::cout << "teval fuzz: " << size << " ranks, merged into " << out << "\n"
                << verify::summary_text(s, out) << std::flush;
      merged = s.findings.empty() ? 0 : 1;
    } catch (const core::Error& e) {
      std::cerr << e.render();
      merged = 1;
    }
  }
  MPI_Bcast(&merged, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return merged;
}

#else

bool mpi_available() {
  return false;
}

MpiRank mpi_rank() {
  return {};
}

int mpi_gather(const MpiRank&, const std::string&, const std::string&,
               const verify::FuzzSummary& mine) {
  return mine.findings.empty() ? 0 : 1;
}

#endif

} // namespace teval::tools
