// One loader per input format. Each parses text already read into memory
// (so tests and fuzzers can feed strings), names @p file in errors as
// "file:line: what is wrong", never crashes on any input, and returns a
// finalized Topology (LFT loaders fill in an existing one).
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "topo/topology.h"

namespace canopy::topo {

/** ibnetdiscover default output (Switch/Ca/Rt records, -g chassis headers tolerated). */
Topology load_ibnetdiscover(std::string_view text, const std::string &file);
/** `ibnetdiscover -p` port lines. */
Topology load_ibnetdiscover_ports(std::string_view text, const std::string &file);
/** OpenSM's opensm-subnet.lst (one line per link, both ends described). */
Topology load_subnet_lst(std::string_view text, const std::string &file);
/** ibroute unicast dumps (one or many switches) or OpenSM's opensm-lfts.dump: sets
    each switch's forwarding table. Switches are matched by GUID. */
void apply_forwarding_tables(Topology &topo, std::string_view text, const std::string &file);
/** Slurm topology.conf (topology/tree), with hostlist expressions. */
Topology load_slurm_topology(std::string_view text, const std::string &file);
/** Canopy's torus/mesh coordinate file (docs/topology-sources.md). */
Topology load_torus(std::string_view text, const std::string &file);
/** A dump directory: ibnetdiscover.txt (or opensm-subnet.lst) + ibroute/NAME.txt (or opensm-lfts.dump). */
Topology load_dump_dir(const std::string &dir);

/** The files load_dump_dir(@p dir) reads, chosen as it chooses them (so canopyd watches exactly
    these): the fabric (ibnetdiscover.txt, else opensm-subnet.lst; empty when neither exists),
    the forwarding tables (ibroute/'s *.txt in name order when ibroute/ is a directory, else
    opensm-lfts.dump, present or not), and manifest.json (present or not). Throws Error(IO)
    when ibroute/ cannot be listed. */
struct DumpFiles {
  std::string fabric;
  bool ibroute = false;  // forwarding lists ibroute/'s files, not opensm-lfts.dump
  std::vector<std::string> forwarding;
  std::string manifest;
};
DumpFiles dump_files(const std::string &dir);

struct HostfileEntry {
  std::string name;
  size_t line;    // 1-based, for error messages
  int slots = 0;  // "host slots=N" (Open MPI) or "host:N" (MPICH); 0 where the line gives none
};

/** The hosts of a host file (one host per line, "host slots=N" and "host:N"
    accepted, other KEY=VALUE fields ignored, '#' comments), in file order; no host at all,
    a slot count that is not a whole number from 1 to 2^20, or a second word
    without '=' on a line, is an error. */
std::vector<HostfileEntry> read_hostfile(std::string_view text, const std::string &file);

/** read_hostfile() resolved against @p topo; unknown hosts are errors with file:line. */
std::vector<int> parse_hostfile(const Topology &topo, std::string_view text, const std::string &file);

/** Expands a Slurm hostlist ("node[001-003,7],login1") into names; throws Error(PARSE)
    (without file:line; the caller adds it). Refuses expansions over 1,000,000 names. */
std::vector<std::string> expand_hostlist(std::string_view expression);

}  // namespace canopy::topo
