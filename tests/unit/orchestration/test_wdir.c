// SPDX-License-Identifier: MIT
/* The one writer (kernel/wdir.c), in a temporary folder: a link in a folder's path is
 * refused naming it, a new folder never reuses one that exists (nor a link, past the old -99
 * limit), a file is never written through a link nor over one that exists unless replacing is
 * asked and it is ours, a failed or abandoned file leaves nothing, an empty folder this process
 * made is pruned, reads refuse FIFOs and hard links, under sudo nothing is made where the
 * asker could not make it, and the asker is read strictly; a folder others may only search
 * (0711, as `make smoke`'s) is walked through by another user, never read. No root needed (as
 * root, the sudo rules and the other user are checked too). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/wdir.h"

static char t_dir[64];
static struct wdir t_root = WDIR_INIT;

static int t_setup(void **state)
{
	(void)state;
	snprintf(t_dir, sizeof(t_dir), "/tmp/tbunit-wdir.XXXXXX");
	return mkdtemp(t_dir) && !wdir_open(&t_root, t_dir, WDIR_STRICT, NULL) ? 0 : -1;
}

static int t_teardown(void **state)
{
	char cmd[128];

	(void)state;
	wdir_close(&t_root);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t_dir);
	return system(cmd) ? -1 : 0;
}

/* path under t_dir */
static const char *t_at(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", t_dir, rel);
	return buf;
}

static void t_file(const char *rel, const char *text)
{
	char p[256];
	FILE *f = fopen(t_at(p, sizeof(p), rel), "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void t_text(const char *rel, const char *want)
{
	char p[256], got[256] = "";
	FILE *f = fopen(t_at(p, sizeof(p), rel), "r");

	assert_non_null(f);
	got[fread(got, 1, sizeof(got) - 1, f)] = '\0';
	fclose(f);
	assert_string_equal(got, want);
}

/* No temporary file of the writer's is left in folder rel. */
static void t_no_tmp(const char *rel)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "ls -A %s/%s | grep -q '\\.tmp$'", t_dir, rel);
	assert_int_not_equal(system(cmd), 0);
}

static void test_link_in_path(void **state)
{
	char p[256], want[512], target[256];
	struct diag d = {0};
	struct wdir w;

	(void)state;
	assert_int_equal(mkdir(t_at(p, sizeof(p), "real"), 0755), 0);
	assert_int_equal(mkdir(t_at(p, sizeof(p), "lp"), 0755), 0);
	assert_int_equal(symlink(t_at(target, sizeof(target), "real"), t_at(p, sizeof(p), "lp/x")),
			 0);
	assert_int_equal(
		wdir_open(&w, t_at(p, sizeof(p), "lp/x/deeper"), WDIR_CREATE | WDIR_STRICT, &d),
		-ELOOP);
	snprintf(want, sizeof(want),
		 "%s/lp/x is a symbolic link (to %s): as root, testbed writes nothing through a "
		 "link; name the folder itself",
		 t_dir, target);
	assert_string_equal(d.msg, want);
	assert_int_equal(access(t_at(p, sizeof(p), "real/deeper"), F_OK), -1); /* nothing made */
	wdir_close(&w);

	/* the same as a subfolder */
	diag_clear(&d);
	assert_int_equal(wdir_open(&w, t_at(p, sizeof(p), "lp"), WDIR_STRICT, &d), 0);
	assert_int_equal(wdir_sub(&(struct wdir){0}, &w, "x", WDIR_CREATE, &d), -ELOOP);
	wdir_close(&w);

	/* a file where a folder is named */
	diag_clear(&d);
	t_file("plain", "x");
	assert_int_equal(wdir_open(&w, t_at(p, sizeof(p), "plain/sub"), WDIR_CREATE, &d), -ENOTDIR);
	snprintf(want, sizeof(want), "%s/plain is not a folder", t_dir);
	assert_string_equal(d.msg, want);
}

