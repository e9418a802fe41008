/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * kvm-msr-exit - a KVM workload with known ground truth.
 *
 * Modelled on the kernel selftest
 * tools/testing/selftests/kvm/x86/userspace_msr_exit_test.c, but
 * self-contained: raw KVM ioctls from <linux/kvm.h>, no selftest library.
 *
 * One VM, N vCPUs, one pthread per vCPU.  KVM_CAP_X86_USER_SPACE_MSR is
 * enabled with KVM_MSR_EXIT_REASON_FILTER and an MSR filter denies reads
 * and writes of one MSR (MSR_INDEX), so every RDMSR/WRMSR of it in the
 * guest exits to user space as KVM_EXIT_X86_RDMSR / KVM_EXIT_X86_WRMSR.
 * The guest runs a few hand-assembled bytes in 16-bit real mode:
 *
 *	loop M times: rdmsr; wrmsr	(ECX = MSR_INDEX)
 *	out DONE_PORT, al		(KVM_EXIT_IO: "done")
 *
 * Each vCPU thread counts its KVM_RUN ioctl calls and the exits they
 * returned, and the totals are printed as key=value lines on stdout (see
 * tools/README.md).  Diagnostics go to stderr.
 *
 * Exit status: 0 success, 1 failure, 2 usage error, 77 KVM unavailable
 * (no /dev/kvm or a needed capability is missing).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid() */
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "opt.h"

#define EXIT_USAGE 2
#define EXIT_SKIP 77

/* A made-up MSR index; the filter denies it, so KVM never handles it. */
#define MSR_INDEX 0xdeadbeefu
/* Port the guest writes to when it has finished its loop. */
#define DONE_PORT 0x10
#define GUEST_STR_(x) #x
#define GUEST_STR(x) GUEST_STR_(x)

/*
 * Guest memory layout (guest-physical addresses).  The guest runs in 16-bit
 * real mode with CS, DS based at 0; FS is based at the local APIC's page
 * (set with KVM_SET_SREGS: a real-mode segment keeps the base its
 * descriptor cache was given until it is reloaded), and each vCPU's SS at
 * a stack of its own.
 */
#define GUEST_IVT_GPA 0x0ul /* real-mode interrupt vector table */
#define GUEST_CODE_GPA 0x1000ul
#define GUEST_DATA_GPA 0x3000 /* first touched by the guest: a page fault */
#define GUEST_STACK_GPA 0x10000ul
#define GUEST_STACK_SIZE 0x40ul /* per vCPU; an interrupt pushes 6 bytes */
/* Local APIC: default base and register offsets (Intel SDM vol. 3A,
 * table 11-1 "Local APIC Register Address Map"). */
#define APIC_BASE_GPA 0xfee00000ul
#define TIMER_VECTOR 0x20
/* KVM's local APIC timer counts at 1 GHz (APIC_BUS_CYCLE_NS = 1 in
 * arch/x86/kvm/lapic.h) with the divide-by-1 configuration. */
#define APIC_TIMER_HZ 1000000000ull

#define DEFAULT_VCPUS 2
#define DEFAULT_ITERATIONS 1000
#define DEFAULT_HALTS 5
#define DEFAULT_TIMER_US 1000
#define MAX_HALTS 1000000
#define MAX_TIMER_US 1000000 /* 1 s */

/*
 * Guest code, 16-bit real mode, assembled by the compiler's assembler
 * (.code16) into .rodata and copied to GUEST_CODE_GPA: position
 * independent but for the timer interrupt handler's IVT entry, which
 * user space writes.  On entry (KVM_SET_REGS): ECX = MSR_INDEX, ESI =
 * iterations, EDI = halts, EBX = the APIC timer's initial count.
 *
 *	loop ESI times: rdmsr; wrmsr	(each a KVM_EXIT_X86_RDMSR/WRMSR)
 *	touch one data page		(kvm_mmu_page_fault on first touch)
 *	if EDI: enable the local APIC, one-shot timer on TIMER_VECTOR
 *	loop EDI times: start the timer; sti; hlt; cli
 *			(the vCPU blocks in the kernel until the timer fires)
 *	out DONE_PORT, al		(KVM_EXIT_IO: "done")
 *
 * The timer handler writes the APIC's EOI register and returns.
 */
