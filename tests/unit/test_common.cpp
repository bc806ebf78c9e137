// Status strings, parameter registry, text helpers, atomic file writing and staged outputs.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <clocale>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "canopy/config.h"
#include "common/error.h"
#include "common/file_io.h"
#include "common/params.h"
#include "common/text.h"
#include "temp_dir.h"
#include "topo/local_hca.h"

using namespace canopy;

TEST(Status, EveryCodeHasAName) {
  for (int s = CANOPY_SUCCESS; s <= CANOPY_ERR_INTERNAL; ++s)
    EXPECT_STRNE(canopy_status_string(static_cast<canopy_status_t>(s)), "unknown status");
}

TEST(Status, GuardTurnsErrorsIntoStatusAndMessage) {
  canopy_status_t s = guard([] { throw parse_error("f.txt", 12, "bad port"); });
  EXPECT_EQ(s, CANOPY_ERR_PARSE);
  EXPECT_STREQ(canopy_last_error(), "f.txt:12: bad port");
  EXPECT_EQ(guard([] {}), CANOPY_SUCCESS);
}

TEST(Params, DefaultEnvironmentAndConfigFile) {
  unsetenv("CANOPY_TOPO_HOP_LATENCY_US");
  unsetenv("CANOPY_CONFIG_FILE");
  EXPECT_EQ(param_lookup("topo_hop_latency_us").source, "default");
  std::string path = ::testing::TempDir() + "canopy_config.json";
  write_file_atomic(path, R"({"topo_hop_latency_us": 0.25})");
  setenv("CANOPY_CONFIG_FILE", path.c_str(), 1);
  EXPECT_DOUBLE_EQ(param_double("topo_hop_latency_us"), 0.25);
  EXPECT_EQ(param_lookup("topo_hop_latency_us").source, "config file " + path);
  setenv("CANOPY_TOPO_HOP_LATENCY_US", "0.5", 1);
  EXPECT_DOUBLE_EQ(param_double("topo_hop_latency_us"), 0.5);
  EXPECT_EQ(param_lookup("topo_hop_latency_us").source, "environment CANOPY_TOPO_HOP_LATENCY_US");
  setenv("CANOPY_TOPO_HOP_LATENCY_US", "fast", 1);
  EXPECT_EQ(guard([] { param_double("topo_hop_latency_us"); }), CANOPY_ERR_INVALID_ARG);
  unsetenv("CANOPY_TOPO_HOP_LATENCY_US");
  unsetenv("CANOPY_CONFIG_FILE");
}

TEST(Params, ConfigFileWithAnUnknownNameIsAnError) {
  std::string path = ::testing::TempDir() + "canopy_config_misspelt.json";
  write_file_atomic(path, R"({"topo_hop_latency_us": 0.25, "topo_hop_latency": 0.3})");
  setenv("CANOPY_CONFIG_FILE", path.c_str(), 1);
  EXPECT_EQ(guard([] { param_double("topo_hop_latency_us"); }), CANOPY_ERR_PARSE);
  EXPECT_NE(std::string(canopy_last_error()).find("unknown parameter 'topo_hop_latency'"), std::string::npos)
      << canopy_last_error();
  unsetenv("CANOPY_CONFIG_FILE");
}

TEST(Params, ConfigFileSyntaxErrorsNameTheLine) {
  std::string path = ::testing::TempDir() + "canopy_config_broken.json";
  setenv("CANOPY_CONFIG_FILE", path.c_str(), 1);
  for (auto [text, where] : {std::pair{"{\n \"service_poll_ms\": 100,\n \"service_threads\": \n}\n", ":4: not valid JSON"},
                             std::pair{"", ":1: not valid JSON"},
                             std::pair{"[1]", ":1: expected a JSON object of parameters"}}) {
    write_file_atomic(path, text);
    EXPECT_EQ(guard([] { param_int("service_threads"); }), CANOPY_ERR_PARSE);
    EXPECT_NE(std::string(canopy_last_error()).find(path + where), std::string::npos) << canopy_last_error();
  }
  unsetenv("CANOPY_CONFIG_FILE");
}

