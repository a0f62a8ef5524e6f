/*
 * Git attributes (gitattributes(5)): .gitattributes in every directory,
 * $GIT_DIR/info/attributes, core.attributesFile and the system file, with
 * git's precedence, macros ([attr]name, the built-in "binary"), and the
 * four states set / unset / value / unspecified.
 *
 * Files are read lazily, per directory, the first time a path below it is
 * looked up, and kept.  A struct fgit_attrs may be shared by threads: the
 * cache is guarded by a mutex (grep looks attributes up from its workers,
 * only for files that match).
 */
#ifndef FGIT_ATTR_H
#define FGIT_ATTR_H

#include <stddef.h>

struct fgit_buf;
struct fgit_attrs;

enum fgit_attr_state {
	FGIT_ATTR_UNSPECIFIED = 0,
	FGIT_ATTR_SET,
	FGIT_ATTR_UNSET,
	FGIT_ATTR_VALUE,
};

struct fgit_attr_value {
	enum fgit_attr_state state;
	const char *value;	/* FGIT_ATTR_VALUE: borrowed from the attrs */
};

struct fgit_attr_options {
	unsigned int version;		/* FGIT_ATTR_OPTIONS_VERSION */
	const char *system_file;	/* NULL: none (GIT_CONFIG_NOSYSTEM style) */
	const char *global_file;	/* core.attributesFile or its default; NULL: none */
	const char *info_file;		/* $GIT_DIR/info/attributes; NULL: none */
	/*
	 * Read the per-directory file `path` (relative to the top, e.g.
	 * "d/.gitattributes") into out; 0, FGIT_ENOTFOUND when absent.
	 * NULL: read `workdir`/path from disk.
	 */
	int (*read_file)(struct fgit_buf *out, const char *path, void *payload);
	void *payload;
	const char *workdir;		/* NULL for a bare repository */
	int ignore_case;		/* core.ignorecase */
	/* warnings ("Negative patterns are ignored ..."), without "warning: ";
	 * `bare` marks the ones git prints without that prefix */
	void (*warn)(const char *msg, int bare, void *payload);
};
#define FGIT_ATTR_OPTIONS_VERSION 1
#define FGIT_ATTR_OPTIONS_INIT { FGIT_ATTR_OPTIONS_VERSION, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL }

int fgit_attrs_new(struct fgit_attrs **out, const struct fgit_attr_options *opts);
void fgit_attrs_free(struct fgit_attrs *a);

/*
 * Look up the attributes `names[0..n)` for `path` (relative to the top,
 * no leading "./").  out[i] receives the state of names[i].
 */
int fgit_attrs_get(struct fgit_attr_value *out, struct fgit_attrs *a,
		   const char *path, const char *const *names, size_t n);

/*
 * All attributes of `path` that are not unspecified, in git's order (the
 * order attribute names were first seen), for `check-attr -a`.
 * cb(name, value) is called for each; stops on non-zero and returns it.
 */
int fgit_attrs_get_all(struct fgit_attrs *a, const char *path,
		       int (*cb)(const char *name, const struct fgit_attr_value *v,
				 void *payload),
		       void *payload);

#endif
