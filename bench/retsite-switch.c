// SPDX-License-Identifier: GPL-2.0-only
/*
 * 12 functions whose switch a compiler turns into a jump table, each in
 * another shape (bench/retsite.sh builds this with GCC and clang, -O2 and
 * -O3, PIC, PIE and non-PIC, with and without -fcf-protection, and counts
 * which get return sites): an int, an unsigned, a struct field (the bound
 * on memory), an unsigned char and a short field, a long, cases from 10, a
 * state machine in a loop, a switch in a switch's default, the index
 * kept across a call, a masked index, a bit field.  ext() keeps the cases
 * apart.  A benchmark input, not a test.
 */
struct st {
	int pad;
	unsigned mode;
	int x;
	unsigned char k;
	short s;
	long l;
};

int ext(int v);

#define CASES(v)                        \
	case 0: r = ext((v) + 1); break; \
	case 1: r = ext((v) * 3); break; \
	case 2: r = ext((v) - 7); break; \
	case 3: r = ext((v) ^ 5); break; \
	case 4: r = ext((v) << 2); break; \
	case 5: r = ext((v) >> 1); break; \
	case 6: r = 17; break;           \
	case 7: r = ext(99); break;

int sw_int(int v)
{
	int r = 0;

	switch (v) { CASES(v) default: r = -1; }
	return r;
}

int sw_uns(unsigned v)
{
	int r = 0;

	switch (v) { CASES((int)v) default: r = -1; }
	return r;
}

int sw_mem(struct st *p)
{
	int r = 0;

	switch (p->mode) { CASES(p->x) default: r = -1; }
	return r;
}

int sw_char(struct st *p)
{
	int r = 0;

	switch (p->k) { CASES(p->x) default: r = -1; }
	return r;
}

int sw_short(struct st *p)
{
	int r = 0;

	switch (p->s) { CASES(p->x) default: r = -1; }
	return r;
}

int sw_long(long v)
{
	int r = 0;

	switch (v) { CASES((int)v) default: r = -1; }
	return r;
}

int sw_off(int v)
{
	switch (v) {
	case 10: return ext(1);
	case 11: return ext(2);
	case 12: return ext(3);
	case 13: return ext(4);
	case 14: return ext(5);
	case 16: return ext(6);
	case 17: return 8;
	default: return -1;
	}
}

int sw_loop(struct st *p, int n)
{
	int r = 0, i;

	for (i = 0; i < n; i++) {
		switch (p->mode) {
		case 0: p->mode = 3; r += ext(i); break;
		case 1: p->mode = 0; r -= ext(i); break;
		case 2: p->mode = 1; r ^= ext(i); break;
		case 3: p->mode = 2; r += 5; break;
		case 4: p->mode = 5; r += ext(r); break;
		case 5: return r;
		default: return -1;
		}
	}
	return r;
}

int sw_two(int a, int b)
{
	int r = 0;

	switch (a) {
	CASES(a)
	default:
		switch (b) { CASES(b) default: r = 3; }
	}
	return r;
}

int sw_callsave(int v)
{
	int r = ext(v);

	switch (v) { CASES(r) default: r = -1; }
	return r + ext(r);
}

int sw_mask(unsigned v)
{
	int r = 0;

	switch (v & 7) { CASES((int)v) }
	return r;
}

int sw_bits(struct st *p)
{
	int r = 0;

	switch ((p->mode >> 3) & 7) { CASES(p->x) }
	return r;
}
