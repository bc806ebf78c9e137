// Loading a topology SOURCE: "FORMAT:PATH" or a path whose format is detected
// from its content (a directory is a dump directory). See docs/topology-sources.md.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "topo/topology.h"

namespace canopy::topo {

struct SourceFormat {
  const char *name;  // the prefix: "ibnetdiscover", "slurm", ...
  const char *doc;
  bool (*sniff)(std::string_view head);  // recognises the first bytes of a file
  Topology (*load)(const std::string &path);
};

const std::vector<SourceFormat> &source_formats();

/** Loads and finalizes a topology; throws Error (PARSE with file:line, IO, ...). */
Topology load_topology(const std::string &source);

}  // namespace canopy::topo
