// SPDX-License-Identifier: MIT
/* The run's records as CSV (see records.h): one writer and one parser per record type, column
 * for column in the order of the header constants. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "collect/csv.h"
#include "collect/records.h"
#include "traffic/chakra/chakra.h"

const char rec_job_header[] = "id,model,gpus,kind,algo,iterations,bytes,compute_ns,arrival_ns,"
			      "start_ns,finish_ns,status,verified,reason,placement,group";
const char rec_job_header_v1[] = "id,model,gpus,kind,algo,iterations,bytes,compute_ns,"
				 "arrival_ns,start_ns,finish_ns,status,verified,reason,placement";
const char rec_iter_header[] = "job,rank,iter,t_start_ns,t_compute_end_ns,t_end_ns";
const char rec_flow_header[] =
	"job,iter,src,dst,src_node,dst_node,seq,phase,bytes,t_start_ns,t_end_ns,tag";
const char rec_sample_header[] = "t_ns,link,dir,tx_bytes,tx_packets,drops,backlog";
const char rec_cpu_header[] = "t_ns,busy,softirq,backlog_drops,self";
const char rec_cpu_header_v1[] = "t_ns,busy,softirq";
const char rec_tcp_header[] = "t_ns,node,timeouts,spurious_rtos,retrans_segs,out_segs";
const char rec_route_header[] =
	"t_ns,trigger,commodities,retagged,max_load,lower_bound,decide_ns,paths_ns";
const char rec_op_header[] =
	"job,rank,node,name,type,collective,bytes,t_start_ns,t_end_ns,critical";

static const char *const statuses[] = {
	[REC_OK] = "ok",
	[REC_FAILED] = "failed",
	[REC_NOT_STARTED] = "not-started",
	[REC_CANCELLED] = "cancelled",
};

#define N_STATUSES (sizeof(statuses) / sizeof(statuses[0]))

const char *rec_status_name(enum rec_status s)
{
	return (unsigned)s < N_STATUSES ? statuses[s] : "?";
}

void rec_run_done(struct rec_run *r)
{
	if (!r)
		return;
	vec_free(&r->jobs);
	vec_free(&r->iters);
	vec_free(&r->flows);
	vec_free(&r->samples);
	vec_free(&r->cpu);
	vec_free(&r->tcp);
	vec_free(&r->routes);
	vec_free(&r->ops);
}

int rec_job_csv(char *buf, size_t len, const struct rec_job *j)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_u64(&w, j->id);
	col_csv_str(&w, j->model, sizeof(j->model));
	col_csv_u64(&w, j->gpus);
	col_csv_str(&w, coll_kind_name(j->kind), REC_NAME_MAX);
	col_csv_str(&w, coll_algo_name(j->algo), REC_NAME_MAX);
	col_csv_u64(&w, j->iterations);
	col_csv_u64(&w, j->bytes);
	col_csv_u64(&w, j->compute_ns);
	col_csv_time(&w, j->arrival);
	col_csv_time(&w, j->start);
	col_csv_time(&w, j->finish);
	col_csv_str(&w, rec_status_name(j->status), REC_NAME_MAX);
	col_csv_u64(&w, j->verified);
	col_csv_str(&w, j->reason, sizeof(j->reason));
	col_csv_str(&w, j->placement, sizeof(j->placement));
	col_csv_u64(&w, j->group);
	return col_csv_w_end(&w);
}

static void get_kind(struct col_csv_r *r, enum coll_kind *k)
{
	char b[REC_NAME_MAX];

	col_csv_get_str(r, b, sizeof(b));
	if (!r->err && coll_kind_parse(b, k))
		r->err = -EINVAL;
}

static void get_algo(struct col_csv_r *r, enum coll_algo *a)
{
	char b[REC_NAME_MAX];

	col_csv_get_str(r, b, sizeof(b));
	if (!r->err && coll_algo_parse(b, a))
		r->err = -EINVAL;
}

int rec_job_parse(const char *line, struct rec_job *out)
{
	struct col_csv_r r;
	struct rec_job j;

	memset(&j, 0, sizeof(j));
	col_csv_r_init(&r, line);
	j.id = col_csv_get_u32(&r);
	col_csv_get_str(&r, j.model, sizeof(j.model));
	j.gpus = col_csv_get_u32(&r);
	get_kind(&r, &j.kind);
	get_algo(&r, &j.algo);
	j.iterations = col_csv_get_u32(&r);
	j.bytes = col_csv_get_u64(&r);
	j.compute_ns = col_csv_get_u64(&r);
	j.arrival = col_csv_get_time(&r);
	j.start = col_csv_get_time(&r);
	j.finish = col_csv_get_time(&r);
	j.status = (enum rec_status)col_csv_get_name(&r, statuses, N_STATUSES);
	j.verified = col_csv_get_u32(&r);
	col_csv_get_str(&r, j.reason, sizeof(j.reason));
	col_csv_get_str(&r, j.placement, sizeof(j.placement));
	if (!r.err && !r.at_end) /* a folder written before the group column has none */
		j.group = col_csv_get_u32(&r);
	if (col_csv_r_end(&r))
		return -EINVAL;
	*out = j;
	return 0;
}

