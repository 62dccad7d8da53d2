// SPDX-License-Identifier: MIT
/* The BTF reader (kernel/kbtf.c) on a type section made here as the kernel lays it out:
 * member paths through typedefs, nested structs and anonymous unions, and the refusals. The
 * qdisc counter programs (kernel/qstat_prog.c): the layout found in that BTF, and the
 * instructions checked for what the verifier would refuse first (jumps out of the program, no
 * exit) and for reading the fields where the layout says. The kernel's verifier and the
 * counters themselves are checked by tests/integration/t_sample_bpf.sh. */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/kbtf.h"
#include "kernel/qstat.h"

/* info: kind flag, kind, member count (as the kernel's own BTF_INFO_ENC, which uapi lacks) */
static uint32_t t_info(uint32_t kind, int kflag, uint32_t vlen)
{
	return (uint32_t)(kflag ? 1u : 0u) << 31 | (kind & 0x1f) << 24 | (vlen & 0xffff);
}

struct t_btf {
	uint8_t types[2048];
	char strs[1024];
	uint32_t tlen, slen, ntypes;
	uint8_t blob[4096];
};

static void t_put32(struct t_btf *b, uint32_t v)
{
	memcpy(b->types + b->tlen, &v, 4);
	b->tlen += 4;
}

static uint32_t t_str(struct t_btf *b, const char *s)
{
	uint32_t off = b->slen;

	if (!*s)
		return 0;
	strcpy(b->strs + b->slen, s);
	b->slen += (uint32_t)strlen(s) + 1;
	return off;
}

/* A type: its id. */
static uint32_t t_type(struct t_btf *b, const char *name, uint32_t kind, uint32_t vlen, int kflag,
		       uint32_t size_or_type)
{
	t_put32(b, t_str(b, name));
	t_put32(b, t_info(kind, kflag, vlen));
	t_put32(b, size_or_type);
	return ++b->ntypes;
}

static void t_member(struct t_btf *b, const char *name, uint32_t type, uint32_t bits)
{
	t_put32(b, t_str(b, name));
	t_put32(b, type);
	t_put32(b, bits);
}

/* The blob: header, types, strings. */
static size_t t_blob(struct t_btf *b)
{
	struct btf_header h = {.magic = BTF_MAGIC,
			       .version = BTF_VERSION,
			       .hdr_len = sizeof(h),
			       .type_off = 0,
			       .type_len = b->tlen,
			       .str_off = b->tlen,
			       .str_len = b->slen};

	memcpy(b->blob, &h, sizeof(h));
	memcpy(b->blob + sizeof(h), b->types, b->tlen);
	memcpy(b->blob + sizeof(h) + b->tlen, b->strs, b->slen);
	return sizeof(h) + b->tlen + b->slen;
}

/* A kernel in miniature: Qdisc (with its stats structs behind a typedef), sk_buff's dev in an
 * anonymous union, net_device's qdisc, a bitfield, the kfunc. Offsets as on Linux 6.18. */
static size_t t_kernel(struct t_btf *b, bool kfunc)
{
	uint32_t u32, u64, ptr, stats, tdef, basic, anon, qd;

	memset(b, 0, sizeof(*b));
	b->slen = 1; /* offset 0: the empty name */
	u32 = t_type(b, "unsigned int", BTF_KIND_INT, 0, 0, 4);
	t_put32(b, 32);
	u64 = t_type(b, "long long unsigned int", BTF_KIND_INT, 0, 0, 8);
	t_put32(b, 64);
	ptr = t_type(b, "", BTF_KIND_PTR, 0, 0, 0);
	stats = t_type(b, "gnet_stats_queue", BTF_KIND_STRUCT, 3, 0, 20);
	t_member(b, "qlen", u32, 0);
	t_member(b, "backlog", u32, 32);
	t_member(b, "drops", u32, 64);
	tdef = t_type(b, "u64_stats_t", BTF_KIND_TYPEDEF, 0, 0, u64);
	basic = t_type(b, "gnet_stats_basic_sync", BTF_KIND_STRUCT, 2, 0, 24);
	t_member(b, "bytes", tdef, 0);
	t_member(b, "packets", tdef, 64);
	qd = t_type(b, "Qdisc", BTF_KIND_STRUCT, 7, 0, 384);
	t_member(b, "handle", u32, 56 * 8);
	t_member(b, "parent", u32, 60 * 8);
	t_member(b, "dev_queue", ptr, 64 * 8);
	t_member(b, "cpu_bstats", ptr, 80 * 8);
	t_member(b, "bstats", basic, 176 * 8);
	t_member(b, "qstats", stats, 192 * 8);
	t_member(b, "flags", u32, 16 * 8);
	anon = t_type(b, "", BTF_KIND_UNION, 2, 0, 8);
	t_member(b, "dev", ptr, 0);
	t_member(b, "dev_scratch", u64, 0);
	t_type(b, "sk_buff", BTF_KIND_STRUCT, 2, 0, 232);
	t_member(b, "next", ptr, 0);
	t_member(b, "", anon, 16 * 8);
	t_type(b, "net_device", BTF_KIND_STRUCT, 2, 0, 2048);
	t_member(b, "ifindex", u32, 224 * 8);
	t_member(b, "qdisc", ptr, 1064 * 8);
	t_type(b, "bits", BTF_KIND_STRUCT, 2, 1, 4);
	t_member(b, "a", u32, 3u << 24 | 0);
	t_member(b, "b", u32, 0u << 24 | 8);
	t_type(b, "qdisc_ptr", BTF_KIND_TYPEDEF, 0, 0, qd);
	if (kfunc)
		t_type(b, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC, 0, 0, 0);
	return t_blob(b);
}

