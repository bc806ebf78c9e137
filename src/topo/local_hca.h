// This machine's InfiniBand ports and their rates, as the kernel lists them under
// /sys/class/infiniband/<device>/ports/<port>/ (what `ibstat` shows): the speed-aware Bcast
// between node leaders takes them where no topology service runs (the topology-aware bcast
// paper, IV-B2: each leader's HCA rate).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "topo/link_rate.h"

namespace canopy::topo {

struct HcaPort {
  std::string device;  // "mlx5_0"
  int port = 0;
  bool active = false;  // state "4: ACTIVE"
  std::string rate_text;  // the kernel's words, "40 Gb/sec (4X QDR)"
  LinkRate rate;          // gbps 0 where rate_text is not understood

  /** "DEVICE:PORT", as coll_hca_port names it. */
  std::string name() const { return device + ":" + std::to_string(port); }
};

/** The kernel's rate text, "40 Gb/sec (4X QDR)", "10 Gb/sec (4X)" (SDR has no name),
    "100 Gb/sec (4X EDR)"; false if it is not one. */
bool parse_sysfs_rate(std::string_view text, LinkRate &rate);

/** Every port under @p class_dir, devices in name order; none where the directory is missing.
    Read with open(2), read(2) and opendir(3), as libibumad reads them, so that a process run
    under ibsim's libumad2sim.so sees its simulated HCA. */
std::vector<HcaPort> local_hca_ports(const std::string &class_dir = "/sys/class/infiniband");

/** The port that stands for this host: @p wanted ("DEVICE" or "DEVICE:PORT": its first active
    port, or that port), else the first active port with a rate. Throws Error(NOT_FOUND) saying
    what was looked for and what is there. */
HcaPort host_hca_port(const std::vector<HcaPort> &ports, const std::string &wanted);

}  // namespace canopy::topo
