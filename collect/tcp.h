/* SPDX-License-Identifier: MIT */
/* A namespace's TCP counters from the kernel's own files: /proc/net/netstat's TcpExt
 * (TCPTimeouts, TCPSpuriousRTOs) and /proc/net/snmp's Tcp (RetransSegs, OutSegs), into a
 * struct rec_tcp (records.h, tcp.csv). Pure: the caller reads the files. */
#ifndef COLLECT_TCP_H
#define COLLECT_TCP_H

#include "collect/records.h"

/* Fills out's four counters (not t or node) from the two files' texts. 0, or -EINVAL when a
 * counter is missing or not a number. */
int col_tcp_parse(const char *netstat, const char *snmp, struct rec_tcp *out);

#endif
