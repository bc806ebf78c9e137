#include "topo/source.h"

#include <cctype>
#include <chrono>

#include "common/error.h"
#include "common/file_io.h"
#include "common/log.h"
#include "common/text.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {
namespace {

// The first non-empty, non-comment line of a file head.
std::string_view first_content_line(std::string_view head) {
  LineCursor cursor(head);
  std::string_view line;
  while (cursor.next(line)) {
    line = trim(line);
    if (!line.empty() && line[0] != '#') return line;
  }
  return {};
}

bool contains_line_starting(std::string_view head, std::string_view prefix) {
  LineCursor cursor(head);
  std::string_view line;
  while (cursor.next(line))
    if (starts_with(line, prefix)) return true;
  return false;
}

bool contains_nocase(std::string_view head, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= head.size(); ++i) {
    size_t k = 0;
    while (k < needle.size() && std::tolower(static_cast<unsigned char>(head[i + k])) == needle[k]) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

bool sniff_ibnetdiscover(std::string_view head) {
  // "Switch" then a blank, not Slurm's "SwitchName=".
  return contains_line_starting(head, "Switch\t") || contains_line_starting(head, "Switch ") ||
         contains_line_starting(head, "Ca\t") ||
         contains_line_starting(head, "Ca ") || contains_line_starting(head, "switchguid=") ||
         contains_line_starting(head, "caguid=") || contains_line_starting(head, "Hca");
}
bool sniff_ibnetdiscover_ports(std::string_view head) {
  auto fields = split_fields(first_content_line(head));
  return fields.size() >= 4 && (fields[0] == "CA" || fields[0] == "SW" || fields[0] == "RT") && starts_with(fields[3], "0x");
}
bool sniff_subnet_lst(std::string_view head) { return starts_with(first_content_line(head), "{ "); }
bool sniff_slurm(std::string_view head) { return contains_nocase(head, "switchname="); }
bool sniff_torus(std::string_view head) { return starts_with(first_content_line(head), "dims"); }
bool sniff_nothing(std::string_view) { return false; }

template <Topology (*Parse)(std::string_view, const std::string &)>
Topology load_file(const std::string &path) {
  return Parse(read_file(path), path);
}

const std::vector<SourceFormat> kFormats = {
    {"dump", "dump directory: ibnetdiscover.txt + ibroute/*.txt (+ manifest.json); see docs/dump-directory.md",
     sniff_nothing, load_dump_dir},
    {"ibnetdiscover", "ibnetdiscover default output", sniff_ibnetdiscover, load_file<load_ibnetdiscover>},
    {"ibnetdiscover-ports", "ibnetdiscover -p port lines", sniff_ibnetdiscover_ports,
     load_file<load_ibnetdiscover_ports>},
    {"subnet-lst", "OpenSM opensm-subnet.lst", sniff_subnet_lst, load_file<load_subnet_lst>},
    {"slurm", "Slurm topology.conf (topology/tree)", sniff_slurm, load_file<load_slurm_topology>},
    {"torus", "Canopy torus/mesh coordinate file", sniff_torus, load_file<load_torus>},
};

// A collector output directory holds dump-* snapshots and a `current` link.
std::string resolve_dump_dir(const std::string &dir) {
  std::string current = dir + "/current";
  return is_directory(current) ? current : dir;
}

}  // namespace

const std::vector<SourceFormat> &source_formats() { return kFormats; }

namespace {
Topology load_any(const std::string &source) {
  for (const SourceFormat &format : kFormats) {
    std::string prefix = std::string(format.name) + ":";
    if (starts_with(source, prefix)) {
      std::string path = source.substr(prefix.size());
      return format.load(format.load == load_dump_dir ? resolve_dump_dir(path) : path);
    }
  }
  if (is_directory(source)) return load_dump_dir(resolve_dump_dir(source));
  std::string head = read_file(source).substr(0, 8192);
  for (const SourceFormat &format : kFormats)
    if (format.sniff(head)) return format.load(source);
  if (contains_line_starting(head, "Unicast lids"))
    throw Error(CANOPY_ERR_PARSE, source + ": forwarding tables alone are not a topology; "
                                           "load a dump directory (docs/dump-directory.md)");
  throw Error(CANOPY_ERR_PARSE, source + ": unrecognised topology format (use a FORMAT: prefix; "
                                         "`canopy topo --formats` lists them)");
}
}  // namespace

Topology load_topology(const std::string &source) {
  auto start = std::chrono::steady_clock::now();
  Topology topo = load_any(source);
  CANOPY_LOG(Info, "loaded %s: %zu hosts, %zu switches, %zu links, %d forwarding tables in %.3f s",
             topo.source().c_str(), topo.hosts().size(), topo.switches().size(), topo.links().size(),
             topo.num_forwarding_tables(),
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return topo;
}

}  // namespace canopy::topo
