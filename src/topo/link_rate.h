// InfiniBand link width x lane speed -> data rate. Non-IB sources (Slurm,
// torus files) give a data rate directly, with width 0 and speed Unknown.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace canopy::topo {

enum class LinkSpeed : uint8_t { Unknown, SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR };

struct LinkRate {
  int width = 0;                          // lanes: 1, 2, 4, 8 or 12 (0: not an IB link)
  LinkSpeed speed = LinkSpeed::Unknown;
  double gbps = 0;                        // data rate after line encoding, Gb/s

  bool operator==(const LinkRate &o) const { return width == o.width && speed == o.speed && gbps == o.gbps; }
};

/** Data rate of one lane in Gb/s (SDR 2, DDR 4, QDR 8, FDR10 10, FDR 13.64, EDR 25, HDR 50, NDR 100). */
double lane_gbps(LinkSpeed speed);
const char *speed_name(LinkSpeed speed);
/** "SDR".."NDR" (case-insensitive); Unknown if not a speed name. */
LinkSpeed parse_speed_name(std::string_view name);
/** Lane signalling rate as OpenSM prints it (SPD=2.5, 5, 10, 14, 25, 50, 100). */
LinkSpeed speed_from_signal_gbps(double signal_gbps);

LinkRate ib_rate(int width, LinkSpeed speed);
LinkRate plain_rate(double gbps);
/** Parses "4xQDR" / "4x QDR" / "12xEDR"; false if it is not a valid IB rate. */
bool parse_ib_rate(std::string_view text, LinkRate &rate);
/** "4xQDR" for IB links, "100Gb/s" otherwise. */
std::string rate_string(const LinkRate &rate);

}  // namespace canopy::topo
