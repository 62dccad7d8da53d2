// SPDX-License-Identifier: MIT
/* tbperf: the integration tests' traffic tool. `serve` sinks connections (and echoes probes);
 * `send` runs one or more TCP flows with chosen source ports and DSCP and prints the goodput
 * the receiver counted, over the whole flow and over a steady-state window after a warm-up
 * (flows given the same --start-at share one window); `probe`
 * checks TCP reachability of many addresses. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256 * 1024)

struct flow {
	struct sockaddr_in dst;
	uint16_t sport;
	int tos;
	uint64_t bytes; /* send this many, or */
	double seconds; /* for this long */
	double warmup; /* seconds excluded from the steady-state figure */
	double start_at; /* CLOCK_MONOTONIC seconds to start at, 0 for now */
	uint64_t counted; /* what the receiver reported */
	uint64_t steady; /* bytes after the warm-up, and over how long */
	double steady_s;
	double elapsed;
	int err;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

/* Sinks one flow, counting the bytes that arrive inside the measurement window [ws, we)
 * (CLOCK_MONOTONIC ns, shared by every namespace on the machine). */
static void sink(int fd, uint64_t ws, uint64_t we)
{
	static __thread char buf[CHUNK];
	uint64_t total = 0, inside = 0, reply[3];
	double t;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		total += (uint64_t)n;
		t = now() * 1e9;
		if (t >= (double)ws && t < (double)we)
			inside += (uint64_t)n;
	}
	reply[0] = htobe64(total);
	reply[1] = htobe64(inside);
	reply[2] = htobe64(we - ws);
	(void)!write(fd, reply, sizeof(reply));
}

/* One accepted connection: 'E' echoes one byte back; 'D' + the window's start and end (two
 * 8-byte ns, network order) sinks until EOF, then reports total bytes, bytes inside the
 * window and the window's length in ns (three 8-byte numbers, network order). */
static void *serve_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	uint64_t w[2];
	char mode;

	if (read_full(fd, &mode, 1) == 0 && mode == 'E')
		(void)!write(fd, &mode, 1);
	else if (mode == 'D' && read_full(fd, w, sizeof(w)) == 0)
		sink(fd, be64toh(w[0]), be64toh(w[1]));
	close(fd);
	return NULL;
}

static int serve(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int one = 1, ls = socket(AF_INET, SOCK_STREAM, 0), fd;
	pthread_t th;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1024)) {
		perror("tbperf serve");
		return 1;
	}
	printf("listening on %u\n", port);
	fflush(stdout);
	for (;;) {
		fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		if (pthread_create(&th, NULL, serve_conn, (void *)(intptr_t)fd))
			close(fd);
		else
			pthread_detach(th);
	}
}

