/*
 * fgit_status_collect under ThreadSanitizer (`make tsan`): the lstat pass
 * on two threads refreshes entries in place while the untracked walk reads
 * the same index on a third; the result must be what one thread finds.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "fgit/buf.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/status.h"
#include "fgit/worktree.h"

#define DIRS 30
#define FILES 20

static char *top;

static void write_file(const char *rel, const char *content)
{
	struct fgit_buf p = FGIT_BUF_INIT;
	int fd;
	fgit_buf_addf(&p, "%s/%s", top, rel);
	fd = open(p.ptr, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, content, strlen(content)) < 0)
			perror("write");
		close(fd);
	}
	fgit_buf_release(&p);
}

/* A work tree of DIRS x FILES tracked files, a few untracked and ignored. */
static int setup(struct fgit_buf *index_path)
{
	struct fgit_wt_stat_options so = FGIT_WT_STAT_OPTIONS_INIT;
	struct fgit_index *idx;
	struct fgit_buf p = FGIT_BUF_INIT, rel = FGIT_BUF_INIT;
	int d, f;

	if (fgit_index_new(&idx, FGIT_HASH_SHA1))
		return -1;
	for (d = 0; d < DIRS; d++) {
		fgit_buf_reset(&p);
		fgit_buf_addf(&p, "%s/d%02d", top, d);
		mkdir(p.ptr, 0755);
		for (f = 0; f < FILES; f++) {
			struct fgit_index_entry *e;
			struct stat st;
			fgit_buf_reset(&rel);
			fgit_buf_addf(&rel, "d%02d/f%02d", d, f);
			write_file(rel.ptr, rel.ptr);
			fgit_buf_reset(&p);
			fgit_buf_addf(&p, "%s/%s", top, rel.ptr);
			if (lstat(p.ptr, &st) || fgit_index_entry_new(&e, rel.ptr, rel.len))
				return -1;
			e->mode = 0100644;
			fgit_worktree_fill_stat(e, &st, &so);
			if (fgit_worktree_hash_file(&e->oid, p.ptr, &st, FGIT_HASH_SHA1))
				return -1;
			if (f % 3 == 0)
				e->ctime_sec--;		/* stale: to be refreshed */
			if (fgit_index_append(idx, e))
				return -1;
		}
	}
	if (fgit_index_sort(idx))
		return -1;
	fgit_buf_addf(index_path, "%s/index", top);
	if (fgit_index_write(idx, index_path->ptr, NULL))
		return -1;
	fgit_index_free(idx);
	/* changed after the index: modified, untracked, ignored */
	write_file("d00/f01", "changed content");
	write_file("d05/new", "u");
	write_file("d07/x.o", "o");
	write_file(".gitignore", "*.o\nindex\n");
	fgit_buf_reset(&p);
	fgit_buf_addf(&p, "%s/u", top);
	mkdir(p.ptr, 0755);
	write_file("u/a", "a");
	fgit_buf_release(&p);
	fgit_buf_release(&rel);
	return 0;
}

static int run(struct fgit_buf *out, const char *index_path, int threads)
{
	struct fgit_index *idx;
	struct fgit_ignore *ig;
	struct fgit_ignore_options io = FGIT_IGNORE_OPTIONS_INIT;
	struct fgit_status_options o = FGIT_STATUS_OPTIONS_INIT;
	struct fgit_wt_stat_options so = FGIT_WT_STAT_OPTIONS_INIT;
	struct fgit_status *st;
	size_t i;

	io.workdir = top;
	if (fgit_index_load(&idx, index_path, NULL) || fgit_ignore_new(&ig, &io))
		return -1;
	o.index = idx;
	o.workdir = top;
	o.ignore = ig;
	o.stat = &so;
	o.threads = threads;
	if (fgit_status_collect(&st, &o))
		return -1;
	for (i = 0; i < st->nr; i++)
		fgit_buf_addf(out, "%c%c %s\n", st->items[i].x ? st->items[i].x : ' ',
			      st->items[i].y ? st->items[i].y : ' ', st->items[i].path);
	for (i = 0; i < st->nr_untracked; i++)
		fgit_buf_addf(out, "?? %s\n", st->untracked[i]);
	fgit_buf_addf(out, "refreshed %zu\n", st->refreshed);
	fgit_status_free(st);
	fgit_ignore_free(ig);
	fgit_index_free(idx);
	return 0;
}

TEST(status, threads_agree)
{
	char tmpl[] = "/tmp/fgit-status-mt.XXXXXX";
	struct fgit_buf index_path = FGIT_BUF_INIT, one = FGIT_BUF_INIT, two = FGIT_BUF_INIT;
	struct fgit_buf cmd = FGIT_BUF_INIT;

	top = mkdtemp(tmpl);
	CHECK(top);
	CHECK(setup(&index_path) == 0);
	CHECK(run(&one, index_path.ptr, 1) == 0);
	CHECK(run(&two, index_path.ptr, 2) == 0);
	CHECK_MSG(one.len == two.len && !memcmp(one.ptr, two.ptr, one.len), "1 thread:\n%s\n2 threads:\n%s",
		  one.ptr, two.ptr);
	CHECK(strstr(one.ptr, "AM d00/f01\n") && strstr(one.ptr, "?? d05/new\n") &&
	      strstr(one.ptr, "?? u/\n") && !strstr(one.ptr, "x.o"));
	CHECK_MSG(strstr(one.ptr, "refreshed 210\n"), "%s", one.ptr);	/* f00, f03 .. f18 */
	fgit_buf_addf(&cmd, "rm -rf '%s'", top);
	if (system(cmd.ptr))
		perror("rm");
	fgit_buf_release(&cmd);
	fgit_buf_release(&index_path);
	fgit_buf_release(&one);
	fgit_buf_release(&two);
}
