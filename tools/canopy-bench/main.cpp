// canopy-bench: the MPI program behind `canopy bench` (the canopy tool itself does not link
// MPI and execs this one, found beside it). Every rank parses the same command line and
// reaches the same verdict; only rank 0 prints. Exit status: 0, 1 on a failure (a collective's
// error, a validation mismatch, an unwritable plot), 2 on a command-line mistake.
#include <mpi.h>

#include <cstdio>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "coll/dispatch.h"
#include "coll/hierarchy.h"
#include "common/error.h"
#include "measure.h"
#include "options.h"
#include "report.h"

namespace canopy::bench {
namespace {

constexpr int kUsage = 2;

int report_error(int rank, const std::string &message) {
  if (rank == 0) std::fprintf(stderr, "canopy bench: error: %s\n", message.c_str());
  return 1;
}

// The hierarchy Canopy's collectives use on @p comm (built here, collectively), and a check
// that every forced algorithm can run on it: a column named "shm" must measure shm, not the
// algorithm the selection would fall back to. --compare all leaves those out instead.
RunInfo describe_run(Options &opts, MPI_Comm comm) {
  coll::Hierarchy &h = coll::hierarchy_of(comm);
  std::vector<Algorithm> runnable;
  for (const Algorithm &alg : opts.algorithms) {
    std::string why = alg.is_mpi() || alg.is_auto() ? "" : opts.collective->why_not(h, alg.name);
    if (why.empty()) runnable.push_back(alg);
    else if (!opts.compare_all)
      throw CLI::ValidationError("--algorithm", std::string(opts.collective->name) + " algorithm '" + alg.name +
                                                    "' cannot run on " + h.describe() + ": " + why);
  }
  opts.algorithms = runnable;
  return {h.size, h.nodes, h.max_ranks_per_node,
          opts.method == Method::SmpPaper ? (opts.purge_bytes ? opts.purge_bytes : default_purge_bytes()) : 0,
          coll::mpi_library()};
}

// Steps only rank 0 does (files, gnuplot) must not leave the other ranks measuring alone.
void agree_on_rank0(int rank, MPI_Comm comm, const std::function<void()> &step) {
  std::string error;
  if (rank == 0) {
    try {
      step();
    } catch (const Error &e) {
      error = e.what();
    }
  }
  int failed = !error.empty();
  PMPI_Bcast(&failed, 1, MPI_INT, 0, comm);
  if (failed) throw Error(CANOPY_ERR_IO, error);
}

// Measures every size, printing OSU rows as they finish; returns the exit status.
int measure_all(const Options &opts, const RunInfo &info, MPI_Comm comm, int rank) {
  TextReport text(opts, info);
  if (rank == 0 && !opts.json) text.header(std::cout);
  Measurement measurement(opts, comm);
  std::vector<Row> rows;
  for (size_t bytes : opts.sizes()) {
    rows.push_back(measurement.measure(bytes));
    if (rank == 0 && !opts.json) text.row(std::cout, rows.back());
  }
  if (rank != 0) return 0;
  if (opts.json) std::cout << json_report(opts, info, rows).dump(2) << '\n' << std::flush;
  if (!opts.plot.empty()) plot_svg(opts, info, rows, opts.plot);
  int status = 0;
  for (const Row &row : rows)
    for (size_t a = 0; a < opts.algorithms.size(); ++a)
      if (row.stats[a].errors)
        status = report_error(rank, "validation failed: " + opts.algorithms[a].name + " at " +
                                        std::to_string(row.bytes) + " bytes (" +
                                        std::to_string(row.stats[a].errors) + " wrong bytes over all ranks)");
  if (!opts.tuning_file.empty()) {
    if (status != 0) return report_error(rank, "tuning file " + opts.tuning_file + " not written");
    size_t rules = write_tuning(opts, info, rows);
    std::fprintf(stderr, "canopy bench: %zu %s rule%s for %d ranks on %d node%s (%s) written to %s\n", rules,
                 opts.collective->name, rules == 1 ? "" : "s", info.ranks, info.nodes, info.nodes == 1 ? "" : "s",
                 info.library.c_str(), opts.tuning_file.c_str());
  }
  return status;
}

int run(int argc, char **argv, MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  CLI::App app{"canopy bench: measure a collective's latency, OSU style, run under mpirun:\n"
               "  mpirun -np 4 canopy bench bcast --compare mpi,shm,auto -m 1:65536"};
  cli::setup_app(app, "canopy bench");
  app.failure_message([](const CLI::App *self, const CLI::Error &e) {
    return self->get_name() + ": error: " + e.what() + "\nRun with --help for more information.\n";
  });
  RawOptions raw;
  Options opts;
  declare_options(app, raw, opts);
  try {
    app.parse(argc, argv);
    finish_options(raw, size, opts);
    if (size < 2) throw CLI::ValidationError("mpirun -np", "canopy bench needs at least 2 ranks (mpirun -np N canopy bench ...)");
    RunInfo info = describe_run(opts, comm);
    if (!opts.plot.empty()) agree_on_rank0(rank, comm, [&] { check_plot_prerequisites(opts.plot); });
    if (!opts.tuning_file.empty()) agree_on_rank0(rank, comm, [&] { check_tuning_prerequisites(opts.tuning_file); });
    return measure_all(opts, info, comm, rank);
  } catch (const CLI::ParseError &e) {
    // Help, version and usage errors: CLI11's text, printed once.
    int code = rank == 0 ? app.exit(e) : e.get_exit_code();
    return code == 0 ? 0 : kUsage;
  } catch (const std::exception &e) {
    return report_error(rank, e.what());
  }
}

}  // namespace
}  // namespace canopy::bench

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);  // the benchmark's own communicator (Canopy caches its hierarchy on it)
  int status = canopy::bench::run(argc, argv, comm);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return status;
}
