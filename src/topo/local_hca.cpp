#include "topo/local_hca.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "common/error.h"
#include "common/text.h"

namespace canopy::topo {
namespace {

// The first line of a small sysfs file; "" if it cannot be read.
std::string read_attribute(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return "";
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
  return text.substr(0, text.find('\n'));
}

// The names in @p dir but "." and "..", sorted.
std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> names;
  DIR *d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent *e = ::readdir(d))
    if (std::string name = e->d_name; name != "." && name != "..") names.push_back(name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

bool parse_sysfs_rate(std::string_view text, LinkRate &rate) {
  std::string s(text);
  double signal = 0;
  size_t unit = s.find(" Gb/sec ");
  size_t open = s.find('('), x = s.find('X', open), close = s.find(')', open);
  if (unit == std::string::npos || !parse_double(std::string_view(s).substr(0, unit), signal) || !(signal > 0) ||
      !std::isfinite(signal) || open == std::string::npos || x == std::string::npos || close == std::string::npos ||
      x > close)
    return false;
  long width = std::strtol(s.c_str() + open + 1, nullptr, 10);
  if (width <= 0 || width > 32) return false;  // IB links have 1, 2, 4, 8 or 12 lanes
  std::string speed_text = s.substr(x + 1, close - x - 1);
  speed_text.erase(0, speed_text.find_first_not_of(' '));
  // The kernel names every speed but SDR; a name it has and Canopy has not is taken at its word.
  LinkSpeed speed = speed_text.empty() ? speed_from_signal_gbps(signal / static_cast<double>(width))
                                       : parse_speed_name(speed_text);
  rate = speed == LinkSpeed::Unknown ? plain_rate(signal) : ib_rate(static_cast<int>(width), speed);
  return true;
}

std::vector<HcaPort> local_hca_ports(const std::string &class_dir) {
  std::vector<HcaPort> ports;
  for (const std::string &device : entries(class_dir))
    for (const std::string &number : entries(class_dir + "/" + device + "/ports")) {
      std::string dir = class_dir + "/" + device + "/ports/" + number + "/";
      HcaPort p{device, std::atoi(number.c_str()), read_attribute(dir + "state").find("ACTIVE") != std::string::npos,
                read_attribute(dir + "rate"), {}};
      parse_sysfs_rate(p.rate_text, p.rate);
      ports.push_back(p);
    }
  return ports;
}

HcaPort host_hca_port(const std::vector<HcaPort> &ports, const std::string &wanted) {
  std::string seen;
  for (const HcaPort &p : ports) {
    seen += (seen.empty() ? "" : ", ") + p.name() + " " + (p.active ? "active" : "not active") +
            (p.rate_text.empty() ? "" : " " + p.rate_text);
    bool named = wanted.empty() || wanted == p.device || wanted == p.name();
    if (named && p.active && p.rate.gbps > 0) return p;
  }
  throw Error(CANOPY_ERR_NOT_FOUND, "no active InfiniBand port" + (wanted.empty() ? "" : " " + wanted) +
                                        " with a rate (" + (seen.empty() ? "this host has none" : seen) + ")");
}

}  // namespace canopy::topo
