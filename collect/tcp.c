// SPDX-License-Identifier: MIT
/* TCP counters from /proc/net/netstat and /proc/net/snmp (tcp.h). Both files hold pairs of
 * lines, "Prefix: Name1 Name2 ..." then "Prefix: 12 34 ...", a counter's value at its name's
 * position. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "collect/tcp.h"

/* What follows prefix (e.g. "TcpExt:") on the first line from p that starts with it; NULL if
 * none. */
static const char *line_of(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);

	while (p && *p) {
		if (!strncmp(p, prefix, n) && p[n] == ' ')
			return p + n;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/* The position of word `name` on the line at p (0 first), or -1. */
static int position(const char *p, const char *name)
{
	size_t n = strlen(name), len;
	int k = 0;

	for (; *p && *p != '\n'; k++) {
		p += strspn(p, " ");
		len = strcspn(p, " \n");
		if (len == n && !strncmp(p, name, n))
			return k;
		p += len;
	}
	return -1;
}

/* The k-th field on the line at p (0 first) as a number; others may be signed (Tcp's MaxConn
 * is -1). 0 or -EINVAL. */
static int nth(const char *p, int k, uint64_t *out)
{
	char *end;

	for (; k > 0 && *p && *p != '\n'; k--) {
		p += strspn(p, " ");
		p += strcspn(p, " \n");
	}
	p += strspn(p, " ");
	if (k || *p < '0' || *p > '9')
		return -EINVAL;
	*out = strtoull(p, &end, 10);
	return *end == ' ' || *end == '\n' || !*end ? 0 : -EINVAL;
}

/* Counter `name` of the "prefix" line pair of text. 0 or -EINVAL. */
static int counter(const char *text, const char *prefix, const char *name, uint64_t *out)
{
	const char *names = line_of(text, prefix), *values;
	int k = names ? position(names, name) : -1;

	values = k >= 0 ? line_of(strchr(names, '\n'), prefix) : NULL;
	return values ? nth(values, k, out) : -EINVAL;
}

int col_tcp_parse(const char *netstat, const char *snmp, struct rec_tcp *out)
{
	struct rec_tcp x = *out;
	int r;

	r = counter(netstat, "TcpExt:", "TCPTimeouts", &x.timeouts);
	r = r ? r : counter(netstat, "TcpExt:", "TCPSpuriousRTOs", &x.spurious_rtos);
	r = r ? r : counter(snmp, "Tcp:", "RetransSegs", &x.retrans_segs);
	r = r ? r : counter(snmp, "Tcp:", "OutSegs", &x.out_segs);
	if (!r)
		*out = x;
	return r;
}
