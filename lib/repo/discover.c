/*
 * Repository discovery, following git's setup rules (setup.c's cases as
 * documented in git(1) under GIT_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES
 * and in gitrepository-layout(5)), without changing the process's cwd: the
 * library never chdir()s; it computes the prefix and the display forms of
 * the directories that git would print after its own chdir.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/config.h"
#include "repo.h"

static char *xstrdup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static char *join(const char *a, const char *b)
{
	struct fgit_buf buf = FGIT_BUF_INIT;
	size_t n = strlen(a);

	fgit_buf_adds(&buf, a);
	if (n && a[n - 1] != '/')
		fgit_buf_addch(&buf, '/');
	fgit_buf_adds(&buf, b);
	return fgit_buf_detach(&buf, NULL);
}

static int is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* HEAD must be a symref into refs/ or a full object id (any algorithm). */
static int valid_head(const char *git_dir)
{
	char *path = join(git_dir, "HEAD");
	struct fgit_buf b = FGIT_BUF_INIT;
	struct stat st;
	int ok = 0;
	size_t i;

	if (!path)
		return 0;
	if (lstat(path, &st))
		goto out;
	if (S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			ok = !strncmp(target, "refs/", 5);
		}
		goto out;
	}
	if (!S_ISREG(st.st_mode) || fgit_buf_read_file(&b, path))
		goto out;
	if (!strncmp(b.ptr, "ref:", 4)) {
		const char *p = b.ptr + 4;
		while (*p == ' ' || *p == '\t')
			p++;
		ok = !strncmp(p, "refs/", 5);
		goto out;
	}
	for (i = 0; i < b.len && fgit_hexval(b.ptr[i]) >= 0; i++)
		;
	ok = (i == 40 || i == 64) && (i == b.len || b.ptr[i] == '\n' || b.ptr[i] == ' ');
out:
	fgit_error_clear();
	fgit_buf_release(&b);
	free(path);
	return ok;
}

/* The common dir of a git dir: its "commondir" file, or itself. */
static char *common_dir_of(const char *git_dir)
{
	char *path = join(git_dir, "commondir"), *out = NULL;
	struct fgit_buf b = FGIT_BUF_INIT;

	if (path && fgit_buf_read_file(&b, path) == 0) {
		fgit_buf_rtrim(&b);
		if (b.len) {
			char *p = b.ptr[0] == '/' ? strdup(b.ptr) : join(git_dir, b.ptr);
			out = p ? realpath(p, NULL) : NULL;
			if (!out)
				out = p;
			else
				free(p);
		}
	}
	fgit_error_clear();
	fgit_buf_release(&b);
	free(path);
	return out ? out : strdup(git_dir);
}

/* git's is_git_directory(): HEAD, objects/ and refs/ where they belong. */
static int is_git_directory(const char *dir)
{
	char *common = common_dir_of(dir), *p;
	const char *objenv = getenv("GIT_OBJECT_DIRECTORY");
	int ok = 0;

	if (!common)
		return 0;
	if (objenv) {
		if (!is_dir(objenv))
			goto out;
	} else {
		p = join(common, "objects");
		ok = p && is_dir(p);
		free(p);
		if (!ok)
			goto out;
		ok = 0;
	}
	p = join(common, "refs");
	ok = p && access(p, X_OK) == 0;
	free(p);
	if (ok)
		ok = valid_head(dir);
out:
	free(common);
	return ok;
}

/*
 * Read a gitfile ("gitdir: <path>").  Returns the real path of the
 * directory it names, or NULL with git's message set.
 */
static char *read_gitfile(const char *file)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	char *target = NULL, *real = NULL;

	if (fgit_buf_read_file(&b, file))
		goto out;
	fgit_buf_rtrim(&b);
	if (strncmp(b.ptr, "gitdir: ", 8)) {
		fgit_error_set(FGIT_EINVALID, "invalid gitfile format: %s", file);
		goto out;
	}
	if (b.ptr[8] == '/') {
		target = strdup(b.ptr + 8);
	} else {
		const char *slash = strrchr(file, '/');
		struct fgit_buf t = FGIT_BUF_INIT;
		if (slash)
			fgit_buf_add(&t, file, (size_t)(slash - file) + 1);
		fgit_buf_adds(&t, b.ptr + 8);
		target = fgit_buf_detach(&t, NULL);
	}
	if (!target || !is_git_directory(target)) {
		fgit_error_set(FGIT_ENOTFOUND, "not a git repository: %s", target ? target : "");
		goto out;
	}
	real = realpath(target, NULL);
	if (!real)
		fgit_error_errno(FGIT_ERROR, "cannot resolve '%s'", target);
