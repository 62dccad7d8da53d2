// SPDX-License-Identifier: MIT
/* OCS reconfiguration at run time (see ocs_reconf.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernel/mono.h"
#include "kernel/ocs_kernel.h"
#include "fabric/ocs_reconf.h"

enum step {
	STEP_DARK,
	STEP_JOIN,
};

/* One step on every OCS whose ports change. */
static int each_ocs(struct netctl *c, const uint32_t *next, enum step s, struct diag *d)
{
	const struct topo *p = c->phys;
	struct nlk_batch b;
	uint32_t o;
	int fd, r = 0;

	for (o = 0; !r && o < p->nodes.n; o++) {
		if (p->nodes.v[o].kind != TOPO_OCS || !ocs_kernel_changed(p, c->xc, next, o))
			continue;
		fd = nlk_socket_in(c->nsfd[o], c->root_fd);
		if (fd < 0)
			return diag_set(d, fd, "opening netlink in %s: %s", p->nodes.v[o].name,
					strerror(-fd));
		nlk_batch_init(&b, fd);
		r = s == STEP_DARK ? ocs_kernel_dark(&b, p, c->xc, next, o, d)
				   : ocs_kernel_join(&b, p, c->xc, next, o, d);
		nlk_batch_done(&b);
		close(fd);
	}
	return r;
}

int ocs_reconf_begin(struct netctl *c, uint32_t *next, uint64_t delay_ns, struct ocs_reconf *r,
		     struct diag *d)
{
	uint32_t o;
	int err;

	if (!c->xc || r->next) {
		free(next);
		return !c->xc ? diag_set(d, -EINVAL, "the topology has no OCS")
			      : diag_set(d, -EAGAIN, "an OCS reconfiguration is already under way");
	}
	memset(r, 0, sizeof(*r));
	r->t_begin = mono_now_ns();
	r->next = next;
	for (o = 0; o < c->phys->nodes.n; o++)
		if (c->phys->nodes.v[o].kind == TOPO_OCS)
			r->ports += ocs_kernel_changed(c->phys, c->xc, r->next, o);
	r->delay_ns = delay_ns;
	err = each_ocs(c, r->next, STEP_DARK, d);
	r->t_dark = mono_now_ns();
	if (err)
		ocs_reconf_done(r);
	return err;
}

int64_t ocs_reconf_deadline(const struct ocs_reconf *r)
{
	return r->t_dark + (int64_t)r->delay_ns;
}

int ocs_reconf_finish(struct netctl *c, struct ocs_reconf *r, struct diag *d)
{
	int err;

	if (!r->next)
		return diag_set(d, -EINVAL, "no OCS reconfiguration is under way");
	err = each_ocs(c, r->next, STEP_JOIN, d);
	r->t_lit = mono_now_ns();
	/* the model follows the kernel's circuits; the routes follow the model */
	memcpy(c->xc, r->next, c->phys->ports.n * sizeof(*c->xc));
	free(r->next);
	r->next = NULL;
	if (!err)
		err = netctl_commit(c, &r->st, d);
	r->t_routes = mono_now_ns();
	return err;
}

int ocs_reconf_run(struct netctl *c, const struct ocs_change *ch, size_t n,
		   const struct ocs_busy *busy, uint64_t delay_ns, struct ocs_reconf *r,
		   struct diag *d)
{
	struct timespec ts;
	int64_t wait;
	int err;

	size_t np = c->phys->ports.n;
	uint32_t *next = c->xc ? malloc(np * sizeof(*next) + 1) : NULL;

	if (!c->xc)
		return diag_set(d, -EINVAL, "the topology has no OCS");
	if (!next)
		return diag_set(d, -ENOMEM, "out of memory");
	memcpy(next, c->xc, np * sizeof(*next));
	err = ocs_rewire(c->phys, next, ch, n, busy, false, d);
	if (err) {
		free(next);
		return err;
	}
	err = ocs_reconf_begin(c, next, delay_ns, r, d);
	if (err)
		return err;
	while ((wait = ocs_reconf_deadline(r) - mono_now_ns()) > 0) {
		ts.tv_sec = wait / 1000000000LL;
		ts.tv_nsec = wait % 1000000000LL;
		nanosleep(&ts, NULL);
	}
	return ocs_reconf_finish(c, r, d);
}

void ocs_reconf_done(struct ocs_reconf *r)
{
	free(r->next);
	r->next = NULL;
}
