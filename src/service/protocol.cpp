#include "service/protocol.h"

#include <charconv>
#include <ctime>
#include <new>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/log.h"
#include "common/text.h"
#include "topo/routes.h"
#include "topo/views.h"

namespace canopy::service {
namespace {

using nlohmann::json;

struct Verb;

// One request being answered: the verb, the arguments not yet taken, and where
// the answer goes.
struct Request {
  const Verb &verb;
  const AnswerContext &context;
  Session &session;
  std::string_view args;
  std::string &out;

  const topo::Topology &topo() const { return context.snapshot->topology; }
  std::string_view next() { return take_token(args); }
};

struct Verb {
  std::string_view name;
  int min_args, max_args;  // max_args -1: no limit
  const char *usage;
  bool needs_fabric;       // answered only once a snapshot is loaded
  void (*answer)(Request &request);
};

Error usage_error(const Request &r) { return Error(CANOPY_ERR_INVALID_ARG, std::string("usage: ") + r.verb.usage); }

int require_host(const topo::Topology &topo, std::string_view name) {
  int host = topo.find_host(name);
  if (host < 0) throw Error(CANOPY_ERR_NOT_FOUND, "unknown host '" + printable(name) + "'");
  return host;
}

// ---- output helpers: text answers are appended without temporaries ----

template <class Number>
void append_number(std::string &out, Number value) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact form
  out.append(buffer, result.ptr);
}

void append_guid(std::string &out, uint64_t guid) {
  static const char kDigits[] = "0123456789abcdef";
  char buffer[18] = {'0', 'x'};
  for (int i = 0; i < 16; ++i) buffer[2 + i] = kDigits[(guid >> (60 - 4 * i)) & 0xf];
  out.append(buffer, sizeof buffer);
}

// A value taken from a file or a request, made safe for a one-line answer.
void append_one_line(std::string &out, std::string_view text) {
  for (char c : text) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
}

void append_json_line(std::string &out, const json &value) {
  // Names come from fabric files: replace invalid UTF-8 rather than fail the answer.
  out += value.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
}

// A JSON string. Names are plain ASCII almost always and are copied as they
// are; anything else goes through the JSON library's escaping.
void append_json_string(std::string &out, std::string_view text) {
  bool plain = true;
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    plain = plain && u >= 0x20 && u < 0x7f && c != '"' && c != '\\';
  }
  if (!plain) {
    append_json_line(out, json(text));
    out.pop_back();  // its '\n'
    return;
  }
  out += '"';
  out += text;
  out += '"';
}

uint64_t generation(const AnswerContext &context) { return context.snapshot ? context.snapshot->generation : 0; }

// Every JSON success answer starts {"ok":true,"snapshot":G and goes on with
// its own fields; the frequent small answers write those directly, without
// building a JSON document.
void open_json(Request &r) {
  r.out += "{\"ok\":true,\"snapshot\":";
  append_number(r.out, generation(r.context));
}

void finish_json(Request &r, const json &fields) {
  open_json(r);
  size_t start = r.out.size();
  append_json_line(r.out, fields);  // {...}\n: its '{' becomes the ',' after the snapshot
  r.out[start] = ',';
  if (r.out.size() - start == 3) r.out.erase(start, 1);  // no fields: "{}\n" -> "}\n"
}

// A hop of the paper's service answer: host name, or switch GUID.
void append_path_label(std::string &out, const topo::Node &node) {
  if (node.is_host())
    out += node.name;
  else
    append_guid(out, node.guid);
}

// ---- the verbs ----

void answer_query(Request &r) {
  std::string_view pair = r.next();
  size_t colon = pair.find(':');
  if (colon == std::string_view::npos) throw usage_error(r);
  const topo::Topology &topo = r.topo();
  int a = require_host(topo, pair.substr(0, colon)), b = require_host(topo, pair.substr(colon + 1));
  topo::Route route = topo::find_route(topo, a, b);
  bool json_mode = r.session.json;
  if (json_mode) {
    open_json(r);
    r.out += ",\"path\":[";
  }
  for (size_t i = 0; i < route.hops.size(); ++i) {
    if (i) r.out += json_mode ? ',' : ' ';
    const topo::Node &node = topo.node(route.hops[i].node);
    if (!json_mode) {
      append_path_label(r.out, node);
    } else if (node.is_host()) {
      append_json_string(r.out, node.name);
    } else {
      r.out += '"';
      append_guid(r.out, node.guid);
      r.out += '"';
    }
  }
  r.out += json_mode ? "]}\n" : "\n";
}

