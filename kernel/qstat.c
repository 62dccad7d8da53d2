// SPDX-License-Identifier: MIT
/* The qdisc counter programs' life (qstat.h): the kernel's BTF read once, two maps, the
 * locator and the reader run on demand, the slots mapped into our memory. Everything goes
 * with the fds. */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/qstat.h"

#define QSTAT_BTF "/sys/kernel/btf/vmlinux"
#define QSTAT_BTF_MAX (64u << 20)
#define QSTAT_LOG 4096 /* the verifier's message, when it refuses */
#define QSTAT_FRAME 64 /* the locator's packet: an Ethernet header's worth and more, zeros */
/* Programs that read kernel memory declare a GPL-compatible licence; this one is the
 * project's own MIT licence offered as GPL too. */
#define QSTAT_LICENSE "Dual MIT/GPL"

struct qstat {
	int where_fd, slots_fd;
	int locator_fd, reader_fd;
	struct qstat_slot *slots;
	size_t map_len;
	uint32_t n;
};

static int sys_bpf(int cmd, union bpf_attr *a)
{
	long r = syscall(__NR_bpf, cmd, a, sizeof(*a));

	return r < 0 ? -errno : (int)r;
}

/* The running kernel's BTF, read whole into a malloc'd buffer (sysfs gives its size). */
static int read_btf(void **blob, size_t *len, struct diag *d)
{
	int fd = open(QSTAT_BTF, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t n = 0;
	ssize_t k = 1;
	char *b;

	if (fd < 0)
		return diag_set(d, -errno, "%s: %s", QSTAT_BTF, strerror(errno));
	if (fstat(fd, &st) || st.st_size <= 0 || (size_t)st.st_size > QSTAT_BTF_MAX) {
		close(fd);
		return diag_set(d, -EINVAL, "%s: no size, or too large", QSTAT_BTF);
	}
	b = malloc((size_t)st.st_size);
	while (b && n < (size_t)st.st_size && (k = read(fd, b + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)k;
	close(fd);
	if (!b || n != (size_t)st.st_size) {
		free(b);
		return diag_set(d, b ? -EIO : -ENOMEM, "%s: cannot read it whole", QSTAT_BTF);
	}
	*blob = b;
	*len = n;
	return 0;
}

static int map_create(uint32_t type, uint32_t ksize, uint32_t vsize, uint32_t n, uint32_t flags,
		      const char *name, struct diag *d)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = ksize;
	a.value_size = vsize;
	a.max_entries = n;
	a.map_flags = flags;
	snprintf(a.map_name, sizeof(a.map_name), "%s", name);
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	return fd < 0 ? diag_set(d, fd, "a BPF map: %s", strerror(-fd)) : fd;
}

static int maps(struct qstat *q, struct diag *d)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	q->where_fd = map_create(BPF_MAP_TYPE_ARRAY, sizeof(uint32_t), sizeof(struct qstat_where),
				 q->n, 0, "tb_qdisc_where", d);
	if (q->where_fd < 0)
		return q->where_fd;
	q->slots_fd = map_create(BPF_MAP_TYPE_ARRAY, sizeof(uint32_t), sizeof(struct qstat_slot),
				 q->n, BPF_F_MMAPABLE, "tb_qdisc_slots", d);
	if (q->slots_fd < 0)
		return q->slots_fd;
	q->map_len = (q->n * sizeof(struct qstat_slot) + page - 1) / page * page;
	m = mmap(NULL, q->map_len, PROT_READ, MAP_SHARED, q->slots_fd, 0);
	if (m == MAP_FAILED)
		return diag_set(d, -errno, "mapping a BPF map: %s", strerror(errno));
	q->slots = m;
	return 0;
}

static void load_attr(union bpf_attr *a, const struct bpf_insn *insns, size_t n, uint32_t type,
		      const char *name)
{
	memset(a, 0, sizeof(*a));
	a->prog_type = type;
	a->insns = (uintptr_t)insns;
	a->insn_cnt = (uint32_t)n;
	a->license = (uintptr_t)QSTAT_LICENSE;
	snprintf(a->prog_name, sizeof(a->prog_name), "%s", name);
}

/* Loads a program; when the verifier refuses it, loads it again for the first line of its
 * reason. */
static int load(const struct bpf_insn *insns, size_t n, uint32_t type, const char *name,
		struct diag *d)
{
	char log[QSTAT_LOG] = "";
	union bpf_attr a;
	char *nl;
	int fd;

	if (!n)
		return diag_set(d, -ENOTSUP,
				"the kernel's qdisc counters have sizes the "
				"sampler's programs cannot load");
	load_attr(&a, insns, n, type, name);
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd >= 0)
		return fd;
	if (fd != -ENOSYS) {
		load_attr(&a, insns, n, type, name);
		a.log_buf = (uintptr_t)log;
		a.log_size = sizeof(log);
		a.log_level = 1;
		(void)sys_bpf(BPF_PROG_LOAD, &a);
		nl = strchr(log, '\n');
		if (nl)
			*nl = '\0';
	}
	return diag_set(d, fd, "loading the qdisc counter program %s: %s%s%s", name, strerror(-fd),
			*log ? ": " : "", log);
}