static void test_open_create(void **state)
{
	char p[256];
	struct diag d = {0};
	struct wdir w, again;

	(void)state;
	assert_int_equal(wdir_open(&w, t_at(p, sizeof(p), "a/b/c/"), WDIR_CREATE, &d), 0);
	assert_true(w.made); /* the last was made here: given away when closed */
	assert_string_equal(w.name, "c");
	assert_int_equal(wdir_open(&again, t_at(p, sizeof(p), "a/./b/c"), WDIR_CREATE, &d), 0);
	assert_false(again.made);
	wdir_close(&again);
	wdir_close(&w);
	wdir_close(&w); /* idempotent */
	assert_int_equal(wdir_open(&w, t_at(p, sizeof(p), "missing"), 0, &d), -ENOENT);
	assert_int_equal(wdir_open(&w, "", 0, &d), -EINVAL);
}

static void test_new_never_reused(void **state)
{
	char p[256], name[64];
	struct diag d = {0};
	struct wdir parent, w;
	int k;

	(void)state;
	assert_int_equal(wdir_sub(&parent, &t_root, "runs", WDIR_CREATE, &d), 0);
	assert_int_equal(mkdir(t_at(p, sizeof(p), "runs/T-s"), 0755), 0);
	for (k = 2; k <= 150; k++) { /* the old code gave up at -99 and reused one */
		snprintf(name, sizeof(name), "runs/T-%d-s", k);
		assert_int_equal(mkdir(t_at(p, sizeof(p), name), 0755), 0);
	}
	assert_int_equal(symlink("/tmp", t_at(p, sizeof(p), "runs/T-151-s")), 0);
	assert_int_equal(wdir_new(&w, &parent, "T", "-s", &d), 0);
	assert_string_equal(w.name, "T-152-s");
	assert_true(w.made);
	/* made here, still empty, pruned: removed */
	wdir_prune(&w);
	assert_int_equal(access(t_at(p, sizeof(p), "runs/T-152-s"), F_OK), -1);
	/* with a file in it: kept */
	assert_int_equal(wdir_new(&w, &parent, "T", "-s", &d), 0);
	assert_int_equal(wdir_write(&w, "f", "x", 1, 0, &d), 0);
	wdir_prune(&w);
	assert_int_equal(access(t_at(p, sizeof(p), "runs/T-152-s/f"), F_OK), 0);
	/* one that existed before is never removed */
	assert_int_equal(wdir_sub(&w, &parent, "T-s", 0, &d), 0);
	assert_false(w.made);
	wdir_prune(&w);
	assert_int_equal(access(t_at(p, sizeof(p), "runs/T-s"), F_OK), 0);
	/* a subfolder asked to be new is refused when it exists */
	assert_int_equal(wdir_sub(&w, &parent, "T-s", WDIR_CREATE | WDIR_EXCL, &d), -EEXIST);
	assert_int_equal(wdir_sub(&w, &parent, "../x", WDIR_CREATE, &d), -EINVAL);
	wdir_close(&parent);
}

static void test_files(void **state)
{
	char p[256], q[256], want[512];
	struct diag d = {0};
	struct wdir w;
	struct wfile f;

	(void)state;
	assert_int_equal(wdir_sub(&w, &t_root, "files", WDIR_CREATE, &d), 0);
	t_file("victim", "precious");
	assert_int_equal(symlink(t_at(p, sizeof(p), "victim"), t_at(q, sizeof(q), "files/s.txt")),
			 0);
	/* a planted link at the name: refused, whether replacing or not, the target untouched */
	assert_int_equal(wdir_write(&w, "s.txt", "evil", 4, 0, &d), -ELOOP);
	snprintf(want, sizeof(want),
		 "%s/files/s.txt is a symbolic link: testbed neither writes through a link nor "
		 "replaces one; remove it",
		 t_dir);
	assert_string_equal(d.msg, want);
	diag_clear(&d);
	assert_int_equal(wdir_write(&w, "s.txt", "evil", 4, WDIR_REPLACE, &d), -ELOOP);
	t_text("victim", "precious");

	/* new files: made once, then refused unless replacing */
	assert_int_equal(wdir_write(&w, "a.txt", "one", 3, 0, &d), 0);
	t_text("files/a.txt", "one");
	diag_clear(&d);
	assert_int_equal(wdir_write(&w, "a.txt", "two", 3, 0, &d), -EEXIST);
	t_text("files/a.txt", "one");
	assert_int_equal(wdir_write(&w, "a.txt", "two", 3, WDIR_REPLACE, &d), 0);
	t_text("files/a.txt", "two");

	/* a file planted at the name while the temporary is written: not overwritten */
	assert_int_equal(wfile_open(&f, &w, "b.txt", 0, &d), 0);
	assert_int_equal(wfile_write(&f, "mine", 4), 0);
	t_file("files/b.txt", "theirs");
	diag_clear(&d);
	assert_int_equal(wfile_commit(&f, &d), -EEXIST);
	t_text("files/b.txt", "theirs");
	t_no_tmp("files");

	/* abandoned: nothing left */
	assert_int_equal(wfile_open(&f, &w, "c.txt", 0, &d), 0);
	wfile_write(&f, "x", 1);
	wfile_abort(&f);
	wfile_abort(&f);
	assert_false(wdir_has(&w, "c.txt"));
	t_no_tmp("files");

	/* a folder at the name is not replaced; a bad name is refused */
	assert_int_equal(mkdir(t_at(p, sizeof(p), "files/dir"), 0755), 0);
	assert_int_equal(wdir_write(&w, "dir", "x", 1, WDIR_REPLACE, &d), -EEXIST);
	assert_int_equal(wdir_write(&w, "x/y", "x", 1, 0, &d), -EINVAL);
	wdir_close(&w);
}