void answer_route(Request &r) {
  const topo::Topology &topo = r.topo();
  int a = require_host(topo, r.next());
  int b = require_host(topo, r.next());
  topo::Route route = topo::find_route(topo, a, b);
  if (r.session.json) return finish_json(r, topo::route_json(topo, route));
  std::string &out = r.out;
  out += "route ";
  out += topo::route_method_name(route.method);
  out += ' ';
  append_number(out, route.links());
  out += ' ';
  append_number(out, topo::route_min_gbps(topo, route));
  for (const topo::RouteHop &hop : route.hops) {
    const topo::Node &node = topo.node(hop.node);
    out += ' ';
    out += node.name;
    out += ',';
    append_guid(out, node.guid);
    out += ',';
    append_number(out, hop.in_port);
    out += ',';
    append_number(out, hop.out_port);
    out += ',';
    append_number(out, topo::hop_gbps(topo, hop));
  }
  out += '\n';
}

void answer_hops(Request &r) {
  const topo::Topology &topo = r.topo();
  int a = require_host(topo, r.next());
  int b = require_host(topo, r.next());
  int links = topo::find_route(topo, a, b).links();
  if (r.session.json) {
    open_json(r);
    r.out += ",\"hops\":";
  } else {
    r.out += "hops ";
  }
  append_number(r.out, links);
  r.out += r.session.json ? "}\n" : "\n";
}

void answer_rate(Request &r) {
  const topo::Topology &topo = r.topo();
  std::string_view name = r.next();
  const topo::Node &host = topo.node(require_host(topo, name));
  int port = host.first_connected_port();
  const topo::Port *link = port ? &host.ports[port] : nullptr;
  if (!link) throw Error(CANOPY_ERR_ROUTE, "host '" + printable(name) + "' is not connected");
  std::string rate = topo::rate_string(link->rate);
  if (r.session.json) return finish_json(r, {{"rate", rate}, {"gbps", link->rate.gbps}});
  r.out += "rate ";
  r.out += rate;
  r.out += ' ';
  append_number(r.out, link->rate.gbps);
  r.out += '\n';
}

template <class T>
void append_values(std::string &out, const std::vector<T> &values) {
  for (T value : values) {
    out += ' ';
    append_number(out, value);
  }
}

void answer_matrix(Request &r) {
  std::string_view kind = r.next();
  bool all = kind == "all", hops = all || kind == "hops", gbps = all || kind == "gbps", delay = all || kind == "delay";
  if (!hops && !gbps && !delay) throw usage_error(r);
  const topo::Topology &topo = r.topo();
  std::vector<int> hosts;
  for (std::string_view name = r.next(); !name.empty(); name = r.next()) {
    if (static_cast<long long>(hosts.size()) >= r.context.max_matrix_hosts)
      throw Error(CANOPY_ERR_INVALID_ARG, "matrix of more than " + std::to_string(r.context.max_matrix_hosts) +
                                              " hosts (service_max_matrix_hosts)");
    hosts.push_back(require_host(topo, name));
  }
  topo::HostMatrices m = topo::host_matrices(topo, hosts, r.context.snapshot->route_tails.get());
  if (r.session.json) {
    json body = {{"kind", kind}, {"hosts", json::array()}};
    for (int host : hosts) body["hosts"].push_back(topo.node(host).name);
    if (hops) body["hops"] = topo::matrix_rows(m.hops, m.n);
    if (gbps) body["gbps"] = topo::matrix_rows(m.gbps, m.n);
    if (delay) body["delay_us"] = topo::matrix_rows(m.delay_us, m.n);
    return finish_json(r, std::move(body));
  }
  r.out += "matrix ";
  r.out += kind;
  r.out += ' ';
  append_number(r.out, m.n);
  if (hops) append_values(r.out, m.hops);
  if (gbps) append_values(r.out, m.gbps);
  if (delay) append_values(r.out, m.delay_us);
  r.out += '\n';
}

void answer_hosts(Request &r) {
  const topo::Topology &topo = r.topo();
  if (r.session.json) {
    json names = json::array();
    for (int host : topo.hosts()) names.push_back(topo.node(host).name);
    return finish_json(r, {{"hosts", std::move(names)}});
  }
  r.out += "hosts ";
  append_number(r.out, topo.hosts().size());
  for (int host : topo.hosts()) {
    r.out += ' ';
    r.out += topo.node(host).name;
  }
  r.out += '\n';
}