// Every number has a range, its default inside; a value outside, or not finite, is an
// error naming where it came from (a negative delay size and a NaN latency gave
// meaningless matrices before).
TEST(Params, NumbersOutsideTheirRangeAreErrors) {
  for (const ParamDef &def : param_registry()) {
    if (def.type != ParamType::Int && def.type != ParamType::Double) continue;
    EXPECT_NE(param_range(def), "") << def.name << " has no range";
    double value = std::strtod(def.default_value, nullptr);
    EXPECT_TRUE(value >= def.min && value <= def.max) << def.name << "'s default is outside " << param_range(def);
  }
  unsetenv("CANOPY_CONFIG_FILE");
  for (auto [env, text, says] :
       {std::tuple{"CANOPY_TOPO_DELAY_BYTES", "-5", "environment CANOPY_TOPO_DELAY_BYTES: topo_delay_bytes must be "
                                                   "0..1099511627776, not -5"},
        std::tuple{"CANOPY_TOPO_HOP_LATENCY_US", "nan", "'nan' is not a valid double for topo_hop_latency_us"},
        std::tuple{"CANOPY_TOPO_HOP_LATENCY_US", "-1", "topo_hop_latency_us must be 0..1000000000, not -1"},
        std::tuple{"CANOPY_SERVICE_CLIENT_TIMEOUT_S", "0", "service_client_timeout_s must be 0.001..1000000, not 0"}}) {
    setenv(env, text, 1);
    std::string name = std::string(env).substr(7);
    for (char &c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(guard([&] { param_lookup(name); }), CANOPY_ERR_INVALID_ARG) << env << "=" << text;
    EXPECT_NE(std::string(canopy_last_error()).find(says), std::string::npos) << canopy_last_error();
    unsetenv(env);
  }
}

TEST(Params, CApiAndUnknownNames) {
  char buf[32];
  EXPECT_EQ(canopy_config_get("topo_delay_bytes", buf, sizeof buf), CANOPY_SUCCESS);
  EXPECT_STREQ(buf, "65536");
  EXPECT_EQ(canopy_config_get("no_such_parameter", buf, sizeof buf), CANOPY_ERR_NOT_FOUND);
  EXPECT_EQ(canopy_config_get(nullptr, buf, sizeof buf), CANOPY_ERR_INVALID_ARG);
  for (const ParamDef &def : param_registry()) EXPECT_GT(std::string(def.doc).size(), 10u) << def.name;
}

TEST(Text, NumbersFieldsAndGuids) {
  uint64_t v = 0;
  EXPECT_TRUE(parse_uint("0x1f", v) && v == 31);
  EXPECT_TRUE(parse_uint("42", v) && v == 42);
  EXPECT_FALSE(parse_uint("4x2", v));
  EXPECT_FALSE(parse_uint("", v));
  EXPECT_FALSE(parse_uint("99999999999999999999999", v));
  EXPECT_EQ(guid_string(0x2c90200402bd0ULL), "0x0002c90200402bd0");
  auto fields = split_fields("  a \tbb  c ");
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[1], "bb");
  LineCursor cursor("one\r\ntwo\n\nfour");
  std::string_view line;
  std::vector<std::string> lines;
  while (cursor.next(line)) lines.emplace_back(line);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "", "four"}));
  EXPECT_EQ(cursor.number(), 4u);
  // Lines with content: comments dropped, blanks trimmed, numbers counted over skipped lines.
  LineCursor content("# head\n  a b  # note\r\n\n   \t\n#\nc\n");
  std::vector<std::pair<std::string, size_t>> kept;
  while (content.next_content(line)) kept.emplace_back(line, content.number());
  EXPECT_EQ(kept, (std::vector<std::pair<std::string, size_t>>{{"a b", 2}, {"c", 6}}));
}

