// canopy query [--server ADDR] [--json] [REQUEST ...]: protocol lines sent to
// canopyd as they are (docs/protocol.md), answers printed one per line. With no
// REQUEST, the lines of stdin are the requests, sent pipelined.
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.h"
#include "commands.h"
#include "common/error.h"
#include "common/params.h"
#include "common/text.h"
#include "service/client.h"

namespace canopy::cli {
namespace {

struct QueryOptions {
  std::string server;
  std::vector<std::string> requests;
  bool json = false;
};

std::vector<std::string> stdin_requests() {
  std::vector<std::string> requests;
  std::string line;
  while (std::getline(std::cin, line))
    if (!trim(line).empty()) requests.push_back(line);
  return requests;
}

// The server closes the connection after `quit`: what follows would never be answered.
void drop_after_quit(std::vector<std::string> &requests) {
  for (size_t i = 0; i < requests.size(); ++i)
    if (trim(requests[i]) == "quit") return requests.resize(i + 1);
}

int run_query(const QueryOptions &o) {
  std::string server = o.server.empty() ? param_string("topo_server") : o.server;
  if (server.empty())
    throw Error(CANOPY_ERR_INVALID_ARG, "no server: give --server HOST:PORT or set CANOPY_TOPO_SERVER");
  std::vector<std::string> requests = o.requests.empty() ? stdin_requests() : o.requests;
  drop_after_quit(requests);
  service::ServiceClient client(server);
  if (o.json) client.set_json(true);
  int status = 0;
  // Printed as they arrive: if the connection fails later, the answers so far are out.
  client.exchange(requests, [&](size_t i, std::string &answer) {
    // The first answer tells whether the server speaks the protocol at all: a wrong port may
    // hold another server, which answers lines of its own (--json checked it already).
    if (i == 0 && !o.json && !service::answers_request(requests[0], answer))
      throw Error(CANOPY_ERR_IO, server + " does not answer as canopyd: '" + answer.substr(0, 80) + "' to '" +
                                     requests[0] + "'");
    std::printf("%s\n", answer.c_str());
    if (service::answer_error(answer)) status = 1;
  });
  return status;
}

}  // namespace

CommandRunner add_query_command(CLI::App &app) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App *cmd = app.add_subcommand("query", "Send requests to the topology service (canopyd) and print its answers");
  cmd->add_option("REQUEST", o->requests,
                  "A protocol request line, quoted: 'route h1 h2', 'matrix hops h1 h2 h3', info, help. "
                  "None: the lines of stdin");
  cmd->add_option("--server", o->server, "canopyd address HOST:PORT or [IPV6]:PORT (default: CANOPY_TOPO_SERVER)");
  cmd->add_flag("--json", o->json, "Ask for JSON answers: one JSON object per line");
  cmd->footer("Answers are printed one per line, in request order; exit status 1 if any is an error or the\n"
              "server does not answer as canopyd.\n"
              "Protocol: docs/protocol.md.");
  return [o] { return run_query(*o); };
}

}  // namespace canopy::cli
