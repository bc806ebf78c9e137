// Slurm's topology.conf for the topology/tree plugin:
//
//   SwitchName=s0 Nodes=dev[0-5] LinkSpeed=100
//   SwitchName=s1 Nodes=dev[6-11]
//   SwitchName=s2 Switches=s[0-1]
//
// Parsing follows Slurm's config parser: '#' starts a comment, a line ending in
// '\' continues on the next one (joined without a space, so a hostlist may be
// split anywhere), keys are case-insensitive, "Key = Value" and "Key="quoted
// value"" are accepted, pairs come in any order. Checks follow the tree plugin:
// a switch is defined once, has Nodes= or Switches= but not both, and every
// child switch is defined somewhere in the file. Canopy is stricter where a
// sloppy file would give a wrong fabric: a node under two switches, a switch
// listed twice under one parent and switch cycles are errors. A switch may
// appear under several parents (each gives one uplink), which describes a
// fat-tree's redundant uplinks.
//
// The Topology: one Switch node per SwitchName (file order, GUID
// kSwitchGuidBase + index), then one Host per node name (order of first
// appearance, GUID kHostGuidBase + index, description = the name). A switch's
// ports are numbered downward links first, in the order of its Nodes= or
// Switches= list, then its uplinks in the order its parents appear in the file.
// A switch needs at most 254 ports (the model's per-node limit). Slurm's
// LinkSpeed is a unitless relative weight; Canopy reads it as the Gb/s of the
// links on that line (the switch's downward links); the default is the
// topo_default_gbps parameter. No LIDs or forwarding tables: routes are
// shortest paths over the tree.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "common/text.h"
#include "topo/loaders/hostlist.h"
#include "topo/loaders/loaders.h"
#include "topo/loaders/synthetic.h"

