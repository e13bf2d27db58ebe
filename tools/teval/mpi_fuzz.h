// `teval fuzz --mpi`: a campaign as the ranks of an MPI job. Each rank runs
// its own shard in DIR/rank-R/; at the end rank 0 gathers every rank's log
// and findings through MPI (no shared file system needed) and merges them
// into DIR's report.
#pragma once

#include "verify/fuzz.h"

#include <optional>
#include <string>

namespace teval::tools {

/// Whether this teval was built with MPI (Open MPI).
bool mpi_available();

struct MpiRank {
  int rank = 0;
  int size = 1;
};

/// This process's rank: from the launcher's environment when it says
/// (Open MPI's OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE), so that MPI starts
/// only after the campaign's worker processes are gone; else from MPI
/// itself, started now.
MpiRank mpi_rank();

/// Rank \p me's campaign in \p rank_dir is done (\p mine, its summary):
/// rank 0 receives every rank's campaign into out/rank-R/, merges them
/// into \p out and prints the summary. Every rank returns the merged exit
/// status (0 no finding, 1 findings).
int mpi_gather(const MpiRank& me, const std::string& rank_dir, const std::string& out,
               const verify::FuzzSummary& mine);

} // namespace teval::tools
