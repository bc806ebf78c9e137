#include "service/client_answers.h"

#include <cmath>
#include <limits>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace canopy::service {
namespace {

Error bad_answer(const char *what, const std::string &detail) {
  return Error(CANOPY_ERR_PARSE, std::string(what) + " answer: " + detail);
}

// Plain decimals only: parse_double would also take "inf", "nan", "-0", "+1".
bool parse_plain_number(std::string_view token, double &value) {
  if (token.empty() || token[0] < '0' || token[0] > '9') return false;
  return parse_double(token, value) && std::isfinite(value);
}

// Reads n*n values of one matrix; `rest` moves past them.
template <class T>
void read_matrix(std::string_view &rest, size_t count, const char *name, std::vector<T> &out) {
  out.resize(count);
  for (size_t k = 0; k < count; ++k) {
    std::string_view token = take_token(rest);
    if (token.empty())
      throw bad_answer("matrix", "truncated: " + std::string(name) + " value " + std::to_string(k + 1) + " of " +
                                     std::to_string(count) + " is missing");
    double value = 0;
    bool ok = parse_plain_number(token, value);
    if constexpr (std::is_integral_v<T>)
      ok = ok && token.find_first_of(".eE") == std::string_view::npos && value <= std::numeric_limits<T>::max();
    if (!ok)
      throw bad_answer("matrix", std::string(name) + " value " + std::to_string(k + 1) + " is not a " +
                                     (std::is_integral_v<T> ? "count" : "non-negative number") + ": '" +
                                     printable(token) + "'");
    out[k] = static_cast<T>(value);
  }
}

// A double-quoted info value with \" and \\ escapes; `rest` starts after the opening quote.
std::string take_quoted(std::string_view &rest, const std::string &key) {
  std::string value;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '"') {
      rest.remove_prefix(i + 1);
      if (!rest.empty() && !is_space(rest[0])) throw bad_answer("info", "junk after the quoted value of " + key);
      return value;
    }
    if (rest[i] == '\\' && i + 1 < rest.size()) ++i;
    value += rest[i];
  }
  throw bad_answer("info", "the quoted value of " + key + " is not closed");
}

}  // namespace

std::optional<std::string> answer_error(std::string_view answer) {
  if (answer == "ERR") return std::string("unspecified error");
  if (starts_with(answer, "ERR ")) return std::string(trim(answer.substr(4)));
  if (answer.empty() || answer[0] != '{') return std::nullopt;
  nlohmann::json object = nlohmann::json::parse(answer, nullptr, false);
  if (!object.is_object()) return std::nullopt;
  auto ok = object.find("ok");
  if (ok == object.end() || *ok != false) return std::nullopt;
  auto it = object.find("error");
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string("unspecified error");
}

bool answers_request(std::string_view request, std::string_view answer) {
  if (answer == "ERR" || starts_with(answer, "ERR ")) return true;
  std::string_view verb = trim(request);
  verb = verb.substr(0, verb.find_first_of(" \t"));
  if (verb == "query") return !answer.empty();
  if (verb == "quit") return answer == "bye";
  if (verb == "json") return answer == "ok json off" || starts_with(answer, "{");
  return answer == verb || (starts_with(answer, verb) && answer[verb.size()] == ' ');
}

canopy_status_t error_status(std::string_view reason) {
  if (starts_with(reason, "unknown host")) return CANOPY_ERR_NOT_FOUND;
  if (starts_with(reason, "forwarding") || reason.find("loop") != std::string_view::npos ||
      reason.find("no route") != std::string_view::npos || reason.find("no path") != std::string_view::npos)
    return CANOPY_ERR_ROUTE;
  if (starts_with(reason, "unknown request") || starts_with(reason, "usage:") ||
      starts_with(reason, "request is not text") || starts_with(reason, "line too long") ||
      starts_with(reason, "empty request") || starts_with(reason, "matrix of more than"))
    return CANOPY_ERR_INVALID_ARG;
  return CANOPY_ERR_IO;
}

Error service_error(const std::string &server, const std::string &reason) {
  return Error(error_status(reason), server + ": " + reason);
}

topo::HostMatrices parse_matrices_answer(std::string_view answer, int n) {
  std::string_view rest = answer;
  uint64_t count = 0;
  if (take_token(rest) != "matrix" || take_token(rest) != "all")
    throw bad_answer("matrix", "does not start with 'matrix all': '" + printable(answer) + "'");
  std::string_view count_token = take_token(rest);
  if (!parse_uint(count_token, count, 10) || count != static_cast<uint64_t>(n))
    throw bad_answer("matrix", "host count '" + printable(count_token) + "' is not the " + std::to_string(n) +
                                   " hosts asked for");
  topo::HostMatrices m;
  m.n = n;
  size_t cells = static_cast<size_t>(n) * static_cast<size_t>(n);
  read_matrix(rest, cells, "hops", m.hops);
  read_matrix(rest, cells, "gbps", m.gbps);
  read_matrix(rest, cells, "delay", m.delay_us);
  if (!take_token(rest).empty())
    throw bad_answer("matrix", "more than the 3 x " + std::to_string(cells) + " values expected");
  return m;
}

topo::RouteView parse_route_answer(std::string_view answer) {
  nlohmann::json object = nlohmann::json::parse(answer, nullptr, false);
  if (object.is_discarded() || !object.is_object())
    throw bad_answer("route", "not a JSON object: '" + printable(answer) + "'");
  auto ok = object.find("ok");
  if (ok == object.end() || *ok != true) throw bad_answer("route", "\"ok\" is not true");
  return topo::route_view_from_json(object);
}

std::vector<std::pair<std::string, std::string>> parse_info_answer(std::string_view answer) {
  std::string_view rest = answer;
  if (take_token(rest) != "info") throw bad_answer("info", "does not start with 'info': '" + printable(answer) + "'");
  std::vector<std::pair<std::string, std::string>> fields;
  while (!(rest = trim(rest)).empty()) {
    size_t equals = rest.find('=');
    std::string key(rest.substr(0, equals));
    if (equals == std::string_view::npos || key.empty() || key.find_first_of(" \t") != std::string::npos)
      throw bad_answer("info", "expected KEY=VALUE at '" + printable(rest) + "'");
    rest.remove_prefix(equals + 1);
    if (!rest.empty() && rest[0] == '"') {
      rest.remove_prefix(1);
      fields.emplace_back(key, take_quoted(rest, key));
    } else {
      fields.emplace_back(key, std::string(take_token(rest)));
    }
  }
  return fields;
}

}  // namespace canopy::service
