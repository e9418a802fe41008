/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vfio-dma - a VFIO workload with known ground truth, in the style of the
 * kernel selftest tools/testing/selftests/vfio/vfio_dma_mapping_test.c,
 * self-contained: raw ioctls from <linux/vfio.h> (the legacy container and
 * group interface with the type1 IOMMU backend, which every kernel with
 * VFIO has; see Documentation/driver-api/vfio.rst).
 *
 * The device (a PCI function bound to vfio-pci) is opened through its group
 * O times (VFIO_GROUP_GET_DEVICE_FD; vfio-pci resets the function on open
 * and on close, with an FLR where it has one), then an anonymous buffer of
 * S bytes is mapped for DMA and unmapped M times (VFIO_IOMMU_MAP_DMA pins
 * its pages, VFIO_IOMMU_UNMAP_DMA unpins them).  Ground truth as key=value
 * lines on stdout (tools/README.md); diagnostics on stderr.
 *
 * Exit status: 0 success, 1 failure, 2 usage error, 77 VFIO unavailable
 * (no /dev/vfio/vfio, no type1 IOMMU, the device is not bound to vfio-pci).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/vfio.h>

#include "opt.h"

#define EXIT_USAGE 2
#define EXIT_SKIP 77
#define PAGE 4096ul
#define IOVA 0x100000000ull /* 4 GiB: any address the IOMMU can map */

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s --device BDF [--opens O] [--maps M] [--size S]\n"
		"\n"
		"Open the PCI function BDF (e.g. 0000:00:04.0, bound to\n"
		"vfio-pci) through its VFIO group O times, then map and unmap\n"
		"an S-byte buffer for DMA M times (type1 IOMMU).  Prints ground\n"
		"truth as key=value lines.\n"
		"\n"
		"  --device BDF  the PCI function (required)\n"
		"  --opens O     device fd opens (default 4)\n"
		"  --maps M      DMA map + unmap pairs (default 4)\n"
		"  --size S      bytes per map, a multiple of 4096 (default 1 MiB)\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 usage, 77 no VFIO.\n",
		prog);
}

/* The device's IOMMU group number, from sysfs; -1 with a message. */
static long iommu_group(const char *bdf)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group",
		 bdf);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0) {
		fprintf(stderr, "SKIP: %s: %s (no IOMMU, or no such device)\n",
			path, strerror(errno));
		return -1;
	}
	link[n] = '\0';
	base = strrchr(link, '/');
	return strtol(base ? base + 1 : link, NULL, 10);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "opens", required_argument, NULL, 'o' },
		{ "maps", required_argument, NULL, 'm' },
		{ "size", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long opens = 4, maps = 4, size = 1ul << 20, i;
	uint64_t n_open = 0, n_map = 0, n_unmap = 0;
	struct vfio_group_status status = { .argsz = sizeof(status) };
	const char *bdf = NULL;
	int container = -1, group = -1, dev, c, ret = 1;
	char path[64];
	void *buf = MAP_FAILED;
	long g = -1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			bdf = optarg;
			break;
		case 'o':
			if (parse_uint("opens", optarg, 0, 100000, &opens))
				return EXIT_USAGE;
			break;
		case 'm':
			if (parse_uint("maps", optarg, 0, 100000000, &maps))
				return EXIT_USAGE;
			break;
		case 's':
			if (parse_uint("size", optarg, PAGE, 1ul << 30, &size))
				return EXIT_USAGE;
			if (size % PAGE) {
				fprintf(stderr,
					"error: --size %lu: not a multiple of %lu\n",
					size, PAGE);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return EXIT_USAGE;
		}
	}
	if (!bdf || optind < argc) {
		usage(stderr, argv[0]);
		return EXIT_USAGE;
	}

	container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (container < 0) {
		fprintf(stderr, "SKIP: /dev/vfio/vfio: %s\n", strerror(errno));
		return EXIT_SKIP;
	}
	if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION ||
	    ioctl(container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0) {
		fprintf(stderr, "SKIP: no VFIO type1v2 IOMMU\n");
		ret = EXIT_SKIP;
		goto out;
	}
	g = iommu_group(bdf);
	if (g < 0) {
		ret = EXIT_SKIP;
		goto out;
	}
	snprintf(path, sizeof(path), "/dev/vfio/%ld", g);
	group = open(path, O_RDWR | O_CLOEXEC);
	if (group < 0) {
		fprintf(stderr, "SKIP: %s: %s (is %s bound to vfio-pci?)\n",
			path, strerror(errno), bdf);
		ret = EXIT_SKIP;
		goto out;
	}
	if (ioctl(group, VFIO_GROUP_GET_STATUS, &status) ||
	    !(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		fprintf(stderr,
			"error: group %ld is not viable (every device of it must be bound to vfio-pci)\n",
			g);
		goto out;
	}
	if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container) ||
	    ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU)) {
		fprintf(stderr, "error: group %ld into the container: %s\n", g,
			strerror(errno));
		goto out;
	}

	for (i = 0; i < opens; i++) {
		dev = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, bdf);
		if (dev < 0) {
			fprintf(stderr, "error: VFIO_GROUP_GET_DEVICE_FD %s: %s\n",
				bdf, strerror(errno));
			goto out;
		}
		n_open++;
		close(dev);
	}

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		fprintf(stderr, "error: mmap %lu bytes: %s\n", size,
			strerror(errno));
		goto out;
	}
	for (i = 0; i < maps; i++) {
		struct vfio_iommu_type1_dma_map map = {
			.argsz = sizeof(map),
			.flags = VFIO_DMA_MAP_FLAG_READ |
				 VFIO_DMA_MAP_FLAG_WRITE,
			.vaddr = (uintptr_t)buf,
			.iova = IOVA,
			.size = size,
		};
		struct vfio_iommu_type1_dma_unmap unmap = {
			.argsz = sizeof(unmap),
			.iova = IOVA,
			.size = size,
		};

		if (ioctl(container, VFIO_IOMMU_MAP_DMA, &map)) {
			fprintf(stderr, "error: VFIO_IOMMU_MAP_DMA: %s\n",
				strerror(errno));
			goto out;
		}
		n_map++;
		if (ioctl(container, VFIO_IOMMU_UNMAP_DMA, &unmap)) {
			fprintf(stderr, "error: VFIO_IOMMU_UNMAP_DMA: %s\n",
				strerror(errno));
			goto out;
		}
		n_unmap++;
		if (unmap.size != size) {
			fprintf(stderr, "error: unmapped %llu bytes, not %lu\n",
				(unsigned long long)unmap.size, size);
			goto out;
		}
	}
	ret = 0;
out:
	/* ground truth: what the program did, even if something failed */
	printf("pid=%d\n", (int)getpid());
	printf("device=%s\n", bdf);
	printf("group=%ld\n", group >= 0 ? g : -1L);
	printf("device_opens=%" PRIu64 "\n", n_open);
	printf("dma_maps=%" PRIu64 "\n", n_map);
	printf("dma_unmaps=%" PRIu64 "\n", n_unmap);
	printf("map_bytes=%lu\n", size);
	printf("pages_pinned=%" PRIu64 "\n", n_map * (size / PAGE));
	if (buf != MAP_FAILED)
		munmap(buf, size);
	if (group >= 0)
		close(group);
	if (container >= 0)
		close(container);
	return ret;
}
