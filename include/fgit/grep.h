/*
 * fgit_grep — git grep's matcher and its per-file output, byte for byte as
 * git 2.39 prints it (grep.c's grep_source_1 and show_line).
 *
 * A struct fgit_grep holds the options and the pattern list (-e, --and,
 * --or, --not, parentheses) compiled once: POSIX regex (glibc regcomp with
 * REG_STARTEND: basic or extended, git's own engine for -G/-E), PCRE2 with
 * JIT (-P, and fixed strings as git does when built with PCRE2), or a
 * substring search for literal patterns.  fgit_grep_buffer() runs it over
 * one file's contents and appends what git would print for that file.
 *
 * Speed: the whole buffer is searched for the earliest candidate (memmem
 * for literals, a two-anchor SIMD scan for -i literals, the literal prefix
 * of a regex, a PCRE2 JIT pattern translated from a POSIX regex that
 * matches a superset of its lines, or the engine itself over the rest of
 * the buffer); line boundaries are found only around candidates, and the
 * line is then matched alone by the real engine (so results are exactly
 * line-based, as git's).
 *
 * Thread safety: glibc's regexec takes a lock per compiled pattern, and
 * PCRE2 match data is per caller, so a struct fgit_grep belongs to one
 * thread at a time: compile one per worker (fgit_grep_dup).  The
 * attributes handle passed in the options may be shared (it locks).
 */
#ifndef FGIT_GREP_H
#define FGIT_GREP_H

#include <stddef.h>

struct fgit_buf;
struct fgit_attrs;
struct fgit_config;
struct fgit_grep;

enum fgit_grep_pattern_type {
	FGIT_GREP_BRE = 0,	/* -G, default */
	FGIT_GREP_ERE,		/* -E */
	FGIT_GREP_FIXED,	/* -F */
	FGIT_GREP_PCRE,		/* -P */
};

enum fgit_grep_binary {
	FGIT_GREP_BINARY_DEFAULT = 0,	/* "Binary file X matches" */
	FGIT_GREP_BINARY_NOMATCH,	/* -I */
	FGIT_GREP_BINARY_TEXT,		/* -a */
};

/* Colour slots, git's color.grep.<slot> names in order. */
enum fgit_grep_color {
	FGIT_GREP_COLOR_CONTEXT,
	FGIT_GREP_COLOR_FILENAME,
	FGIT_GREP_COLOR_FUNCTION,
	FGIT_GREP_COLOR_LINENO,
	FGIT_GREP_COLOR_COLUMNNO,
	FGIT_GREP_COLOR_MATCH_CONTEXT,
	FGIT_GREP_COLOR_MATCH_SELECTED,
	FGIT_GREP_COLOR_SELECTED,
	FGIT_GREP_COLOR_SEP,
	FGIT_GREP_COLOR_NR
};

struct fgit_grep_options {
	unsigned int version;		/* FGIT_GREP_OPTIONS_VERSION */
	enum fgit_grep_pattern_type pattern_type;
	int ignore_case, word_regexp, invert, all_match;
	int linenum, columnnum, pathname, null_following_name;
	int only_matching, count, name_only, unmatch_name_only, status_only;
	int pre_context, post_context;
	int funcname, funcbody;		/* -p, -W */
	int heading, file_break;
	enum fgit_grep_binary binary;
	int max_count;			/* -m; -1 = no limit */
	int utf8_locale;		/* LC_CTYPE is UTF-8 (PCRE2_UTF as git) */
	int color;			/* emit colours */
	/* colour escape strings per slot (borrowed; "" = none) */
	const char *colors[FGIT_GREP_COLOR_NR];
	/* for diff=<driver> (binary and funcname); may be NULL */
	struct fgit_attrs *attrs;
	/* diff.<driver>.xfuncname / funcname / binary; may be NULL */
	const struct fgit_config *config;
};
#define FGIT_GREP_OPTIONS_VERSION 1

/* Options with git's defaults (pathname on, max_count -1, git's colours). */
void fgit_grep_options_init(struct fgit_grep_options *o);

enum fgit_grep_token {
	FGIT_GREP_PATTERN,
	FGIT_GREP_AND,
	FGIT_GREP_OR,
	FGIT_GREP_NOT,
	FGIT_GREP_OPEN_PAREN,
	FGIT_GREP_CLOSE_PAREN,
};

/* An empty matcher (options copied, strings borrowed). */
int fgit_grep_new(struct fgit_grep **out, const struct fgit_grep_options *o);
void fgit_grep_free(struct fgit_grep *g);
/* Append a token; for FGIT_GREP_PATTERN the pattern (len bytes, may hold
 * NUL with -P).  Copied. */
int fgit_grep_add(struct fgit_grep *g, enum fgit_grep_token t,
		  const char *pat, size_t len);
/* Number of tokens added. */
size_t fgit_grep_count(const struct fgit_grep *g);
/*
 * Compile the patterns and the expression.  FGIT_EINVALID with git's
 * message (without "fatal: "), e.g. "Unmatched ( or \\(",
 * "unmatched parenthesis", "--and not followed by pattern expression",
 * "given pattern contains NULL byte (via -f <file>). ...".
 */
int fgit_grep_compile(struct fgit_grep *g);
/* A new matcher with the same options and tokens, compiled. */
int fgit_grep_dup(struct fgit_grep **out, const struct fgit_grep *g);

struct fgit_grep_source {
	const char *name;	/* as printed (already quoted/relative) */
	const char *path;	/* for attributes (relative to the top); NULL: none */
	const char *buf;	/* contents */
	size_t size;
};

/* What fgit_grep_buffer printed, for the caller's hunk marks. */
struct fgit_grep_result {
	/* bytes of the hunk mark ("--" or the --break blank line) that
	 * opens the output, 0 if none: the output is written as if an
	 * earlier file had printed lines, so the first one is the caller's
	 * to drop (git drops it) */
	size_t mark_len;
	int shown;		/* some line was shown (git's last_shown) */
};

/*
 * Match one file and append git's output for it to `out`.  Returns 1
 * when the file counts as a hit for the exit code, 0 when not, negative
 * on error (a regex engine or driver failure, message set).
 */
int fgit_grep_buffer(struct fgit_buf *out, struct fgit_grep_result *res,
		     struct fgit_grep *g, const struct fgit_grep_source *src);

/*
 * Worktree files as git grep reads them.  A reader keeps one thread's
 * read buffer from file to file; it belongs to one thread at a time.
 */
struct fgit_grep_reader;

int fgit_grep_reader_new(struct fgit_grep_reader **out);
void fgit_grep_reader_free(struct fgit_grep_reader *r);

/*
 * Read `path` (relative to the current directory), a regular file whose
 * size the index records as `expect` (-1: unknown), into the reader.
 * Returns 1 with the contents in *out (NUL-terminated, valid until the
 * next load or free) and their size in *out_size; 0 when git would skip
 * the file quietly (gone, a symlink, a directory, not a regular file);
 * negative with git's message ("failed to stat '%s': %s") when it cannot
 * be read, which git reports as an error before going on.
 */
int fgit_grep_reader_load(const char **out, size_t *out_size,
			  struct fgit_grep_reader *r, const char *path, long long expect);

#endif
