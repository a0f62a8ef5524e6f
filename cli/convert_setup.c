/*
 * Content conversion for commands (see convert_setup.h): the library does
 * the work (fgit_convert_attrs_lookup, fgit_convert_to_git with its clean
 * filters); this file sets it up once and speaks git's messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "convert_setup.h"
#include "attr_setup.h"
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/convert.h"
#include "fgit/repo.h"

static struct fgit_attrs *attrs;
static struct fgit_conv_config conv_cfg = FGIT_CONV_CONFIG_INIT;
static const char *cmd_name;		/* for "not built yet" messages */

/* git dies on a core.autocrlf or core.safecrlf that is no boolean. */
static void check_bool(const char *key, const char *other)
{
	const char *v;
	int b;
	if (fgit_config_get_string(&v, cli_config(), key) == 0 && v && strcasecmp(v, other) &&
	    fgit_config_get_bool(&b, cli_config(), key) < 0)
		die_last();
	fgit_error_clear();
}

void cli_convert_setup(struct fgit_repo *repo, const char *cmd)
{
	cmd_name = cmd;
	if (repo) {
		attrs = cli_attrs(repo);
		conv_cfg.filter_dir = fgit_repo_work_tree(repo);
	}
	check_bool("core.autocrlf", "input");
	check_bool("core.safecrlf", "warn");
	fgit_convert_config_load(&conv_cfg, cli_config());
	if (repo)
		conv_cfg.filter_dir = fgit_repo_work_tree(repo);
}

static void lookup(struct fgit_conv_attrs *a, const char *path)
{
	static const char *const enc[] = { "working-tree-encoding" };
	struct fgit_attr_value v;

	memset(a, 0, sizeof(*a));
	if (!attrs)
		return;
	if (fgit_convert_attrs_lookup(a, attrs, cli_config(), path) < 0)
		die_last();
	if (fgit_attrs_get(&v, attrs, path, enc, 1) == 0 && v.state == FGIT_ATTR_VALUE)
		die_unimplemented(cmd_name, "the working-tree-encoding attribute");
	if (a->filter && a->process)
		die_unimplemented(cmd_name, "filter.<driver>.process");
}

int cli_would_convert(const char *path)
{
	struct fgit_conv_attrs a;

	lookup(&a, path);
	return fgit_convert_may_change(&a, &conv_cfg);
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
	int r;

	lookup(&a, path);
	cli_flush_stdout();	/* a filter's own output must not overtake ours */
	r = fgit_convert_to_git(out, path, src, len, &a, &conv_cfg,
				(flags & CLI_CONVERT_WRITE) ? FGIT_CONV_CHECK_ROUNDTRIP : 0,
				&hooks);
	if (r < 0)
		die_last();
	return r;
}