out:
	free(target);
	fgit_buf_release(&b);
	return real;
}

static char *get_cwd(const char *start_dir)
{
	char *cwd = getcwd(NULL, 0), *out;

	if (!cwd) {
		fgit_error_errno(FGIT_ERROR, "unable to get current working directory");
		return NULL;
	}
	if (!start_dir)
		return cwd;
	out = start_dir[0] == '/' ? strdup(start_dir) : join(cwd, start_dir);
	free(cwd);
	if (out) {
		char *real = realpath(out, NULL);
		if (real) {
			free(out);
			out = real;
		}
	}
	return out;
}

/* Is `path` equal to `dir` or below it?  Returns the length of the part
 * after dir's slash (0 when equal), or -1. */
static ssize_t path_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[0] == '/' ? (ssize_t)strlen(path + 1) : -1;
	if (strncmp(path, dir, n))
		return -1;
	if (!path[n])
		return 0;
	if (path[n] != '/')
		return -1;
	return (ssize_t)strlen(path + n + 1);
}

/* "../" for each directory of prefix, then target (relative to the top). */
static char *relative_to_prefix(const char *prefix, const char *target)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const char *p;

	for (p = prefix; *p; p++)
		if (*p == '/')
			fgit_buf_adds(&b, "../");
	fgit_buf_adds(&b, target);
	return fgit_buf_detach(&b, NULL);
}

/* Extensions git 2.39 knows: some valid in any version, some in v1 only. */
struct ext_check {
	int version;
	char *bad;
	int v1_only;
};

static int check_extension(const char *key, const char *value,
			   enum fgit_config_scope scope, void *payload)
{
	static const char *const any[] = { "noop", "preciousobjects", "partialclone",
					   "worktreeconfig", NULL };
	static const char *const v1[] = { "noop-v1", "objectformat", NULL };
	struct ext_check *ec = payload;
	const char *name;
	int i;

	if (strncmp(key, "extensions.", 11) || ec->bad)
		return 0;
	name = key + 11;
	for (i = 0; any[i]; i++)
		if (!strcmp(name, any[i]))
			return 0;
	for (i = 0; v1[i]; i++) {
		if (!strcmp(name, v1[i])) {
			if (ec->version == 0) {
				ec->bad = strdup(name);
				ec->v1_only = 1;
			}
			return 0;
		}
	}
	if (ec->version >= 1)
		ec->bad = strdup(name);
	return 0;
}

static int check_format(struct fgit_repo *repo)
{
	int64_t version = 0;
	const char *fmt = NULL;
	int r;

	r = fgit_config_get_int64(&version, repo->local, "core.repositoryformatversion");
	if (r && r != FGIT_ENOTFOUND)
		return r;
	if (version > 1 || version < 0)
		return fgit_error_set(FGIT_EINVALID,
				      "Expected git repo version <= 1, found %lld",
				      (long long)version);
	repo->algo = FGIT_HASH_SHA1;
	{
		struct ext_check ec = { (int)version, NULL, 0 };
		fgit_config_foreach(repo->local, check_extension, &ec);
		if (ec.bad) {
			r = fgit_error_set(FGIT_EINVALID, ec.v1_only ?
					   "repo version is 0, but v1-only extension found:\n\t%s" :
					   "unknown repository extension found:\n\t%s", ec.bad);
			free(ec.bad);
			return r;
		}
	}
	if (fgit_config_get_string(&fmt, repo->local, "extensions.objectformat") == 0 &&
	    version == 1) {
		if (!fmt)
			return fgit_error_set(FGIT_EINVALID,
					      "missing value for 'extensions.objectformat'");
		if (!strcasecmp(fmt, "sha1"))
			repo->algo = FGIT_HASH_SHA1;
		else if (!strcasecmp(fmt, "sha256"))
			repo->algo = FGIT_HASH_SHA256;
		else
			return fgit_error_set(FGIT_EINVALID, "invalid value for 'extensions.objectformat'");
	}
	fgit_error_clear();
	return 0;
}

/*
 * Load the configuration.  `shown` is the git dir as git would name it in
 * "bad config line N in file <shown>/config" (relative where git's is);
 * it is used to open the files only when valid from the process's cwd.
 */
