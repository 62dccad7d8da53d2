// SPDX-License-Identifier: MIT
/* The transport part of the fidelity verdict: the TCP counters parsed from the kernel's files,
 * tcp.csv records, and the rule (timeouts no qdisc drop explains, per endpoint and second)
 * with counters that should and should not trip it. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collect/metrics.h"
#include "collect/tcp.h"

/* Abridged from a 6.18 kernel: the counters sit among others, and Tcp's MaxConn is -1. */
static const char t_netstat[] =
	"TcpExt: SyncookiesSent SyncookiesRecv TCPTimeouts TCPLossProbes TCPSpuriousRTOs "
	"TCPSackShifted\n"
	"TcpExt: 0 0 17 4 9 0\n"
	"IpExt: InNoRoutes InTruncatedPkts\n"
	"IpExt: 0 0\n";
static const char t_snmp[] =
	"Ip: Forwarding DefaultTTL\n"
	"Ip: 1 64\n"
	"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails "
	"EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
	"Tcp: 1 200 120000 -1 6 6 0 0 12 81234 90210 321 0 0 0\n"
	"Udp: InDatagrams NoPorts\n"
	"Udp: 5 0\n";

static void test_parse(void **state)
{
	struct rec_tcp x = {.t = 5, .node = 3};

	(void)state;
	assert_int_equal(col_tcp_parse(t_netstat, t_snmp, &x), 0);
	assert_true(x.t == 5 && x.node == 3);
	assert_int_equal(x.timeouts, 17);
	assert_int_equal(x.spurious_rtos, 9);
	assert_int_equal(x.retrans_segs, 321);
	assert_int_equal(x.out_segs, 90210);
	/* a counter missing, or a file cut short: refused, x untouched */
	assert_int_equal(col_tcp_parse("TcpExt: TCPTimeouts\nTcpExt: 1\n", t_snmp, &x), -EINVAL);
	assert_int_equal(col_tcp_parse(t_netstat, "Tcp: RetransSegs OutSegs\n", &x), -EINVAL);
	assert_int_equal(col_tcp_parse(t_netstat, "Tcp: RetransSegs OutSegs\nTcp: 1\n", &x),
			 -EINVAL);
	assert_int_equal(col_tcp_parse(t_netstat, "Tcp: RetransSegs OutSegs\nTcp: 1 x\n", &x),
			 -EINVAL);
	assert_int_equal(x.timeouts, 17);
	assert_int_equal(col_tcp_parse("", "", &x), -EINVAL);
}

static void test_csv(void **state)
{
	struct rec_tcp a = {123456789, 7, 1, 2, 3, 18446744073709551615ULL}, b;
	char line[256];

	(void)state;
	assert_string_equal(rec_tcp_header,
			    "t_ns,node,timeouts,spurious_rtos,retrans_segs,out_segs");
	rec_tcp_csv(line, sizeof(line), &a);
	assert_string_equal(line, "123456789,7,1,2,3,18446744073709551615\n");
	assert_int_equal(rec_tcp_parse(line, &b), 0);
	assert_true(a.t == b.t && a.node == b.node && a.timeouts == b.timeouts &&
		    a.spurious_rtos == b.spurious_rtos && a.retrans_segs == b.retrans_segs &&
		    a.out_segs == b.out_segs);
	assert_int_equal(rec_tcp_parse("1,2,3,4,5\n", &b), -EINVAL);
	assert_int_equal(rec_tcp_parse("1,2,3,4,5,-6\n", &b), -EINVAL);
}

/* Endpoints 0..n-1 read at 0 and at span_s, each with its share of the counters. */
static void t_span(struct rec_run *r, uint32_t n, double span_s, uint64_t timeouts,
		   uint64_t spurious)
{
	uint32_t i;

	vec_free(&r->tcp);
	for (i = 0; i < n; i++) {
		struct rec_tcp a = {0, i + 10, 5, 1, 100, 1000};
		struct rec_tcp b = {(int64_t)(span_s * 1e9), i + 10, 5 + timeouts / n,
				    1 + spurious / n,	     200,    9000};

		b.timeouts += i < timeouts % n;
		b.spurious_rtos += i < spurious % n;
		vec_push(&r->tcp, a);
		vec_push(&r->tcp, b);
	}
}

static void t_judge(const struct rec_run *r, uint64_t drops, struct col_fidelity *f)
{
	struct col_link l = {.link = 1, .shaped = true, .drops = drops};
	struct col_fid_cfg c;

	col_fid_cfg_default(&c);
	col_fid_done(f);
	assert_int_equal(col_fid_judge(r, &l, 1, &c, f), 0);
}