TEST(FileIo, AtomicWriteReplacesAndReadReportsMissingFiles) {
  std::string path = ::testing::TempDir() + "canopy_atomic.txt";
  write_file_atomic(path, "first");
  write_file_atomic(path, "second");
  EXPECT_EQ(read_file(path), "second");
  EXPECT_EQ(guard([] { read_file("/nonexistent/canopy"); }), CANOPY_ERR_IO);
  EXPECT_NE(std::string(canopy_last_error()).find("/nonexistent/canopy"), std::string::npos);
  EXPECT_EQ(guard([] { write_file_atomic("/nonexistent/dir/out.txt", "x"); }), CANOPY_ERR_IO);
}

TEST(FileIo, AtomicFileAppearsOnlyOnCommit) {
  std::string path = ::testing::TempDir() + "canopy_atomic_pieces.txt";
  write_file_atomic(path, "old");
  {
    AtomicFile file(path);
    file.write("new ");
    file.write("text");
    EXPECT_EQ(read_file(path), "old");  // not yet
    file.commit();
  }
  EXPECT_EQ(read_file(path), "new text");
  {
    AtomicFile abandoned(path);  // an error on the way: destroyed before commit
    abandoned.write("half");
  }
  EXPECT_EQ(read_file(path), "new text");
  std::ifstream temporary(path + ".tmp." + std::to_string(::getpid()));
  EXPECT_FALSE(temporary.good()) << "the temporary is removed";
}

TEST(FileIo, StagedFilesAppearTogetherOrNotAtAll) {
  test::TempDir dir;
  dir.write("kept.txt", "old");
  auto folder_listing = [&] {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(dir.path())) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  };
  try {
    StagedFiles staged;
    staged.add(dir / "kept.txt", [](const std::string &temporary) { write_file_atomic(temporary, "new"); });
    staged.add(dir / "picture.svg", [&](const std::string &temporary) {
      EXPECT_EQ(temporary.substr(temporary.size() - 12), ".picture.svg") << "writers go by the name's ending";
      throw Error(CANOPY_ERR_IO, "cannot draw " + temporary + ": no gnuplot");
    });
    ADD_FAILURE() << "the error went through";
  } catch (const Error &e) {
    EXPECT_EQ(std::string(e.what()), "cannot draw " + (dir / "picture.svg") + ": no gnuplot");  // the user's path
  }
  EXPECT_EQ(read_file(dir / "kept.txt"), "old");
  EXPECT_EQ(folder_listing(), std::vector<std::string>{"kept.txt"}) << "no temporaries left";
  {
    StagedFiles staged;
    staged.add(dir / "kept.txt", [](const std::string &temporary) { write_file_atomic(temporary, "new"); });
    staged.add(dir / "other.txt", [](const std::string &temporary) { write_file_atomic(temporary, "other"); });
    EXPECT_EQ(read_file(dir / "kept.txt"), "old");  // not before commit
    staged.commit();
  }
  EXPECT_EQ(read_file(dir / "kept.txt"), "new");
  EXPECT_EQ(folder_listing(), (std::vector<std::string>{"kept.txt", "other.txt"}));

  auto check = [&](const std::string &path) { check_output_paths({{"--out", path}}); };
  EXPECT_NO_THROW(check(dir / "new.txt"));
  EXPECT_NO_THROW(check(""));  // an output not asked for
  EXPECT_EQ(guard([&] { check(dir / "missing/new.txt"); }), CANOPY_ERR_IO);
  EXPECT_NE(std::string(canopy_last_error()).find("(no folder " + (dir / "missing") + ")"), std::string::npos);
  EXPECT_EQ(guard([&] { check(dir.path()); }), CANOPY_ERR_IO);
  EXPECT_NE(std::string(canopy_last_error()).find("it is a folder"), std::string::npos);
  // Two options naming one file, however spelled, would overwrite each other's output.
  EXPECT_NO_THROW(check_output_paths({{"--a", dir / "a.txt"}, {"--b", dir / "b.txt"}, {"--c", ""}, {"--d", ""}}));
  EXPECT_EQ(guard([&] { check_output_paths({{"--a", dir / "a.txt"}, {"--b", dir.path() + "/./a.txt"}}); }),
            CANOPY_ERR_INVALID_ARG);
  EXPECT_NE(std::string(canopy_last_error()).find("--a and --b name the same file"), std::string::npos);
  EXPECT_EQ(folder_listing(), (std::vector<std::string>{"kept.txt", "other.txt"})) << "checks create nothing";
}

