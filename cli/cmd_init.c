/*
 * git init: create a repository, or re-initialize one (templates copied
 * without overwriting, core settings rewritten, HEAD kept).  Without a
 * template directory fgit writes what git's default template holds minus
 * the hook samples.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/lockfile.h"
#include "fgit/refs.h"

static const char *const init_usage[] = {
	"git init [-q | --quiet] [--bare] [--template=<template-directory>]\n"
	"                [--separate-git-dir <git-dir>] [--object-format=<format>]\n"
	"                [-b <branch-name> | --initial-branch=<branch-name>]\n"
	"                [--shared[=<permissions>]] [<directory>]",
	NULL
};

static const char default_description[] =
	"Unnamed repository; edit this file 'description' to name the repository.\n";
static const char default_exclude[] =
	"# git ls-files --others --exclude-from=.git/info/exclude\n"
	"# Lines that start with '#' are comments.\n"
	"# For a project mostly in C, the following would be a good set of\n"
	"# exclude patterns (uncomment them if you want to use them):\n"
	"# *.[oa]\n"
	"# *~\n";

static char *path_join(const char *a, const char *b)
{
	struct fgit_buf buf = FGIT_BUF_INIT;
	fgit_buf_addf(&buf, "%s/%s", a, b);
	return fgit_buf_detach(&buf, NULL);
}

static void mkdir_or_die(const char *path)
{
	if (mkdir(path, 0777) && errno != EEXIST)
		die_errno("cannot mkdir %s", path);
}

static void mkdir_in(const char *dir, const char *sub)
{
	char *p = path_join(dir, sub);
	mkdir_or_die(p);
	free(p);
}

/* Create parents and the directory itself, like mkdir -p. */
static void mkdir_p(const char *path)
{
	char *copy = strdup(path), *p;

	for (p = copy + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(copy, 0777) && errno != EEXIST)
			die_errno("cannot mkdir %s", copy);
		*p = '/';
	}
	if (mkdir(copy, 0777) && errno != EEXIST)
		die_errno("cannot mkdir %s", copy);
	free(copy);
}

static void write_new_file(const char *dir, const char *name, const char *content)
{
	char *p = path_join(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0666);

	if (fd >= 0) {
		size_t n = strlen(content);
		if (write(fd, content, n) != (ssize_t)n || close(fd))
			die_errno("could not write '%s'", p);
	} else if (errno != EEXIST) {
		die_errno("could not create '%s'", p);
	}
	free(p);
}

static void copy_file(const char *src, const char *dst, mode_t mode)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int fd;

	if (fgit_buf_read_file(&b, src))
		die("cannot copy '%s' to '%s'", src, dst);
	fd = open(dst, O_WRONLY | O_CREAT | O_EXCL, (mode & 0111) ? 0777 : 0666);
	if (fd < 0)
		die_errno("cannot copy '%s' to '%s'", src, dst);
	if (write(fd, b.ptr, b.len) != (ssize_t)b.len || close(fd))
		die_errno("cannot copy '%s' to '%s'", src, dst);
	fgit_buf_release(&b);
}

/* Copy the template tree, never replacing what exists (git skips
 * dot-files at every level). */
static void copy_templates_dir(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *s, *t;
		struct stat st, tst;

		if (de->d_name[0] == '.')
			continue;
		s = path_join(src, de->d_name);
		t = path_join(dst, de->d_name);
		if (lstat(s, &st)) {
			free(s);
			free(t);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			mkdir_or_die(t);
			copy_templates_dir(s, t);
		} else if (lstat(t, &tst) == 0) {
			/* exists: keep it */
		} else if (S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];
			ssize_t n = readlink(s, link, sizeof(link) - 1);
			if (n < 0)
				die_errno("cannot readlink '%s'", s);
			link[n] = '\0';
			if (symlink(link, t))
				die_errno("cannot symlink '%s' '%s'", link, t);
		} else if (S_ISREG(st.st_mode)) {
			copy_file(s, t, st.st_mode);
		} else {
			error("ignoring template %s", s);
		}
		free(s);
		free(t);
	}
	closedir(d);
}

static void copy_templates(const char *git_dir, const char *template_dir)
{
	struct stat st;

	if (!template_dir) {
		char *info = path_join(git_dir, "info");
		write_new_file(git_dir, "description", default_description);
		mkdir_in(git_dir, "hooks");
		mkdir_in(git_dir, "branches");
		mkdir_or_die(info);
		write_new_file(info, "exclude", default_exclude);
		free(info);
		return;
	}
	if (!*template_dir)
		return;
	if (stat(template_dir, &st) || !S_ISDIR(st.st_mode)) {
		warning("templates not found in %s", template_dir);
		return;
	}
	copy_templates_dir(template_dir, git_dir);
}

static char *expand_home(const char *p)
{
	const char *home = getenv("HOME");
	if (p[0] == '~' && p[1] == '/' && home)
		return path_join(home, p + 2);
	return strdup(p);
}

static void set_config(const char *path, const char *key, const char *value)
{
	if (fgit_config_set_in_file(path, key, value)) {
		error_last();
		die("could not set '%s' to '%s'", key, value);
	}
}

/* git probes whether the filesystem keeps the executable bit. */
static int probe_filemode(const char *config_path)
{
	struct stat st1, st2;

	if (lstat(config_path, &st1))
		return 1;
	if (chmod(config_path, st1.st_mode ^ S_IXUSR) || lstat(config_path, &st2))
		return 0;
	chmod(config_path, st1.st_mode);
	return st1.st_mode != st2.st_mode && !S_ISLNK(st1.st_mode);
}

