// Shared checks of the loader fuzz targets: a loader may succeed or refuse the
// input with Error(PARSE) naming file:line; anything else (another status, an
// exception that is not canopy::Error, a one-sided link) is a finding.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "topo/topology.h"

namespace canopy::fuzz {

[[noreturn]] inline void finding(const std::string &what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

/** Aborts unless @p status is success, or PARSE with a message starting with @p prefix. */
inline void expect_success_or_parse_error(canopy_status_t status, const std::string &prefix) {
  if (status == CANOPY_SUCCESS) return;
  std::string message = canopy_last_error();
  if (status != CANOPY_ERR_PARSE) finding("status " + std::to_string(status) + ": " + message);
  if (message.compare(0, prefix.size(), prefix) != 0) finding("message without '" + prefix + "': " + message);
}

/** Every link must be recorded on both of its ports. */
inline void expect_consistent_links(const topo::Topology &topo) {
  for (int n = 0; n < static_cast<int>(topo.nodes().size()); ++n) {
    const topo::Node &node = topo.node(n);
    for (int p = 0; p < static_cast<int>(node.ports.size()); ++p) {
      const topo::Port &port = node.ports[p];
      if (!port.connected()) continue;
      const topo::Node &peer = topo.node(port.peer_node);
      if (port.peer_port < 0 || port.peer_port >= static_cast<int>(peer.ports.size()) ||
          peer.ports[port.peer_port].peer_node != n || peer.ports[port.peer_port].peer_port != p)
        finding("one-sided link on node " + std::to_string(n) + " port " + std::to_string(p));
    }
  }
}

}  // namespace canopy::fuzz