static int load_config(struct fgit_repo *repo, const char *shown)
{
	int r;

	if (shown && !repo->from_start_dir && !strcmp(repo->git_dir, repo->common_dir))
		r = fgit_config_load(&repo->config, shown, shown, 0);
	else
		r = fgit_config_load(&repo->config, repo->git_dir, repo->common_dir, 0);
	if (r)
		return r;
	/*
	 * git decides the repository format, core.bare and core.worktree from
	 * the repository's own config file only (-c core.bare does not make
	 * a worktree bare): keep that file apart for setup.
	 */
	{
		struct fgit_buf path = FGIT_BUF_INIT;
		struct fgit_config_context ctx = { repo->git_dir, NULL };
		const char *dir = shown && !repo->from_start_dir &&
				  !strcmp(repo->git_dir, repo->common_dir) ? shown : repo->common_dir;
		fgit_buf_addf(&path, "%s/config", dir);
		r = fgit_config_new(&repo->local);
		if (!r)
			r = fgit_config_add_file(repo->local, path.ptr, FGIT_CONFIG_SCOPE_LOCAL, 1, &ctx);
		fgit_buf_release(&path);
		if (r)
			return r;
	}
	return check_format(repo);
}

/* core.bare: 1 true, 0 false, -1 unset (git's is_bare_repository_cfg). */
static int bare_cfg(struct fgit_repo *repo, int *out)
{
	int b, r = fgit_config_get_bool(&b, repo->local, "core.bare");

	if (r == FGIT_ENOTFOUND) {
		*out = -1;
		return 0;
	}
	if (r)
		return r;
	*out = b;
	return 0;
}

/*
 * With a worktree known (absolute), place cwd against it: prefix,
 * inside_work_tree, and whether git would have made the git dir absolute
 * (it does when it has to chdir up to the top).
 */
static int place_in_worktree(struct fgit_repo *repo, const char *cwd, const char *wt,
			     const char *git_dir_given)
{
	char *real = realpath(wt, NULL);
	ssize_t rest;

	if (!real)
		return fgit_error_errno(FGIT_ERROR, "cannot chdir to '%s'", wt);
	repo->work_tree = real;
	rest = path_inside(cwd, real);
	if (rest < 0) {
		repo->inside_work_tree = 0;
		repo->git_dir_display = strdup(git_dir_given);
	} else if (rest == 0) {
		repo->inside_work_tree = 1;
		repo->git_dir_display = strdup(git_dir_given);
	} else {
		const char *sub = cwd + strlen(cwd) - rest;
		repo->inside_work_tree = 1;
		repo->prefix = join(sub, "");
		repo->git_dir_display = strdup(repo->git_dir);
	}
	return 0;
}

/* GIT_DIR is set (or --bare gave the cwd): git's "explicit" setup. */
static int setup_explicit(struct fgit_repo *repo, const char *cwd, const char *gitdir_env,
			  unsigned int flags)
{
	const char *wt_env = (flags & FGIT_REPO_NO_ENV) ? NULL : getenv("GIT_WORK_TREE");
	const char *core_wt = NULL;
	char *abs, *wt = NULL;
	int bare, r;
	struct stat st;

	abs = gitdir_env[0] == '/' ? strdup(gitdir_env) : join(cwd, gitdir_env);
	if (!abs)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	if (!stat(abs, &st) && S_ISREG(st.st_mode)) {
		char *target = read_gitfile(abs);
		free(abs);
		if (!target)
			return fgit_error_last_code();
		abs = target;
		gitdir_env = abs;
	} else if (!is_git_directory(abs)) {
		free(abs);
		return fgit_error_set(FGIT_ENOTFOUND, "not a git repository: '%s'", gitdir_env);
	}
	repo->git_dir = realpath(abs, NULL);
	free(abs);
	if (!repo->git_dir)
		return fgit_error_errno(FGIT_ERROR, "cannot resolve '%s'", gitdir_env);
	repo->common_dir = common_dir_of(repo->git_dir);
	if ((r = load_config(repo, gitdir_env)) || (r = bare_cfg(repo, &bare)))
		return r;
	if (flags & FGIT_REPO_BARE)
		bare = 1;

	if (fgit_config_get_string(&core_wt, repo->local, "core.worktree") || !core_wt)
		core_wt = NULL;
	fgit_error_clear();
	if (wt_env) {
		wt = strdup(wt_env);
	} else if (bare > 0) {
		wt = NULL;
	} else if (core_wt) {
		wt = core_wt[0] == '/' ? strdup(core_wt) : join(repo->git_dir, core_wt);
	} else {
		/* GIT_DIR without a worktree: the cwd is the top */
		repo->work_tree = strdup(cwd);
		repo->inside_work_tree = 1;
		repo->git_dir_display = strdup(gitdir_env);
		repo->bare = 0;
		return 0;
	}
	if (!wt) {
		repo->git_dir_display = strdup(gitdir_env);
		repo->bare = 1;
		return 0;
	}
	r = place_in_worktree(repo, cwd, wt, gitdir_env);
	free(wt);
	return r;
}