/* A failed write (the descriptor closed under it) is reported naming the file, and the
 * temporary goes. */
static void test_failed_write(void **state)
{
	char want[512];
	struct diag d = {0};
	struct wdir w;
	struct wfile f;

	(void)state;
	assert_int_equal(wdir_sub(&w, &t_root, "fail", WDIR_CREATE, &d), 0);
	assert_int_equal(wfile_open(&f, &w, "z.csv", 0, &d), 0);
	close(f.fd);
	f.fd = open("/dev/null", O_RDONLY); /* writes fail with EBADF */
	assert_int_equal(wfile_write(&f, "data", 4), -EBADF);
	assert_int_equal(wfile_commit(&f, &d), -EBADF);
	snprintf(want, sizeof(want), "writing %s/fail/z.csv: %s", t_dir, strerror(EBADF));
	assert_string_equal(d.msg, want);
	assert_false(wdir_has(&w, "z.csv"));
	t_no_tmp("fail");
	wdir_close(&w);
}

static void test_move_read(void **state)
{
	char p[256], q[256], *text;
	struct diag d = {0};
	struct wdir from, to;
	size_t len;

	(void)state;
	assert_int_equal(wdir_sub(&from, &t_root, "from", WDIR_CREATE, &d), 0);
	assert_int_equal(wdir_sub(&to, &t_root, "to", WDIR_CREATE, &d), 0);
	t_file("victim2", "precious");
	assert_int_equal(symlink(t_at(p, sizeof(p), "victim2"), t_at(q, sizeof(q), "to/m.svg")), 0);
	assert_int_equal(wdir_write(&from, "m.svg", "<svg/>", 6, 0, &d), 0);
	assert_int_equal(wdir_move(&from, "m.svg", &to, WDIR_REPLACE, &d), -ELOOP);
	t_text("victim2", "precious");
	assert_int_equal(unlink(t_at(p, sizeof(p), "to/m.svg")), 0);
	assert_int_equal(wdir_move(&from, "m.svg", &to, WDIR_REPLACE, &d), 0);
	t_text("to/m.svg", "<svg/>");
	assert_false(wdir_has(&from, "m.svg"));

	assert_int_equal(wdir_read(&to, "m.svg", &text, &len), 0);
	assert_int_equal(len, 6);
	assert_string_equal(text, "<svg/>");
	free(text);
	assert_int_equal(symlink(t_at(p, sizeof(p), "victim2"), t_at(q, sizeof(q), "to/r.csv")), 0);
	assert_int_equal(wdir_read(&to, "r.csv", &text, &len), -ELOOP); /* strict: not followed */
	assert_int_equal(wdir_read(&to, "nope", &text, &len), -ENOENT);
	wdir_close(&from);
	wdir_close(&to);
}

