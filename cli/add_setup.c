/* See add_setup.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "add_setup.h"
#include "attr_setup.h"
#include "wt_setup.h"
#include "fgit/add.h"
#include "fgit/buf.h"
#include "fgit/quote.h"
#include "fgit/config.h"
#include "fgit/ignore.h"
#include "fgit/index.h"
#include "fgit/pathspec.h"
#include "fgit/repo.h"

const char **cli_pathspec_args(size_t *n, const char **argv, const char *from_file, int nul)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const char **list = NULL;
	size_t k = 0, alloc = 0, off = 0;
	char *data;
	size_t len;

	if (!from_file) {
		if (nul)
			die("the option '%s' requires '%s'", "--pathspec-file-nul",
			    "--pathspec-from-file");
		return argv;
	}
	if (*n)
		die("'%s' and pathspec arguments cannot be used together", "--pathspec-from-file");
	if (!strcmp(from_file, "-")) {
		if (fgit_buf_read_fd(&b, 0, 0) < 0)
			die_errno("could not read from stdin");
	} else {
		char *p = cli_prefix_path(cli_globals.prefix, from_file);
		if (fgit_buf_read_file(&b, p) < 0)
			die_errno("could not open '%s' for reading", from_file);
		free(p);
	}
	data = fgit_buf_detach(&b, &len);
	while (off < len) {
		char *start = data + off, *end = memchr(start, nul ? '\0' : '\n', len - off);
		size_t l = end ? (size_t)(end - start) : len - off;
		const char *item;

		off += l + 1;
		start[l] = '\0';
		if (!nul && l && start[l - 1] == '\r')
			start[--l] = '\0';
		if (!nul && start[0] == '"') {
			struct fgit_buf u = FGIT_BUF_INIT;
			const char *qend;
			if (fgit_unquote_c_style(&u, start, &qend) || *qend)
				die("line is badly quoted: %s", start);
			item = fgit_buf_detach(&u, NULL);
		} else {
			item = start;
		}
		if (k + 1 >= alloc) {
			alloc = alloc ? alloc * 2 : 16;
			list = realloc(list, alloc * sizeof(*list));
			if (!list)
				die("out of memory");
		}
		list[k++] = item;
	}
	if (!list && !(list = calloc(1, sizeof(*list))))
		die("out of memory");
	list[k] = NULL;
	*n = k;
	return list;
}

static int env_bool(const char *name)
{
	const char *v = getenv(name);
	return v && fgit_config_parse_bool(v) > 0;
}

unsigned cli_pathspec_flags(void)
{
	unsigned f = 0;
	if (env_bool("GIT_LITERAL_PATHSPECS"))
		f |= FGIT_PATHSPEC_LITERAL_ALL;
	if (env_bool("GIT_GLOB_PATHSPECS"))
		f |= FGIT_PATHSPEC_GLOB_ALL;
	if (env_bool("GIT_NOGLOB_PATHSPECS"))
		f |= FGIT_PATHSPEC_NOGLOB_ALL;
	if (env_bool("GIT_ICASE_PATHSPECS"))
		f |= FGIT_PATHSPEC_ICASE_ALL;
	return f;
}

void cli_add_options(struct fgit_add_options *o, struct fgit_repo *repo, const char *workdir)
{
	struct fgit_config *cfg = fgit_repo_config(repo);

	if (fgit_repo_odb(&o->odb, repo))
		die_last();
	o->workdir = workdir;
	o->config = cfg;
	o->attrs = cli_attrs(repo);
	fgit_convert_config_load(&o->conv, cfg);
	o->conv.filter_dir = fgit_repo_work_tree(repo);
	cli_wt_stat_options(&o->stat, repo);
}

struct fgit_ignore *cli_standard_ignore(struct fgit_repo *repo)
{
	struct fgit_ignore_options o = FGIT_IGNORE_OPTIONS_INIT;
	struct fgit_ignore *ig;
	int b;

	o.workdir = ".";
	if (!fgit_config_get_bool(&b, fgit_repo_config(repo), "core.ignorecase") && b)
		o.flags |= FGIT_IGNORE_ICASE;
	fgit_error_clear();
	if (fgit_ignore_new(&ig, &o) || cli_add_standard_excludes(ig, repo))
		die_last();
	return ig;
}

void cli_index_write_opts(struct fgit_index_write_opts *wo, struct fgit_repo *repo)
{
	struct fgit_config *cfg = fgit_repo_config(repo);
	const char *env = getenv("GIT_INDEX_VERSION");
	int v, b;

	*wo = (struct fgit_index_write_opts)FGIT_INDEX_WRITE_OPTS_INIT;
	if (!fgit_config_get_int(&v, cfg, "index.version") && v >= 2 && v <= 4)
		wo->index_version = (unsigned)v;
	if (env && atoi(env) >= 2 && atoi(env) <= 4)
		wo->index_version = (unsigned)atoi(env);
	if (!fgit_config_get_bool(&b, cfg, "index.recordendofindexentries"))
		wo->record_eoie = b;
	if (!fgit_config_get_bool(&b, cfg, "index.recordoffsettable"))
		wo->record_ieot = b;
	if (!fgit_config_get_bool(&b, cfg, "index.threads"))
		wo->threads = b ? 0 : 1;
	else if (!fgit_config_get_int(&v, cfg, "index.threads"))
		wo->threads = v;
	fgit_error_clear();
}

int cli_add_report_common(enum fgit_add_event ev, const char *path, const char *msg)
{
	const char *p, *nl;

	switch (ev) {
	case FGIT_ADD_WARNING:
		warning("%s", msg);
		return 0;
	case FGIT_ADD_ERROR:
		error("%s", msg);
		return 0;
	case FGIT_ADD_FATAL:
		die("%s", msg);
	case FGIT_ADD_FAILED:
		for (p = msg; p; p = nl ? nl + 1 : NULL) {
			nl = strchr(p, '\n');
			error("%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
		}
		if (!strstr(msg, "does not have a commit checked out"))
			error("unable to index file '%s'", path);
		return 1;
	default:
		return 0;
	}
}
