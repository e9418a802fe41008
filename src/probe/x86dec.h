/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * x86dec.h - one x86-64 instruction decoded for the planner's code readers
 * (retsite.c's return sites, inline_graph.c's inlined instances): Capstone,
 * and a placeholder for what Capstone 4 (Debian 12's) cannot decode.
 */
#ifndef IPROF_PROBE_X86DEC_H
#define IPROF_PROBE_X86DEC_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * x86dec_avx_len() - the length in bytes of the VEX- or EVEX-encoded
 * (AVX, AVX-512) instruction at @p (@left bytes there), 0 where it is none
 * or runs past @left.  From the encoding alone, in 64-bit mode, where C4,
 * C5 and 62 are always these prefixes (Intel SDM vol. 2, 2.3 "Intel AVX
 * and VEX" and 2.7 "Intel AVX-512 encoding"): C5 and a byte (map 0F), C4
 * and two (map select 1 0F, 2 0F38, 3 0F3A), 62 and three (map select 1,
 * 2, 3, 5, 6; P1's fixed bit 2 set); then the opcode, ModRM, a SIB and a
 * displacement as ModRM says (EVEX's disp8 stays one byte, scaled or not),
 * and an imm8 in map 0F3A and for map 0F's 70-73, C2, C4-C6.
 */
size_t x86dec_avx_len(const uint8_t *p, size_t left);

/*
 * x86dec_next() - cs_disasm_iter(3) of the instruction at *@code
 * (*@left bytes, at address *@addr) into @in (cs_malloc()'ed, of @h opened
 * with CS_OPT_DETAIL on), advancing the three past it; where Capstone
 * cannot and it is VEX- or EVEX-encoded (x86dec_avx_len()), a placeholder
 * of its address and size: @in->id X86_INS_INVALID, mnemonic "(avx)", no
 * operands, no groups, so never a jump or a ret (neither encodes one) and
 * what it writes unknown: a reader takes nothing it knew for known after
 * it.  Returns false where neither decodes (the three unchanged).
 */
bool x86dec_next(csh h, const uint8_t **code, size_t *left, uint64_t *addr,
		 cs_insn *in);

#endif /* IPROF_PROBE_X86DEC_H */
