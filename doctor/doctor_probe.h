/* SPDX-License-Identifier: MIT */
/* testbed doctor's probes: each feature of doctor.h tried for real inside one throwaway network
 * namespace, tb-doctor-<pid>. Its name is removed as soon as it is made and the namespace
 * lives on only while the probes hold it open, so nothing of it outlives the process, however
 * it ends. Devices stay down or carry no address: no packet is sent. */
#ifndef ORCH_DOCTOR_PROBE_H
#define ORCH_DOCTOR_PROBE_H

#include <stdbool.h>

#include "lib/diag.h"
#include "doctor/doctor.h"

/* Whether this process may build testbeds (root, or CAP_NET_ADMIN and CAP_SYS_ADMIN), and
 * how, into r. */
bool doctor_probe_root(struct doctor_result *r);

/* Probes the features want asks for into res (the others stay DOCTOR_UNTRIED), and the
 * machine's limits into lim. emu is the emu-node binary: its --probe tries io_uring. */
void doctor_probe(const bool want[DOCTOR_FEATS], const char *emu,
		  struct doctor_result res[DOCTOR_FEATS], struct doctor_limits *lim);

/* `up`'s check before it builds: probes only what n needs and refuses as doctor_refusal does
 * (-EOPNOTSUPP, d naming the feature and the field that needs it). 0 when all is here. */
int doctor_check(const struct doctor_needs *n, const char *emu, struct diag *d);

#endif
