/*
 * The lazily opened parts of a repository: the object database (with its
 * options from the config) and the refs.  Kept apart from discovery so a
 * program that only discovers does not link the object database.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>
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

/* Ref writes check the objects they store against the odb, as git does. */
static int refdb_object_type(const struct fgit_oid *oid, void *payload)
{
	struct fgit_repo *repo = payload;
	struct fgit_object_info info;
	struct fgit_odb *odb;
	int r;

	if ((r = fgit_repo_odb(&odb, repo)))
		return r;
	if ((r = fgit_odb_read_info(&info, odb, oid, 0)))
		return r;
	return (int)info.type;
}

/* core.logAllRefUpdates: "always", a boolean, or unset (not in bare
 * repositories). */
static enum fgit_log_refs_mode log_refs_mode(struct fgit_repo *repo)
{
	const char *v = NULL;
	int b;

	if (fgit_config_get_string(&v, repo->config, "core.logallrefupdates")) {
		fgit_error_clear();
		return fgit_repo_is_bare(repo) ? FGIT_LOG_REFS_NONE : FGIT_LOG_REFS_NORMAL;
	}
	if (!v)
		return FGIT_LOG_REFS_NORMAL;
	if (!strcasecmp(v, "always"))
		return FGIT_LOG_REFS_ALWAYS;
	b = fgit_config_parse_bool(v);
	return b > 0 ? FGIT_LOG_REFS_NORMAL : FGIT_LOG_REFS_NONE;
}

static long config_ms(struct fgit_repo *repo, const char *key, long def)
{
	int64_t v;

	if (fgit_config_get_int64(&v, repo->config, key)) {
		fgit_error_clear();
		return def;
	}
	return (long)v;
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
		if (!r) {
			repo->refdb_free = fgit_refdb_free;
			fgit_refdb_set_log_refs(repo->refdb, log_refs_mode(repo));
			fgit_refdb_set_object_type_cb(repo->refdb, refdb_object_type, repo);
			fgit_refdb_set_lock_timeouts(repo->refdb,
				config_ms(repo, "core.filesreflocktimeout", 100),
				config_ms(repo, "core.packedrefstimeout", 1000));
		}
	}
	if (!r)
		*out = repo->refdb;
	pthread_mutex_unlock(&repo->lock);
	return r;
}

/* Objects in the .idx files of one pack directory (git's approximation). */
static uint64_t count_packed(const char *objects_dir)
{
	struct fgit_buf path = FGIT_BUF_INIT;
	uint64_t count = 0;
	struct dirent *de;
	DIR *d;

	fgit_buf_addf(&path, "%s/pack", objects_dir);
	d = opendir(path.ptr);
	if (!d)
		goto out;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		unsigned char hdr[8 + 256 * 4];
		size_t off;
		int fd;

		if (n < 5 || strcmp(de->d_name + n - 4, ".idx"))
			continue;
		fgit_buf_reset(&path);
		fgit_buf_addf(&path, "%s/pack/%s", objects_dir, de->d_name);
		fd = open(path.ptr, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr)) {
			/* v2 starts with "\377tOc" and a version; v1 with the fan-out */
			off = !memcmp(hdr, "\377tOc", 4) ? 8 + 255 * 4 : 255 * 4;
			count += ((uint64_t)hdr[off] << 24) | ((uint64_t)hdr[off + 1] << 16) |
				 ((uint64_t)hdr[off + 2] << 8) | hdr[off + 3];
		}
		close(fd);
	}
	closedir(d);
out:
	fgit_buf_release(&path);
	return count;
}

int fgit_repo_default_abbrev(struct fgit_repo *repo)
{
	const char *v = NULL;
	struct fgit_odb *odb;
	uint64_t count;
	int len, n;

	if (fgit_config_get_string(&v, repo->config, "core.abbrev") == 0 && v &&
	    strcasecmp(v, "auto")) {
		if (fgit_config_parse_bool(v) == 0)
			return (int)fgit_hash_hexsz(repo->algo);
		if (fgit_config_get_int(&n, repo->config, "core.abbrev") == 0)
			return n;
	}
	fgit_error_clear();
	if (fgit_repo_odb(&odb, repo))
		return 7;
	count = count_packed(fgit_odb_path(odb));
	{
		const char *alts[64];
		size_t i, nalt = fgit_odb_alternates(odb, alts, 64);
		for (i = 0; i < nalt && i < 64; i++)
			count += count_packed(alts[i]);
	}
	/* ~2^bits objects collide around 2^(bits/2); 4 bits per digit */
	for (len = 0; count; count >>= 1)
		len++;
	len = (len + 1) / 2;
	return len < 7 ? 7 : len;
}
