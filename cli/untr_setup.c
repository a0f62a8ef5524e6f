/*
 * The untracked cache in the commands (see untr_setup.h).  The cache itself
 * lives in lib/index/untr.c, its refresh in lib/worktree/dirwalk.c; this
 * file holds the policy git applies around them, from the configuration
 * and the environment.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cli.h"
#include "untr_setup.h"
#include "wt_setup.h"
#include "fgit/config.h"
#include "fgit/index.h"
#include "fgit/repo.h"
#include "fgit/worktree.h"

int cli_untr_status_readonly;

enum cli_untr_setting cli_untr_setting(struct fgit_repo *repo)
{
	const struct fgit_config *cfg = fgit_repo_config(repo);
	enum cli_untr_setting s = CLI_UNTR_KEEP;
	const char *v = NULL;
	int b;

	if (!fgit_config_get_bool(&b, cfg, "feature.manyfiles") && b)
		s = CLI_UNTR_WRITE;
	if (!fgit_config_get_string(&v, cfg, "core.untrackedcache") && v) {
		b = fgit_config_parse_bool(v);
		if (b >= 0)
			s = b ? CLI_UNTR_WRITE : CLI_UNTR_REMOVE;
		else
			s = CLI_UNTR_KEEP;	/* "keep", or anything else */
	}
	fgit_error_clear();
	return s;
}

uint32_t cli_untr_new_flags(struct fgit_repo *repo)
{
	const char *v = NULL;
	uint32_t f = 6;
	if (!fgit_config_get_string(&v, fgit_repo_config(repo), "status.showuntrackedfiles") && v &&
	    !strcmp(v, "all"))
		f = 0;
	fgit_error_clear();
	return f;
}

/* "Location <work tree>, system <sysname>", git's identity of a cache. */
static int ident(struct fgit_buf *out, struct fgit_repo *repo)
{
	struct utsname un;
	if (!fgit_repo_work_tree(repo) || uname(&un))
		return -1;
	fgit_buf_addf(out, "Location %s, system %s", fgit_repo_work_tree(repo), un.sysname);
	return 0;
}

static void add_cache(struct fgit_repo *repo, struct fgit_index *idx, uint32_t flags, int force)
{
	struct fgit_buf id = FGIT_BUF_INIT;
	struct fgit_untr *uc = fgit_index_untracked_cache(idx);

	if (ident(&id, repo) < 0)
		goto out;
	if (!force && uc && fgit_untr_ident_matches(uc, id.ptr))
		goto out;
	if (fgit_index_untracked_cache_create(idx, id.ptr, flags))
		die_last();
out:
	fgit_buf_release(&id);
}

void cli_untr_add(struct fgit_repo *repo, struct fgit_index *idx)
{
	add_cache(repo, idx, cli_untr_new_flags(repo), 0);
}

void cli_untr_tweak(struct fgit_repo *repo, struct fgit_index *idx)
{
	switch (cli_untr_setting(repo)) {
	case CLI_UNTR_REMOVE:
		fgit_index_untracked_cache_drop(idx);
		break;
	case CLI_UNTR_WRITE:
		cli_untr_add(repo, idx);
		break;
	case CLI_UNTR_KEEP:
		break;
	}
}

static int env_bool(const char *name, int dflt)
{
	const char *v = getenv(name);
	int b;
	if (!v)
		return dflt;
	b = fgit_config_parse_bool(v);
	return b < 0 ? dflt : b;
}

/* git's add_patterns_from_file_1 record of a global exclude file */
static void exclude_file(struct fgit_oid *oid, uint32_t st9[9], const char *path, int algo)
{
	struct stat st;

	fgit_oid_zero(oid, algo);
	memset(st9, 0, 9 * sizeof(*st9));
	if (!path || access(path, R_OK) || stat(path, &st))
		return;
	if (fgit_untr_exclude_oid(oid, path, NULL, NULL, algo) < 0) {
		fgit_error_clear();
		return;
	}
	st9[0] = (uint32_t)st.st_ctim.tv_sec;
	st9[1] = (uint32_t)st.st_ctim.tv_nsec;
	st9[2] = (uint32_t)st.st_mtim.tv_sec;
	st9[3] = (uint32_t)st.st_mtim.tv_nsec;
	st9[4] = (uint32_t)st.st_dev;
	st9[5] = (uint32_t)st.st_ino;
	st9[6] = (uint32_t)st.st_uid;
	st9[7] = (uint32_t)st.st_gid;
	st9[8] = (uint32_t)st.st_size;
}

struct fgit_untr *cli_untr_for_status(struct fgit_repo *repo, struct fgit_index *idx,
				      uint32_t want_flags)
{
	struct fgit_untr *uc = fgit_index_untracked_cache(idx);
	struct fgit_buf id = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
	struct fgit_oid oid;
	uint32_t st[9];

	if (!uc || cli_untr_status_readonly || env_bool("GIT_DISABLE_UNTRACKED_CACHE", 0) ||
	    strcmp(uc->per_dir, ".gitignore"))
		return NULL;
	if (ident(&id, repo) < 0 || !fgit_untr_ident_matches(uc, id.ptr)) {
		warning("untracked cache is disabled on this system or location");
		uc = NULL;
		goto out;
	}
	if (uc->dir_flags != want_flags) {
		if (want_flags != cli_untr_new_flags(repo)) {
			uc = NULL;
			goto out;
		}
		add_cache(repo, idx, want_flags, 1);
		uc = fgit_index_untracked_cache(idx);
	}
	if (!uc->root) {
		if (fgit_untr_create_root(uc))
			die_last();
		fgit_index_mark_changed(idx);
	}
	uc->dir_opened = uc->dir_invalidated = uc->gitignore_invalidated = uc->dir_created = 0;
	fgit_buf_addf(&p, "%s/info/exclude", fgit_repo_common_dir(repo));
	exclude_file(&oid, st, p.ptr, uc->algo);
	if (!fgit_oid_equal(&oid, &uc->info_exclude_oid)) {
		fgit_untr_invalidate_gitignore(uc, uc->root);
		uc->info_exclude_oid = oid;
		memcpy(uc->info_exclude_stat, st, sizeof(st));
	}
	fgit_buf_reset(&p);
	cli_excludes_file_path(&p, repo);
	exclude_file(&oid, st, p.len ? p.ptr : NULL, uc->algo);
	if (!fgit_oid_equal(&oid, &uc->excludes_file_oid)) {
		fgit_untr_invalidate_gitignore(uc, uc->root);
		uc->excludes_file_oid = oid;
		memcpy(uc->excludes_file_stat, st, sizeof(st));
	}
	uc->root->recurse = 1;
out:
	fgit_buf_release(&id);
	fgit_buf_release(&p);
	return uc;
}

void cli_untr_after_walk(struct fgit_repo *repo, struct fgit_index *idx,
			 const struct fgit_untr *uc)
{
	int force;
	if (!uc || uc != fgit_index_untracked_cache(idx))
		return;
	force = env_bool("GIT_FORCE_UNTRACKED_CACHE", -1);
	if (force < 0)
		force = cli_untr_setting(repo) == CLI_UNTR_WRITE;
	if (force && (uc->dir_opened || uc->gitignore_invalidated || uc->dir_invalidated))
		fgit_index_mark_changed(idx);
}