static void test_prove(void **state)
{
	struct diag d = {0};
	struct wdir w;

	(void)state;
	assert_int_equal(wdir_sub(&w, &t_root, "prove", WDIR_CREATE, &d), 0);
	assert_int_equal(wdir_prove(&w, &d), 0);
	t_no_tmp("prove");
	assert_false(wdir_has(&w, ".write-check"));
	wdir_close(&w);
}

/* Reading back refuses what would block or read another file: a FIFO, a hard link. */
static void test_read_guards(void **state)
{
	char p[256], q[256], *text = NULL;
	struct diag d = {0};
	struct wdir w;
	size_t len;

	(void)state;
	assert_int_equal(wdir_sub(&w, &t_root, "reads", WDIR_CREATE, &d), 0);
	assert_int_equal(mkfifo(t_at(p, sizeof(p), "reads/summary.json"), 0644), 0);
	assert_int_equal(wdir_read(&w, "summary.json", &text, &len), -EINVAL); /* no block */
	t_file("secret", "root's");
	assert_int_equal(link(t_at(p, sizeof(p), "secret"), t_at(q, sizeof(q), "reads/flows.csv")),
			 0);
	assert_int_equal(wdir_read(&w, "flows.csv", &text, &len),
			 geteuid() == 0 ? -EMLINK : 0); /* as root: a link to a file elsewhere */
	free(text);
	wdir_close(&w);
}

/* Under sudo a new entry goes only where the asker could make it, an old file is replaced
 * only if theirs, and what is made is theirs once complete. Only root has an asker. */
/* As uid 65534 (nobody), in a child: whether wdir_open(path, flags) gives want (0 or -errno),
 * and, when it opened, whether a file can be written there. The child's exit code: 0 when
 * all held, else the step that failed. */
