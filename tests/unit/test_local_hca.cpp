// This host's InfiniBand ports from the kernel's sysfs layout: the rate texts the kernel
// writes, the ports of a directory laid out as /sys/class/infiniband, and the port that stands
// for the host. (Read through ibsim's libumad2sim.so in tests/mpi/bcast_hca_rates.sh.)
#include <gtest/gtest.h>

#include "common/error.h"
#include "temp_dir.h"
#include "topo/local_hca.h"

using namespace canopy;
using namespace canopy::topo;

TEST(LocalHca, RateTextsAsTheKernelWritesThem) {
  LinkRate rate;
  ASSERT_TRUE(parse_sysfs_rate("40 Gb/sec (4X QDR)", rate));
  EXPECT_EQ(rate, ib_rate(4, LinkSpeed::QDR));
  EXPECT_DOUBLE_EQ(rate.gbps, 32);
  ASSERT_TRUE(parse_sysfs_rate("10 Gb/sec (4X)", rate));  // SDR has no name
  EXPECT_EQ(rate, ib_rate(4, LinkSpeed::SDR));
  ASSERT_TRUE(parse_sysfs_rate("2.5 Gb/sec (1X)", rate));
  EXPECT_EQ(rate, ib_rate(1, LinkSpeed::SDR));
  ASSERT_TRUE(parse_sysfs_rate("56 Gb/sec (4X FDR)\n", rate));
  EXPECT_EQ(rate, ib_rate(4, LinkSpeed::FDR));
  ASSERT_TRUE(parse_sysfs_rate("200 Gb/sec (4X HDR)", rate));
  EXPECT_DOUBLE_EQ(rate.gbps, 200);
  ASSERT_TRUE(parse_sysfs_rate("800 Gb/sec (4X XDR)", rate));  // a speed Canopy does not know: its word
  EXPECT_EQ(rate, plain_rate(800));
  for (const char *bad : {"", "Gb/sec (4X QDR)", "40 (4X QDR)", "40 Gb/sec", "40 Gb/sec (QDR)", "40 Gb/sec (0X QDR)",
                          "-40 Gb/sec (4X QDR)", "40 Mb/sec (4X QDR)", "inf Gb/sec (4X)", "nan Gb/sec (4X QDR)",
                          "40 Gb/sec (99999999999X QDR)"})
    EXPECT_FALSE(parse_sysfs_rate(bad, rate)) << bad;
}

TEST(LocalHca, PortsAndTheOneThatStandsForTheHost) {
  test::TempDir dir;
  auto port = [&](const std::string &name, const std::string &state, const std::string &rate) {
    dir.write(name + "/state", state + "\n");
    dir.write(name + "/rate", rate + "\n");
  };
  port("mlx5_1/ports/1", "4: ACTIVE", "100 Gb/sec (4X EDR)");
  port("mlx5_0/ports/1", "1: DOWN", "10 Gb/sec (4X)");
  port("mlx5_0/ports/2", "4: ACTIVE", "56 Gb/sec (4X FDR)");
  std::vector<HcaPort> ports = local_hca_ports(dir.path());
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].device, "mlx5_0");  // devices and ports in name order
  EXPECT_EQ(ports[0].port, 1);
  EXPECT_FALSE(ports[0].active);
  EXPECT_EQ(ports[1].port, 2);
  EXPECT_TRUE(ports[1].active);
  EXPECT_EQ(ports[1].rate_text, "56 Gb/sec (4X FDR)");
  EXPECT_EQ(ports[2].device, "mlx5_1");
  EXPECT_DOUBLE_EQ(ports[2].rate.gbps, 100);
  // The first active port; or the one named, by device or device:port.
  EXPECT_EQ(host_hca_port(ports, "").port, 2);
  EXPECT_EQ(host_hca_port(ports, "mlx5_1").device, "mlx5_1");
  EXPECT_EQ(host_hca_port(ports, "mlx5_0:2").port, 2);
  auto error_of = [&](const std::string &wanted) {
    try {
      host_hca_port(ports, wanted);
    } catch (const Error &e) {
      EXPECT_EQ(e.status(), CANOPY_ERR_NOT_FOUND);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("mlx5_0:1"), "no active InfiniBand port mlx5_0:1 with a rate (mlx5_0:1 not active 10 Gb/sec (4X), "
                                  "mlx5_0:2 active 56 Gb/sec (4X FDR), mlx5_1:1 active 100 Gb/sec (4X EDR))");
  EXPECT_NE(error_of("mlx4_0").find("no active InfiniBand port mlx4_0"), std::string::npos);
  // No directory (a host without InfiniBand): no ports, and an error that says so.
  EXPECT_TRUE(local_hca_ports(dir / "missing").empty());
  ports.clear();
  EXPECT_EQ(error_of(""), "no active InfiniBand port with a rate (this host has none)");
}
