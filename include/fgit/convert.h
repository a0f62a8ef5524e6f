/*
 * Content conversion between the worktree and the object database, as
 * git's text/eol/ident attributes and core.autocrlf/core.eol/core.safecrlf
 * define it (gitattributes(5)).  This layer takes the attribute values and
 * the configuration as arguments; looking them up is the caller's job.
 * Filter drivers (filter.<name>.clean) run processes and live above.
 */
#ifndef FGIT_CONVERT_H
#define FGIT_CONVERT_H

#include <stddef.h>

struct fgit_buf;

enum fgit_attr_text {
	FGIT_TEXT_UNSPECIFIED = 0,
	FGIT_TEXT_SET,
	FGIT_TEXT_UNSET,
	FGIT_TEXT_AUTO,
};

enum fgit_attr_eol {
	FGIT_EOL_UNSPECIFIED = 0,
	FGIT_EOL_LF,
	FGIT_EOL_CRLF,
};

struct fgit_conv_attrs {
	enum fgit_attr_text text;
	enum fgit_attr_eol eol;
	int ident;
	/*
	 * The filter=<driver> attribute (NULL: none) and its configuration:
	 * filter.<driver>.clean (NULL: unset), .required, and whether
	 * .process is set (long-running filters: FGIT_ENOTSUPP for now).
	 * Strings are borrowed.
	 */
	const char *filter;
	const char *clean;
	int required;
	int process;
};

enum fgit_autocrlf { FGIT_AUTOCRLF_FALSE = 0, FGIT_AUTOCRLF_TRUE, FGIT_AUTOCRLF_INPUT };
enum fgit_safecrlf { FGIT_SAFECRLF_FALSE = 0, FGIT_SAFECRLF_WARN, FGIT_SAFECRLF_TRUE };

struct fgit_conv_config {
	enum fgit_autocrlf autocrlf;	/* core.autocrlf */
	enum fgit_attr_eol core_eol;	/* core.eol; UNSPECIFIED = native (LF here) */
	enum fgit_safecrlf safecrlf;	/* core.safecrlf; git's default is WARN */
	/* Where filter drivers run (the top of the work tree); NULL: cwd. */
	const char *filter_dir;
};

#define FGIT_CONV_CONFIG_INIT { FGIT_AUTOCRLF_FALSE, FGIT_EOL_UNSPECIFIED, FGIT_SAFECRLF_WARN, NULL }

enum fgit_conv_flags {
	/* The result will be stored (add, hash-object -w): run the
	 * core.safecrlf round-trip check. */
	FGIT_CONV_CHECK_ROUNDTRIP = 1 << 0,
};

struct fgit_conv_hooks {
	/* Does the blob staged for `path` contain a CR?  (text=auto leaves
	 * files committed with CRLF alone.)  NULL: never. */
	int (*index_has_cr)(const char *path, void *payload);
	/* A safecrlf warning, already worded as git words it after
	 * "warning: ".  NULL: dropped. */
	void (*warn)(const char *msg, void *payload);
	void *payload;
	/* A non-fatal error (a clean filter that failed without
	 * `required`: git goes on with the unfiltered content), worded as
	 * git words it after "error: ".  NULL: dropped. */
	void (*error)(const char *msg, void *payload);
};

/*
 * Convert worktree content to what git stores ("clean"), in git's order:
 * the clean filter first (run with the shell in cfg->filter_dir, "%f"
 * replaced by the quoted path, content on its stdin), then CRLF to LF where
 * the attributes and config ask for it, "$Id: ...$" collapsed to "$Id$"
 * with the ident attribute.  Returns 1 and fills `out` (reset first) when
 * the content changed, 0 when it is to be stored as it is (out untouched),
 * FGIT_EINVALID when core.safecrlf=true forbids the conversion (message
 * "CRLF would be replaced by LF in <path>" or the LF variant).
 */
int fgit_convert_to_git(struct fgit_buf *out, const char *path, const char *src,
			size_t len, const struct fgit_conv_attrs *attrs,
			const struct fgit_conv_config *cfg, unsigned int flags,
			const struct fgit_conv_hooks *hooks);

/*
 * A clean filter that fails (cannot start, exits non-zero) is reported
 * through hooks->error ("external filter '<cmd>' failed <code>") and the
 * content goes on unfiltered; with `required` (or a required driver
 * without a clean command) the conversion fails instead: FGIT_ERROR
 * "<path>: clean filter '<driver>' failed".  FGIT_ENOTSUPP for a driver
 * with filter.<driver>.process.  Thread-safe: filters may run from
 * several threads at once.
 */

struct fgit_attrs;
struct fgit_config;
/*
 * Fill *out for path from the attributes text, eol, ident, filter, crlf
 * (the old name of text) and the filter.<driver>.* configuration.  Strings
 * are borrowed from a and cfg.  0 or a negative error.
 */
int fgit_convert_attrs_lookup(struct fgit_conv_attrs *out, struct fgit_attrs *a,
			      const struct fgit_config *cfg, const char *path);
/* core.autocrlf, core.eol and core.safecrlf from cfg into *out. */
void fgit_convert_config_load(struct fgit_conv_config *out, const struct fgit_config *cfg);

/* Would fgit_convert_to_git possibly change anything for these settings?
 * (Lets callers hash files straight from disk when the answer is no.) */
int fgit_convert_may_change(const struct fgit_conv_attrs *attrs,
			    const struct fgit_conv_config *cfg);

#endif
