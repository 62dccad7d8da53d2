// SPDX-License-Identifier: MIT
/* The qdisc counter programs (qstat.h), pure: the kernel's layout from its BTF, and the
 * locator's and the reader's instructions, written out one by one. */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdbool.h>
#include <string.h>

#include "kernel/kbtf.h"
#include "kernel/qstat.h"

#define QSTAT_LABELS 2
#define QSTAT_FIXUPS 16
#define QSTAT_BUF 256 /* the reader's copy of a qdisc, on the stack below r10 */

enum label { L_NEXT, L_OUT };

struct asm_buf {
	struct bpf_insn *v;
	size_t n;
	size_t at[QSTAT_LABELS]; /* where each label is */
	size_t fix[QSTAT_FIXUPS]; /* jumps to patch ... */
	enum label to[QSTAT_FIXUPS]; /* ... and to which label */
	size_t nfix;
	bool bad;
};

static void emit(struct asm_buf *a, uint8_t code, uint8_t dst, uint8_t src, int16_t off,
		 int32_t imm)
{
	if (a->n >= QSTAT_INSNS_MAX) {
		a->bad = true;
		return;
	}
	a->v[a->n++] = (struct bpf_insn){
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
}

static uint8_t size_code(struct asm_buf *a, uint32_t size)
{
	if (size == 8)
		return BPF_DW;
	if (size != 4)
		a->bad = true;
	return BPF_W;
}

static int16_t off16(struct asm_buf *a, long off)
{
	if (off > INT16_MAX || off < INT16_MIN)
		a->bad = true;
	return (int16_t)off;
}

/* dst = *(size *)(src + off) */
static void load(struct asm_buf *a, uint8_t dst, uint8_t src, long off, uint32_t size)
{
	emit(a, BPF_LDX | BPF_MEM | size_code(a, size), dst, src, off16(a, off), 0);
}

/* *(size *)(dst + off) = src */
static void store(struct asm_buf *a, uint8_t dst, long off, uint8_t src, uint32_t size)
{
	emit(a, BPF_STX | BPF_MEM | size_code(a, size), dst, src, off16(a, off), 0);
}

static void mov(struct asm_buf *a, uint8_t dst, uint8_t src)
{
	emit(a, BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0);
}

static void alu_imm(struct asm_buf *a, uint8_t op, uint8_t dst, int32_t imm)
{
	emit(a, BPF_ALU64 | op | BPF_K, dst, 0, 0, imm);
}

static void map_fd(struct asm_buf *a, uint8_t dst, int fd)
{
	emit(a, BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
	emit(a, 0, 0, 0, 0, 0);
}

static void call(struct asm_buf *a, int32_t helper)
{
	emit(a, BPF_JMP | BPF_CALL, 0, 0, 0, helper);
}

/* A jump to label l, patched when the program is done: code is BPF_JMP or BPF_JMP32 with the
 * comparison and its source (BPF_K, BPF_X). */
static void jump(struct asm_buf *a, uint8_t code, uint8_t dst, uint8_t src, int32_t imm,
		 enum label l)
{
	if (a->nfix == QSTAT_FIXUPS) {
		a->bad = true;
		return;
	}
	a->fix[a->nfix] = a->n;
	a->to[a->nfix++] = l;
	emit(a, code, dst, src, 0, imm);
}

static void here(struct asm_buf *a, enum label l)
{
	a->at[l] = a->n;
}

static size_t finish(struct asm_buf *a)
{
	size_t i;

	here(a, L_OUT);
	emit(a, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	emit(a, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	for (i = 0; !a->bad && i < a->nfix; i++)
		a->v[a->fix[i]].off = off16(a, (long)a->at[a->to[i]] - (long)a->fix[i] - 1);
	return a->bad ? 0 : a->n;
}

/* r0 = map_lookup_elem(map fd, r10 + off), and out when there is none */
static void lookup(struct asm_buf *a, int fd, int16_t off)
{
	map_fd(a, BPF_REG_1, fd);
	mov(a, BPF_REG_2, BPF_REG_10);
	alu_imm(a, BPF_ADD, BPF_REG_2, off);
	call(a, BPF_FUNC_map_lookup_elem);
	jump(a, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, L_OUT);
}

/* The locator: run on a packet of its own (BPF_PROG_TEST_RUN) whose device is the interface
 * to find and whose mark is its slot, it records where the device's root qdisc is. */
size_t qstat_locator_build(void *insns, const struct qstat_layout *l, int where_fd)
{
	struct asm_buf a = {.v = insns};

	load(&a, BPF_REG_2, BPF_REG_1, offsetof(struct __sk_buff, mark), 4);
	store(&a, BPF_REG_10, -4, BPF_REG_2, 4);
	emit(&a, BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, (int32_t)l->cast_ctx);
	load(&a, BPF_REG_7, BPF_REG_0, l->skb_dev, 8);
	load(&a, BPF_REG_6, BPF_REG_7, l->dev_qdisc, 8);
	jump(&a, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_6, 0, 0, L_OUT);
	lookup(&a, where_fd, -4);
	store(&a, BPF_REG_0, offsetof(struct qstat_where, dev), BPF_REG_7, 8);
	store(&a, BPF_REG_0, offsetof(struct qstat_where, qdisc), BPF_REG_6, 8);
	load(&a, BPF_REG_1, BPF_REG_6, l->q_dev_queue, 8);
	store(&a, BPF_REG_0, offsetof(struct qstat_where, dev_queue), BPF_REG_1, 8);
	load(&a, BPF_REG_1, BPF_REG_6, l->q_handle, 4);
	store(&a, BPF_REG_0, offsetof(struct qstat_where, handle), BPF_REG_1, 4);
	load(&a, BPF_REG_1, BPF_REG_6, l->q_parent, 4);
	store(&a, BPF_REG_0, offsetof(struct qstat_where, parent), BPF_REG_1, 4);
	return finish(&a);
}

/* The span of a qdisc the reader copies: from lo, span bytes. */
static void span(const struct qstat_layout *l, uint32_t *lo, uint32_t *len)
{
	const uint32_t off[] = {l->q_handle, l->q_parent,  l->q_dev_queue, l->q_cpu_bstats,
				l->q_bytes,  l->q_packets, l->q_drops,	   l->q_backlog};
	const uint32_t size[] = {4, 4, 8, 8, 8, 8, l->q_drops_size, l->q_backlog_size};
	uint32_t i, hi = 0;

	*lo = UINT32_MAX;
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		*lo = off[i] < *lo ? off[i] : *lo;
		hi = off[i] + size[i] > hi ? off[i] + size[i] : hi;
	}
	*lo &= ~7u; /* the stack copy's 8-byte fields stay aligned */
	*len = hi - *lo;
}

/* Next unless the copy's field at qdisc offset off equals the where entry's (r7) at w. */
static void check(struct asm_buf *a, long buf, uint32_t off, uint32_t size, int16_t w)
{
	load(a, BPF_REG_1, BPF_REG_10, buf + off, size);
	load(a, BPF_REG_2, BPF_REG_7, w, size);
	jump(a, BPF_JMP | BPF_JNE | BPF_X, BPF_REG_1, BPF_REG_2, 0, L_NEXT);
}

static void put(struct asm_buf *a, long buf, uint32_t off, uint32_t size, int16_t slot_off)
{
	load(a, BPF_REG_1, BPF_REG_10, buf + off, size);
	store(a, BPF_REG_9, slot_off, BPF_REG_1, 8);
}

/* Next unless the device of the where entry (r7) still has its qdisc as its root: the
 * device's pointer copied to the stack at -8. */
static void still_root(struct asm_buf *a, const struct qstat_layout *l)
{
	load(a, BPF_REG_3, BPF_REG_7, offsetof(struct qstat_where, dev), 8);
	jump(a, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_3, 0, 0, L_NEXT);
	if (l->dev_qdisc > INT32_MAX)
		a->bad = true;
	alu_imm(a, BPF_ADD, BPF_REG_3, (int32_t)l->dev_qdisc);
	mov(a, BPF_REG_1, BPF_REG_10);
	alu_imm(a, BPF_ADD, BPF_REG_1, -16);
	alu_imm(a, BPF_MOV, BPF_REG_2, 8);
	call(a, BPF_FUNC_probe_read_kernel);
	jump(a, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, L_NEXT);
	load(a, BPF_REG_1, BPF_REG_10, -16, 8);
	load(a, BPF_REG_2, BPF_REG_7, offsetof(struct qstat_where, qdisc), 8);
	jump(a, BPF_JMP | BPF_JNE | BPF_X, BPF_REG_1, BPF_REG_2, 0, L_NEXT);
}

/* One slot: r9 the slot, r7 its where entry; the qdisc copied to the stack and checked. */
static void read_one(struct asm_buf *a, const struct qstat_layout *l, uint32_t lo, uint32_t len)
{
	long buf = -(long)QSTAT_BUF - (long)lo; /* the qdisc's offset x is at r10 + buf + x */

	still_root(a, l);
	load(a, BPF_REG_3, BPF_REG_7, offsetof(struct qstat_where, qdisc), 8);
	alu_imm(a, BPF_ADD, BPF_REG_3, (int32_t)lo);
	mov(a, BPF_REG_1, BPF_REG_10);
	alu_imm(a, BPF_ADD, BPF_REG_1, -QSTAT_BUF);
	alu_imm(a, BPF_MOV, BPF_REG_2, (int32_t)len);
	call(a, BPF_FUNC_probe_read_kernel);
	jump(a, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, L_NEXT);
	check(a, buf, l->q_dev_queue, 8, offsetof(struct qstat_where, dev_queue));
	check(a, buf, l->q_handle, 4, offsetof(struct qstat_where, handle));
	check(a, buf, l->q_parent, 4, offsetof(struct qstat_where, parent));
	load(a, BPF_REG_1, BPF_REG_10, buf + l->q_cpu_bstats, 8);
	jump(a, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_1, 0, 0, L_NEXT); /* per-CPU counters */
	put(a, buf, l->q_bytes, 8, offsetof(struct qstat_slot, bytes));
	put(a, buf, l->q_packets, 8, offsetof(struct qstat_slot, packets));
	put(a, buf, l->q_drops, l->q_drops_size, offsetof(struct qstat_slot, drops));
	put(a, buf, l->q_backlog, l->q_backlog_size, offsetof(struct qstat_slot, backlog));
	emit(a, BPF_ST | BPF_MEM | BPF_DW, BPF_REG_9, 0, offsetof(struct qstat_slot, ok), 1);
}

size_t qstat_reader_build(void *insns, const struct qstat_layout *l, int where_fd, int slots_fd)
{
	struct asm_buf a = {.v = insns};
	uint32_t lo, len;
	size_t loop;

	span(l, &lo, &len);
	if (len > QSTAT_SPAN_MAX || len > QSTAT_BUF || lo > INT32_MAX)
		return 0;
	load(&a, BPF_REG_6, BPF_REG_1, 0, 8); /* the first slot */
	alu_imm(&a, BPF_MOV, BPF_REG_8, 0);
	loop = a.n;
	jump(&a, BPF_JMP | BPF_JGE | BPF_K, BPF_REG_8, 0, QSTAT_CHUNK, L_OUT);
	mov(&a, BPF_REG_1, BPF_REG_6);
	emit(&a, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_1, BPF_REG_8, 0, 0);
	store(&a, BPF_REG_10, -4, BPF_REG_1, 4);
	lookup(&a, slots_fd, -4);
	mov(&a, BPF_REG_9, BPF_REG_0);
	emit(&a, BPF_ST | BPF_MEM | BPF_DW, BPF_REG_9, 0, offsetof(struct qstat_slot, ok), 0);
	lookup(&a, where_fd, -4);
	mov(&a, BPF_REG_7, BPF_REG_0);
	read_one(&a, l, lo, len);
	here(&a, L_NEXT);
	alu_imm(&a, BPF_ADD, BPF_REG_8, 1);
	emit(&a, BPF_JMP | BPF_JA, 0, 0, off16(&a, (long)loop - (long)a.n - 1), 0);
	return finish(&a);
}

struct field {
	const char *type, *path;
	uint32_t *off;
	uint32_t want; /* its size in bytes; 0: 4 or 8, into *size */
	uint32_t *size;
};

static int field_find(const struct kbtf *k, const struct field *f, struct diag *d)
{
	uint32_t size;
	int err = kbtf_member(k, f->type, f->path, f->off, &size);

	if (!err && f->want && size != f->want)
		err = -ENOTSUP;
	if (!err && !f->want && size != 4 && size != 8)
		err = -ENOTSUP;
	if (err)
		return diag_set(d, err, "the kernel's BTF: struct %s member %s: %s", f->type,
				f->path, strerror(-err));
	if (f->size)
		*f->size = size;
	return 0;
}

int qstat_layout_find(const void *blob, size_t len, struct qstat_layout *l, struct diag *d)
{
	const struct field f[] = {
		{"Qdisc", "handle", &l->q_handle, 4, NULL},
		{"Qdisc", "parent", &l->q_parent, 4, NULL},
		{"Qdisc", "dev_queue", &l->q_dev_queue, 8, NULL},
		{"Qdisc", "cpu_bstats", &l->q_cpu_bstats, 8, NULL},
		{"Qdisc", "bstats.bytes", &l->q_bytes, 8, NULL},
		{"Qdisc", "bstats.packets", &l->q_packets, 8, NULL},
		{"Qdisc", "qstats.drops", &l->q_drops, 0, &l->q_drops_size},
		{"Qdisc", "qstats.backlog", &l->q_backlog, 0, &l->q_backlog_size},
		{"sk_buff", "dev", &l->skb_dev, 8, NULL},
		{"net_device", "qdisc", &l->dev_qdisc, 8, NULL},
	};
	struct kbtf k;
	uint32_t i;
	int err = kbtf_init(&k, blob, len);

	if (err)
		return diag_set(d, err, "the kernel's BTF: %s", strerror(-err));
	memset(l, 0, sizeof(*l));
	for (i = 0; !err && i < sizeof(f) / sizeof(f[0]); i++)
		err = field_find(&k, &f[i], d);
	l->cast_ctx = kbtf_find(&k, BTF_KIND_FUNC, "bpf_cast_to_kern_ctx");
	if (!err && !l->cast_ctx)
		err = diag_set(d, -ENOENT, "the kernel has no bpf_cast_to_kern_ctx (Linux 6.2)");
	kbtf_done(&k);
	return err;
}