static void test_counts(void **state)
{
	struct rec_run r = {.dilation = 1};
	struct col_fidelity f = {0};

	(void)state;
	t_span(&r, 4, 100, 40, 6);
	t_judge(&r, 25, &f);
	assert_int_equal(f.tcp.endpoints, 4);
	assert_true(f.tcp.span_s == 100);
	assert_int_equal(f.tcp.timeouts, 40);
	assert_int_equal(f.tcp.spurious_rtos, 6);
	assert_int_equal(f.tcp.retrans_segs, 400);
	assert_int_equal(f.tcp.out_segs, 32000);
	assert_int_equal(f.tcp.drops, 25);
	assert_int_equal(f.tcp.unexplained, 15);
	assert_true(fabs(f.tcp.rate - 15.0 / 4 / 100) < 1e-12);
	/* readings taken by time, not file order; a counter that went down grew by nothing */
	r.tcp.v[0].t = 100000000000LL;
	r.tcp.v[1].t = 0;
	t_judge(&r, 25, &f);
	assert_int_equal(f.tcp.timeouts, 30);
	assert_true(f.tcp.span_s == 100);
	/* one reading per endpoint: no span, nothing judged */
	r.tcp.n = 1;
	t_judge(&r, 0, &f);
	assert_int_equal(f.tcp.endpoints, 0);
	assert_true(isnan(f.tcp.rate));
	assert_false(f.degraded);
	col_fid_done(&f);
	rec_run_done(&r);
}

/* What should and should not say degraded (transport). */
static void test_rule(void **state)
{
	struct rec_run r = {.dilation = 1};
	struct col_fidelity f = {0};
	double lim = COL_FID_TCP_RATE_MAX;
	uint64_t k = (uint64_t)(3 * lim * 16 * 60);
	char text[256], want[96];

	(void)state;
	/* timeouts without drops, above the rate: degraded, its cause transport alone */
	t_span(&r, 16, 60, k, 0);
	t_judge(&r, 0, &f);
	assert_true(f.degraded && f.reasons.n == 1);
	assert_int_equal(f.reasons.v[0].kind, COL_FID_TRANSPORT);
	assert_true(fabs(f.reasons.v[0].value - (double)k / 16 / 60) < 1e-9);
	assert_true(f.reasons.v[0].level == (double)k);
	assert_true(f.reasons.v[0].limit == lim);
	col_fid_causes(text, sizeof(text), &f);
	assert_string_equal(text, "transport");
	assert_false(col_fid_machine(&f));
	col_fid_reason_text(text, sizeof(text), &f.reasons.v[0]);
	snprintf(want, sizeof(want), "TCP: %llu retransmission timeouts no drop explains",
		 (unsigned long long)k);
	assert_non_null(strstr(text, want));
	assert_string_equal(col_fid_kind_name(COL_FID_TRANSPORT), "transport");
	/* the same timeouts with as many drops behind them: losses, the network's own */
	t_judge(&r, k, &f);
	assert_false(f.degraded);
	/* ... unless F-RTO found them spurious */
	t_span(&r, 16, 60, k, k);
	t_judge(&r, k, &f);
	assert_true(f.degraded);
	/* more than enough to judge, under the rate: ok */
	t_span(&r, 16, 600, (uint64_t)(0.9 * lim * 16 * 600), 0);
	assert_true(0.9 * lim * 16 * 600 >= COL_FID_TCP_MIN);
	t_judge(&r, 0, &f);
	assert_false(f.degraded);
	/* above the rate but too few to judge (a short run of few endpoints) */
	t_span(&r, 2, 10, COL_FID_TCP_MIN - 1, 0);
	t_judge(&r, 0, &f);
	assert_false(f.degraded);
	t_span(&r, 2, 10, COL_FID_TCP_MIN, 0);
	t_judge(&r, 0, &f);
	assert_true(f.degraded);
	col_fid_done(&f);
	rec_run_done(&r);
}

/* The causes of a verdict with machine and transport reasons, each once. */
static void test_causes(void **state)
{
	struct col_fidelity f = {0};
	struct col_fid_reason x[] = {{.kind = COL_FID_CPU_BUSY},
				     {.kind = COL_FID_CPU_SOFTIRQ},
				     {.kind = COL_FID_BACKLOG_SLOW},
				     {.kind = COL_FID_TRANSPORT}};
	char text[64], small[8];
	size_t i;

	(void)state;
	assert_int_equal(col_fid_causes(text, sizeof(text), &f), 0);
	assert_string_equal(text, "");
	for (i = 0; i < 4; i++)
		vec_push(&f.reasons, x[i]);
	assert_int_equal(col_fid_causes(text, sizeof(text), &f),
			 (int)strlen("cpu, forwarding, transport"));
	assert_string_equal(text, "cpu, forwarding, transport");
	col_fid_causes(small, sizeof(small), &f);
	assert_string_equal(small, "cpu, fo");
	assert_true(col_fid_machine(&f));
	col_fid_done(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),  cmocka_unit_test(test_csv),
		cmocka_unit_test(test_counts), cmocka_unit_test(test_rule),
		cmocka_unit_test(test_causes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
