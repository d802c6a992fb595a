#!/usr/bin/env python3
"""Writes the synthetic hwloc XML topologies of the placement tests.

  lumi-g.xml   a LUMI-G-like node: one 64-core package in 4 NUMA domains,
               8 GPU dies (MI250X GCDs) and 4 Slingshot NICs (cxi0..3); each
               NUMA domain's host bridge holds a PCIe switch with 2 GCDs and
               1 NIC. As on LUMI-G, the GPUs' bus order does not follow the
               NUMA order: NUMA 0 holds GCDs 4,5 and cxi2, NUMA 1 GCDs 2,3
               and cxi1, NUMA 2 GCDs 6,7 and cxi3, NUMA 3 GCDs 0,1 and cxi0.
  dual-nvidia.xml  a dual-socket node with one NVIDIA GPU and one
               InfiniBand NIC (mlx5_0, mlx5_1) per socket, 16 cores each.

Run it from this directory; the outputs are committed next to it.
"""

HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n<topology version="2.0">\n')
TAIL = '</topology>\n'


class Gp:
    n = 0

    @classmethod
    def next(cls):
        cls.n += 1
        return cls.n


def mask(bits):
    v = 0
    for b in bits:
        v |= 1 << b
    words = []
    while True:
        words.append("%08x" % (v & 0xffffffff))
        v >>= 32
        if not v:
            break
    return "0x" + ",0x".join(reversed(words))


def sets(cpus, nodes):
    c, n = mask(cpus), mask(nodes)
    return ('cpuset="%s" complete_cpuset="%s" nodeset="%s" '
            'complete_nodeset="%s"' % (c, c, n, n))


def cores(first, count, node, ind):
    out = []
    for c in range(first, first + count):
        out.append('%s<object type="Core" os_index="%d" %s gp_index="%d">\n'
                   '%s  <object type="PU" os_index="%d" %s gp_index="%d"/>\n'
                   '%s</object>\n' % (ind, c, sets([c], [node]), Gp.next(),
                                      ind, c, sets([c], [node]), Gp.next(),
                                      ind))
    return "".join(out)


def pcidev(busid, cls, vendor_dev, osdevs, ind):
    s = ('%s<object type="PCIDev" gp_index="%d" pci_busid="%s" '
         'pci_type="%s %s %s 00" pci_link_speed="16.000000">\n' %
         (ind, Gp.next(), busid, cls, vendor_dev, vendor_dev))
    for name, ostype, subtype in osdevs:
        sub = ' subtype="%s"' % subtype if subtype else ''
        s += ('%s  <object type="OSDev" gp_index="%d" name="%s" '
              'osdev_type="%d"%s/>\n' % (ind, Gp.next(), name, ostype, sub))
    return s + '%s</object>\n' % ind


def switch(domain_bus, devices, ind):
    """A host bridge holding a PCIe switch with the given devices."""
    lo, hi = domain_bus
    s = ('%s<object type="Bridge" gp_index="%d" bridge_type="0-1" depth="0" '
         'bridge_pci="0000:[%02x-%02x]">\n' % (ind, Gp.next(), lo, hi))
    s += ('%s  <object type="Bridge" gp_index="%d" bridge_type="1-1" '
          'depth="1" pci_busid="0000:%02x:00.0" pci_type="0604 [1000:c030] '
          '[0000:0000] 00" pci_link_speed="32.000000" '
          'bridge_pci="0000:[%02x-%02x]">\n' %
          (ind, Gp.next(), lo, lo + 1, hi))
    for d in devices:
        s += d
    return s + '%s  </object>\n%s</object>\n' % (ind, ind)


# osdev_type values of hwloc 2: 1 GPU, 2 NETWORK, 3 OPENFABRICS, 5 COPROC
GPU, NET, OFA, COPROC = 1, 2, 3, 5


def lumi_g():
    Gp.n = 0
    numa_gcds = {0: (4, 5), 1: (2, 3), 2: (6, 7), 3: (0, 1)}
    numa_nic = {0: 2, 1: 1, 2: 3, 3: 0}
    ind = "      "
    body = ""
    for numa in range(4):
        cpus = list(range(16 * numa, 16 * numa + 16))
        body += ('    <object type="Group" %s gp_index="%d">\n' %
                 (sets(cpus, [numa]), Gp.next()))
        body += ('      <object type="NUMANode" os_index="%d" %s gp_index="%d"'
                 ' local_memory="137438953472"/>\n' %
                 (numa, sets(cpus, [numa]), Gp.next()))
        body += cores(16 * numa, 16, numa, ind)
        devs = []
        for g in numa_gcds[numa]:
            bus = 0xc1 + 8 * g  # bus order = ROCm device order
            devs.append(pcidev("0000:%02x:00.0" % bus, "0380", "[1002:7408]",
                               [("card%d" % g, GPU, None),
                                ("rsmi%d" % g, GPU, "RSMI")], ind + "    "))
        nic = numa_nic[numa]
        devs.append(pcidev("0000:%02x:00.0" % (0x11 + nic), "0200",
                           "[17db:0501]", [("hsn%d" % nic, NET, None),
                                           ("cxi%d" % nic, OFA, "Slingshot")],
                           ind + "    "))
        body += switch((0x10 * (numa + 1), 0x10 * (numa + 1) + 0xf), devs, ind)
        body += '    </object>\n'
    allc = list(range(64))
    return (HEAD + '  <object type="Machine" os_index="0" %s gp_index="%d">\n'
            '   <object type="Package" os_index="0" %s gp_index="%d">\n' %
            (sets(allc, range(4)), Gp.next(), sets(allc, range(4)), Gp.next())
            + body + '   </object>\n  </object>\n' + TAIL)


def dual_nvidia():
    Gp.n = 0
    ind = "      "
    body = ""
    for sock in range(2):
        cpus = list(range(16 * sock, 16 * sock + 16))
        body += ('   <object type="Package" os_index="%d" %s gp_index="%d">\n'
                 % (sock, sets(cpus, [sock]), Gp.next()))
        body += ('      <object type="NUMANode" os_index="%d" %s gp_index="%d"'
                 ' local_memory="274877906944"/>\n' %
                 (sock, sets(cpus, [sock]), Gp.next()))
        body += cores(16 * sock, 16, sock, ind)
        devs = [pcidev("0000:%02x:00.0" % (0x17 + 0x80 * sock), "0302",
                       "[10de:20b0]", [("cuda%d" % sock, COPROC, "CUDA"),
                                       ("nvml%d" % sock, GPU, "NVML")],
                       ind + "    "),
                pcidev("0000:%02x:00.0" % (0x18 + 0x80 * sock), "0207",
                       "[15b3:101b]", [("ib%d" % sock, NET, None),
                                       ("mlx5_%d" % sock, OFA, None)],
                       ind + "    ")]
        body += switch((0x10 + 0x80 * sock, 0x1f + 0x80 * sock), devs, ind)
        body += '   </object>\n'
    allc = list(range(32))
    return (HEAD + '  <object type="Machine" os_index="0" %s gp_index="%d">\n'
            % (sets(allc, range(2)), Gp.next()) + body + '  </object>\n' +
            TAIL)


if __name__ == "__main__":
    with open("lumi-g.xml", "w") as f:
        f.write(lumi_g())
    with open("dual-nvidia.xml", "w") as f:
        f.write(dual_nvidia())