static void t_at(const struct kbtf *k, const char *type, const char *path, int err, uint32_t off,
		 uint32_t size)
{
	uint32_t o = 0, s = 0;

	assert_int_equal(kbtf_member(k, type, path, &o, &s), err);
	if (err)
		return;
	assert_int_equal(o, off);
	assert_int_equal(s, size);
}

static void test_btf_members(void **state)
{
	struct t_btf b;
	size_t n = t_kernel(&b, true);
	struct kbtf k;

	(void)state;
	assert_int_equal(kbtf_init(&k, b.blob, n), 0);
	assert_int_equal(k.n, b.ntypes);
	t_at(&k, "Qdisc", "qstats.drops", 0, 200, 4);
	t_at(&k, "Qdisc", "qstats.backlog", 0, 196, 4);
	t_at(&k, "Qdisc", "bstats.packets", 0, 184, 8); /* through the typedef */
	t_at(&k, "Qdisc", "dev_queue", 0, 64, 8);
	t_at(&k, "Qdisc", "bstats", 0, 176, 24);
	t_at(&k, "sk_buff", "dev", 0, 16, 8); /* inside the anonymous union */
	t_at(&k, "net_device", "qdisc", 0, 1064, 8);
	t_at(&k, "bits", "b", 0, 1, 4); /* a whole member of a kind_flag struct */
	t_at(&k, "bits", "a", -ENOTSUP, 0, 0); /* a bitfield */
	t_at(&k, "Qdisc", "qstats.nothing", -ENOENT, 0, 0);
	t_at(&k, "Qdisc", "handle.x", -ENOENT, 0, 0); /* not an aggregate */
	t_at(&k, "Nothing", "a", -ENOENT, 0, 0);
	t_at(&k, "Qdisc", "qstatsx", -ENOENT, 0, 0); /* names match whole */
	assert_int_equal(kbtf_find(&k, BTF_KIND_FUNC, "bpf_cast_to_kern_ctx"), b.ntypes);
	assert_int_equal(kbtf_find(&k, BTF_KIND_STRUCT, "bpf_cast_to_kern_ctx"), 0);
	kbtf_done(&k);
	kbtf_done(&k); /* twice is fine */
}

static void test_btf_refusals(void **state)
{
	struct t_btf b;
	size_t n = t_kernel(&b, true);
	struct btf_header h;
	struct kbtf k;
	uint32_t info;

	(void)state;
	assert_int_equal(kbtf_init(&k, b.blob, 10), -EINVAL); /* shorter than a header */
	assert_int_equal(kbtf_init(&k, b.blob, n - 1), -EINVAL); /* strings cut */
	memcpy(&h, b.blob, sizeof(h));
	h.magic = 0x1234;
	memcpy(b.blob, &h, sizeof(h));
	assert_int_equal(kbtf_init(&k, b.blob, n), -EINVAL);
	n = t_kernel(&b, true);
	memcpy(&h, b.blob, sizeof(h));
	h.type_len -= 3; /* the last type cut short */
	h.str_off -= 3;
	memcpy(b.blob, &h, sizeof(h));
	memmove(b.blob + sizeof(h) + h.type_len, b.blob + sizeof(h) + h.type_len + 3,
		n - sizeof(h) - h.type_len - 3);
	assert_int_equal(kbtf_init(&k, b.blob, n - 3), -EINVAL);
	n = t_kernel(&b, true);
	info = t_info(31, 0, 0); /* a kind from the future */
	memcpy(b.blob + sizeof(h) + 4, &info, 4);
	assert_int_equal(kbtf_init(&k, b.blob, n), -ENOTSUP);
}

static void test_layout(void **state)
{
	struct t_btf b;
	size_t n = t_kernel(&b, true);
	struct qstat_layout l;
	struct diag d = {0};

	(void)state;
	assert_int_equal(qstat_layout_find(b.blob, n, &l, &d), 0);
	assert_int_equal(l.q_handle, 56);
	assert_int_equal(l.q_parent, 60);
	assert_int_equal(l.q_bytes, 176);
	assert_int_equal(l.q_packets, 184);
	assert_int_equal(l.q_drops, 200);
	assert_int_equal(l.q_drops_size, 4);
	assert_int_equal(l.q_backlog, 196);
	assert_int_equal(l.skb_dev, 16);
	assert_int_equal(l.dev_qdisc, 1064);
	assert_int_equal(l.cast_ctx, b.ntypes);
	n = t_kernel(&b, false);
	assert_int_equal(qstat_layout_find(b.blob, n, &l, &d), -ENOENT);
	assert_non_null(strstr(d.msg, "bpf_cast_to_kern_ctx"));
}