int rec_iter_csv(char *buf, size_t len, const struct rec_iter *i)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_u64(&w, i->job);
	col_csv_u64(&w, i->rank);
	col_csv_u64(&w, i->iter);
	col_csv_time(&w, i->t_start);
	col_csv_time(&w, i->t_compute_end);
	col_csv_time(&w, i->t_end);
	return col_csv_w_end(&w);
}

int rec_iter_parse(const char *line, struct rec_iter *out)
{
	struct col_csv_r r;
	struct rec_iter i;

	col_csv_r_init(&r, line);
	i.job = col_csv_get_u32(&r);
	i.rank = col_csv_get_u32(&r);
	i.iter = col_csv_get_u32(&r);
	i.t_start = col_csv_get_time(&r);
	i.t_compute_end = col_csv_get_time(&r);
	i.t_end = col_csv_get_time(&r);
	if (col_csv_r_end(&r))
		return -EINVAL;
	*out = i;
	return 0;
}

int rec_flow_csv(char *buf, size_t len, const struct rec_flow *f)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_u64(&w, f->job);
	col_csv_u64(&w, f->iter);
	col_csv_u64(&w, f->src);
	col_csv_u64(&w, f->dst);
	col_csv_u64(&w, f->src_node);
	col_csv_u64(&w, f->dst_node);
	col_csv_u64(&w, f->seq);
	col_csv_u64(&w, f->phase);
	col_csv_u64(&w, f->bytes);
	col_csv_time(&w, f->t_start);
	col_csv_time(&w, f->t_end);
	col_csv_u64(&w, f->tag);
	return col_csv_w_end(&w);
}

int rec_flow_parse(const char *line, struct rec_flow *out)
{
	struct col_csv_r r;
	struct rec_flow f;

	col_csv_r_init(&r, line);
	f.job = col_csv_get_u32(&r);
	f.iter = col_csv_get_u32(&r);
	f.src = col_csv_get_u32(&r);
	f.dst = col_csv_get_u32(&r);
	f.src_node = col_csv_get_u32(&r);
	f.dst_node = col_csv_get_u32(&r);
	f.seq = col_csv_get_u32(&r);
	f.phase = col_csv_get_u32(&r);
	f.bytes = col_csv_get_u64(&r);
	f.t_start = col_csv_get_time(&r);
	f.t_end = col_csv_get_time(&r);
	f.tag = col_csv_get_u32(&r);
	if (col_csv_r_end(&r))
		return -EINVAL;
	*out = f;
	return 0;
}

int rec_sample_csv(char *buf, size_t len, const struct rec_sample *s)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_time(&w, s->t);
	col_csv_u64(&w, s->link);
	col_csv_u64(&w, s->dir);
	col_csv_u64(&w, s->tx_bytes);
	col_csv_u64(&w, s->tx_packets);
	col_csv_u64(&w, s->drops);
	col_csv_u64(&w, s->backlog);
	return col_csv_w_end(&w);
}

int rec_sample_parse(const char *line, struct rec_sample *out)
{
	struct col_csv_r r;
	struct rec_sample s;

	col_csv_r_init(&r, line);
	s.t = col_csv_get_time(&r);
	s.link = col_csv_get_u32(&r);
	s.dir = col_csv_get_u32(&r);
	s.tx_bytes = col_csv_get_u64(&r);
	s.tx_packets = col_csv_get_u64(&r);
	s.drops = col_csv_get_u64(&r);
	s.backlog = col_csv_get_u64(&r);
	if (col_csv_r_end(&r) || s.dir > 1)
		return -EINVAL;
	*out = s;
	return 0;
}

int rec_cpu_csv(char *buf, size_t len, const struct rec_cpu *c)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_time(&w, c->t);
	col_csv_dbl(&w, c->busy);
	col_csv_dbl(&w, c->softirq);
	col_csv_time(&w, c->backlog_drops); /* a count, empty where unknown as a time is */
	col_csv_dbl(&w, c->self);
	return col_csv_w_end(&w);
}

int rec_cpu_parse(const char *line, struct rec_cpu *out)
{
	struct col_csv_r r;
	struct rec_cpu c;

	col_csv_r_init(&r, line);
	c.t = col_csv_get_time(&r);
	c.busy = col_csv_get_dbl(&r);
	c.softirq = col_csv_get_dbl(&r);
	c.backlog_drops = REC_NEVER; /* a folder written before the columns has neither */
	c.self = NAN;
	if (!r.err && !r.at_end) {
		c.backlog_drops = col_csv_get_time(&r);
		c.self = col_csv_get_dbl(&r);
	}
	if (col_csv_r_end(&r) || (c.backlog_drops < 0 && c.backlog_drops != REC_NEVER))
		return -EINVAL;
	*out = c;
	return 0;
}

int rec_tcp_csv(char *buf, size_t len, const struct rec_tcp *x)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_time(&w, x->t);
	col_csv_u64(&w, x->node);
	col_csv_u64(&w, x->timeouts);
	col_csv_u64(&w, x->spurious_rtos);
	col_csv_u64(&w, x->retrans_segs);
	col_csv_u64(&w, x->out_segs);
	return col_csv_w_end(&w);
}