extern const uint8_t guest_code[], guest_code_end[], guest_timer_isr[];
__asm__(".pushsection .rodata.kvm_guest,\"a\"\n"
	".globl guest_code, guest_code_end, guest_timer_isr\n"
	".hidden guest_code, guest_code_end, guest_timer_isr\n"
	".code16\n"
	"guest_code:\n"
	"	testl	%esi, %esi\n"
	"	jz	2f\n"
	"1:	rdmsr\n"
	"	wrmsr\n" /* writes back what it read */
	"	decl	%esi\n"
	"	jnz	1b\n"
	"2:	movw	$1, " GUEST_STR(GUEST_DATA_GPA) "\n"
	"	testl	%edi, %edi\n"
	"	jz	4f\n"
	"	movl	$0x1ff, %fs:0xf0\n" /* SVR: enabled, spurious 0xff */
	"	movl	$" GUEST_STR(TIMER_VECTOR) ", %fs:0x320\n" /* LVT timer */
	"	movl	$0xb, %fs:0x3e0\n" /* TDCR: divide by 1 */
	"3:	movl	%ebx, %fs:0x380\n" /* TMICT: start the timer */
	"	sti\n"
	"	hlt\n" /* STI's shadow: the interrupt comes after HLT */
	"	cli\n"
	"	decl	%edi\n"
	"	jnz	3b\n"
	"4:	outb	%al, $" GUEST_STR(DONE_PORT) "\n"
	"5:	hlt\n" /* never reached: user space stops at the OUT */
	"	jmp	5b\n"
	"guest_timer_isr:\n"
	"	movl	$0, %fs:0xb0\n" /* EOI */
	"	iret\n"
	"guest_code_end:\n"
	".code64\n"
	".popsection\n");

struct vcpu {
	int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	int started;
	pid_t tid;
	uint32_t iterations;
	uint32_t halts;

	/* Ground truth. */
	uint64_t kvm_run;      /* ioctl(fd, KVM_RUN, 0) calls */
	uint64_t kvm_run_fail; /* ... of which returned -1 */
	uint64_t exit_rdmsr;
	uint64_t exit_wrmsr;
	uint64_t exit_io;
	uint64_t exit_hlt;
	uint64_t exit_other;
	uint64_t halts_done; /* HLTs the guest executed (and woke from) */

	uint64_t last_rdmsr_data;
	int failed;
	char err[256];
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [--vcpus N] [--iterations M] [--halts H]\n"
		"          [--timer-us T]\n"
		"\n"
		"Run a KVM guest whose vCPUs each do M x (RDMSR, WRMSR)\n"
		"of a filtered MSR (each exits to user space), touch a\n"
		"page, halt H times until a local APIC timer interrupt\n"
		"T us later (the vCPU blocks in the kernel), then do one\n"
		"OUT to port 0x%x; print per-vCPU ground truth as\n"
		"key=value lines.\n"
		"\n"
		"  --vcpus N       vCPUs, one thread each (default %d)\n"
		"  --iterations M  loop iterations per vCPU, each one\n"
		"                  RDMSR and one WRMSR (default %d)\n"
		"  --halts H       timer-interrupt halts per vCPU (default\n"
		"                  %d; 0: no in-kernel irqchip, no halts)\n"
		"  --timer-us T    APIC timer period in us (default %d)\n"
		"  --help          show this help\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 usage, 77 no KVM.\n",
		prog, DONE_PORT, DEFAULT_VCPUS, DEFAULT_ITERATIONS,
		DEFAULT_HALTS, DEFAULT_TIMER_US);
}

static void vcpu_fail(struct vcpu *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, sizeof(v->err), fmt, ap);
	va_end(ap);
	v->failed = 1;
}

static const char *exit_reason_name(uint32_t r)
{
	switch (r) {
	case KVM_EXIT_UNKNOWN:
		return "UNKNOWN";
	case KVM_EXIT_EXCEPTION:
		return "EXCEPTION";
	case KVM_EXIT_IO:
		return "IO";
	case KVM_EXIT_HLT:
		return "HLT";
	case KVM_EXIT_MMIO:
		return "MMIO";
	case KVM_EXIT_SHUTDOWN:
		return "SHUTDOWN";
	case KVM_EXIT_FAIL_ENTRY:
		return "FAIL_ENTRY";
	case KVM_EXIT_INTR:
		return "INTR";
	case KVM_EXIT_INTERNAL_ERROR:
		return "INTERNAL_ERROR";
	case KVM_EXIT_X86_RDMSR:
		return "X86_RDMSR";
	case KVM_EXIT_X86_WRMSR:
		return "X86_WRMSR";
	default:
		return "?";
	}
}

