/*
 * git-config files: parsing with git's syntax (sections, subsections,
 * quotes, escapes, continuation lines, comments), the standard stack of
 * files (system, global, repository, command line), include.path and
 * includeIf "gitdir:"/"gitdir/i:"/"onbranch:", typed getters with git's
 * boolean and integer rules, and writing a key through a lock file.
 *
 * Keys are canonical: "section.name" or "section.subsection.name" with the
 * section and name lower-cased and the subsection as written.
 *
 * Where git reports a failure as an "error:" line followed by a "fatal:"
 * line (a bad -c or GIT_CONFIG_COUNT entry), the message carries both,
 * separated by "\nfatal: "; cli/setup.c prints them that way.
 *
 * Thread safety: a loaded fgit_config is read-only and may be read by any
 * number of threads at once; loading and freeing belong to one thread.
 */
#ifndef FGIT_CONFIG_H
#define FGIT_CONFIG_H

#include <stdint.h>

struct fgit_config;

enum fgit_config_scope {
	FGIT_CONFIG_SCOPE_SYSTEM = 1,
	FGIT_CONFIG_SCOPE_GLOBAL = 2,
	FGIT_CONFIG_SCOPE_LOCAL = 3,
	FGIT_CONFIG_SCOPE_WORKTREE = 4,
	FGIT_CONFIG_SCOPE_COMMAND = 5,
};

/* An empty configuration (*out owned by the caller; fgit_config_free). */
int fgit_config_new(struct fgit_config **out);
void fgit_config_free(struct fgit_config *cfg);

/*
 * Context for includeIf conditions: the repository's git directory
 * (absolute; NULL before discovery: gitdir conditions never match) and
 * the branch HEAD names (NULL: read from git_dir/HEAD when needed).
 */
struct fgit_config_context {
	const char *git_dir;
	const char *branch;
};

/*
 * Parse the file at `path` and append its entries (and those of its
 * includes) in order.  A missing file is not an error when missing_ok.
 * A syntax error gives FGIT_EINVALID with git's message "bad config line N
 * in file <path>".  ctx may be NULL.
 */
int fgit_config_add_file(struct fgit_config *cfg, const char *path,
			 enum fgit_config_scope scope, int missing_ok,
			 const struct fgit_config_context *ctx);
/* The same for text in memory; `origin` names it in messages
 * ("bad config line N in <origin>"). */
int fgit_config_add_buffer(struct fgit_config *cfg, const char *buf, size_t len,
			   const char *origin, enum fgit_config_scope scope,
			   const struct fgit_config_context *ctx);
/* Entries from GIT_CONFIG_PARAMETERS (the -c options, sq-quoted as git
 * writes them) and GIT_CONFIG_COUNT/GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n. */
int fgit_config_add_env(struct fgit_config *cfg);
/*
 * Parse config text in memory without storing it and without following
 * includes (for untrusted text, e.g. a .gitmodules blob): cb gets each
 * canonical key ("section.sub.name") and value (NULL for a bare key) in
 * order; a non-zero return stops and is returned.  FGIT_EINVALID ("bad
 * config line N") on a syntax error.
 */
int fgit_config_parse_buffer(const char *buf, size_t len,
			     int (*cb)(const char *key, const char *value, void *payload),
			     void *payload);
/* Append one entry; key is canonicalized (FGIT_EINVALID if it is no key). */
int fgit_config_add_entry(struct fgit_config *cfg, const char *key,
			  const char *value, enum fgit_config_scope scope);

enum fgit_config_load_flags {
	FGIT_CONFIG_NO_SYSTEM = 1 << 0,
	FGIT_CONFIG_NO_GLOBAL = 1 << 1,
	FGIT_CONFIG_NO_ENV = 1 << 2,	/* no -c / GIT_CONFIG_COUNT entries */
};

/*
 * Load git's standard stack: the system file ($GIT_CONFIG_SYSTEM or
 * /etc/gitconfig, skipped under GIT_CONFIG_NOSYSTEM), the global files
 * ($XDG_CONFIG_HOME/git/config or ~/.config/git/config, then ~/.gitconfig;
 * or $GIT_CONFIG_GLOBAL alone), then <common_dir>/config and, with
 * extensions.worktreeConfig, <git_dir>/config.worktree, then the command
 * line.  git_dir/common_dir may be NULL (no repository).
 */
int fgit_config_load(struct fgit_config **out, const char *git_dir,
		     const char *common_dir, unsigned int flags);

/*
 * The last value of key (canonical or not).  FGIT_ENOTFOUND if unset.
 * *out is borrowed from cfg and is NULL for a bare "key" line (true).
 */
int fgit_config_get_string(const char **out, const struct fgit_config *cfg,
			   const char *key);
/* Booleans: true/yes/on/1.., false/no/off/0/"", a bare key is true.  A bad
 * value gives FGIT_EINVALID: "bad boolean config value 'v' for 'key'". */
int fgit_config_get_bool(int *out, const struct fgit_config *cfg, const char *key);
/* Integers with k/m/g suffixes.  FGIT_EINVALID with git's message
 * "bad numeric config value 'v' for 'key' in <origin>: invalid unit"
 * (or ": out of range"). */
int fgit_config_get_int64(int64_t *out, const struct fgit_config *cfg, const char *key);
int fgit_config_get_int(int *out, const struct fgit_config *cfg, const char *key);

/* Where the last value of key came from: the file (borrowed; NULL when
 * not from a file) and its line there.  FGIT_ENOTFOUND if unset. */
int fgit_config_origin(const char **file_out, int *line_out, const struct fgit_config *cfg,
		       const char *key);

/* Every value of a multi-valued key, in order, through cb. */
int fgit_config_get_all(const struct fgit_config *cfg, const char *key,
			int (*cb)(const char *value, void *payload), void *payload);

/* Every entry in load order; stops when cb returns non-zero (returned). */
int fgit_config_foreach(const struct fgit_config *cfg,
			int (*cb)(const char *key, const char *value,
				  enum fgit_config_scope scope, void *payload),
			void *payload);

/* git's value parsers: 1/0, or -1 when not a boolean. */
int fgit_config_parse_bool(const char *value);
/* 0, or FGIT_EINVALID for a bad unit, FGIT_ERROR out of range (no message). */
int fgit_config_parse_int64(int64_t *out, const char *value);

/*
 * Canonicalize a key ("Core.Bare" -> "core.bare", "a.B.C" -> "a.B.c").
 * Returns a malloc'd string, or NULL (and an error) if it is no valid key.
 */
char *fgit_config_canonical_key(const char *key);

/*
 * Set key = value in the file at `path` as `git config -f path key value`
 * does: replace the last existing value (value NULL: remove it), else add
 * it to the last section of that name, else append a new section.  The
 * file is rewritten through "<path>.lock".  FGIT_ELOCKED if locked
 * ("could not lock config file <path>: File exists", as git).
 */
int fgit_config_set_in_file(const char *path, const char *key, const char *value);

#endif