CLI_CMD(init)
{
	int quiet = 0, bare = 0, reinit, nargs, sha256 = 0;
	const char *template_dir = NULL, *branch = NULL, *object_format = NULL;
	char *git_dir, *real_git_dir, *head_path, *config_path, *tmpl = NULL;
	const char *env_git_dir;
	struct fgit_config *cfg = NULL;
	struct stat st;
	struct cli_option opts[] = {
		OPT_STRING(0, "template", &template_dir, "template-directory",
			   "directory from which templates will be used"),
		OPT_SET_INT(0, "bare", &bare, "create a bare repository", 1),
		OPT_UNIMPLEMENTED(0, "shared"),
		OPT__QUIET(&quiet, "be quiet"),
		OPT_UNIMPLEMENTED(0, "separate-git-dir"),
		OPT_STRING('b', "initial-branch", &branch, "name",
			   "override the name of the initial branch"),
		OPT_STRING(0, "object-format", &object_format, "hash",
			   "specify the hash algorithm to use"),
		OPT_END(),
	};

	nargs = cli_parse_options(argc, argv, "init", opts, init_usage, 0);
	if (nargs > 1)
		cli_usage_with_options(init_usage, opts, 0);
	if (cli_globals.bare)
		bare = 1;
	if (object_format) {
		if (!strcmp(object_format, "sha256"))
			sha256 = 1;
		else if (strcmp(object_format, "sha1"))
			die("unknown hash algorithm '%s'", object_format);
	}
	if (nargs == 1) {
		mkdir_p(argv[0]);
		if (chdir(argv[0]))
			die_errno("cannot chdir to %s", argv[0]);
	}
	fgit_lockfile_install_signal_cleanup();

	env_git_dir = getenv("GIT_DIR");
	if (cli_globals.bare && env_git_dir && nargs == 1)
		env_git_dir = NULL;	/* --bare set GIT_DIR to the old cwd */
	if (env_git_dir && *env_git_dir)
		git_dir = strdup(env_git_dir);
	else if (bare)
		git_dir = strdup(".");
	else
		git_dir = strdup(".git");
	mkdir_p(git_dir);
	real_git_dir = realpath(git_dir, NULL);
	if (!real_git_dir)
		die_errno("cannot resolve '%s'", git_dir);

	/* Configuration before the repository exists: system, global, -c. */
	if (fgit_config_load(&cfg, NULL, NULL, 0))
		cli_die_setup_error();
	if (!template_dir)
		template_dir = getenv("GIT_TEMPLATE_DIR");
	if (!template_dir) {
		const char *v;
		if (fgit_config_get_string(&v, cfg, "init.templatedir") == 0 && v)
			template_dir = tmpl = expand_home(v);
	}
	if (!branch) {
		const char *v;
		if (fgit_config_get_string(&v, cfg, "init.defaultbranch") == 0 && v && *v)
			branch = v;
	}

	head_path = path_join(git_dir, "HEAD");
	config_path = path_join(real_git_dir, "config");
	reinit = access(head_path, R_OK) == 0;

	mkdir_in(git_dir, "refs");
	mkdir_in(git_dir, "refs/heads");
	mkdir_in(git_dir, "refs/tags");
	copy_templates(git_dir, template_dir);

	if (!reinit) {
		struct fgit_buf b = FGIT_BUF_INIT;
		const char *name = branch;
		if (!name) {
			name = "master";
			if (!quiet)
				fprintf(stderr,
"hint: Using 'master' as the name for the initial branch. This default branch name\n"
"hint: is subject to change. To configure the initial branch name to use in all\n"
"hint: of your new repositories, which will suppress this warning, call:\n"
"hint: \n"
"hint: \tgit config --global init.defaultBranch <name>\n"
"hint: \n"
"hint: Names commonly chosen instead of 'master' are 'main', 'trunk' and\n"
"hint: 'development'. The just-created branch can be renamed via this command:\n"
"hint: \n"
"hint: \tgit branch -m <name>\n");
		}
		fgit_buf_addf(&b, "refs/heads/%s", name);
		if (fgit_refname_check(b.ptr, 0))
			die("invalid initial branch name: '%s'", name);
		fgit_buf_reset(&b);
		fgit_buf_addf(&b, "ref: refs/heads/%s\n", name);
		if (fgit_write_file_locked(head_path, b.ptr, b.len, 0)) {
			error_last();
			exit(1);
		}
		fgit_buf_release(&b);
	} else if (branch) {
		warning("re-init: ignored --initial-branch=%s", branch);
	}

	/* A config file must exist before its mode can be probed. */
	if (stat(config_path, &st)) {
		int fd = open(config_path, O_WRONLY | O_CREAT | O_EXCL, 0666);
		if (fd < 0 || close(fd))
			die_errno("could not create '%s'", config_path);
	}
	set_config(config_path, "core.repositoryformatversion", sha256 ? "1" : "0");
	set_config(config_path, "core.filemode", probe_filemode(config_path) ? "true" : "false");
	set_config(config_path, "core.bare", bare ? "true" : "false");
	if (!bare)
		set_config(config_path, "core.logallrefupdates", "true");
	if (sha256)
		set_config(config_path, "extensions.objectformat", "sha256");

	mkdir_in(git_dir, "objects");
	mkdir_in(git_dir, "objects/info");
	mkdir_in(git_dir, "objects/pack");

	if (!quiet)
		printf("%s Git repository in %s/\n",
		       reinit ? "Reinitialized existing" : "Initialized empty", real_git_dir);
	fgit_config_free(cfg);
	free(tmpl);
	free(git_dir);
	free(real_git_dir);
	free(head_path);
	free(config_path);
	return 0;
}
