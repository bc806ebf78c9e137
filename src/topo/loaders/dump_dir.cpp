// A dump directory as canopy-collect writes it (docs/dump-directory.md):
//
//   ibnetdiscover.txt, or else opensm-subnet.lst    the fabric (one is required)
//   ibroute/*.txt, or else opensm-lfts.dump        forwarding tables (optional)
//   manifest.json                                  what the collector saw (optional)
//
// The ibroute files (one per switch, hundreds on a large fabric) are read and
// parsed on several threads, then installed together. The manifest's counts
// are checked last, against what was actually loaded, so that a dump copied
// only in part fails loudly instead of routing over missing tables.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/error.h"
#include "common/text.h"
#include "common/file_io.h"
#include "common/json_file.h"
#include "topo/loaders/forwarding_tables.h"
#include "topo/loaders/loaders.h"

namespace canopy::topo {
namespace {

constexpr const char *kDumpFormat = "canopy-dump/1";

std::string join(const std::string &dir, const std::string &name) {
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Whether there is anything at @p path; reading it then reports any problem.
bool exists(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The fabric files a dump may hold, in the order they are looked for, with their loaders.
struct FabricFile {
  const char *name;
  Topology (*load)(std::string_view text, const std::string &file);
};
const FabricFile kFabricFiles[] = {{"ibnetdiscover.txt", load_ibnetdiscover}, {"opensm-subnet.lst", load_subnet_lst}};

/** The *.txt files in @p dir, sorted so that errors are reported in a stable order. */
std::vector<std::string> ibroute_files(const std::string &dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    bool txt = name.size() > 4 && name.compare(name.size() - 4, 4, ".txt") == 0;
    if (txt && name[0] != '.') files.push_back(join(dir, name));  // dot files: editors' and copiers' leftovers
  }
  if (ec) throw Error(CANOPY_ERR_IO, "cannot list " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

void load_ibroute_files(Topology &topo, const std::vector<std::string> &files, const std::string &dir) {
  if (files.empty() && !topo.switches().empty())
    throw Error(CANOPY_ERR_IO, dir + " holds no *.txt forwarding-table dumps");
  std::vector<std::vector<lft::ParsedTable>> parsed(files.size());
  lft::parallel_for(files.size(), lft::parse_threads(),
                    [&](size_t i) { parsed[i] = lft::parse_tables(topo, read_file(files[i]), files[i]); });
  std::vector<lft::ParsedTable> tables;
  tables.reserve(files.size());
  for (auto &file_tables : parsed) std::move(file_tables.begin(), file_tables.end(), std::back_inserter(tables));
  lft::install_tables(topo, std::move(tables));
}

size_t line_of_key(std::string_view text, const std::string &key) {
  size_t at = text.find("\"" + key + "\"");
  return at == std::string_view::npos ? 1 : line_at(text, at);
}

nlohmann::json parse_manifest(const std::string &text, const std::string &path) {
  nlohmann::json manifest = parse_json_object(text, path, "a JSON object");
  auto format = manifest.find("format");
  if (format != manifest.end() && !(format->is_string() && format->get<std::string>() == kDumpFormat)) {
    std::string stated = format->is_string() ? "'" + printable(format->get<std::string>()) + "'" : "(not a string)";
    throw parse_error(path, line_of_key(text, "format"),
                      "unsupported dump format " + stated + " (this Canopy reads " + kDumpFormat + ")");
  }
  return manifest;
}

/** Compares the counts the manifest states (each is optional) with @p topo. */
void check_manifest(const Topology &topo, const std::string &path) {
  std::string text = read_file(path);
  nlohmann::json manifest = parse_manifest(text, path);
  struct Count {
    const char *key, *what;
    size_t loaded;
  };
  const Count counts[] = {{"hosts", "hosts", topo.hosts().size()},
                          {"switches", "switches", topo.switches().size()},
                          {"forwarding_tables", "forwarding tables",
                           static_cast<size_t>(topo.num_forwarding_tables())}};
  for (const Count &count : counts) {
    auto it = manifest.find(count.key);
    if (it == manifest.end()) continue;
    size_t line = line_of_key(text, count.key);
    if (!it->is_number_unsigned())
      throw parse_error(path, line, std::string(count.key) + " must be a non-negative integer");
    uint64_t stated = it->get<uint64_t>();
    if (stated != count.loaded)
      throw parse_error(path, line,
                        "the collector saw " + std::to_string(stated) + " " + count.what + " but the dump holds " +
                            std::to_string(count.loaded) + " (incomplete or half-copied dump?)");
  }
}

}  // namespace

DumpFiles dump_files(const std::string &dir) {
  DumpFiles files;
  for (const FabricFile &f : kFabricFiles)
    if (files.fabric.empty() && exists(join(dir, f.name))) files.fabric = join(dir, f.name);
  std::string ibroute = join(dir, "ibroute");
  files.ibroute = is_directory(ibroute);
  files.forwarding = files.ibroute ? ibroute_files(ibroute) : std::vector<std::string>{join(dir, "opensm-lfts.dump")};
  files.manifest = join(dir, "manifest.json");
  return files;
}

Topology load_dump_dir(const std::string &dir) {
  if (!is_directory(dir))
    throw Error(CANOPY_ERR_IO, "dump directory " + dir + " does not exist or is not a directory");
  DumpFiles files = dump_files(dir);
  const FabricFile *fabric = nullptr;
  for (const FabricFile &f : kFabricFiles)
    if (files.fabric == join(dir, f.name)) fabric = &f;
  if (!fabric)
    throw Error(CANOPY_ERR_IO, "dump directory " + dir + " has neither ibnetdiscover.txt nor opensm-subnet.lst");
  Topology topo = fabric->load(read_file(files.fabric), files.fabric);  // finalized, so GUID lookups work
  if (files.ibroute)
    load_ibroute_files(topo, files.forwarding, join(dir, "ibroute"));
  else if (exists(files.forwarding[0]))
    apply_forwarding_tables(topo, read_file(files.forwarding[0]), files.forwarding[0]);
  topo.set_source("dump:" + dir);
  topo.finalize();
  if (exists(files.manifest)) check_manifest(topo, files.manifest);
  return topo;
}

}  // namespace canopy::topo
