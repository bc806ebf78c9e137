// Reading canopyd's answers (docs/protocol.md) on the client side: error
// answers mapped to status codes, and strict parsers for the answers the typed
// client helpers ask for. An answer comes from another process over the network,
// so it is untrusted input: a wrong count, a non-number, a truncated line is an
// Error(PARSE) saying what is wrong, never a crash or a silently short matrix.
#pragma once
#include <canopy/status.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "topo/route_view.h"
#include "topo/views.h"

namespace canopy::service {

/** The reason of an error answer: `ERR REASON`, or `{"ok": false, "error": REASON}`
    in JSON mode; nullopt for any other answer. */
std::optional<std::string> answer_error(std::string_view answer);

/** Whether @p answer can be canopyd's text answer to @p request: `ERR ...`, or what the
    request's verb is answered with (docs/protocol.md: `hops N` to `hops`, `bye` to `quit`;
    a route's hosts to `query`). Tells a server that is not canopyd (an HTTP proxy's
    `HTTP/1.1 400 Bad Request`) from one that answers. */
bool answers_request(std::string_view request, std::string_view answer);

/** The status an error reason maps to: unknown host -> NOT_FOUND, forwarding hole
    or loop -> ROUTE, a request the server refuses (malformed, empty, too long, a
    matrix over its size limit) -> INVALID_ARG, anything else (no topology loaded
    yet, too many clients, ...) -> IO: the service could not answer. */
canopy_status_t error_status(std::string_view reason);

/** Error(error_status(reason), "SERVER: REASON"). */
Error service_error(const std::string &server, const std::string &reason);

/** `matrix all n` then n^2 hops, n^2 rates (Gb/s) and n^2 delays (us), for the
    @p n hosts asked for. Exactly 3 n^2 values: hops non-negative integers, rates
    and delays finite non-negative decimals. */
topo::HostMatrices parse_matrices_answer(std::string_view answer, int n);

/** A `route A B` answer in JSON mode ({"ok": true, ...route fields}), which carries
    the node types and link rate names that the text answer leaves out. */
topo::RouteView parse_route_answer(std::string_view answer);

/** `info KEY=VALUE ...` in order; a value may be double-quoted (reason="...",
    with \" and \\ escapes). */
std::vector<std::pair<std::string, std::string>> parse_info_answer(std::string_view answer);

}  // namespace canopy::service
