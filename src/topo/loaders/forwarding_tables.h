// Internal to the loaders: the forwarding-table parser in two steps, so that
// the dump-directory loader can parse many ibroute files on several threads
// (parsing only reads the finalized Topology) and then install every table at
// once, after checking that no switch got two.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "topo/topology.h"

namespace canopy::topo::lft {

/** One switch's linear forwarding table, parsed but not yet installed. */
struct ParsedTable {
  int switch_node = -1;
  std::string file;  // where its header is, for "second table for this switch" errors
  size_t line = 0;
  std::vector<uint8_t> lid_to_port;  // Topology::kNoPort where the dump has no entry
};

/** Parses every table in @p text, numbering its lines from @p first_line. Only reads
    @p topo (which must be finalized), so several calls may run concurrently.
    Throws Error(PARSE) "file:line: ..." on malformed input. */
std::vector<ParsedTable> parse_tables(const Topology &topo, std::string_view text, const std::string &file,
                                      size_t first_line = 1);

/** parse_tables, but a text larger than @p min_piece_bytes is cut at table headers
    into up to @p max_threads pieces parsed concurrently. Same result and same
    first error as parse_tables. */
std::vector<ParsedTable> parse_tables_parallel(const Topology &topo, std::string_view text,
                                               const std::string &file, unsigned max_threads,
                                               size_t min_piece_bytes);

/** Installs the tables; throws Error(PARSE) naming both places, before changing
    anything, if a switch has two. */
void install_tables(Topology &topo, std::vector<ParsedTable> tables);

/** Threads worth starting for parsing: the hardware's, at least 1, at most 8. */
unsigned parse_threads();

/** Runs task(i) for every i < count on up to @p max_threads threads (the caller's
    included). If tasks throw, rethrows the exception of the lowest i, so the error
    reported never depends on scheduling. */
void parallel_for(size_t count, unsigned max_threads, const std::function<void(size_t)> &task);

}  // namespace canopy::topo::lft
