#include "topo/link_rate.h"

#include <cctype>
#include <cstdio>

#include "common/text.h"

namespace canopy::topo {
namespace {
struct SpeedInfo {
  LinkSpeed speed;
  const char *name;
  double lane_data_gbps;
  double lane_signal_gbps;
};
const SpeedInfo kSpeeds[] = {
    {LinkSpeed::SDR, "SDR", 2.0, 2.5},          {LinkSpeed::DDR, "DDR", 4.0, 5.0},
    {LinkSpeed::QDR, "QDR", 8.0, 10.0},         {LinkSpeed::FDR10, "FDR10", 10.0, 10.3125},
    {LinkSpeed::FDR, "FDR", 13.636, 14.0625},   {LinkSpeed::EDR, "EDR", 25.0, 25.78125},
    {LinkSpeed::HDR, "HDR", 50.0, 53.125},      {LinkSpeed::NDR, "NDR", 100.0, 106.25},
};
}  // namespace

double lane_gbps(LinkSpeed speed) {
  for (const SpeedInfo &s : kSpeeds)
    if (s.speed == speed) return s.lane_data_gbps;
  return 0;
}

const char *speed_name(LinkSpeed speed) {
  for (const SpeedInfo &s : kSpeeds)
    if (s.speed == speed) return s.name;
  return "?";
}

LinkSpeed parse_speed_name(std::string_view name) {
  for (const SpeedInfo &s : kSpeeds) {
    std::string_view candidate = s.name;
    if (candidate.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i)
      same = std::toupper(static_cast<unsigned char>(name[i])) == candidate[i];
    if (same) return s.speed;
  }
  return LinkSpeed::Unknown;
}

LinkSpeed speed_from_signal_gbps(double signal_gbps) {
  // OpenSM prints the nominal lane rate: 2.5, 5, 10, 14, 25, 50, 100 (FDR10 prints as 10).
  const std::pair<double, LinkSpeed> nominal[] = {
      {2.5, LinkSpeed::SDR}, {5, LinkSpeed::DDR},  {10, LinkSpeed::QDR}, {14, LinkSpeed::FDR},
      {25, LinkSpeed::EDR},  {50, LinkSpeed::HDR}, {100, LinkSpeed::NDR}};
  for (const auto &[gbps, speed] : nominal)
    if (signal_gbps > gbps * 0.95 && signal_gbps < gbps * 1.08) return speed;
  return LinkSpeed::Unknown;
}

LinkRate ib_rate(int width, LinkSpeed speed) { return {width, speed, width * lane_gbps(speed)}; }

LinkRate plain_rate(double gbps) { return {0, LinkSpeed::Unknown, gbps}; }

bool parse_ib_rate(std::string_view text, LinkRate &rate) {
  size_t x = text.find_first_of("xX");
  if (x == std::string_view::npos) return false;
  uint64_t width = 0;
  if (!parse_uint(text.substr(0, x), width, 10)) return false;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12) return false;
  LinkSpeed speed = parse_speed_name(trim(text.substr(x + 1)));
  if (speed == LinkSpeed::Unknown) return false;
  rate = ib_rate(static_cast<int>(width), speed);
  return true;
}

std::string rate_string(const LinkRate &rate) {
  char buffer[32];
  if (rate.width > 0 && rate.speed != LinkSpeed::Unknown)
    std::snprintf(buffer, sizeof buffer, "%dx%s", rate.width, speed_name(rate.speed));
  else
    std::snprintf(buffer, sizeof buffer, "%gGb/s", rate.gbps);
  return buffer;
}

}  // namespace canopy::topo
