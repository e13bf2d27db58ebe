// numpy .npz archives (np.savez and np.savez_compressed): zip files of
// .npy members, read-only.
#pragma once

#include "core/tensor.h"

#include <string>
#include <vector>

namespace teval::core {

/// The array names in the .npz file at \p path (member names without
/// `.npy`), in archive order.
std::vector<std::string> npz_keys(const std::string& path);

/// Array \p key of the .npz file at \p path (member `key.npy`), decoded as
/// decode_npy() does. Stored and deflated members, zip64 records and CRCs
/// are checked; a malformed archive, a missing key (the message lists the
/// archive's names) or a bad member is Error(Input) at \p path.
Tensor read_npz(const std::string& path, const std::string& key);

} // namespace teval::core