static int connect_from(const struct flow *f)
{
	struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = htons(f->sport)};
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (f->tos)
		setsockopt(fd, IPPROTO_IP, IP_TOS, &f->tos, sizeof(f->tos));
	if ((f->sport && bind(fd, (struct sockaddr *)&src, sizeof(src))) ||
	    connect(fd, (const struct sockaddr *)&f->dst, sizeof(f->dst))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void *run_flow(void *arg)
{
	struct flow *f = arg;
	static __thread char buf[CHUNK];
	uint64_t sent = 0, reply[3], w[2];
	double t0, end;
	ssize_t n;
	int fd;

	/* flows given one start time share one measurement window, whatever their handshakes */
	t0 = f->start_at > 0 ? f->start_at : now();
	while (now() < t0)
		usleep(1000);
	fd = connect_from(f);
	if (fd < 0) {
		f->err = errno;
		return NULL;
	}
	end = t0 + f->seconds;
	w[0] = htobe64((uint64_t)((t0 + f->warmup) * 1e9));
	w[1] = htobe64((uint64_t)(end * 1e9));
	(void)!write(fd, "D", 1);
	(void)!write(fd, w, sizeof(w));
	while (f->bytes ? sent < f->bytes : now() < end) {
		size_t len = sizeof(buf);

		if (f->bytes && f->bytes - sent < len)
			len = (size_t)(f->bytes - sent);
		n = write(fd, buf, len);
		if (n <= 0) {
			f->err = errno;
			break;
		}
		sent += (uint64_t)n;
	}
	shutdown(fd, SHUT_WR);
	if (read_full(fd, reply, sizeof(reply)) == 0) {
		f->counted = be64toh(reply[0]);
		f->steady = be64toh(reply[1]);
		f->steady_s = (double)be64toh(reply[2]) / 1e9;
	} else if (!f->err)
		f->err = EPROTO;
	f->elapsed = now() - t0;
	close(fd);
	return NULL;
}

static int probe_one(const char *addr, uint16_t port, int timeout_ms)
{
	struct flow f = {.dst = {.sin_family = AF_INET, .sin_port = htons(port)}};
	struct pollfd p;
	char c = 'E';
	int fd;

	if (inet_pton(AF_INET, addr, &f.dst.sin_addr) != 1)
		return -1;
	fd = connect_from(&f);
	if (fd < 0)
		return -1;
	p.fd = fd;
	p.events = POLLIN;
	if (write(fd, &c, 1) != 1 || poll(&p, 1, timeout_ms) != 1 || read(fd, &c, 1) != 1) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int probe(int argc, char **argv, uint16_t port)
{
	int i, bad = 0;

	for (i = 0; i < argc; i++) {
		if (probe_one(argv[i], port, 3000)) {
			printf("unreachable %s\n", argv[i]);
			bad++;
		}
	}
	printf("probed %d, unreachable %d\n", argc, bad);
	return bad ? 1 : 0;
}

static int send_flows(struct flow *proto, int nflows)
{
	struct flow *f = calloc((size_t)nflows, sizeof(*f));
	pthread_t *th = calloc((size_t)nflows, sizeof(*th));
	int i, bad = 0;

	for (i = 0; i < nflows; i++) {
		f[i] = *proto;
		f[i].sport = proto->sport ? (uint16_t)(proto->sport + i) : 0;
		pthread_create(&th[i], NULL, run_flow, &f[i]);
	}
	for (i = 0; i < nflows; i++) {
		pthread_join(th[i], NULL);
		if (f[i].err)
			bad++;
		printf("flow sport=%u bytes=%llu seconds=%.4f goodput_bps=%.0f steady_bps=%.0f "
		       "err=%d\n",
		       f[i].sport, (unsigned long long)f[i].counted, f[i].elapsed,
		       f[i].elapsed > 0 ? 8.0 * (double)f[i].counted / f[i].elapsed : 0.0,
		       f[i].steady_s > 0 ? 8.0 * (double)f[i].steady / f[i].steady_s : 0.0,
		       f[i].err);
	}
	free(f);
	free(th);
	return bad ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: tbperf serve [--port P]\n"
		"       tbperf send ADDR [--port P] [--sport S] [--tos T] [--flows K]\n"
		"                        [--bytes N | --time SEC] [--warmup SEC] [--start-at T]\n"
		"       tbperf now        (CLOCK_MONOTONIC seconds, for --start-at)\n"
		"       tbperf probe [--port P] ADDR...\n");
}

/* Options may appear anywhere after the mode; the rest are positional (addresses). */
static int parse_opts(int argc, char **argv, struct flow *f, uint16_t *port, int *nflows,
		      char **pos)
{
	int i, np = 0;

	for (i = 2; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strncmp(o, "--", 2)) {
			pos[np++] = argv[i];
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(o, "--port"))
			*port = (uint16_t)atoi(v);
		else if (!strcmp(o, "--sport"))
			f->sport = (uint16_t)atoi(v);
		else if (!strcmp(o, "--tos"))
			f->tos = atoi(v);
		else if (!strcmp(o, "--flows"))
			*nflows = atoi(v);
		else if (!strcmp(o, "--bytes"))
			f->bytes = strtoull(v, NULL, 10);
		else if (!strcmp(o, "--time"))
			f->seconds = atof(v);
		else if (!strcmp(o, "--warmup"))
			f->warmup = atof(v);
		else if (!strcmp(o, "--start-at"))
			f->start_at = atof(v);
		else
			return -1;
	}
	return np;
}

int main(int argc, char **argv)
{
	struct flow f = {.dst = {.sin_family = AF_INET}, .seconds = 1.0};
	char **pos = calloc((size_t)argc + 1, sizeof(*pos));
	uint16_t port = 5201;
	int np, nflows = 1, rc = 2;

	np = argc < 2 || !pos ? -1 : parse_opts(argc, argv, &f, &port, &nflows, pos);
	if (np >= 0 && !strcmp(argv[1], "now")) {
		printf("%.6f\n", now());
		rc = 0;
	} else if (np >= 0 && !strcmp(argv[1], "serve")) {
		rc = serve(port);
	} else if (np >= 0 && !strcmp(argv[1], "probe")) {
		rc = probe(np, pos, port);
	} else if (np == 1 && !strcmp(argv[1], "send") &&
		   inet_pton(AF_INET, pos[0], &f.dst.sin_addr) == 1) {
		f.dst.sin_port = htons(port);
		rc = send_flows(&f, nflows);
	} else {
		usage();
	}
	free(pos);
	return rc;
}
