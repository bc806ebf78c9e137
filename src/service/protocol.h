// The canopyd line protocol (docs/protocol.md) as a pure function: one request
// line in, one answer line out, from a snapshot and the connection's state.
// No sockets here, so every verb and error is unit-tested without a server.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

#include "service/snapshot.h"

namespace canopy::service {

constexpr int kProtocolVersion = 1;

/** What the protocol remembers about one connection. */
struct Session {
  bool json = false;  // answers are JSON objects ("json on")
  bool quit = false;  // "quit" was answered: the server closes the connection after it
};

/** What a request is answered from. */
struct AnswerContext {
  const Snapshot *snapshot = nullptr;    // null: no fabric loaded yet
  const Freshness *freshness = nullptr;  // null: fresh
  long long max_matrix_hosts = 256;      // service_max_matrix_hosts
};

/** Answers one request @p line (without its '\n'; a trailing '\r' is dropped) by
    appending exactly one line, '\n' included, to @p out. Failed requests are
    answered `ERR ...` / {"ok": false, ...}; only std::bad_alloc escapes. */
void answer_request(std::string_view line, const AnswerContext &context, Session &session, std::string &out);

/** Appends an error answer in the session's format, for failures the server
    detects itself (line too long, too many clients). */
void answer_error(std::string_view reason, const Session &session, std::string &out);

}  // namespace canopy::service