TEST(FileIo, ASignalRemovesTheTemporaries) {
  test::TempDir dir;
  std::string staged = dir / "kept.txt", direct = dir / "direct.txt";
  pid_t child = ::fork();
  if (child == 0) {  // interrupted while writing a staged output and an atomic one
    remove_temporaries_on_signals();
    StagedFiles files;
    files.add(staged, [](const std::string &temporary) { write_file_atomic(temporary, "complete"); });
    AtomicFile file(direct);
    file.write("half");
    ::raise(SIGTERM);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "ended as SIGTERM would end it";
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "temporaries left behind";
}

TEST(Params, EveryParameterIsDocumented) {
  std::string doc = read_file(std::string(CANOPY_SOURCE_DIR) + "/docs/configuration.md");
  for (const ParamDef &def : param_registry())
    EXPECT_NE(doc.find(std::string("`") + def.name + "`"), std::string::npos) << def.name << " missing from docs/configuration.md";
}

// Numbers read the same whatever locale the program has set: an MPI application may set one with
// a decimal comma (de_DE), and libcanopy parses parameters, sources, service answers and HCA rates
// inside it, where strtod reads "2.5" as 2. The locale is built with localedef (package locales).
TEST(Text, NumbersReadTheSameInADecimalCommaLocale) {
  test::TempDir dir;
  std::string build = "localedef -i de_DE -f UTF-8 " + (dir / "de_DE.UTF-8") + " > /dev/null 2>&1";
  ASSERT_EQ(std::system(build.c_str()), 0) << "localedef could not build de_DE.UTF-8";
  struct InLocale {
    explicit InLocale(const std::string &path) {
      setenv("LOCPATH", path.c_str(), 1);
      set = std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr;
    }
    ~InLocale() {
      std::setlocale(LC_ALL, "C");
      unsetenv("LOCPATH");
    }
    bool set = false;
  } locale(dir.path());
  ASSERT_TRUE(locale.set);
  ASSERT_EQ(std::strtod("2.5", nullptr), 2.0);  // the C library there
  double value = 0;
  EXPECT_TRUE(parse_double("2.5", value));
  EXPECT_EQ(value, 2.5);
  EXPECT_FALSE(parse_double("2,5", value));
  setenv("CANOPY_TOPO_HOP_LATENCY_US", "0.25", 1);
  EXPECT_EQ(param_double("topo_hop_latency_us"), 0.25);
  unsetenv("CANOPY_TOPO_HOP_LATENCY_US");
  topo::LinkRate rate;
  EXPECT_TRUE(topo::parse_sysfs_rate("2.5 Gb/sec (1X)", rate));
  EXPECT_EQ(rate, topo::ib_rate(1, topo::LinkSpeed::SDR));
}

TEST(Text, ParseDouble) {
  double value = 0;
  for (const auto &[text, expected] : std::vector<std::pair<const char *, double>>{
           {"0", 0}, {"2.5", 2.5}, {"+1e3", 1000}, {"-0.5", -0.5}, {"1E-3", 1e-3}})
    EXPECT_TRUE(parse_double(text, value) && value == expected) << text;
  for (const char *bad : {"", "+", "+-1", " 1", "1 ", "1x", "0x1p3", "1e999", "--1", "."})
    EXPECT_FALSE(parse_double(bad, value)) << bad;
}