namespace canopy::topo {
namespace {

constexpr size_t kMaxPorts = 254;

struct Statement {
  size_t line;       // first physical line
  std::string text;  // comments stripped, continuation lines joined
};

struct SwitchDef {
  size_t line = 0;
  std::string name;
  std::vector<std::string> nodes;      // Nodes=, expanded
  std::vector<std::string> children;   // Switches=, expanded
  std::vector<int> child_index;        // children resolved to SwitchDef indexes
  std::vector<int> parents;            // SwitchDef indexes, in file order
  LinkRate rate;
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::vector<Statement> read_statements(std::string_view text) {
  std::vector<Statement> statements;
  LineCursor cursor(text);
  std::string_view line;
  Statement pending{0, ""};
  bool continuing = false;
  while (cursor.next(line)) {
    line = line.substr(0, line.find('#'));
    while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
    if (!continuing) pending = {cursor.number(), ""};
    continuing = !line.empty() && line.back() == '\\';
    if (continuing) line.remove_suffix(1);
    pending.text += line;
    if (!continuing && !trim(pending.text).empty()) statements.push_back(std::move(pending));
  }
  if (continuing && !trim(pending.text).empty()) statements.push_back(std::move(pending));
  return statements;
}

struct KeyValue {
  std::string key, value;
};

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// "Key=Value Key = Value Key="quoted value"", as Slurm's parser reads them.
std::vector<KeyValue> key_values(const Statement &s, const std::string &file) {
  std::string_view t = s.text;
  std::vector<KeyValue> pairs;
  size_t i = 0;
  auto skip_blanks = [&] { while (i < t.size() && is_blank(t[i])) ++i; };
  for (skip_blanks(); i < t.size(); skip_blanks()) {
    size_t key_start = i;
    while (i < t.size() && is_key_char(t[i])) ++i;
    std::string key(t.substr(key_start, i - key_start));
    skip_blanks();
    if (key.empty() || i >= t.size() || t[i] != '=') {
      std::string found = printable(trim(t.substr(key_start)));
      throw parse_error(file, s.line, "expected Key=Value, found '" + found + "'");
    }
    ++i;
    skip_blanks();
    size_t value_start = i;
    if (i < t.size() && t[i] == '"') {
      size_t close = t.find('"', i + 1);
      if (close == std::string_view::npos) throw parse_error(file, s.line, "unterminated quote after " + key + "=");
      value_start = i + 1;
      i = close + 1;
      pairs.push_back({key, std::string(t.substr(value_start, close - value_start))});
      continue;
    }
    while (i < t.size() && !is_blank(t[i])) ++i;
    pairs.push_back({key, std::string(t.substr(value_start, i - value_start))});
  }
  return pairs;
}

std::vector<std::string> expand_value(const Statement &s, const std::string &file, const KeyValue &kv) {
  if (kv.value.empty()) throw parse_error(file, s.line, kv.key + "= has no value");
  if (kv.value.find('=') != std::string::npos)
    throw parse_error(file, s.line, kv.key + "=" + printable(kv.value) + ": a value cannot contain '=' (is a value missing?)");
  // Sized first: a line cannot use more than 254 names, so none of a huge list is built.
  uint64_t size = 0;
  try {
    size = detail::hostlist_size(kv.value);
  } catch (const Error &e) {
    throw parse_error(file, s.line, kv.key + "=: " + e.what());
  }
  if (size == 0) throw parse_error(file, s.line, kv.key + "= lists no names");
  if (size > kMaxPorts)
    throw parse_error(file, s.line, kv.key + "= lists " + std::to_string(size) +
                                        " names, but a switch has at most 254 ports");
  return expand_hostlist(kv.value);  // the same parse just succeeded
}

// Stores one key of a SwitchName line; false if the key is unknown.
bool apply_key(SwitchDef &def, const Statement &s, const std::string &file, const KeyValue &kv) {
  std::string key = lower(kv.key);
  if (key == "switchname") {
    std::string problem = synthetic::name_problem(kv.value);
    if (!problem.empty()) throw parse_error(file, s.line, "SwitchName '" + printable(kv.value) + "': " + problem);
    def.name = kv.value;
  } else if (key == "nodes") {
    def.nodes = expand_value(s, file, kv);
  } else if (key == "switches") {
    def.children = expand_value(s, file, kv);
  } else if (key == "linkspeed") {
    double gbps = 0;
    if (!synthetic::parse_gbps(kv.value, gbps))
      throw parse_error(file, s.line, "LinkSpeed=" + printable(kv.value) + " is not a positive number");
    def.rate = plain_rate(gbps);
  } else {
    return false;
  }
  return true;
}

SwitchDef parse_switch(const Statement &s, const std::string &file, LinkRate default_rate) {
  SwitchDef def;
  def.line = s.line;
  def.rate = default_rate;
  std::vector<std::string> seen;
  for (const KeyValue &kv : key_values(s, file)) {
    std::string key = lower(kv.key);
    for (const std::string &k : seen)
      if (k == key) throw parse_error(file, s.line, kv.key + "= is given twice");
    seen.push_back(key);
    if (!apply_key(def, s, file, kv))
      throw parse_error(file, s.line, "unknown key '" + kv.key +
                                          "' (topology/tree knows SwitchName, Switches, Nodes and LinkSpeed)");
  }
  if (def.name.empty()) throw parse_error(file, s.line, "line has no SwitchName=");
  if (!def.nodes.empty() && !def.children.empty())
    throw parse_error(file, s.line, "switch '" + def.name + "' has both Nodes= and Switches= (Slurm allows one)");
  return def;
}

// Resolves Switches= names and records each switch's parents.
void link_switches(std::vector<SwitchDef> &defs, const std::string &file) {
  std::unordered_map<std::string, int> index;
  for (int i = 0; i < static_cast<int>(defs.size()); ++i) {
    auto [it, fresh] = index.emplace(defs[i].name, i);
    if (!fresh)
      throw parse_error(file, defs[i].line, "switch '" + defs[i].name + "' is already defined at line " +
                                                std::to_string(defs[it->second].line));
  }
  for (int i = 0; i < static_cast<int>(defs.size()); ++i) {
    SwitchDef &def = defs[i];
    for (const std::string &child : def.children) {
      auto it = index.find(child);
      if (it == index.end())
        throw parse_error(file, def.line, "child switch '" + child + "' of '" + def.name + "' is never defined");
      std::vector<int> &parents = defs[it->second].parents;
      if (!parents.empty() && parents.back() == i)
        throw parse_error(file, def.line, "switch '" + def.name + "' lists child switch '" + child + "' twice");
      parents.push_back(i);
      def.child_index.push_back(it->second);
    }
  }
}

// Depth-first search for a switch that is its own ancestor; iterative, so a
// deep chain cannot overflow the stack.
void check_cycles(const std::vector<SwitchDef> &defs, const std::string &file) {
  enum : char { kNew, kOpen, kDone };
  std::vector<char> state(defs.size(), kNew);
  std::vector<std::pair<int, size_t>> stack;  // switch, next child to visit
  for (int root = 0; root < static_cast<int>(defs.size()); ++root) {
    if (state[root] != kNew) continue;
    stack.push_back({root, 0});
    state[root] = kOpen;
    while (!stack.empty()) {
      auto &[sw, next] = stack.back();
      if (next == defs[sw].child_index.size()) {
        state[sw] = kDone;
        stack.pop_back();
        continue;
      }
      int child = defs[sw].child_index[next++];
      if (state[child] == kNew) {
        state[child] = kOpen;
        stack.push_back({child, 0});
      } else if (state[child] == kOpen) {
        std::string path;
        size_t from = 0;
        while (stack[from].first != child) ++from;
        for (size_t k = from; k < stack.size(); ++k) path += defs[stack[k].first].name + " -> ";
        throw parse_error(file, defs[stack.back().first].line, "switch cycle: " + path + defs[child].name);
      }
    }
  }
}

// Host names in order of first appearance; a node under two switches is an error.
std::vector<std::string> collect_hosts(const std::vector<SwitchDef> &defs, const std::string &file) {
  std::vector<std::string> hosts;
  std::unordered_map<std::string, int> owner;  // host -> SwitchDef index
  for (int i = 0; i < static_cast<int>(defs.size()); ++i) {
    for (const std::string &host : defs[i].nodes) {
      auto [it, fresh] = owner.emplace(host, i);
      if (!fresh)
        throw parse_error(file, defs[i].line,
                          "node '" + host + "' is already attached to switch '" + defs[it->second].name +
                              "' (line " + std::to_string(defs[it->second].line) + "); a node hangs under one switch");
      hosts.push_back(host);
    }
  }
  return hosts;
}

void check_ports(const std::vector<SwitchDef> &defs, const std::string &file) {
  for (const SwitchDef &def : defs) {
    size_t ports = def.nodes.size() + def.children.size() + def.parents.size();
    if (ports > kMaxPorts)
      throw parse_error(file, def.line,
                        "switch '" + def.name + "' needs " + std::to_string(ports) +
                            " ports (nodes, child switches and uplinks), but Canopy's model allows at most 254");
  }
}

Topology build(const std::vector<SwitchDef> &defs, const std::vector<std::string> &hosts) {
  Topology topo;
  for (size_t i = 0; i < defs.size(); ++i) {
    const SwitchDef &d = defs[i];
    int ports = static_cast<int>(d.nodes.size() + d.children.size() + d.parents.size());
    topo.add_node(NodeType::Switch, synthetic::kSwitchGuidBase + i, d.name, ports);
  }
  std::unordered_map<std::string, int> host_node;
  for (size_t h = 0; h < hosts.size(); ++h)
    host_node[hosts[h]] = topo.add_node(NodeType::Host, synthetic::kHostGuidBase + h, hosts[h], 1);

  std::vector<int> uplinks_used(defs.size(), 0);
  for (int s = 0; s < static_cast<int>(defs.size()); ++s) {
    const SwitchDef &d = defs[s];
    int port = 0;
    for (const std::string &host : d.nodes) topo.connect(s, ++port, host_node[host], 1, d.rate);
    for (int child : d.child_index) {
      const SwitchDef &c = defs[child];
      int child_port = static_cast<int>(c.nodes.size() + c.children.size()) + ++uplinks_used[child];
      topo.connect(s, ++port, child, child_port, d.rate);
    }
  }
  return topo;
}

}  // namespace

Topology load_slurm_topology(std::string_view text, const std::string &file) {
  LinkRate default_rate = synthetic::default_rate();
  std::vector<SwitchDef> defs;
  for (const Statement &s : read_statements(text)) defs.push_back(parse_switch(s, file, default_rate));
  if (defs.empty()) throw parse_error(file, 1, "no SwitchName= lines: the topology is empty");
  link_switches(defs, file);
  check_cycles(defs, file);
  std::vector<std::string> hosts = collect_hosts(defs, file);
  check_ports(defs, file);
  Topology topo = build(defs, hosts);
  topo.set_source("slurm:" + file);
  topo.finalize();
  return topo;
}

}  // namespace canopy::topo
