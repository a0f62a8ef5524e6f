/* Content conversion for commands (see convert_setup.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "convert_setup.h"
#include "attr_setup.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/convert.h"
#include "fgit/repo.h"
#include "fgit/run.h"

static struct fgit_attrs *attrs;
static struct fgit_conv_config conv_cfg = FGIT_CONV_CONFIG_INIT;
static const char *filter_dir;		/* where filters run: the worktree top */
static const char *cmd_name;		/* for "not built yet" messages */

void cli_convert_setup(struct fgit_repo *repo, const char *cmd)
{
	cmd_name = cmd;
	if (repo) {
		attrs = cli_attrs(repo);
		filter_dir = fgit_repo_work_tree(repo);
	}
	if (fgit_conv_config_read(&conv_cfg, cli_config()) < 0)
		die_last();
}

struct driver {
	const char *name, *clean, *process;
	int required;
};

static void get_driver(struct driver *d, const char *name)
{
	struct fgit_buf key = FGIT_BUF_INIT;
	struct fgit_config *cfg = cli_config();
	int b;

	memset(d, 0, sizeof(*d));
	d->name = name;
	fgit_buf_addf(&key, "filter.%s.clean", name);
	if (fgit_config_get_string(&d->clean, cfg, key.ptr) < 0)
		d->clean = NULL;
	fgit_buf_reset(&key);
	fgit_buf_addf(&key, "filter.%s.process", name);
	if (fgit_config_get_string(&d->process, cfg, key.ptr) < 0)
		d->process = NULL;
	fgit_buf_reset(&key);
	fgit_buf_addf(&key, "filter.%s.required", name);
	if (fgit_config_get_bool(&b, cfg, key.ptr) == 0)
		d->required = b;
	else if (fgit_config_get_string(&d->name, cfg, key.ptr) == 0)
		die_last();	/* not a boolean */
	d->name = name;
	fgit_error_clear();
	fgit_buf_release(&key);
}

static void lookup(struct fgit_conv_attrs *a, struct driver *d, const char *path)
{
	struct fgit_conv_extra x;

	if (fgit_conv_attrs_get(a, &x, attrs, path) < 0)
		die_last();
	if (x.encoding)
		die_unimplemented(cmd_name, "the working-tree-encoding attribute");
	memset(d, 0, sizeof(*d));
	if (x.filter)
		get_driver(d, x.filter);
	if (d->process)
		die_unimplemented(cmd_name, "filter.<driver>.process");
}

int cli_would_convert(const char *path)
{
	struct fgit_conv_attrs a;
	struct driver d;

	lookup(&a, &d, path);
	return d.clean || d.required || fgit_convert_may_change(&a, &conv_cfg);
}

/* The command with each %f replaced by the path, shell-quoted. */
static void expand_cmd(struct fgit_buf *out, const char *cmd, const char *path)
{
	for (; *cmd; cmd++) {
		if (cmd[0] == '%' && cmd[1] == 'f') {
			const char *p;
			fgit_buf_addch(out, '\'');
			for (p = path; *p; p++) {
				if (*p == '\'')
					fgit_buf_adds(out, "'\\''");
				else
					fgit_buf_addch(out, *p);
			}
			fgit_buf_addch(out, '\'');
			cmd++;
		} else if (cmd[0] == '%' && cmd[1] == '%') {
			fgit_buf_addch(out, '%');
			cmd++;
		} else {
			fgit_buf_addch(out, *cmd);
		}
	}
}

/* Run the clean filter; 1 with out filled, 0 when it failed (said). */
static int run_clean(struct fgit_buf *out, const struct driver *d, const char *path,
		     const char *src, size_t len)
{
	struct fgit_buf cmd = FGIT_BUF_INIT;
	struct fgit_child c = FGIT_CHILD_INIT;
	const char *argv[2];
	void (*old)(int);
	int r;

	expand_cmd(&cmd, d->clean, path);
	argv[0] = cmd.ptr;
	argv[1] = NULL;
	c.argv = argv;
	c.use_shell = 1;
	c.dir = filter_dir;
	fgit_buf_reset(out);
	cli_flush_stdout();
	old = signal(SIGPIPE, SIG_IGN);	/* a filter may not read all of it */
	r = fgit_run_pipe(&c, src, len, out);
	signal(SIGPIPE, old);
	if (r < 0) {
		error_last();
	} else if (r) {
		error("external filter '%s' failed %d", cmd.ptr, r);
		error("external filter '%s' failed", cmd.ptr);
	}
	fgit_buf_release(&cmd);
	return r == 0;
}

static void conv_warn(const char *msg, void *payload)
{
	warning("%s", msg);
}

static void conv_error(const char *msg, void *payload)
{
	error("%s", msg);
}

int cli_convert_to_git(struct fgit_buf *out, const char *path, const char *src,
		       size_t len, unsigned int flags)
{
	struct fgit_conv_hooks hooks = { NULL, conv_warn, NULL, conv_error };
	struct fgit_conv_attrs a;
	struct fgit_buf filtered = FGIT_BUF_INIT;
	struct driver d;
	int changed = 0, r;

	lookup(&a, &d, path);
	if (d.clean && run_clean(&filtered, &d, path, src, len)) {
		src = filtered.ptr;
		len = filtered.len;
		changed = 1;
	} else if (d.required) {
		die("%s: clean filter '%s' failed", path, d.name);
	}
	r = fgit_convert_to_git(out, path, src, len, &a, &conv_cfg,
				(flags & CLI_CONVERT_WRITE) ? FGIT_CONV_CHECK_ROUNDTRIP : 0,
				&hooks);
	if (r < 0)
		die_last();
	if (!r && changed) {
		struct fgit_buf t = *out;
		*out = filtered;
		filtered = t;
		r = 1;
	}
	fgit_buf_release(&filtered);
	return r;
}
