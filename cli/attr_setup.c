/* Attribute sources for commands (see attr_setup.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attr_setup.h"
#include "cli.h"
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/config.h"
#include "fgit/repo.h"

static void attr_warn(const char *msg, int bare, void *payload)
{
	if (bare) {
		fflush(stdout);
		fprintf(stderr, "%s\n", msg);
	} else {
		warning("%s", msg);
	}
}

/* "~/x" and "~" expanded as git's interpolate_path does for the home directory. */
static char *expand_home(const char *p)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	const char *home = getenv("HOME");
	if (p[0] == '~' && (p[1] == '/' || !p[1]) && home) {
		fgit_buf_adds(&b, home);
		fgit_buf_adds(&b, p + 1);
	} else {
		fgit_buf_adds(&b, p);
	}
	return fgit_buf_detach(&b, NULL);
}

struct fgit_attrs *cli_attrs(struct fgit_repo *repo)
{
	static struct fgit_attrs *attrs;
	struct fgit_attr_options o = FGIT_ATTR_OPTIONS_INIT;
	struct fgit_config *cfg = fgit_repo_config(repo);
	const char *v = NULL, *x;
	char *global = NULL, *info = NULL;
	int ic = 0;

	if (attrs)
		return attrs;
	x = getenv("GIT_ATTR_NOSYSTEM");
	if (!x || !fgit_config_parse_bool(x))
		o.system_file = "/etc/gitattributes";
	if (!fgit_config_get_string(&v, cfg, "core.attributesfile") && v) {
		global = expand_home(v);
	} else if ((x = getenv("XDG_CONFIG_HOME")) && *x) {
		struct fgit_buf b = FGIT_BUF_INIT;
		fgit_buf_addf(&b, "%s/git/attributes", x);
		global = fgit_buf_detach(&b, NULL);
	} else if ((x = getenv("HOME"))) {
		struct fgit_buf b = FGIT_BUF_INIT;
		fgit_buf_addf(&b, "%s/.config/git/attributes", x);
		global = fgit_buf_detach(&b, NULL);
	}
	o.global_file = global;
	{
		struct fgit_buf b = FGIT_BUF_INIT;
		fgit_buf_addf(&b, "%s/info/attributes", fgit_repo_common_dir(repo));
		info = fgit_buf_detach(&b, NULL);
	}
	o.info_file = info;
	o.workdir = fgit_repo_work_tree(repo);
	if (!fgit_config_get_bool(&ic, cfg, "core.ignorecase"))
		o.ignore_case = ic;
	o.warn = attr_warn;
	if (fgit_attrs_new(&attrs, &o) < 0)
		die_last();
	free(global);
	free(info);
	return attrs;
}
