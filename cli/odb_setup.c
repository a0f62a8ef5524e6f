/* See odb_setup.h: a stand-in for the repository layer. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "odb_setup.h"
#include "fgit/buf.h"

static char *git_dir;

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int looks_like_git_dir(const char *d)
{
	char p[PATH_MAX + 32];
	snprintf(p, sizeof(p), "%s/HEAD", d);
	if (access(p, F_OK))
		return 0;
	snprintf(p, sizeof(p), "%s/objects", d);
	if (!is_dir(p))
		return 0;
	snprintf(p, sizeof(p), "%s/refs", d);
	return is_dir(p);
}

/* A .git file: "gitdir: <path>" relative to its directory. */
static char *read_gitfile(const char *dir, const char *file)
{
	struct fgit_buf b = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
	char *r = NULL;
	if (fgit_buf_read_file(&b, file) < 0)
		goto out;
	fgit_buf_rtrim(&b);
	if (strncmp(b.ptr, "gitdir: ", 8))
		goto out;
	if (b.ptr[8] != '/')
		fgit_buf_addf(&p, "%s/", dir);
	fgit_buf_adds(&p, b.ptr + 8);
	r = fgit_buf_detach(&p, NULL);
out:
	fgit_buf_release(&b);
	fgit_buf_release(&p);
	return r;
}

const char *cli_git_dir(int required)
{
	char cwd[PATH_MAX], cand[PATH_MAX + 8];
	const char *env = getenv("GIT_DIR");
	size_t n;
	int first = 1;

	if (git_dir)
		return git_dir;
	if (env && *env) {
		git_dir = strdup(env);
		return git_dir;
	}
	if (!getcwd(cwd, sizeof(cwd)))
		die_errno("unable to get current working directory");
	for (;;) {
		struct stat st;
		snprintf(cand, sizeof(cand), "%s/.git", strcmp(cwd, "/") ? cwd : "");
		if (stat(cand, &st) == 0) {
			if (S_ISDIR(st.st_mode) && looks_like_git_dir(cand)) {
				/* git names it relative when at the top, as here */
				git_dir = strdup(first ? ".git" : cand);
				return git_dir;
			}
			if (S_ISREG(st.st_mode) && (git_dir = read_gitfile(cwd, cand)))
				return git_dir;
		}
		if (looks_like_git_dir(cwd)) {
			git_dir = strdup(cwd);
			return git_dir;
		}
		if (!strcmp(cwd, "/"))
			break;
		first = 0;
		n = strlen(cwd);
		while (n > 1 && cwd[n - 1] != '/')
			n--;
		cwd[n > 1 ? n - 1 : 1] = 0;
	}
	if (required)
		die("not a git repository (or any of the parent directories): .git");
	return NULL;
}

struct fgit_odb *cli_odb(void)
{
	static struct fgit_odb *odb;
	struct fgit_buf path = FGIT_BUF_INIT;
	const char *env = getenv("GIT_OBJECT_DIRECTORY");

	if (odb)
		return odb;
	if (env && *env)
		fgit_buf_adds(&path, env);
	else
		fgit_buf_addf(&path, "%s/objects", cli_git_dir(1));
	if (fgit_odb_open(&odb, path.ptr, NULL) < 0)
		die_last();
	fgit_buf_release(&path);
	return odb;
}

/* Read a ref (following symrefs); 0 on success. */
static int read_ref(struct fgit_oid *out, const char *name, int depth)
{
	struct fgit_buf b = FGIT_BUF_INIT, p = FGIT_BUF_INIT;
	int r = -1;

	if (depth > 5)
		return -1;
	fgit_buf_addf(&p, "%s/%s", cli_git_dir(1), name);
	if (fgit_buf_read_file(&b, p.ptr) == 0) {
		fgit_buf_rtrim(&b);
		if (!strncmp(b.ptr, "ref: ", 5))
			r = read_ref(out, b.ptr + 5, depth + 1);
		else
			r = fgit_oid_from_hex(out, b.ptr, FGIT_HASH_SHA1) == 0 && b.len == 40 ? 0 : -1;
		goto out;
	}
	fgit_buf_reset(&p);
	fgit_buf_addf(&p, "%s/packed-refs", cli_git_dir(1));
	fgit_buf_reset(&b);
	if (fgit_buf_read_file(&b, p.ptr) == 0) {
		char *line = b.ptr, *nl;
		size_t nlen = strlen(name);
		for (; *line; line = nl + 1) {
			nl = strchr(line, '\n');
			if (!nl)
				nl = line + strlen(line);
			if ((size_t)(nl - line) == 41 + nlen && line[40] == ' ' &&
			    !memcmp(line + 41, name, nlen)) {
				r = fgit_oid_from_hex(out, line, FGIT_HASH_SHA1) == 0 ? 0 : -1;
				break;
			}
			if (!*nl)
				break;
		}
	}
out:
	fgit_error_clear();
	fgit_buf_release(&b);
	fgit_buf_release(&p);
	return r;
}

int cli_resolve(struct fgit_oid *out, struct fgit_odb *odb, const char *spec)
{
	static const char *const rules[] = { "%s", "refs/%s", "refs/tags/%s",
					     "refs/heads/%s", "refs/remotes/%s", NULL };
	size_t len = strlen(spec), i;
	char name[PATH_MAX];
	int all_hex = len > 0;

	for (i = 0; i < len; i++)
		if (fgit_hexval(spec[i]) < 0)
			all_hex = 0;
	if (len == 40 && all_hex)
		return fgit_oid_from_hex(out, spec, FGIT_HASH_SHA1) == 0 ? 0 : FGIT_ENOTFOUND;
	if (!strcmp(spec, "@"))
		spec = "HEAD";
	for (i = 0; rules[i] && *spec; i++) {
		snprintf(name, sizeof(name), rules[i], spec);
		if (read_ref(out, name, 0) == 0)
			return 0;
	}
	if (all_hex && len >= 4 && len < 40) {
		struct fgit_oid prefix;
		fgit_oid_from_hex_prefix(&prefix, spec, len, FGIT_HASH_SHA1);
		return fgit_odb_resolve_prefix(out, odb, &prefix, len);
	}
	return FGIT_ENOTFOUND;
}