/* Handle one exit; returns 1 when the guest is done, -1 on error, else 0. */
static int handle_exit(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	switch (run->exit_reason) {
	case KVM_EXIT_X86_RDMSR:
		v->exit_rdmsr++;
		if (run->msr.index != MSR_INDEX ||
		    run->msr.reason != KVM_MSR_EXIT_REASON_FILTER) {
			vcpu_fail(v, "RDMSR exit: index 0x%x reason 0x%x",
				  run->msr.index, run->msr.reason);
			return -1;
		}
		/* A value the guest writes back, checked on the WRMSR exit. */
		v->last_rdmsr_data = (uint64_t)v->id << 32 | v->exit_rdmsr;
		run->msr.data = v->last_rdmsr_data;
		run->msr.error = 0;
		return 0;
	case KVM_EXIT_X86_WRMSR:
		v->exit_wrmsr++;
		if (run->msr.index != MSR_INDEX ||
		    run->msr.reason != KVM_MSR_EXIT_REASON_FILTER) {
			vcpu_fail(v, "WRMSR exit: index 0x%x reason 0x%x",
				  run->msr.index, run->msr.reason);
			return -1;
		}
		if (run->msr.data != v->last_rdmsr_data) {
			vcpu_fail(v, "WRMSR of 0x%llx, expected 0x%llx",
				  (unsigned long long)run->msr.data,
				  (unsigned long long)v->last_rdmsr_data);
			return -1;
		}
		run->msr.error = 0;
		return 0;
	case KVM_EXIT_IO:
		v->exit_io++;
		if (run->io.direction != KVM_EXIT_IO_OUT ||
		    run->io.port != DONE_PORT || run->io.size != 1 ||
		    run->io.count != 1) {
			vcpu_fail(v, "IO exit: %s port 0x%x size %u count %u",
				  run->io.direction ? "out" : "in",
				  run->io.port, run->io.size, run->io.count);
			return -1;
		}
		/* the guest halts before it signals DONE_PORT */
		v->halts_done = v->halts;
		return 1;
	case KVM_EXIT_HLT:
		/* Halts stay in the kernel (in-kernel irqchip); the last one
		 * comes after DONE_PORT. */
		v->exit_hlt++;
		vcpu_fail(v, "unexpected HLT exit before the done port");
		return -1;
	case KVM_EXIT_INTERNAL_ERROR:
		v->exit_other++;
		vcpu_fail(v, "KVM_EXIT_INTERNAL_ERROR, suberror %u",
			  run->internal.suberror);
		return -1;
	case KVM_EXIT_FAIL_ENTRY:
		v->exit_other++;
		vcpu_fail(v, "KVM_EXIT_FAIL_ENTRY, reason 0x%llx",
			  (unsigned long long)run->fail_entry
				  .hardware_entry_failure_reason);
		return -1;
	default:
		v->exit_other++;
		vcpu_fail(v, "unexpected exit reason %u (KVM_EXIT_%s)",
			  run->exit_reason, exit_reason_name(run->exit_reason));
		return -1;
	}
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	int r;

	v->tid = gettid();
	for (;;) {
		v->kvm_run++;
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			int e = errno;

			v->kvm_run_fail++;
			if (e == EINTR || e == EAGAIN)
				continue;
			vcpu_fail(v, "KVM_RUN: %s", strerror(e));
			break;
		}
		r = handle_exit(v);
		if (r)
			break;
	}
	return NULL;
}

