// canopyd: the topology query service. Serves routes, hops, rates and matrices
// of the fabric in a dump directory over TCP (docs/protocol.md), and reloads
// the dump in the background whenever canopy-collect publishes a new one.
// Operation: docs/canopyd.md.
#include <csignal>
#include <cstdlib>
#include <filesystem>

#include "cli.h"
#include "common/error.h"
#include "common/log.h"
#include "common/params.h"
#include "service/reloader.h"
#include "service/server.h"
#include "service/snapshot.h"

namespace {

struct Options {
  std::string dump_dir, listen, config;
};

int serve(const Options &o) {
  using namespace canopy::service;
  // The config file feeds the parameter registry like CANOPY_CONFIG_FILE; set
  // it before the first parameter (the log level included) is read.
  if (!o.config.empty()) ::setenv("CANOPY_CONFIG_FILE", o.config.c_str(), 1);
  ServerOptions options = ServerOptions::from_params();
  if (!o.listen.empty()) options.listen = o.listen;
  long long poll_ms = canopy::param_int("service_poll_ms");  // at most a day (the registry's range)
  std::signal(SIGPIPE, SIG_IGN);  // a client gone mid-answer is a write error, not a dead daemon

  SnapshotStore store;
  Server server(store, options);  // listen first: a port in use fails at once, before any loading
  // A folder that does not exist yet is awaited (canopy-collect may create it later); anything else is a mistake.
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(o.dump_dir, error);
  if (error && error != std::errc::no_such_file_or_directory)
    throw canopy::Error(CANOPY_ERR_IO, "cannot access --dump-dir " + o.dump_dir + ": " + error.message());
  if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
    throw canopy::Error(CANOPY_ERR_INVALID_ARG, "--dump-dir " + o.dump_dir + " is not a folder");
  // Absolute, so that logs and `info` name the dump unambiguously.
  std::string dump_dir = std::filesystem::absolute(o.dump_dir).lexically_normal().string();
  if (dump_dir.size() > 1 && dump_dir.back() == '/') dump_dir.pop_back();
  Reloader reloader(store, dump_dir, std::chrono::milliseconds(poll_ms));
  reloader.start();
  CANOPY_LOG(Info, "canopyd %s listening on %s, serving %s (%d threads)", CANOPY_VERSION_STRING,
             server.local_address().c_str(), dump_dir.c_str(), options.threads);
  server.run(true, [&reloader] { reloader.request_reload(); });
  reloader.stop();
  CANOPY_LOG(Info, "canopyd stopped");
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"Canopy topology query service: answers route, hop, rate and matrix questions about the\n"
               "fabric in a dump directory over TCP (docs/protocol.md), reloading new dumps as they appear."};
  canopy::cli::setup_app(app, "canopyd");
  Options o;
  app.add_option("--dump-dir", o.dump_dir, "canopy-collect output directory (with `current`) or a dump directory")
      ->required()
      ->check(canopy::cli::output_path());
  app.add_option("--listen", o.listen, "ADDR:PORT to listen on (default: service_listen, 127.0.0.1:7470)")
      ->check(canopy::cli::non_empty("address"));
  app.add_option("--config", o.config, "JSON object of parameters, as CANOPY_CONFIG_FILE")->check(CLI::ExistingFile);
  app.footer("Signals: SIGINT/SIGTERM stop, SIGHUP reloads the dump. Logs go to stderr\n"
             "(CANOPY_LOG_LEVEL or log_level in the config file; info shows every reload).\n"
             "Documentation: docs/canopyd.md, docs/protocol.md.");
  return canopy::cli::run(app, argc, argv, [&] { return serve(o); });
}
