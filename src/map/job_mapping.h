// Task mapping of a running job: which new rank each process of an MPI
// communicator takes so that the communicator's graph sits well on the machine.
// MPI-free (the MPI entry points in src/topomap/ gather the inputs and spread
// the answer), so unit tests drive it directly.
//
// The processes are where the launcher put them: the slot of a process is its
// current location. Graph vertex v is old rank v; the mapping puts vertex v on
// slot sigma(v), so the process sitting at slot sigma(v) takes new rank v.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "map/comm_graph.h"
#include "map/mapping.h"
#include "topo/topology.h"

namespace canopy::map {

struct JobMapRequest {
  std::vector<std::string> host_of_rank;  // host name of every (old) rank
  CommGraph graph;                        // vertex v = old rank v
  std::string fabric;                     // topology source; "": a single-switch model of the hosts
  std::string node_topology;              // "live", hwloc XML, synthetic string; "": no intra-node mapping
  std::string algorithm = "rt";           // any of algorithm_names()
  /** The logical core (of node_topology) each rank is bound to, -1 for a rank not
      bound to one core; empty: local rank i of every host on core i (the
      convention of a synthetic node; on PU i where a host has more ranks than the
      node has cores). Intra-node mapping needs every rank bound and every host
      binding its ranks alike; otherwise the summary says why not. */
  std::vector<int> core_of_rank;
  /** Moves per host of the host groups' annealing after the refinement
      (MapOptions::anneal_moves; greedy, rt, rb); 0: none. */
  int64_t anneal_moves = 0;
  /** Iterations of the host groups' analytic placement after the refinement
      (MapOptions::analytic_iterations; tori), at most kMostAnalyticIterations; 0: none. */
  int64_t analytic_iterations = kDefaultAnalyticIterations;
  /** Moves per process of the processes' annealing, last (MapOptions::anneal_process_moves;
      greedy, rt, rb); 0: none. */
  int64_t anneal_process_moves = 0;
  /** The logical PU each rank is bound to, -1 for a rank not bound to one PU (or
      empty): taken where two ranks of a host share a core (core_of_rank). */
  std::vector<int> pu_of_rank{};
  /** The logical package each rank is bound within, -1 for a rank bound across packages or
      unbound (or empty): taken where the ranks' cores or PUs cannot be told (ranks bound to
      packages, as Open MPI binds more than two ranks by default), slots then placed on
      packages only. */
  std::vector<int> package_of_rank{};
};

struct JobMapping {
  std::vector<int> new_rank;  // old rank -> new rank, a permutation
  bool mapped = false;        // false: every rank keeps its rank (summary says why)
  std::string summary;        // one line for the log: the machine, the algorithm, the gain
};

/** Maps the job: each host keeps as many ranks as it holds now. Ranks keep their
    order (mapped = false) when the mapping is not strictly better than the
    current placement (hop-bytes, then cross-socket bytes). Throws Error for bad
    input: an unknown algorithm, a fabric that cannot be loaded or lacks a host,
    rb without coordinates, a negative anneal_moves or anneal_process_moves, an analytic_iterations out of
    0..kMostAnalyticIterations. */
JobMapping map_job(const JobMapRequest &request);

/** The fabric assumed when none is named: every host on one switch (one hop
    from the switch, two between hosts); above 254 hosts (a switch's port limit)
    leaf switches of 253 hosts, in the given order, under one spine. Throws
    Error(INVALID_ARG) for a name no fabric can hold (topo::synthetic::name_problem). */
topo::Topology single_switch_model(const std::vector<std::string> &hosts);

}  // namespace canopy::map