static struct qstat_layout t_layout(void)
{
	return (struct qstat_layout){.q_handle = 56,
				     .q_parent = 60,
				     .q_dev_queue = 64,
				     .q_cpu_bstats = 80,
				     .q_bytes = 176,
				     .q_packets = 184,
				     .q_drops = 200,
				     .q_backlog = 196,
				     .q_drops_size = 4,
				     .q_backlog_size = 4,
				     .skb_dev = 16,
				     .dev_qdisc = 1064,
				     .cast_ctx = 777};
}

/* Every jump lands inside the program, the last instruction exits, and the map loads are
 * two-instruction pairs naming the given fds. */
static void t_sane(const struct bpf_insn *v, size_t n, int fd1, int fd2)
{
	size_t i;
	long to;

	assert_true(n > 4 && n <= QSTAT_INSNS_MAX);
	assert_int_equal(v[n - 1].code, BPF_JMP | BPF_EXIT);
	for (i = 0; i < n; i++) {
		if (v[i].code == (BPF_LD | BPF_DW | BPF_IMM)) {
			assert_int_equal(v[i].src_reg, BPF_PSEUDO_MAP_FD);
			assert_true(v[i].imm == fd1 || v[i].imm == fd2);
			i++;
			continue;
		}
		if (BPF_CLASS(v[i].code) != BPF_JMP && BPF_CLASS(v[i].code) != BPF_JMP32)
			continue;
		if (BPF_OP(v[i].code) == BPF_CALL || BPF_OP(v[i].code) == BPF_EXIT)
			continue;
		to = (long)i + 1 + v[i].off;
		assert_true(to >= 0 && to < (long)n);
	}
}

/* Whether some instruction loads `size` bytes at off from register src. */
static bool t_loads(const struct bpf_insn *v, size_t n, uint8_t src, int16_t off, uint8_t size)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].code == (BPF_LDX | BPF_MEM | size) && v[i].src_reg == src &&
		    v[i].off == off)
			return true;
	return false;
}

static void test_reader(void **state)
{
	struct bpf_insn v[QSTAT_INSNS_MAX];
	struct qstat_layout l = t_layout();
	size_t n = qstat_reader_build(v, &l, 11, 12), i;
	bool back = false, ok = false, root = false;

	(void)state;
	t_sane(v, n, 11, 12);
	for (i = 0; i < n; i++) {
		back |= v[i].code == (BPF_JMP | BPF_JA) && v[i].off < 0; /* the loop */
		ok |= v[i].code == (BPF_ST | BPF_MEM | BPF_DW) && v[i].imm == 1;
		/* the device's root qdisc pointer, read to check it is still this one */
		root |= v[i].code == (BPF_ALU64 | BPF_ADD | BPF_K) && v[i].imm == 1064;
	}
	assert_true(back);
	assert_true(ok);
	assert_true(root);
	/* the copy starts at the handle (56): the counters at -256 + (offset - 56) */
	assert_true(t_loads(v, n, BPF_REG_10, -256 + 176 - 56, BPF_DW));
	assert_true(t_loads(v, n, BPF_REG_10, -256 + 200 - 56, BPF_W));
	assert_true(t_loads(v, n, BPF_REG_10, -256 + 80 - 56, BPF_DW)); /* cpu_bstats */
	l.q_drops_size = 8;
	n = qstat_reader_build(v, &l, 11, 12);
	assert_true(t_loads(v, n, BPF_REG_10, -256 + 200 - 56, BPF_DW));
	l.q_drops_size = 2; /* no such load */
	assert_int_equal(qstat_reader_build(v, &l, 11, 12), 0);
	l = t_layout();
	l.q_bytes = 56 + QSTAT_SPAN_MAX; /* too far to copy at once */
	assert_int_equal(qstat_reader_build(v, &l, 11, 12), 0);
}

static void test_locator(void **state)
{
	struct bpf_insn v[QSTAT_INSNS_MAX];
	struct qstat_layout l = t_layout();
	size_t n = qstat_locator_build(v, &l, 13), i;
	bool kfunc = false;

	(void)state;
	t_sane(v, n, 13, 13);
	for (i = 0; i < n; i++)
		kfunc |= v[i].code == (BPF_JMP | BPF_CALL) &&
			 v[i].src_reg == BPF_PSEUDO_KFUNC_CALL && v[i].imm == 777;
	assert_true(kfunc);
	assert_true(t_loads(v, n, BPF_REG_1, offsetof(struct __sk_buff, mark), BPF_W));
	assert_true(t_loads(v, n, BPF_REG_0, 16, BPF_DW)); /* skb->dev */
	assert_true(t_loads(v, n, BPF_REG_7, 1064, BPF_DW)); /* dev->qdisc */
	l.dev_qdisc = 40000; /* past a load's reach */
	assert_int_equal(qstat_locator_build(v, &l, 13), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_btf_members), cmocka_unit_test(test_btf_refusals),
		cmocka_unit_test(test_layout),	    cmocka_unit_test(test_reader),
		cmocka_unit_test(test_locator),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