std::string utc_time(std::time_t time) {
  std::tm tm{};
  gmtime_r(&time, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

void answer_info(Request &r) {
  const Snapshot &snapshot = *r.context.snapshot;
  const topo::Topology &topo = snapshot.topology;
  bool stale = r.context.freshness && r.context.freshness->stale;
  std::string reason = stale ? r.context.freshness->reason : "";
  const char *routes = topo::route_method_name(topo::route_method(topo));
  if (r.session.json) {
    json body = {{"version", CANOPY_VERSION_STRING}, {"protocol", kProtocolVersion}, {"source", snapshot.source()},
                 {"hosts", topo.hosts().size()}, {"switches", topo.switches().size()}, {"routes", routes},
                 {"loaded", utc_time(snapshot.loaded)}, {"state", stale ? "stale" : "fresh"}};
    if (stale) body["reason"] = reason;
    return finish_json(r, std::move(body));
  }
  std::string &out = r.out;
  out += "info version=" CANOPY_VERSION_STRING " protocol=";
  append_number(out, kProtocolVersion);
  out += " snapshot=";
  append_number(out, snapshot.generation);
  out += " source=";
  append_one_line(out, snapshot.source());
  out += " hosts=";
  append_number(out, topo.hosts().size());
  out += " switches=";
  append_number(out, topo.switches().size());
  out += " routes=";
  out += routes;
  out += " loaded=" + utc_time(snapshot.loaded);
  out += stale ? " state=stale reason=\"" : " state=fresh";
  if (stale) {
    for (char &c : reason)
      if (c == '"') c = '\'';  // the reason is the one quoted value
    append_one_line(out, reason);
    out += '"';
  }
  out += '\n';
}

void answer_help(Request &r);

void answer_json(Request &r) {
  std::string_view mode = r.next();
  if (mode != "on" && mode != "off") throw usage_error(r);
  r.session.json = mode == "on";
  // Answered in the mode just chosen: everything after `json on` is JSON.
  if (r.session.json) return finish_json(r, {{"json", true}});
  r.out += "ok json off\n";
}

void answer_quit(Request &r) {
  r.session.quit = true;
  if (r.session.json) return finish_json(r, {{"bye", true}});
  r.out += "bye\n";
}

const Verb kVerbs[] = {
    {"query", 1, 1, "query HOST_A:HOST_B", true, answer_query},
    {"route", 2, 2, "route HOST_A HOST_B", true, answer_route},
    {"hops", 2, 2, "hops HOST_A HOST_B", true, answer_hops},
    {"rate", 1, 1, "rate HOST", true, answer_rate},
    {"matrix", 2, -1, "matrix hops|gbps|delay|all HOST...", true, answer_matrix},
    {"hosts", 0, 0, "hosts", true, answer_hosts},
    {"info", 0, 0, "info", true, answer_info},
    {"help", 0, 0, "help", false, answer_help},
    {"json", 1, 1, "json on|off", false, answer_json},
    {"quit", 0, 0, "quit", false, answer_quit},
};

void answer_help(Request &r) {
  if (r.session.json) {
    json verbs = json::array();
    for (const Verb &verb : kVerbs)
      if (verb.answer != answer_help) verbs.push_back(verb.name);
    return finish_json(r, {{"help", std::move(verbs)}});
  }
  r.out += "help";
  for (const Verb &verb : kVerbs) {
    if (verb.answer == answer_help) continue;
    r.out += ' ';
    r.out += verb.name;
  }
  r.out += '\n';
}

// Text is printable bytes, spaces and tabs; bytes >= 0x80 pass (UTF-8 names).
bool is_text(std::string_view line) {
  for (char c : line) {
    unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

// Fields in @p rest, counting no further than @p limit + 1 (a huge line costs nothing more).
int count_fields(std::string_view rest, int limit) {
  int count = 0;
  while (!take_token(rest).empty())
    if (++count > limit && limit >= 0) break;
  return count;
}

void answer_one(std::string_view line, const AnswerContext &context, Session &session, std::string &out) {
  if (!is_text(line)) throw Error(CANOPY_ERR_INVALID_ARG, "request is not text");
  std::string_view rest = line;
  std::string_view name = take_token(rest);
  if (name.empty()) throw Error(CANOPY_ERR_INVALID_ARG, "empty request (try help)");
  const Verb *verb = nullptr;
  for (const Verb &v : kVerbs)
    if (v.name == name) verb = &v;
  if (!verb) throw Error(CANOPY_ERR_INVALID_ARG, "unknown request '" + printable(name) + "' (try help)");
  Request request{*verb, context, session, rest, out};
  int count = count_fields(rest, verb->max_args);
  if (count < verb->min_args || (verb->max_args >= 0 && count > verb->max_args)) throw usage_error(request);
  if (verb->needs_fabric && !context.snapshot) throw Error(CANOPY_ERR_NOT_FOUND, "no topology loaded yet");
  verb->answer(request);
}

void append_error(std::string_view reason, const Session &session, uint64_t snapshot, std::string &out) {
  if (session.json) {
    json body = {{"ok", false}, {"error", reason}};
    if (snapshot) body["snapshot"] = snapshot;
    return append_json_line(out, body);
  }
  out += "ERR ";
  append_one_line(out, reason);
  out += '\n';
}

}  // namespace

void answer_request(std::string_view line, const AnswerContext &context, Session &session, std::string &out) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  size_t start = out.size();
  try {
    answer_one(line, context, session, out);
    return;
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const Error &e) {
    out.resize(start);
    append_error(e.what(), session, generation(context), out);
  } catch (const std::exception &e) {
    // A bug, not a bad request: say so in the log, and still answer.
    CANOPY_LOG(Error, "internal error answering '%s': %s", printable(line, 80).c_str(), e.what());
    out.resize(start);
    append_error(std::string("internal error: ") + e.what(), session, generation(context), out);
  }
}

void answer_error(std::string_view reason, const Session &session, std::string &out) {
  append_error(reason, session, 0, out);
}

}  // namespace canopy::service
