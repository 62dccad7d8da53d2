/* SPDX-License-Identifier: MIT */
/* A reader of the kernel's BPF Type Format (/sys/kernel/btf/vmlinux), pure: where a member
 * of a kernel struct lies and how wide it is, and the type id of a named type. The sampler's
 * tracepoint program (kernel/qtrace.h) reads the kernel's structs at these offsets, so it
 * follows the running kernel's layout instead of one compiled in. No syscalls. */
#ifndef ORCH_KBTF_H
#define ORCH_KBTF_H

#include <stddef.h>
#include <stdint.h>

struct kbtf {
	const uint8_t *types, *strs; /* the type and string sections (borrowed) */
	uint32_t types_len, strs_len;
	const uint8_t **type; /* type[id] for 1..n (type[0], "void", is NULL) */
	uint32_t n;
};

/* Indexes blob (len bytes, borrowed for k's lifetime). 0, -EINVAL when it is not BTF or is
 * truncated, -ENOTSUP for a type kind it does not know, -ENOMEM. */
int kbtf_init(struct kbtf *k, const void *blob, size_t len);
void kbtf_done(struct kbtf *k);

/* The id of the type of this kind (BTF_KIND_*) and name, or 0 when there is none. */
uint32_t kbtf_find(const struct kbtf *k, uint32_t kind, const char *name);

/* Where member `path` ("qstats.backlog": members of members, through typedefs, modifiers
 * and anonymous structs or unions) lies in struct or union `type`: its byte offset and size.
 * 0, -ENOENT when some part is missing, -ENOTSUP for a bitfield or an unsized type. */
int kbtf_member(const struct kbtf *k, const char *type, const char *path, uint32_t *off,
		uint32_t *size);

#endif
