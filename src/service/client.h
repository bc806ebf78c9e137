// A blocking client for canopyd (docs/protocol.md): one TCP connection, request
// lines sent pipelined, answers read back in order. Used at MPI initialisation
// through canopy_service_matrices(), so it must never hang: name lookup, connect
// and every answer are bounded by service_client_timeout_s, an answer line by
// service_client_max_answer_bytes. Failures are canopy::Error: IO for the
// network ("cannot connect to 127.0.0.1:7470: Connection refused"), the mapped
// status for `ERR` answers (client_answers.h), PARSE for a malformed answer.
#pragma once
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "service/client_answers.h"
#include "topo/route_view.h"
#include "topo/views.h"

namespace canopy::service {

struct ServerAddress {
  std::string host;  // name, IPv4 address, or IPv6 address without brackets
  std::string port;  // decimal, 1..65535
};

/** "HOST:PORT", "IPV4:PORT" or "[IPV6]:PORT"; throws Error(INVALID_ARG) otherwise. */
ServerAddress parse_server_address(std::string_view text);

struct ClientOptions {
  double timeout_s = 10;                 // resolve + connect, then each answer
  size_t max_answer_bytes = 64u << 20;   // longest answer line accepted
  int matrix_hosts = 256;                // most hosts in one `matrix` request

  /** service_client_timeout_s, service_client_max_answer_bytes and
      service_client_matrix_hosts, checked. */
  static ClientOptions from_params();
};

/** The `matrix` requests that cover an n x n matrix when one request may name at
    most @p max_hosts hosts (>= 2): each request is a list of positions in the
    host list. n <= max_hosts: one request. Otherwise blocks of max_hosts / 2
    hosts, one request per pair of blocks: every cell (i, j) lies in one. */
std::vector<std::vector<int>> matrix_request_blocks(int n, int max_hosts);

class ServiceClient {
 public:
  /** Resolves @p address (parse_server_address) and connects within the timeout. */
  explicit ServiceClient(const std::string &address, ClientOptions options = ClientOptions::from_params());
  ~ServiceClient();
  ServiceClient(const ServiceClient &) = delete;
  ServiceClient &operator=(const ServiceClient &) = delete;

  /** Sends @p requests (one line each, without '\n') pipelined and returns their
      answers in order, `ERR` answers included. Each answer must come within the
      timeout of the previous one. After a network or framing failure the
      connection is closed and every later call fails. */
  std::vector<std::string> exchange(const std::vector<std::string> &requests);
  std::string exchange(const std::string &request);
  /** The same, handing each answer to @p on_answer (request index, answer) as it
      arrives instead of keeping them all; a handler that throws closes the connection. */
  using AnswerHandler = std::function<void(size_t index, std::string &answer)>;
  void exchange(const std::vector<std::string> &requests, const AnswerHandler &on_answer);

  /** Switches the connection's answer format (`json on` / `json off`) if needed. */
  void set_json(bool on);

  /** `matrix all H1 ... Hn`: hop, rate and delay matrices, rows and columns in
      the order of @p hosts (n = 0: empty, nothing is sent). Lists longer than
      matrix_hosts are asked in blocks (matrix_request_blocks), pipelined; a server
      that allows fewer hosts (`ERR matrix of more than N hosts`) is asked again
      with blocks that fit. */
  topo::HostMatrices matrices(const std::vector<std::string> &hosts);
  /** `route A B`, asked in JSON mode for the node types and link rate names. */
  topo::RouteView route(const std::string &host_a, const std::string &host_b);
  /** `info`: version, protocol, snapshot, source, ... in the server's order. */
  std::vector<std::pair<std::string, std::string>> info();

  const std::string &address() const { return address_; }

 private:
  using Clock = std::chrono::steady_clock;

  Clock::time_point deadline() const;
  void fail(const Error &error);
  void wait_ready(bool want_write, Clock::time_point deadline);
  bool take_answer(std::string &answer);
  /** One pass of matrices(): the first ERR reason, if any, instead of a throw,
      so that the connection stays in step for a retry. */
  std::optional<std::string> ask_matrices(const std::vector<std::string> &hosts, int max_hosts,
                                          topo::HostMatrices &m);
  void receive();
  /** One answer, checked: an `ERR` answer becomes the mapped Error. */
  std::string checked(const std::string &request);

  std::string address_;
  ClientOptions options_;
  int fd_ = -1;
  bool json_ = false;
  std::string in_;      // received bytes; in_[in_start_..] not yet returned
  size_t in_start_ = 0;
  size_t scanned_ = 0;  // no '\n' in in_[in_start_..scanned_)
};

}  // namespace canopy::service
