/*
 * The lazily opened parts of a repository: the object database (with its
 * options from the config) and the refs.  Kept apart from discovery so a
 * program that only discovers does not link the object database.
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/odb.h"
#include "fgit/refs.h"
#include "repo.h"

static void get_int(int *out, struct fgit_config *cfg, const char *key)
{
	int v;
	if (fgit_config_get_int(&v, cfg, key) == 0)
		*out = v;
	fgit_error_clear();
}

int fgit_repo_odb(struct fgit_odb **out, struct fgit_repo *repo)
{
	struct fgit_odb_options opts = FGIT_ODB_OPTIONS_INIT;
	struct fgit_buf path = FGIT_BUF_INIT;
	const char *env = getenv("GIT_OBJECT_DIRECTORY");
	int64_t n;
	int r = 0;

	pthread_mutex_lock(&repo->lock);
	if (repo->odb)
		goto done;
	opts.algo = repo->algo;
	get_int(&opts.compression, repo->config, "core.compression");
	opts.loose_compression = opts.compression;
	get_int(&opts.loose_compression, repo->config, "core.loosecompression");
	if (fgit_config_get_int64(&n, repo->config, "core.deltabasecachelimit") == 0 && n > 0)
		opts.delta_base_cache_limit = (size_t)n;
	if (fgit_config_get_int64(&n, repo->config, "core.bigfilethreshold") == 0 && n > 0)
		opts.big_file_threshold = (uint64_t)n;
	fgit_error_clear();
	if (env && *env)
		fgit_buf_adds(&path, env);
	else
		fgit_buf_addf(&path, "%s/objects", repo->common_dir);
	r = fgit_odb_open(&repo->odb, path.ptr, &opts);
	if (!r)
		repo->odb_free = fgit_odb_free;
done:
	if (!r)
		*out = repo->odb;
	pthread_mutex_unlock(&repo->lock);
	fgit_buf_release(&path);
	return r;
}

int fgit_repo_refdb(struct fgit_refdb **out, struct fgit_repo *repo)
{
	int r = 0;

	pthread_mutex_lock(&repo->lock);
	if (!repo->refdb) {
		/* git names packed-refs by its git dir as it shows it */
		if (!repo->from_start_dir && !strcmp(repo->git_dir, repo->common_dir))
			r = fgit_refdb_open(&repo->refdb, repo->git_dir_display,
					    repo->git_dir_display, repo->algo);
		else
			r = fgit_refdb_open(&repo->refdb, repo->git_dir, repo->common_dir,
					    repo->algo);
		if (!r)
			repo->refdb_free = fgit_refdb_free;
	}
	if (!r)
		*out = repo->refdb;
	pthread_mutex_unlock(&repo->lock);
	return r;
}
