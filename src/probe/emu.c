// SPDX-License-Identifier: GPL-2.0-only
/*
 * emu.c - the probed instructions iprof's uprobe programs run themselves:
 * see include/iprof/emu.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "iprof/abi.h"
#include "iprof/emu.h"

/* bytes of a ModRM operand (ModRM, SIB, displacement) at @b, 64-bit
 * addressing; 0 if @n is too short */
static size_t modrm_len(const uint8_t *b, size_t n)
{
	unsigned mod, rm;
	size_t len = 1;

	if (n < 1)
		return 0;
	mod = b[0] >> 6;
	rm = b[0] & 7;
	if (mod != 3 && rm == 4) {
		if (n < 2)
			return 0;
		len++; /* SIB; base 101 with mod 00: disp32 */
		if (mod == 0 && (b[1] & 7) == 5)
			len += 4;
	}
	if (mod == 0 && rm == 5)
		len += 4; /* rip-relative disp32 */
	else if (mod == 1)
		len += 1;
	else if (mod == 2)
		len += 4;
	return len <= n ? len : 0;
}

static int skip(struct plan_emu *e, size_t len)
{
	e->kind = IPROF_EMU_SKIP;
	e->len = (uint8_t)len;
	return e->kind;
}

/* an entry's instruction without effect: endbr64 or a nop */
static int entry_nop(const uint8_t *b, size_t n, struct plan_emu *e)
{
	size_t p = 0, m;

	if (n >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e &&
	    b[3] == 0xfa)
		return skip(e, 4);
	while (p < n && p < 8 && b[p] == 0x66)
		p++; /* operand-size prefixes of nopw */
	if (p < n && b[p] == 0x90)
		return skip(e, p + 1); /* nop, xchg %ax,%ax */
	if (p + 2 < n && b[p] == 0x0f && b[p + 1] == 0x1f &&
	    ((b[p + 2] >> 3) & 7) == 0) {
		m = modrm_len(b + p + 2, n - p - 2);
		/* the 5-byte nopl 0(%rax,%rax,1) (a USDT site's, -pg's):
		 * 6.18+ kernels turn its uprobe into a call, cheaper still */
		if (!p && m == 3 && b[2] == 0x44 && b[3] == 0x00)
			return IPROF_EMU_NONE;
		if (m && p + 2 + m <= 15)
			return skip(e, p + 2 + m);
	}
	return IPROF_EMU_NONE;
}

int emu_decode(const uint8_t *b, size_t n, int site, struct plan_emu *e)
{
	size_t p = 0;
	unsigned pop;

	memset(e, 0, sizeof(*e));
	if (!site)
		return entry_nop(b, n, e);
	/* rep ret (AMD's branch predictor advice), bnd ret (MPX) */
	while (p < n && p < 4 && (b[p] == 0xf3 || b[p] == 0xf2))
		p++;
	if (p < n && b[p] == 0xc3) {
		e->kind = IPROF_EMU_RET;
		return e->kind;
	}
	if (p + 2 < n && b[p] == 0xc2) {
		pop = (unsigned)b[p + 1] | (unsigned)b[p + 2] << 8;
		if (pop > IPROF_EMU_POP_MAX)
			return IPROF_EMU_NONE;
		e->kind = IPROF_EMU_RET;
		e->pop = (uint16_t)pop;
		return e->kind;
	}
	return IPROF_EMU_NONE;
}

int emu_decode_file(const char *path, uint64_t off, int site,
		    struct plan_emu *e)
{
	uint8_t b[16];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(e, 0, sizeof(*e));
	if (fd >= 0) {
		n = pread(fd, b, sizeof(b), (off_t)off);
		close(fd);
	}
	return n > 0 ? emu_decode(b, (size_t)n, site, e) : IPROF_EMU_NONE;
}

int emu_shstk(const char *status)
{
	static const char key[] = "x86_Thread_features:";
	char line[512], *tok, *save;
	FILE *f = fopen(status, "re");
	int r = 0;

	if (!f)
		return -errno;
	while (!r && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		for (tok = strtok_r(line + sizeof(key) - 1, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			if (!strcmp(tok, "shstk"))
				r = 1;
		break;
	}
	fclose(f);
	return r;
}