static int t_as_nobody(const char *path, unsigned flags, int want)
{
	struct diag d = {0};
	struct wdir w;
	int st, r;
	pid_t pid = fork();

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		r = wdir_open(&w, path, flags, &d);
		if (r != want)
			_exit(11);
		if (!r && wdir_write(&w, "f", "x", 1, 0, &d))
			_exit(12);
		wdir_close(&w);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static void test_search_only(void **state)
{
	char p[256], q[256];

	(void)state;
	if (geteuid() != 0) /* needs another user to be */
		skip();
	assert_int_equal(mkdir(t_at(p, sizeof(p), "shut"), 0711), 0); /* root's, others search */
	assert_int_equal(chmod(p, 0711), 0);
	assert_int_equal(chmod(t_dir, 0711), 0);
	assert_int_equal(mkdir(t_at(q, sizeof(q), "shut/in"), 0755), 0);
	assert_int_equal(chown(q, 65534, 65534), 0);
	assert_int_equal(t_as_nobody(q, WDIR_STRICT, 0), 0); /* walked through, written in */
	assert_int_equal(t_as_nobody(p, WDIR_STRICT, -EACCES), 0); /* the last one is read */
	/* a link in the path is still refused on the way through */
	assert_int_equal(symlink(q, t_at(p, sizeof(p), "shut/ln")), 0);
	assert_int_equal(t_as_nobody(t_at(q, sizeof(q), "shut/ln/deeper"),
				     WDIR_CREATE | WDIR_STRICT, -ELOOP),
			 0);
	assert_int_equal(chmod(t_dir, 0700), 0);
}

static void test_sudo_rules(void **state)
{
	char p[256], want[512];
	struct diag d = {0};
	struct wdir rootd, open_d, mine, made;
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(t_at(p, sizeof(p), "etc"), 0755), 0); /* root's, as /etc */
	assert_int_equal(mkdir(t_at(p, sizeof(p), "tmp"), 01777), 0); /* everybody's, as /tmp */
	assert_int_equal(chmod(p, 01777), 0);
	t_file("etc/passwd", "root:x:0:0");
	setenv("SUDO_UID", "4242", 1);
	setenv("SUDO_GID", "4343", 1);
	assert_int_equal(wdir_open(&rootd, t_at(p, sizeof(p), "etc"), WDIR_GIVE, &d), 0);
	assert_int_equal(wdir_open(&open_d, t_at(p, sizeof(p), "tmp"), WDIR_GIVE, &d), 0);
	if (geteuid() != 0) { /* no asker: the rules stand aside, the kernel's apply */
		assert_int_equal(wdir_write(&rootd, "new", "x", 1, 0, &d), 0);
		goto out;
	}
	assert_int_equal(wdir_write(&rootd, "ld.so.preload", "x", 1, 0, &d), -EACCES);
	snprintf(want, sizeof(want),
		 "%s/etc belongs to uid 0 and is not everybody's to write: under sudo, testbed "
		 "writes only where uid 4242 could",
		 t_dir);
	assert_string_equal(d.msg, want);
	assert_false(wdir_has(&rootd, "ld.so.preload"));
	diag_clear(&d);
	assert_int_equal(wdir_write(&rootd, "passwd", "x", 1, WDIR_REPLACE, &d), -EPERM);
	t_text("etc/passwd", "root:x:0:0");
	assert_int_equal(wdir_sub(&made, &rootd, "sub", WDIR_CREATE, &d), -EACCES);
	/* everybody's folder: a new file, given once complete */
	assert_int_equal(wdir_write(&open_d, "x.dot", "graph", 5, 0, &d), 0);
	assert_int_equal(stat(t_at(p, sizeof(p), "tmp/x.dot"), &st), 0);
	assert_true(st.st_uid == 4242 && st.st_gid == 4343);
	/* a folder made here: anything in it; given when closed */
	assert_int_equal(wdir_new(&made, &open_d, "run", "", &d), 0);
	assert_int_equal(wdir_write(&made, "a.csv", "1", 1, 0, &d), 0);
	assert_int_equal(fstat(made.fd, &st), 0);
	assert_int_equal(st.st_uid, 0); /* still root's while written into */
	wdir_close(&made);
	assert_int_equal(stat(t_at(p, sizeof(p), "tmp/run"), &st), 0);
	assert_true(st.st_uid == 4242);
	/* the asker's own folder */
	assert_int_equal(mkdir(t_at(p, sizeof(p), "mine"), 0755), 0);
	assert_int_equal(chown(p, 4242, 4343), 0);
	assert_int_equal(wdir_open(&mine, p, WDIR_GIVE, &d), 0);
	assert_int_equal(wdir_write(&mine, "r.md", "1", 1, 0, &d), 0);
	assert_int_equal(wdir_write(&mine, "r.md", "2", 1, WDIR_REPLACE, &d), 0); /* theirs */
	wdir_close(&mine);
out:
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	wdir_close(&rootd);
	wdir_close(&open_d);
}

static void test_asker(void **state)
{
	uid_t u = 0;
	gid_t g = 0;

	(void)state;
	setenv("SUDO_UID", "1000", 1);
	setenv("SUDO_GID", "100", 1);
	if (geteuid() != 0) { /* only root gives anything away */
		assert_false(wdir_asker(&u, &g));
	} else {
		assert_true(wdir_asker(&u, &g));
		assert_int_equal(u, 1000);
		assert_int_equal(g, 100);
	}
	setenv("SUDO_UID", "0", 1); /* root itself: nothing to give */
	assert_false(wdir_asker(&u, &g));
	setenv("SUDO_UID", "10x", 1);
	assert_false(wdir_asker(&u, &g));
	setenv("SUDO_UID", "-5", 1);
	assert_false(wdir_asker(&u, &g));
	setenv("SUDO_UID", "99999999999", 1);
	assert_false(wdir_asker(&u, &g));
	setenv("SUDO_UID", "1000", 1);
	unsetenv("SUDO_GID");
	assert_false(wdir_asker(&u, &g));
	unsetenv("SUDO_UID");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_in_path),
		cmocka_unit_test(test_open_create),
		cmocka_unit_test(test_new_never_reused),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_failed_write),
		cmocka_unit_test(test_move_read),
		cmocka_unit_test(test_prove),
		cmocka_unit_test(test_read_guards),
		cmocka_unit_test(test_sudo_rules),
		cmocka_unit_test(test_search_only),
		cmocka_unit_test(test_asker),
	};

	return cmocka_run_group_tests(tests, t_setup, t_teardown);
}