/* Parse $GIT_CEILING_DIRECTORIES: the length of the longest entry that is
 * a proper ancestor of cwd, or -1. */
static ssize_t ceiling_offset(const char *cwd)
{
	const char *env = getenv("GIT_CEILING_DIRECTORIES");
	ssize_t best = -1;
	char *copy, *tok, *save = NULL;

	if (!env || !*env)
		return -1;
	copy = strdup(env);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *real;
		const char *c;
		size_t n;
		if (tok[0] != '/')
			continue;
		real = realpath(tok, NULL);
		c = real ? real : tok;
		n = strlen(c);
		while (n > 0 && c[n - 1] == '/')
			n--;
		if (n < strlen(cwd) && !strncmp(cwd, c, n) && cwd[n] == '/' &&
		    (ssize_t)n > best)
			best = (ssize_t)n;
		free(real);
	}
	free(copy);
	return best;
}

static int setup_discovered(struct fgit_repo *repo, const char *cwd, const char *top,
			    const char *gitfile_target, unsigned int flags)
{
	const char *core_wt = NULL;
	char *dotgit = join(top, ".git");
	ssize_t rest = path_inside(cwd, top);
	int bare, r;

	if (!dotgit)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	repo->git_dir = gitfile_target ? strdup(gitfile_target) : dotgit;
	if (gitfile_target)
		free(dotgit);
	repo->common_dir = common_dir_of(repo->git_dir);
	r = load_config(repo, gitfile_target || rest ? repo->git_dir : ".git");
	if (r || (r = bare_cfg(repo, &bare)))
		return r;
	if (flags & FGIT_REPO_BARE)
		bare = 1;
	if (bare > 0) {
		/* core.bare: the directory above .git is no worktree */
		repo->git_dir_display = strdup(gitfile_target || rest ? repo->git_dir : ".git");
		repo->bare = 1;
		return 0;
	}
	if (fgit_config_get_string(&core_wt, repo->local, "core.worktree") == 0 && core_wt) {
		char *wt = core_wt[0] == '/' ? strdup(core_wt) : join(repo->git_dir, core_wt);
		r = place_in_worktree(repo, cwd, wt,
				      gitfile_target || rest ? repo->git_dir : ".git");
		free(wt);
		return r;
	}
	fgit_error_clear();
	repo->work_tree = strdup(top);
	repo->inside_work_tree = 1;
	if (rest > 0)
		repo->prefix = join(cwd + strlen(cwd) - rest, "");
	if (gitfile_target) {
		repo->git_dir_display = strdup(repo->git_dir);
	} else if (rest == 0) {
		repo->git_dir_display = strdup(".git");
	} else {
		repo->git_dir_display = strdup(repo->git_dir);
		if (!strcmp(repo->common_dir, repo->git_dir))
			repo->common_dir_display = relative_to_prefix(repo->prefix, ".git");
	}
	return 0;
}

static int setup_bare(struct fgit_repo *repo, const char *cwd, const char *dir,
		      unsigned int flags)
{
	int bare, r;

	repo->git_dir = strdup(dir);
	repo->common_dir = common_dir_of(dir);
	if ((r = load_config(repo, strcmp(cwd, dir) ? dir : ".")) || (r = bare_cfg(repo, &bare)))
		return r;
	repo->inside_git_dir = 1;
	repo->bare = bare != 0 || (flags & FGIT_REPO_BARE);
	repo->git_dir_display = strdup(strcmp(cwd, dir) ? dir : ".");
	return 0;
}