int rec_tcp_parse(const char *line, struct rec_tcp *out)
{
	struct col_csv_r r;
	struct rec_tcp x;

	col_csv_r_init(&r, line);
	x.t = col_csv_get_time(&r);
	x.node = col_csv_get_u32(&r);
	x.timeouts = col_csv_get_u64(&r);
	x.spurious_rtos = col_csv_get_u64(&r);
	x.retrans_segs = col_csv_get_u64(&r);
	x.out_segs = col_csv_get_u64(&r);
	if (col_csv_r_end(&r))
		return -EINVAL;
	*out = x;
	return 0;
}

int rec_route_csv(char *buf, size_t len, const struct rec_route *x)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_time(&w, x->t);
	col_csv_str(&w, x->trigger, sizeof(x->trigger));
	col_csv_u64(&w, x->commodities);
	col_csv_u64(&w, x->retagged);
	col_csv_u64(&w, x->max_load);
	col_csv_u64(&w, x->lower_bound);
	col_csv_time(&w, x->decide_ns);
	col_csv_time(&w, x->paths_ns);
	return col_csv_w_end(&w);
}

int rec_route_parse(const char *line, struct rec_route *out)
{
	struct col_csv_r r;
	struct rec_route x;

	memset(&x, 0, sizeof(x));
	col_csv_r_init(&r, line);
	x.t = col_csv_get_time(&r);
	col_csv_get_str(&r, x.trigger, sizeof(x.trigger));
	x.commodities = col_csv_get_u32(&r);
	x.retagged = col_csv_get_u32(&r);
	x.max_load = col_csv_get_u32(&r);
	x.lower_bound = col_csv_get_u32(&r);
	x.decide_ns = col_csv_get_time(&r);
	x.paths_ns = col_csv_get_time(&r);
	if (col_csv_r_end(&r))
		return -EINVAL;
	*out = x;
	return 0;
}

int rec_op_csv(char *buf, size_t len, const struct rec_op *x)
{
	struct col_csv_w w;

	col_csv_w_init(&w, buf, len);
	col_csv_u64(&w, x->job);
	col_csv_u64(&w, x->rank);
	col_csv_u64(&w, x->node);
	col_csv_str(&w, x->name, sizeof(x->name));
	col_csv_str(&w, chakra_kind_name(x->kind), REC_NAME_MAX);
	col_csv_str(&w, x->coll < CHAKRA_COLLS ? chakra_coll_name(x->coll) : "", REC_NAME_MAX);
	col_csv_u64(&w, x->bytes);
	col_csv_time(&w, x->t_start);
	col_csv_time(&w, x->t_end);
	col_csv_u64(&w, x->critical);
	return col_csv_w_end(&w);
}

/* The kind or collective named s (as chakra.h writes them), or n if none is. */
static unsigned op_name(const char *s, const char *(*name)(unsigned), unsigned n)
{
	unsigned k;

	for (k = 0; k < n && strcmp(s, name(k)); k++)
		;
	return k;
}

static const char *kind_name(unsigned k)
{
	return chakra_kind_name((enum chakra_kind)k);
}

static const char *coll_name(unsigned c)
{
	return chakra_coll_name((enum chakra_coll)c);
}

int rec_op_parse(const char *line, struct rec_op *out)
{
	char kind[REC_NAME_MAX], coll[REC_NAME_MAX];
	struct col_csv_r r;
	struct rec_op x;

	memset(&x, 0, sizeof(x));
	col_csv_r_init(&r, line);
	x.job = col_csv_get_u32(&r);
	x.rank = col_csv_get_u32(&r);
	x.node = col_csv_get_u64(&r);
	col_csv_get_str(&r, x.name, sizeof(x.name));
	col_csv_get_str(&r, kind, sizeof(kind));
	col_csv_get_str(&r, coll, sizeof(coll));
	x.bytes = col_csv_get_u64(&r);
	x.t_start = col_csv_get_time(&r);
	x.t_end = col_csv_get_time(&r);
	x.critical = (uint8_t)col_csv_get_u32(&r);
	x.kind = (uint8_t)op_name(kind, kind_name, CHAKRA_KINDS);
	x.coll = (uint8_t)(coll[0] ? op_name(coll, coll_name, CHAKRA_COLLS) : CHAKRA_COLLS);
	if (col_csv_r_end(&r) || x.kind == CHAKRA_KINDS || (coll[0] && x.coll == CHAKRA_COLLS) ||
	    x.critical > 1)
		return -EINVAL;
	*out = x;
	return 0;
}

size_t rec_csv_record_len(const char *text)
{
	const char *nl = strchr(text, '\n');
	size_t i;
	int quoted = 0;

	if (nl && !memchr(text, '"', (size_t)(nl - text))) /* the common line: no quotes */
		return (size_t)(nl - text) + 1;
	for (i = 0; text[i]; i++) {
		if (text[i] == '"')
			quoted = !quoted; /* a doubled quote toggles twice */
		else if (text[i] == '\n' && !quoted)
			return i + 1;
	}
	return i;
}
