// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86dec.c - Capstone, and the VEX and EVEX instructions Capstone 4
 * cannot decode (src/probe/x86dec.h).  glibc's string functions on AVX-512
 * machines (__strlen_evex's vpcmpeqb (%rdi),%ymm16,%k0, then kmovd
 * %k0,%eax) were counted only, never timed: "bytes at +0x18 that are no
 * x86-64 instruction".
 */
#include <stdio.h>
#include <string.h>

#include "probe/x86dec.h"

/*
 * The length of an instruction whose opcode byte is at @p[@n - 2] and its
 * ModRM at @p[@n - 1] (@n bytes so far, of @left), in opcode map @map
 * (1: 0F, 2: 0F38, 3: 0F3A, 5, 6): ModRM's SIB and displacement, then an
 * imm8 in map 0F3A and for map 0F's 70-73, C2, C4-C6; 0 past @left.
 */
static size_t modrm_tail(const uint8_t *p, size_t n, size_t left,
			 unsigned int map)
{
	unsigned int op = p[n - 2], modrm = p[n - 1];
	unsigned int mod = modrm >> 6, rm = modrm & 7;

	if (mod != 3) {
		if (rm == 4) {
			if (left < n + 1)
				return 0;
			if (mod == 0 && (p[n] & 7) == 5)
				n += 4; /* SIB, no base: disp32 */
			n++;
		} else if (mod == 0 && rm == 5) {
			n += 4; /* RIP-relative disp32 */
		}
		if (mod == 1)
			n += 1;
		else if (mod == 2)
			n += 4;
	}
	if (map == 3 ||
	    (map == 1 && ((op >= 0x70 && op <= 0x73) || op == 0xc2 ||
			  (op >= 0xc4 && op <= 0xc6))))
		n += 1; /* imm8 */
	return n <= left ? n : 0;
}

size_t x86dec_avx_len(const uint8_t *p, size_t left)
{
	unsigned int map;

	if (left < 3)
		return 0;
	switch (p[0]) {
	case 0xc5: /* two-byte VEX: map 0F */
		return left >= 4 ? modrm_tail(p, 4, left, 1) : 0;
	case 0xc4: /* three-byte VEX */
		map = p[1] & 0x1f;
		if (map < 1 || map > 3 || left < 5)
			return 0;
		return modrm_tail(p, 5, left, map);
	case 0x62: /* EVEX: P1's bit 2 is fixed at 1 */
		map = p[1] & 0x07;
		if ((map != 1 && map != 2 && map != 3 && map != 5 &&
		     map != 6) ||
		    !(p[2] & 0x04) || left < 6)
			return 0;
		return modrm_tail(p, 6, left, map);
	default:
		return 0;
	}
}

bool x86dec_next(csh h, const uint8_t **code, size_t *left, uint64_t *addr,
		 cs_insn *in)
{
	size_t n;

	if (cs_disasm_iter(h, code, left, addr, in))
		return true;
	n = x86dec_avx_len(*code, *left);
	if (!n)
		return false;
	in->id = X86_INS_INVALID;
	in->address = *addr;
	in->size = (uint16_t)n;
	memcpy(in->bytes, *code, n < sizeof(in->bytes) ? n : sizeof(in->bytes));
	snprintf(in->mnemonic, sizeof(in->mnemonic), "(avx)");
	in->op_str[0] = '\0';
	if (in->detail)
		memset(in->detail, 0, sizeof(*in->detail));
	*code += n;
	*left -= n;
	*addr += n;
	return true;
}