static int progs(struct qstat *q, struct diag *d)
{
	struct bpf_insn insns[QSTAT_INSNS_MAX];
	struct qstat_layout l;
	void *blob = NULL;
	size_t len = 0, n;
	int err = read_btf(&blob, &len, d);

	err = err ? err : qstat_layout_find(blob, len, &l, d);
	free(blob);
	if (err)
		return err;
	n = qstat_locator_build(insns, &l, q->where_fd);
	q->locator_fd = load(insns, n, BPF_PROG_TYPE_SCHED_CLS, "tb_qdisc_locate", d);
	if (q->locator_fd < 0)
		return q->locator_fd;
	n = qstat_reader_build(insns, &l, q->where_fd, q->slots_fd);
	q->reader_fd = load(insns, n, BPF_PROG_TYPE_RAW_TRACEPOINT, "tb_qdisc_read", d);
	return q->reader_fd < 0 ? q->reader_fd : 0;
}

int qstat_open(struct qstat **out, uint32_t nslots, struct diag *d)
{
	struct qstat *q = calloc(1, sizeof(*q));
	int err;

	*out = NULL;
	if (!q)
		return diag_set(d, -ENOMEM, "out of memory");
	q->where_fd = q->slots_fd = q->locator_fd = q->reader_fd = -1;
	q->n = nslots ? nslots : 1;
	err = maps(q, d);
	err = err ? err : progs(q, d);
	if (err) {
		qstat_free(q);
		return err;
	}
	*out = q;
	return 0;
}

int qstat_locate(struct qstat *q, uint32_t i, uint32_t ifindex)
{
	struct __sk_buff ctx = {.mark = i, .ifindex = ifindex};
	uint8_t frame[QSTAT_FRAME] = {0};
	union bpf_attr a;
	int r;

	if (i >= q->n)
		return -ERANGE;
	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)q->locator_fd;
	a.test.data_in = (uintptr_t)frame;
	a.test.data_size_in = sizeof(frame);
	a.test.ctx_in = (uintptr_t)&ctx;
	a.test.ctx_size_in = sizeof(ctx);
	r = sys_bpf(BPF_PROG_TEST_RUN, &a);
	return r < 0 ? r : 0;
}

int qstat_sample(struct qstat *q)
{
	union bpf_attr a;
	uint64_t first;
	int r;

	for (first = 0; first < q->n; first += QSTAT_CHUNK) {
		memset(&a, 0, sizeof(a));
		a.test.prog_fd = (uint32_t)q->reader_fd;
		a.test.ctx_in = (uintptr_t)&first;
		a.test.ctx_size_in = sizeof(first);
		r = sys_bpf(BPF_PROG_TEST_RUN, &a);
		if (r < 0)
			return r;
	}
	return 0;
}

bool qstat_get(const struct qstat *q, uint32_t i, struct qstat_slot *out)
{
	if (i >= q->n || !q->slots[i].ok)
		return false;
	*out = q->slots[i];
	return true;
}

static void close_fd(int fd)
{
	if (fd >= 0)
		close(fd);
}

void qstat_free(struct qstat *q)
{
	if (!q)
		return;
	close_fd(q->locator_fd);
	close_fd(q->reader_fd);
	if (q->slots)
		munmap(q->slots, q->map_len);
	close_fd(q->slots_fd);
	close_fd(q->where_fd);
	free(q);
}