static int discover(struct fgit_repo *repo, const char *cwd, unsigned int flags)
{
	char *dir = strdup(cwd);
	ssize_t ceil = (flags & FGIT_REPO_NO_ENV) ? -1 : ceiling_offset(cwd);
	int r = FGIT_ENOTFOUND;

	if (!dir)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (;;) {
		char *dotgit = join(dir, ".git");
		struct stat st;
		char *slash;

		if (dotgit && !stat(dotgit, &st)) {
			if (S_ISREG(st.st_mode)) {
				char *target = read_gitfile(dotgit);
				free(dotgit);
				if (!target) {
					r = fgit_error_last_code();
					goto out;
				}
				r = setup_discovered(repo, cwd, dir, target, flags);
				free(target);
				goto out;
			}
			if (S_ISDIR(st.st_mode) && is_git_directory(dotgit)) {
				free(dotgit);
				r = setup_discovered(repo, cwd, dir, NULL, flags);
				goto out;
			}
		}
		free(dotgit);
		if (is_git_directory(dir)) {
			r = setup_bare(repo, cwd, dir, flags);
			goto out;
		}
		if (flags & FGIT_REPO_NO_SEARCH)
			break;
		slash = strrchr(dir, '/');
		if (!slash || (slash == dir && !dir[1]))
			break;
		if (ceil >= 0 && slash - dir <= ceil)
			break;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	r = fgit_error_set(FGIT_ENOTFOUND,
			   "not a git repository (or any of the parent directories): .git");
out:
	free(dir);
	return r;
}

int fgit_repo_discover(struct fgit_repo **out, const char *start_dir, unsigned int flags)
{
	struct fgit_repo *repo = calloc(1, sizeof(*repo));
	const char *gitdir_env = NULL;
	char *cwd = NULL;
	int r;

	if (!repo)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	pthread_mutex_init(&repo->lock, NULL);
	repo->from_start_dir = start_dir != NULL;
	cwd = get_cwd(start_dir);
	if (!cwd) {
		r = fgit_error_last_code();
		goto fail;
	}
	if (!(flags & FGIT_REPO_NO_ENV))
		gitdir_env = getenv("GIT_DIR");
	if (gitdir_env && *gitdir_env)
		r = setup_explicit(repo, cwd, gitdir_env, flags);
	else
		r = discover(repo, cwd, flags);
	if (r)
		goto fail;
	if (!repo->prefix)
		repo->prefix = strdup("");
	if (!repo->common_dir_display)
		repo->common_dir_display = strcmp(repo->common_dir, repo->git_dir)
			? strdup(repo->common_dir) : xstrdup_or_null(repo->git_dir_display);
	if (!repo->inside_git_dir && path_inside(cwd, repo->git_dir) >= 0)
		repo->inside_git_dir = 1;
	if (!repo->prefix || !repo->git_dir_display || !repo->common_dir_display ||
	    !repo->common_dir) {
		r = fgit_error_set(FGIT_ENOMEM, "out of memory");
		goto fail;
	}
	free(cwd);
	*out = repo;
	return 0;
fail:
	free(cwd);
	fgit_repo_free(repo);
	return r;
}

void fgit_repo_free(struct fgit_repo *repo)
{
	if (!repo)
		return;
	if (repo->odb && repo->odb_free)
		repo->odb_free(repo->odb);
	if (repo->refdb && repo->refdb_free)
		repo->refdb_free(repo->refdb);
	fgit_config_free(repo->config);
	fgit_config_free(repo->local);
	free(repo->git_dir);
	free(repo->common_dir);
	free(repo->work_tree);
	free(repo->prefix);
	free(repo->git_dir_display);
	free(repo->common_dir_display);
	pthread_mutex_destroy(&repo->lock);
	free(repo);
}

const char *fgit_repo_git_dir(const struct fgit_repo *repo) { return repo->git_dir; }
const char *fgit_repo_common_dir(const struct fgit_repo *repo) { return repo->common_dir; }
const char *fgit_repo_work_tree(const struct fgit_repo *repo) { return repo->work_tree; }
const char *fgit_repo_prefix(const struct fgit_repo *repo) { return repo->prefix; }
int fgit_repo_is_bare(const struct fgit_repo *repo) { return repo->bare && !repo->work_tree; }
int fgit_repo_inside_work_tree(const struct fgit_repo *repo) { return repo->inside_work_tree; }
int fgit_repo_inside_git_dir(const struct fgit_repo *repo) { return repo->inside_git_dir; }
int fgit_repo_algo(const struct fgit_repo *repo) { return repo->algo; }
struct fgit_config *fgit_repo_config(struct fgit_repo *repo) { return repo->config; }
const char *fgit_repo_git_dir_display(const struct fgit_repo *repo) { return repo->git_dir_display; }
const char *fgit_repo_common_dir_display(const struct fgit_repo *repo) { return repo->common_dir_display; }