static int setup_vcpu(int vm, struct vcpu *v, size_t run_size,
		      uint32_t timer_count)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	uint64_t stack = GUEST_STACK_GPA + (uint64_t)v->id * GUEST_STACK_SIZE;

	v->fd = ioctl(vm, KVM_CREATE_VCPU, (unsigned long)v->id);
	if (v->fd < 0) {
		fprintf(stderr, "error: KVM_CREATE_VCPU %d: %s\n", v->id,
			strerror(errno));
		return -1;
	}
	v->run = mmap(NULL, run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd,
		      0);
	if (v->run == MAP_FAILED) {
		v->run = NULL;
		fprintf(stderr, "error: mmap kvm_run of vCPU %d: %s\n", v->id,
			strerror(errno));
		return -1;
	}

	/*
	 * With an in-kernel local APIC, every vCPU but the first starts
	 * waiting for INIT/SIPI: make it runnable, as its reset state.
	 */
	if (v->halts && ioctl(v->fd, KVM_SET_MP_STATE, &mp) < 0) {
		fprintf(stderr, "error: KVM_SET_MP_STATE %d: %s\n", v->id,
			strerror(errno));
		return -1;
	}

	/* Real mode (the reset state), but with CS based at 0, FS at the
	 * local APIC and SS at the vCPU's own stack. */
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0) {
		fprintf(stderr, "error: KVM_GET_SREGS: %s\n", strerror(errno));
		return -1;
	}
	sregs.cs.selector = 0;
	sregs.cs.base = 0;
	sregs.fs.base = APIC_BASE_GPA;
	sregs.ss.selector = (uint16_t)(stack >> 4);
	sregs.ss.base = stack;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0) {
		fprintf(stderr, "error: KVM_SET_SREGS: %s\n", strerror(errno));
		return -1;
	}

	memset(&regs, 0, sizeof(regs));
	regs.rip = GUEST_CODE_GPA;
	regs.rflags = 0x2;
	regs.rcx = MSR_INDEX;
	regs.rsi = v->iterations;
	regs.rdi = v->halts;
	regs.rbx = timer_count;
	regs.rsp = GUEST_STACK_SIZE;
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0) {
		fprintf(stderr, "error: KVM_SET_REGS: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void print_counts(const char *prefix, pid_t tid, int print_tid,
			 const struct vcpu *c)
{
	if (print_tid)
		printf("%s.tid=%d\n", prefix, (int)tid);
	printf("%s.kvm_run=%" PRIu64 "\n", prefix, c->kvm_run);
	printf("%s.kvm_run_fail=%" PRIu64 "\n", prefix, c->kvm_run_fail);
	printf("%s.exit_rdmsr=%" PRIu64 "\n", prefix, c->exit_rdmsr);
	printf("%s.exit_wrmsr=%" PRIu64 "\n", prefix, c->exit_wrmsr);
	printf("%s.exit_io=%" PRIu64 "\n", prefix, c->exit_io);
	printf("%s.exit_hlt=%" PRIu64 "\n", prefix, c->exit_hlt);
	printf("%s.exit_other=%" PRIu64 "\n", prefix, c->exit_other);
	printf("%s.halts=%" PRIu64 "\n", prefix, c->halts_done);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"vcpus", required_argument, NULL, 'v'},
		{"iterations", required_argument, NULL, 'i'},
		{"halts", required_argument, NULL, 'H'},
		{"timer-us", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	static const struct {
		int cap;
		const char *name;
	} caps[] = {
		{KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY"},
		{KVM_CAP_X86_USER_SPACE_MSR, "KVM_CAP_X86_USER_SPACE_MSR"},
		{KVM_CAP_X86_MSR_FILTER, "KVM_CAP_X86_MSR_FILTER"},
		{KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP"},
		{KVM_CAP_MP_STATE, "KVM_CAP_MP_STATE"},
	};
	unsigned long nvcpus = DEFAULT_VCPUS, iterations = DEFAULT_ITERATIONS;
	unsigned long halts = DEFAULT_HALTS, timer_us = DEFAULT_TIMER_US;
	uint32_t timer_count;
	size_t mem_size = 0;
	uint16_t ivt[2];
	struct kvm_enable_cap cap;
	struct kvm_msr_filter filter;
	struct kvm_userspace_memory_region region;
	uint8_t deny_bitmap = 0; /* bit 0 clear: MSR_INDEX denied */
	struct vcpu *vcpus = NULL, total;
	void *mem = MAP_FAILED;
	int kvm = -1, vm = -1, max_vcpus, run_size, c, err = 0, ret = 1;
	unsigned long i;
	char prefix[32];

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (parse_uint("vcpus", optarg, 1, 4096, &nvcpus))
				return EXIT_USAGE;
			break;
		case 'i':
			if (parse_uint("iterations", optarg, 0, UINT32_MAX,
				       &iterations))
				return EXIT_USAGE;
			break;
		case 'H':
			if (parse_uint("halts", optarg, 0, MAX_HALTS, &halts))
				return EXIT_USAGE;
			break;
		case 't':
			if (parse_uint("timer-us", optarg, 1, MAX_TIMER_US,
				       &timer_us))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr, argv[0]);
		return EXIT_USAGE;
	}

	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		fprintf(stderr, "SKIP: /dev/kvm not available: %s\n",
			strerror(errno));
		return EXIT_SKIP;
	}
	c = ioctl(kvm, KVM_GET_API_VERSION, 0);
	if (c != KVM_API_VERSION) {
		fprintf(stderr, "SKIP: KVM API version %d, expected %d\n", c,
			KVM_API_VERSION);
		ret = EXIT_SKIP;
		goto out;
	}
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		/* the in-kernel irqchip is needed for halts only */
		if (!halts && (caps[i].cap == KVM_CAP_IRQCHIP ||
			       caps[i].cap == KVM_CAP_MP_STATE))
			continue;
		if (ioctl(kvm, KVM_CHECK_EXTENSION, caps[i].cap) <= 0) {
			fprintf(stderr, "SKIP: KVM lacks capability %s (%d)\n",
				caps[i].name, caps[i].cap);
			ret = EXIT_SKIP;
			goto out;
		}
	}
	max_vcpus = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_MAX_VCPUS);
	if (max_vcpus <= 0)
		max_vcpus = ioctl(kvm, KVM_CHECK_EXTENSION, KVM_CAP_NR_VCPUS);
	if (max_vcpus <= 0)
		max_vcpus = 4;
	if (nvcpus > (unsigned long)max_vcpus) {
		fprintf(stderr,
			"error: --vcpus %lu exceeds KVM's limit of %d\n",
			nvcpus, max_vcpus);
		ret = EXIT_USAGE;
		goto out;
	}
	run_size = ioctl(kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (run_size < (int)sizeof(struct kvm_run)) {
		fprintf(stderr, "error: KVM_GET_VCPU_MMAP_SIZE: %s\n",
			run_size < 0 ? strerror(errno) : "too small");
		goto out;
	}

	vm = ioctl(kvm, KVM_CREATE_VM, 0);
	if (vm < 0) {
		fprintf(stderr, "error: KVM_CREATE_VM: %s\n", strerror(errno));
		goto out;
	}

	/* An in-kernel PIC, IOAPIC and local APICs, created before the
	 * vCPUs: a HLT then blocks the vCPU in the kernel (kvm_vcpu_block)
	 * until its APIC timer fires, instead of exiting to user space. */
	if (halts && ioctl(vm, KVM_CREATE_IRQCHIP, 0) < 0) {
		fprintf(stderr, "error: KVM_CREATE_IRQCHIP: %s\n",
			strerror(errno));
		goto out;
	}

	memset(&cap, 0, sizeof(cap));
	cap.cap = KVM_CAP_X86_USER_SPACE_MSR;
	cap.args[0] = KVM_MSR_EXIT_REASON_FILTER;
	if (ioctl(vm, KVM_ENABLE_CAP, &cap) < 0) {
		fprintf(stderr,
			"error: enabling KVM_CAP_X86_USER_SPACE_MSR: %s\n",
			strerror(errno));
		goto out;
	}

	memset(&filter, 0, sizeof(filter));
	filter.flags = KVM_MSR_FILTER_DEFAULT_ALLOW;
	filter.ranges[0].flags = KVM_MSR_FILTER_READ | KVM_MSR_FILTER_WRITE;
	filter.ranges[0].nmsrs = 1;
	filter.ranges[0].base = MSR_INDEX;
	filter.ranges[0].bitmap = &deny_bitmap;
	if (ioctl(vm, KVM_X86_SET_MSR_FILTER, &filter) < 0) {
		fprintf(stderr, "error: KVM_X86_SET_MSR_FILTER: %s\n",
			strerror(errno));
		goto out;
	}

	mem_size = GUEST_STACK_GPA + nvcpus * GUEST_STACK_SIZE;
	mem_size = (mem_size + 0xfff) & ~(size_t)0xfff;
	mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		fprintf(stderr, "error: mmap guest memory: %s\n",
			strerror(errno));
		goto out;
	}
	memcpy((uint8_t *)mem + GUEST_CODE_GPA, guest_code,
	       (size_t)(guest_code_end - guest_code));
	/* IVT entry of TIMER_VECTOR: offset, then segment 0 */
	ivt[0] = (uint16_t)(GUEST_CODE_GPA + (guest_timer_isr - guest_code));
	ivt[1] = 0;
	memcpy((uint8_t *)mem + GUEST_IVT_GPA + TIMER_VECTOR * 4, ivt,
	       sizeof(ivt));
	memset(&region, 0, sizeof(region));
	region.slot = 0;
	region.guest_phys_addr = 0;
	region.memory_size = mem_size;
	region.userspace_addr = (uintptr_t)mem;
	if (ioctl(vm, KVM_SET_USER_MEMORY_REGION, &region) < 0) {
		fprintf(stderr, "error: KVM_SET_USER_MEMORY_REGION: %s\n",
			strerror(errno));
		goto out;
	}

	vcpus = calloc(nvcpus, sizeof(*vcpus));
	if (!vcpus) {
		fprintf(stderr, "error: out of memory\n");
		goto out;
	}
	for (i = 0; i < nvcpus; i++) {
		vcpus[i].id = (int)i;
		vcpus[i].fd = -1;
		vcpus[i].iterations = (uint32_t)iterations;
		vcpus[i].halts = (uint32_t)halts;
	}
	timer_count = (uint32_t)(timer_us * (APIC_TIMER_HZ / 1000000));
	for (i = 0; i < nvcpus; i++)
		if (setup_vcpu(vm, &vcpus[i], (size_t)run_size, timer_count))
			goto out;

	for (i = 0; i < nvcpus; i++) {
		err = pthread_create(&vcpus[i].thread, NULL, vcpu_thread,
				     &vcpus[i]);
		if (err) {
			fprintf(stderr, "error: pthread_create: %s\n",
				strerror(err));
			break;
		}
		vcpus[i].started = 1;
	}
	for (i = 0; i < nvcpus; i++)
		if (vcpus[i].started)
			pthread_join(vcpus[i].thread, NULL);
	if (err)
		goto out;

	ret = 0;
	memset(&total, 0, sizeof(total));
	for (i = 0; i < nvcpus; i++) {
		const struct vcpu *v = &vcpus[i];

		total.kvm_run += v->kvm_run;
		total.kvm_run_fail += v->kvm_run_fail;
		total.exit_rdmsr += v->exit_rdmsr;
		total.exit_wrmsr += v->exit_wrmsr;
		total.exit_io += v->exit_io;
		total.exit_hlt += v->exit_hlt;
		total.exit_other += v->exit_other;
		total.halts_done += v->halts_done;
		if (v->failed) {
			fprintf(stderr, "error: vCPU %lu: %s\n", i, v->err);
			ret = 1;
		} else if (v->exit_rdmsr != iterations ||
			   v->exit_wrmsr != iterations || v->exit_io != 1) {
			fprintf(stderr,
				"error: vCPU %lu: %" PRIu64 " RDMSR, %" PRIu64
				" WRMSR, %" PRIu64
				" IO exits (want %lu, %lu, 1)\n",
				i, v->exit_rdmsr, v->exit_wrmsr, v->exit_io,
				iterations, iterations);
			ret = 1;
		}
	}

	/* Ground truth: what the program did, even if something failed. */
	printf("pid=%d\n", (int)getpid());
	printf("vcpus=%lu\n", nvcpus);
	printf("iterations=%lu\n", iterations);
	printf("halts=%lu\n", halts);
	printf("timer_us=%lu\n", timer_us);
	printf("msr_index=0x%x\n", MSR_INDEX);
	printf("kvm_run_cmd=0x%lx\n", (unsigned long)KVM_RUN);
	for (i = 0; i < nvcpus; i++) {
		snprintf(prefix, sizeof(prefix), "vcpu%lu", i);
		print_counts(prefix, vcpus[i].tid, 1, &vcpus[i]);
	}
	print_counts("total", 0, 0, &total);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "error: writing stdout: %s\n", strerror(errno));
		ret = 1;
	}

out:
	if (vcpus) {
		for (i = 0; i < nvcpus; i++) {
			if (vcpus[i].run)
				munmap(vcpus[i].run, (size_t)run_size);
			if (vcpus[i].fd >= 0)
				close(vcpus[i].fd);
		}
		free(vcpus);
	}
	if (vm >= 0)
		close(vm);
	if (mem != MAP_FAILED)
		munmap(mem, mem_size);
	if (kvm >= 0)
		close(kvm);
	return ret;
}
