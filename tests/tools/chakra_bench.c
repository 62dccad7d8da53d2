// SPDX-License-Identifier: MIT
/* chakra_bench RANKS NODES DIR: writes a Chakra trace of RANKS files of NODES nodes each into
 * DIR (bench.<rank>.et: a chain of compute nodes, every tenth a 1 MiB all-reduce of every
 * rank, each node named and depending on the one before), then reads every file back as
 * testbed does (read(2), chakra_read, all ranks held), checks the job (chakra_check), and
 * prints the read's wall time and the process's peak memory. Issue 37's bench: 1,024 ranks of
 * 10,000 nodes in under 5 s and 2 GiB. The files are removed afterwards. */
#include <errno.h>
#include <fcntl.h>
#include <protobuf-c/protobuf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kernel/wdir.h"
#include "traffic/chakra/chakra.h"
#include "traffic/chakra/et_def.pb-c.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void put(struct wfile *f, const ProtobufCMessage *m, uint8_t *buf)
{
	size_t n = protobuf_c_message_pack(m, buf);
	uint8_t v[10];
	size_t k = 0, x = n;

	do {
		v[k++] = (uint8_t)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
		x >>= 7;
	} while (x);
	wfile_write(f, v, k); /* a failure is kept for wfile_commit */
	wfile_write(f, buf, n);
}

/* Rank r's file in dir, through the project's writer (new, never through a link: the bench
 * runs as root). 0 or -errno with d set. */
static int write_rank(const struct wdir *dir, unsigned r, unsigned nodes, struct diag *d)
{
	ChakraProtoMsg__GlobalMetadata g = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
	ChakraProtoMsg__AttributeProto type = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	ChakraProtoMsg__AttributeProto size = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
	ChakraProtoMsg__AttributeProto *coll[2] = {&type, &size};
	char file[64], name[64];
	uint8_t buf[512];
	struct wfile f;
	uint64_t dep;
	unsigned i;
	int err;

	snprintf(file, sizeof(file), "bench.%u.et", r);
	err = wfile_open(&f, dir, file, 0, d);
	if (err)
		return err;
	g.version = (char *)"0.0.4";
	put(&f, &g.base, buf);
	type.name = (char *)"comm_type";
	type.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	size.name = (char *)"comm_size";
	size.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
	size.int64_val = 1 << 20;
	for (i = 0; i < nodes; i++) {
		ChakraProtoMsg__Node m = CHAKRA_PROTO_MSG__NODE__INIT;

		snprintf(name, sizeof(name), "layer_%u_%s", i / 10,
			 i % 10 == 9 ? "allreduce" : "fwd");
		m.id = (uint64_t)r * nodes +
		       i; /* one counter over every rank, as producers number */
		m.name = name;
		dep = m.id - 1;
		m.n_data_deps = i ? 1 : 0;
		m.data_deps = &dep;
		if (i % 10 == 9) {
			m.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
			m.n_attr = 2;
			m.attr = coll;
		} else {
			m.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
			m.duration_micros = 100 + i % 7;
		}
		put(&f, &m.base, buf);
	}
	return wfile_commit(&f, d);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	uint8_t *b = NULL;
	size_t got = 0;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) || !(b = malloc((size_t)st.st_size + 1))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size && (n = read(fd, b + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	*len = got;
	return b;
}

int main(int argc, char **argv)
{
	unsigned ranks, nodes, r;
	struct chakra_rank *rk;
	struct chakra_stats st;
	struct diag d = {0};
	struct rusage ru;
	struct wdir dir;
	char path[4096];
	double t0, t1, t2;
	size_t bytes = 0, len = 0;

	if (argc != 4 || !(ranks = (unsigned)atoi(argv[1])) || !(nodes = (unsigned)atoi(argv[2]))) {
		fprintf(stderr, "usage: chakra_bench RANKS NODES DIR\n");
		return 2;
	}
	if (wdir_open(&dir, argv[3], 0, &d)) {
		fprintf(stderr, "chakra_bench: %s\n", d.msg);
		return 1;
	}
	for (r = 0; r < ranks; r++)
		if (write_rank(&dir, r, nodes, &d)) {
			fprintf(stderr, "chakra_bench: rank %u: %s\n", r, d.msg);
			return 1;
		}
	rk = calloc(ranks, sizeof(*rk));
	t0 = now();
	for (r = 0; rk && r < ranks; r++) {
		uint8_t *b;

		snprintf(path, sizeof(path), "%s/bench.%u.et", argv[3], r);
		b = slurp(path, &len);
		if (!b || chakra_read(b, len, path, &rk[r], &d)) {
			fprintf(stderr, "chakra_bench: %s: %s\n", path,
				b ? d.msg : strerror(errno));
			return 1;
		}
		bytes += len;
		free(b);
	}
	t1 = now();
	if (chakra_check(rk, ranks, NULL, &st, NULL, &d)) {
		fprintf(stderr, "chakra_bench: check: %s\n", d.msg);
		return 1;
	}
	t2 = now();
	getrusage(RUSAGE_SELF, &ru);
	printf("  %u ranks x %u nodes (%.0f MB of trace): read %.2f s, checked %.2f s, peak "
	       "memory %.0f MiB (target: under 5 s and 2 GiB)\n",
	       ranks, nodes, (double)bytes / 1e6, t1 - t0, t2 - t1, (double)ru.ru_maxrss / 1024);
	for (r = 0; r < ranks; r++) {
		chakra_rank_done(&rk[r]);
		snprintf(path, sizeof(path), "%s/bench.%u.et", argv[3], r);
		unlink(path);
	}
	free(rk);
	wdir_close(&dir);
	return 0;
}
