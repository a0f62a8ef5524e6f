/*
 * git grep's matcher (see include/fgit/grep.h).
 *
 * Semantics follow git 2.39's grep.c: patterns are matched per line; with
 * no operator the patterns are OR'ed ("simple" mode), otherwise they form
 * an expression (--and binds tighter than the implicit or, --not tighter
 * still; --all-match needs every top-level alternative to hit somewhere
 * in the file).  -w retries after each non-word match, as git does.
 * Patterns without regex specials are literals whatever the type (git
 * hands them to PCRE2 as such), so they are found with memmem.
 *
 * Speed: in simple mode without -v the whole rest of the buffer is
 * searched for the earliest candidate of any pattern (git's look_ahead);
 * a regex with a literal prefix of two or more bytes has its candidates
 * found by memmem on the prefix, other POSIX regexes by a PCRE2 JIT
 * translation that accepts every line they accept (posix_to_pcre), the
 * real engine then running only on the line around the candidate.  Lines
 * are located only around candidates.  Kernel corpus, 'a.*b' -c: glibc
 * regexec over every buffer costs git 3.8 s, the PCRE2 filter 0.7 s.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include "fgit/attr.h"
#include "fgit/buf.h"
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/grep.h"
#include "grep_internal.h"

enum kind { K_FIXED, K_ICASE, K_REGEX, K_PCRE };

struct pat {
	enum fgit_grep_token token;
	char *pattern;
	size_t len;
	enum kind kind;
	int word;
	regex_t re;
	int have_re;
	pcre2_code *pc;
	pcre2_match_data *md;
	int jit;
	char *lit;		/* K_FIXED / K_ICASE needle, or regex prefix */
	size_t litlen;
	int lit_icase;		/* prefix to be searched case-insensitively */
	/* K_REGEX: a PCRE2 pattern matching a superset of its lines, to find
	 * candidates over the whole buffer (the line is then confirmed by
	 * regexec); NULL when the regex is not one we translate */
	pcre2_code *filter;
	pcre2_match_data *filter_md;
	struct pat *next;
};

enum node { N_ATOM, N_NOT, N_AND, N_OR };

struct expr {
	enum node node;
	struct pat *atom;
	struct expr *l, *r;
	int hit;
};

struct fgit_grep {
	struct fgit_grep_options o;
	struct pat *pats, **tail;
	size_t npats;
	int extended, compiled, lookahead;
	struct expr *expr;
	/* drivers loaded so far (per matcher, so per thread) */
	struct grep_driver **drivers;
	size_t ndrivers;
	struct grep_driver *default_driver;
	int default_loaded;
};

static const char *const default_colors[FGIT_GREP_COLOR_NR] = {
	"", "\033[35m", "", "\033[32m", "\033[32m", "\033[1;31m", "\033[1;31m",
	"", "\033[36m",
};

void fgit_grep_options_init(struct fgit_grep_options *o)
{
	int i;
	memset(o, 0, sizeof(*o));
	o->version = FGIT_GREP_OPTIONS_VERSION;
	o->pathname = 1;
	o->max_count = -1;
	for (i = 0; i < FGIT_GREP_COLOR_NR; i++)
		o->colors[i] = default_colors[i];
}

int fgit_grep_new(struct fgit_grep **out, const struct fgit_grep_options *o)
{
	struct fgit_grep *g = calloc(1, sizeof(*g));
	if (!g)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	g->o = *o;
	g->tail = &g->pats;
	*out = g;
	return 0;
}

static void free_expr(struct expr *x)
{
	if (!x)
		return;
	free_expr(x->l);
	free_expr(x->r);
	free(x);
}

void fgit_grep_free(struct fgit_grep *g)
{
	struct pat *p, *n;
	size_t i;
	if (!g)
		return;
	for (p = g->pats; p; p = n) {
		n = p->next;
		if (p->have_re)
			regfree(&p->re);
		if (p->md)
			pcre2_match_data_free(p->md);
		if (p->pc)
			pcre2_code_free(p->pc);
		if (p->filter_md)
			pcre2_match_data_free(p->filter_md);
		if (p->filter)
			pcre2_code_free(p->filter);
		free(p->pattern);
		free(p->lit);
		free(p);
	}
	free_expr(g->expr);
	for (i = 0; i < g->ndrivers; i++)
		grep_driver_free(g->drivers[i]);
	free(g->drivers);
	grep_driver_free(g->default_driver);
	free(g);
}

int fgit_grep_add(struct fgit_grep *g, enum fgit_grep_token t,
		  const char *pat, size_t len)
{
	struct pat *p = calloc(1, sizeof(*p));
	if (!p)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	p->token = t;
	if (!pat) {
		pat = t == FGIT_GREP_AND ? "--and" : t == FGIT_GREP_OR ? "--or" :
		      t == FGIT_GREP_NOT ? "--not" : t == FGIT_GREP_OPEN_PAREN ? "(" : ")";
		len = strlen(pat);
	}
	p->pattern = malloc(len + 1);
	if (!p->pattern) {
		free(p);
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	}
	memcpy(p->pattern, pat, len);
	p->pattern[len] = 0;
	p->len = len;
	*g->tail = p;
	g->tail = &p->next;
	g->npats++;
	return 0;
}

size_t fgit_grep_count(const struct fgit_grep *g)
{
	return g->npats;
}

/* ---- compiling ---- */

static int is_regex_special(unsigned char c)
{
	return c && strchr("$()*+.?[\\^{|", c) != NULL;
}

static int is_fixed(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++)
		if (is_regex_special((unsigned char)s[i]))
			return 0;
	return 1;
}

static int has_non_ascii(const char *s, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 1;
	return 0;
}

static int compile_pcre(struct fgit_grep *g, struct pat *p, const char *pattern,
			size_t len, int literal)
{
	uint32_t options = PCRE2_MULTILINE;
	int err;
	PCRE2_SIZE erroff;
	pcre2_compile_context *cc = NULL;
	const uint8_t *tables = NULL;
	uint32_t jit = 0;

	if (g->o.ignore_case) {
		if (has_non_ascii(pattern, len)) {
			tables = pcre2_maketables(NULL);
			cc = pcre2_compile_context_create(NULL);
			if (cc && tables)
				pcre2_set_character_tables(cc, tables);
		}
		options |= PCRE2_CASELESS;
	}
	if (g->o.utf8_locale && !literal)
		options |= PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
	p->pc = pcre2_compile((PCRE2_SPTR)pattern, len, options, &err, &erroff, cc);
	if (cc)
		pcre2_compile_context_free(cc);
	/* the tables must live as long as the pattern: leaked on purpose
	 * (one small table per -i pattern with non-ASCII bytes) */
	if (!p->pc) {
		PCRE2_UCHAR buf[256];
		pcre2_get_error_message(err, buf, sizeof(buf));
		return fgit_error_set(FGIT_EINVALID, "command line, '%s': %s",
				      p->pattern, (char *)buf);
	}
	p->md = pcre2_match_data_create_from_pattern(p->pc, NULL);
	if (!p->md)
		return fgit_error_set(FGIT_ENOMEM, "Couldn't allocate PCRE2 match data");
	pcre2_config(PCRE2_CONFIG_JIT, &jit);
	if (jit && pcre2_jit_compile(p->pc, PCRE2_JIT_COMPLETE) == 0)
		p->jit = 1;
	p->kind = K_PCRE;
	return 0;
}

/*
 * The literal bytes every match of a BRE/ERE must start with, or 0: the
 * leading run of ordinary characters, minus the last one when a
 * quantifier follows it; none at all when the pattern has an
 * alternation anywhere.
 */
static size_t regex_prefix(const char *s, size_t len, int ere)
{
	size_t i;
	for (i = 0; i < len; i++)
		if (s[i] == '|' && (ere || (i && s[i - 1] == '\\')))
			return 0;
	for (i = 0; i < len && !is_regex_special((unsigned char)s[i]) &&
		    s[i] != '\n'; i++)
		;
	if (i < len && strchr("*?+{", s[i]) && i)
		i--;
	if (i < len && s[i] == '\\' && i + 1 < len && strchr("?+{", s[i + 1]) && i)
		i--;
	return i;
}

/*
 * Translate a POSIX BRE/ERE into a PCRE2 pattern that matches every line
 * the POSIX one matches (and maybe more): "." becomes one to four bytes
 * (a UTF-8 character), anchors only at the ends, no bracket expressions,
 * classes or back-references (those return -1).  Whether a line has a
 * match does not depend on POSIX's leftmost-longest rule, so only the
 * language matters.  For candidates only: regexec confirms each line.
 */
static int posix_to_pcre(struct fgit_buf *out, const char *s, size_t len, int ere)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];
		if (c == '\\') {
			unsigned char n;
			if (++i >= len)
				return -1;
			n = s[i];
			if (!ere && (n == '(' || n == ')' || n == '|' || n == '+' || n == '?')) {
				fgit_buf_addch(out, n);
				continue;
			}
			if (!ere && n == '{') {
				size_t j = i + 1;
				fgit_buf_addch(out, '{');
				while (j < len && (s[j] == ',' || (s[j] >= '0' && s[j] <= '9')))
					fgit_buf_addch(out, s[j++]);
				if (j + 1 >= len || s[j] != '\\' || s[j + 1] != '}')
					return -1;
				fgit_buf_addch(out, '}');
				i = j + 1;
				continue;
			}
			if (isalnum(n) || n >= 0x80)
				return -1;	/* \w, \<, back-references ... */
			fgit_buf_addch(out, '\\');
			fgit_buf_addch(out, n);
			continue;
		}
		switch (c) {
		case '.':
			/* one UTF-8 character is one to four bytes; ".*" any run */
			if (i + 1 < len && s[i + 1] == '*') {
				fgit_buf_adds(out, "[^\\n]*");
				i++;
			} else if (i + 1 < len && ere && s[i + 1] == '+') {
				fgit_buf_adds(out, "[^\\n]+");
				i++;
			} else if (i + 1 < len && (s[i + 1] == '{' || s[i + 1] == '?' ||
						   s[i + 1] == '+' || s[i + 1] == '\\')) {
				return -1;
			} else {
				/* inside a repeated group it could backtrack badly */
				if (memchr(s, '(', len))
					return -1;
				fgit_buf_adds(out, "[^\\n]{1,4}");
			}
			break;
		case '[':
		case '\n':
			return -1;
		case '^':
			if (i)
				return -1;
			fgit_buf_addch(out, c);
			break;
		case '$':
			if (i + 1 != len)
				return -1;
			fgit_buf_addch(out, c);
			break;
		case '*':
			if (!i || (i == 1 && s[0] == '^'))
				return -1;
			fgit_buf_addch(out, c);
			break;
		case '+': case '?': case '|': case '(': case ')': case '{':
			if (ere) {
				if ((c == '+' || c == '?' || c == '{') && (!i || strchr("(|", s[i - 1])))
					return -1;
				if (c == '{') {
					/* an interval, copied whole: {m}, {m,}, {m,n} */
					size_t j = i + 1;
					if (j >= len || s[j] < '0' || s[j] > '9')
						return -1;
					while (j < len && (s[j] == ',' || (s[j] >= '0' && s[j] <= '9')))
						j++;
					if (j >= len || s[j] != '}')
						return -1;
					fgit_buf_add(out, s + i, j + 1 - i);
					i = j;
					break;
				}
				fgit_buf_addch(out, c);
			} else {
				fgit_buf_addch(out, '\\');
				fgit_buf_addch(out, c);
			}
			break;
		default:
			if (isalnum(c) || c >= 0x80 || c == ' ' || c == '_')
				fgit_buf_addch(out, c);
			else {
				fgit_buf_addch(out, '\\');
				fgit_buf_addch(out, c);
			}
		}
	}
	return 0;
}

static void compile_filter(struct pat *p, int ere)
{
	struct fgit_buf b = FGIT_BUF_INIT;
	int err;
	PCRE2_SIZE off;
	uint32_t jit = 0;

	if (posix_to_pcre(&b, p->pattern, p->len, ere) == 0) {
		p->filter = pcre2_compile((PCRE2_SPTR)b.ptr, b.len, PCRE2_MULTILINE, &err, &off, NULL);
		pcre2_config(PCRE2_CONFIG_JIT, &jit);
		if (p->filter && (!jit || pcre2_jit_compile(p->filter, PCRE2_JIT_COMPLETE))) {
			pcre2_code_free(p->filter);
			p->filter = NULL;
		}
		if (p->filter && !(p->filter_md = pcre2_match_data_create_from_pattern(p->filter, NULL))) {
			pcre2_code_free(p->filter);
			p->filter = NULL;
		}
	}
	fgit_buf_release(&b);
}

/*
 * A literal every match contains, for PCRE2 patterns: the literal prefix
 * (-P) or the longest run of the pattern (-i -F in a UTF-8 locale) free
 * of bytes that caseless UTF matching folds to other code points (k, s,
 * non-ASCII).  Searched over the whole buffer before PCRE2 runs on the
 * line; nothing when shorter than 2 bytes.
 */
static int set_pcre_literal(struct fgit_grep *g, struct pat *p, const char *s, size_t n,
			    int whole)
{
	size_t i, best = 0, best_at = 0, run = 0;
	int icase = g->o.ignore_case;

	for (i = 0; i <= n; i++) {
		unsigned char c = i < n ? s[i] : 0;
		int bad = i == n || c >= 0x80 || (icase && g->o.utf8_locale && strchr("kKsS", c));
		if (bad) {
			if (run > best) {
				best = run;
				best_at = i - run;
			}
			run = 0;
			if (!whole)
				break;
		} else {
			run++;
		}
	}
	if (best < 2)
		return 0;
	p->lit = malloc(best + 1);
	if (!p->lit)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	for (i = 0; i < best; i++)
		p->lit[i] = icase ? tolower((unsigned char)s[best_at + i]) : s[best_at + i];
	p->lit[best] = 0;
	p->litlen = best;
	p->lit_icase = icase;
	return 0;
}

static int compile_pat(struct fgit_grep *g, struct pat *p)
{
	int flags = REG_NEWLINE, err;
	enum fgit_grep_pattern_type t = g->o.pattern_type;
	int fixed = t == FGIT_GREP_FIXED;

	p->word = g->o.word_regexp;
	if (t != FGIT_GREP_PCRE && memchr(p->pattern, 0, p->len))
		return fgit_error_set(FGIT_EINVALID, "given pattern contains NULL byte (via -f <file>). This is only supported with -P under PCRE v2");
	if (fixed || is_fixed(p->pattern, p->len)) {
		size_t i;
		int icase_special = 0;
		if (!g->o.ignore_case) {
			p->kind = K_FIXED;
			p->lit = malloc(p->len + 1);
			if (!p->lit)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			memcpy(p->lit, p->pattern, p->len + 1);
			p->litlen = p->len;
			return 0;
		}
		/*
		 * -i: git asks PCRE2 for a caseless match, in UTF mode in a
		 * UTF-8 locale, where k, s and non-ASCII letters also match
		 * other code points; only then do we need PCRE2 too.
		 */
		for (i = 0; i < p->len; i++) {
			unsigned char c = p->pattern[i];
			if (c >= 0x80 || (g->o.utf8_locale && strchr("kKsS", c)))
				icase_special = 1;
		}
		if (!icase_special && p->len) {
			p->kind = K_ICASE;
			p->lit = malloc(p->len + 1);
			if (!p->lit)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			for (i = 0; i <= p->len; i++)
				p->lit[i] = tolower((unsigned char)p->pattern[i]);
			p->litlen = p->len;
			return 0;
		}
		if (is_fixed(p->pattern, p->len)) {
			int r = compile_pcre(g, p, p->pattern, p->len, 0);
			return r ? r : set_pcre_literal(g, p, p->pattern, p->len, 1);
		} else {
			struct fgit_buf b = FGIT_BUF_INIT;
			int r;
			fgit_buf_adds(&b, "\\Q");
			fgit_buf_add(&b, p->pattern, p->len);
			fgit_buf_adds(&b, "\\E");
			r = compile_pcre(g, p, b.ptr, b.len, 0);
			fgit_buf_release(&b);
			return r ? r : set_pcre_literal(g, p, p->pattern, p->len, 1);
		}
	}
	if (t == FGIT_GREP_PCRE) {
		int r = compile_pcre(g, p, p->pattern, p->len, 0);
		size_t n = regex_prefix(p->pattern, p->len, 1);
		return r ? r : set_pcre_literal(g, p, p->pattern, n, 0);
	}
	if (g->o.ignore_case)
		flags |= REG_ICASE;
	if (t == FGIT_GREP_ERE)
		flags |= REG_EXTENDED;
	err = regcomp(&p->re, p->pattern, flags);
	if (err) {
		char buf[1024];
		regerror(err, &p->re, buf, sizeof(buf));
		return fgit_error_set(FGIT_EINVALID, "command line, '%s': %s", p->pattern, buf);
	}
	p->have_re = 1;
	p->kind = K_REGEX;
	{
		size_t n = regex_prefix(p->pattern, p->len, t == FGIT_GREP_ERE);
		/* a non-ASCII prefix under -i may match other byte sequences */
		if (n >= 2 && !(g->o.ignore_case && has_non_ascii(p->pattern, n))) {
			size_t i;
			p->lit = malloc(n + 1);
			if (!p->lit)
				return fgit_error_set(FGIT_ENOMEM, "out of memory");
			for (i = 0; i < n; i++)
				p->lit[i] = g->o.ignore_case ?
					tolower((unsigned char)p->pattern[i]) : p->pattern[i];
			p->lit[n] = 0;
			p->litlen = n;
			p->lit_icase = g->o.ignore_case;
		}
	}
	/* -i: glibc folds non-ASCII letters too; no filter then */
	if (!p->lit && !g->o.ignore_case)
		compile_filter(p, t == FGIT_GREP_ERE);
	return 0;
}

static struct expr *new_node(enum node n, struct expr *l, struct expr *r, struct pat *a)
{
	struct expr *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->node = n;
	x->l = l;
	x->r = r;
	x->atom = a;
	return x;
}

static struct expr *parse_or(struct pat **list, int *err);

static struct expr *parse_atom(struct pat **list, int *err)
{
	struct pat *p = *list;
	struct expr *x;

	if (!p)
		return NULL;
	switch (p->token) {
	case FGIT_GREP_PATTERN:
		*list = p->next;
		return new_node(N_ATOM, NULL, NULL, p);
	case FGIT_GREP_OPEN_PAREN:
		*list = p->next;
		x = parse_or(list, err);
		if (*err)
			return x;
		if (!*list || (*list)->token != FGIT_GREP_CLOSE_PAREN) {
			*err = fgit_error_set(FGIT_EINVALID, "unmatched parenthesis");
			return x;
		}
		*list = (*list)->next;
		return x;
	default:
		return NULL;
	}
}

static struct expr *parse_not(struct pat **list, int *err)
{
	struct pat *p = *list;
	struct expr *x;

	if (!p)
		return NULL;
	if (p->token == FGIT_GREP_NOT) {
		if (!p->next) {
			*err = fgit_error_set(FGIT_EINVALID, "--not not followed by pattern expression");
			return NULL;
		}
		*list = p->next;
		x = parse_not(list, err);
		if (!x && !*err)
			*err = fgit_error_set(FGIT_EINVALID, "--not followed by non pattern expression");
		return *err ? x : new_node(N_NOT, x, NULL, NULL);
	}
	return parse_atom(list, err);
}

static struct expr *parse_and(struct pat **list, int *err)
{
	struct expr *x = parse_not(list, err), *y;
	struct pat *p = *list;

	if (*err)
		return x;
	if (p && p->token == FGIT_GREP_AND) {
		if (!x) {
			*err = fgit_error_set(FGIT_EINVALID, "--and not preceded by pattern expression");
			return NULL;
		}
		if (!p->next) {
			*err = fgit_error_set(FGIT_EINVALID, "--and not followed by pattern expression");
			return x;
		}
		*list = p->next;
		y = parse_and(list, err);
		if (!y && !*err)
			*err = fgit_error_set(FGIT_EINVALID, "--and not followed by pattern expression");
		return new_node(N_AND, x, y, NULL);
	}
	return x;
}

static struct expr *parse_or(struct pat **list, int *err)
{
	struct expr *x = parse_and(list, err), *y;
	struct pat *p = *list;

	if (*err)
		return x;
	if (x && p && p->token != FGIT_GREP_CLOSE_PAREN) {
		if (p->token == FGIT_GREP_OR)
			*list = p = p->next;
		y = parse_or(list, err);
		if (!y && !*err)
			*err = fgit_error_set(FGIT_EINVALID, "not a pattern expression %s",
					      p ? p->pattern : "");
		return new_node(N_OR, x, y, NULL);
	}
	return x;
}

int fgit_grep_compile(struct fgit_grep *g)
{
	struct pat *p;
	int err = 0;

	if (g->o.invert)
		g->o.only_matching = 0;
	for (p = g->pats; p; p = p->next) {
		if (p->token == FGIT_GREP_PATTERN) {
			int r = compile_pat(g, p);
			if (r)
				return r;
		} else {
			g->extended = 1;
		}
	}
	if (g->o.all_match)
		g->extended = 1;
	g->lookahead = !g->extended && !g->o.invert;
	if (g->extended) {
		p = g->pats;
		g->expr = parse_or(&p, &err);
		if (err)
			return err;
		if (p)
			return fgit_error_set(FGIT_EINVALID, "incomplete pattern expression group: %s",
					      p->pattern);
	}
	g->compiled = 1;
	return 0;
}

int fgit_grep_dup(struct fgit_grep **out, const struct fgit_grep *g)
{
	struct fgit_grep *n;
	struct pat *p;
	int r = fgit_grep_new(&n, &g->o);
	if (r)
		return r;
	for (p = g->pats; p; p = p->next)
		if ((r = fgit_grep_add(n, p->token, p->pattern, p->len)))
			goto fail;
	if ((r = fgit_grep_compile(n)))
		goto fail;
	*out = n;
	return 0;
fail:
	fgit_grep_free(n);
	return r;
}

/* ---- matching ---- */

static int word_char(unsigned char c)
{
	return (c < 0x80 && isalnum(c)) || c == '_';
}

/* One pattern on [bol, eol): 1 with so and eo relative to bol, 0, or <0. */
static int patmatch(struct pat *p, const char *bol, const char *eol,
		    long *so, long *eo, int notbol)
{
	size_t len = eol - bol;
	const char *m;

	switch (p->kind) {
	case K_FIXED:
		m = p->litlen ? grep_memmem(bol, len, p->lit, p->litlen) : bol;
		if (!m)
			return 0;
		*so = m - bol;
		*eo = *so + p->litlen;
		return 1;
	case K_ICASE:
		m = grep_memmem_icase(bol, len, p->lit, p->litlen);
		if (!m)
			return 0;
		*so = m - bol;
		*eo = *so + p->litlen;
		return 1;
	case K_REGEX: {
		regmatch_t rm[1];
		rm[0].rm_so = 0;
		rm[0].rm_eo = len;
		if (regexec(&p->re, bol, 1, rm, REG_STARTEND | (notbol ? REG_NOTBOL : 0)))
			return 0;
		*so = rm[0].rm_so;
		*eo = rm[0].rm_eo;
		return 1;
	}
	case K_PCRE: {
		int r;
		uint32_t fl = notbol ? PCRE2_NOTBOL : 0;
		if (p->jit)
			r = pcre2_jit_match(p->pc, (PCRE2_SPTR)bol, len, 0, fl, p->md, NULL);
		else
			r = pcre2_match(p->pc, (PCRE2_SPTR)bol, len, 0, fl, p->md, NULL);
		if (r == PCRE2_ERROR_NOMATCH)
			return 0;
		if (r < 0) {
			PCRE2_UCHAR buf[256];
			pcre2_get_error_message(r, buf, sizeof(buf));
			return fgit_error_set(FGIT_ERROR, "%s failed with error code %d: %s",
					      p->jit ? "pcre2_jit_match" : "pcre2_match", r,
					      (char *)buf);
		}
		{
			PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
			*so = ov[0];
			*eo = ov[1];
		}
		return 1;
	}
	}
	return 0;
}

static int match_one(struct pat *p, const char *bol, const char *eol,
		     long *so_out, long *eo_out, int notbol)
{
	const char *start = bol;
	long so = -1, eo = -1;
	int hit;

again:
	hit = patmatch(p, bol, eol, &so, &eo, notbol);
	if (hit < 0)
		return hit;
	if (hit && p->word) {
		if ((so == 0 || !word_char(bol[so - 1])) &&
		    (eo == eol - bol || !word_char(bol[eo])))
			;
		else
			hit = 0;
		if (so == eo)
			hit = 0;
		if (!hit && bol + so + 1 < eol) {
			bol = bol + so + 1;
			while (word_char(bol[-1]) && bol < eol)
				bol++;
			notbol = 1;
			if (bol < eol)
				goto again;
		}
	}
	if (hit) {
		*so_out = so + (bol - start);
		*eo_out = eo + (bol - start);
	}
	return hit;
}

static int eval(struct fgit_grep *g, struct expr *x, const char *bol, const char *eol,
		long *col, long *icol, int collect)
{
	int h = 0, r;

	switch (x->node) {
	case N_ATOM: {
		long so, eo;
		h = match_one(x->atom, bol, eol, &so, &eo, 0);
		if (h < 0)
			return h;
		if (h && (*col < 0 || so < *col))
			*col = so;
		break;
	}
	case N_NOT:
		r = eval(g, x->l, bol, eol, icol, col, 0);
		if (r < 0)
			return r;
		h = !r;
		break;
	case N_AND:
		h = eval(g, x->l, bol, eol, col, icol, 0);
		if (h < 0)
			return h;
		if (h || g->o.columnnum) {
			r = eval(g, x->r, bol, eol, col, icol, 0);
			if (r < 0)
				return r;
			h &= r;
		}
		break;
	case N_OR:
		if (!(collect || g->o.columnnum)) {
			h = eval(g, x->l, bol, eol, col, icol, 0);
			if (h)
				return h;
			return eval(g, x->r, bol, eol, col, icol, 0);
		}
		h = eval(g, x->l, bol, eol, col, icol, 0);
		if (h < 0)
			return h;
		if (collect)
			x->l->hit |= h;
		r = eval(g, x->r, bol, eol, col, icol, collect);
		if (r < 0)
			return r;
		h |= r;
		break;
	}
	if (collect)
		x->hit |= h;
	return h;
}

static int match_line(struct fgit_grep *g, const char *bol, const char *eol,
		      long *col, long *icol, int collect)
{
	struct pat *p;
	int hit = 0;

	if (g->extended)
		return eval(g, g->expr, bol, eol, col, icol, collect);
	for (p = g->pats; p; p = p->next) {
		long so, eo;
		int r = match_one(p, bol, eol, &so, &eo, 0);
		if (r < 0)
			return r;
		if (r) {
			hit = 1;
			if (!g->o.columnnum)
				break;
			if (*col < 0 || so < *col)
				*col = so;
		}
	}
	return hit;
}

static int chk_hit(struct expr *x)
{
	for (;;) {
		if (x->node != N_OR)
			return x->hit;
		if (!x->l->hit)
			return 0;
		x = x->r;
	}
}

static void clr_hit(struct expr *x)
{
	if (!x)
		return;
	x->hit = 0;
	clr_hit(x->l);
	clr_hit(x->r);
}

/* The leftmost(-longest) match of any pattern, for colour and -o. */
static int next_match(struct fgit_grep *g, const char *bol, const char *eol,
		      long *mso, long *meo, int notbol)
{
	struct pat *p;
	int hit = 0;

	*mso = *meo = -1;
	if (bol >= eol)
		return 0;
	for (p = g->pats; p; p = p->next) {
		long so, eo;
		int r;
		if (p->token != FGIT_GREP_PATTERN)
			continue;
		r = match_one(p, bol, eol, &so, &eo, notbol);
		if (r < 0)
			return r;
		if (!r || so < 0 || eo < 0)
			continue;
		if (*mso >= 0 && *meo >= 0) {
			if (so > *mso)
				continue;
			if (so == *mso && eo < *meo)
				continue;
		}
		*mso = so;
		*meo = eo;
		hit = 1;
	}
	return hit;
}

/*
 * Earliest position in [bol, end) where some pattern may match: its line
 * is the first that can hit.  Returns NULL when no pattern occurs.
 */
static const char *look_ahead(struct fgit_grep *g, const char *bol, const char *end,
			      int *err)
{
	struct pat *p;
	const char *best = NULL;

	for (p = g->pats; p; p = p->next) {
		const char *m = NULL;
		const char *lim = best ? best : end;
		long so, eo;
		int r;

		if (p->lit && p->litlen) {
			int icase = p->kind == K_ICASE || p->lit_icase;
			size_t n = lim - bol;
			/* an occurrence may straddle the limit; search a bit beyond */
			if (lim < end)
				n = (size_t)(end - bol) < n + p->litlen ? (size_t)(end - bol) : n + p->litlen;
			m = icase ? grep_memmem_icase(bol, n, p->lit, p->litlen)
				  : grep_memmem(bol, n, p->lit, p->litlen);
		} else if (p->filter) {
			r = pcre2_jit_match(p->filter, (PCRE2_SPTR)bol, end - bol, 0, 0,
					    p->filter_md, NULL);
			if (r >= 0)
				m = bol + pcre2_get_ovector_pointer(p->filter_md)[0];
			else if (r != PCRE2_ERROR_NOMATCH)
				m = bol;	/* let regexec decide */
		} else {
			r = patmatch(p, bol, end, &so, &eo, 0);
			if (r < 0) {
				*err = r;
				return NULL;
			}
			if (r)
				m = bol + so;
		}
		if (m && (!best || m < best))
			best = m;
	}
	return best;
}

/* ---- drivers (lazy, per matcher) ---- */

struct file {
	struct fgit_grep *g;
	const struct fgit_grep_source *src;
	struct fgit_buf *out;
	int binary;		/* -1 not yet known */
	int driver_done;
	struct grep_driver *driver;
	int funcname_ok;	/* driver has funcname regexes */
	unsigned last_shown;
	int any_shown;
	size_t start, mark_len;	/* where this file's output began; its mark */
	int err;
};

static struct grep_driver *find_driver(struct fgit_grep *g, const char *name)
{
	size_t i;
	struct grep_driver *d, **nd;

	for (i = 0; i < g->ndrivers; i++)
		if (!strcmp(g->drivers[i]->name, name))
			return g->drivers[i];
	d = grep_driver_load(name, g->o.config);
	if (!d)
		return NULL;
	nd = realloc(g->drivers, (g->ndrivers + 1) * sizeof(*nd));
	if (!nd) {
		grep_driver_free(d);
		return NULL;
	}
	g->drivers = nd;
	g->drivers[g->ndrivers++] = d;
	return d;
}

static void load_driver(struct file *f)
{
	struct fgit_grep *g = f->g;
	struct fgit_attr_value v;
	static const char *const names[] = { "diff" };
	static struct grep_driver driver_true = { (char *)"diff=true", 0, NULL, 0, 0, 0, NULL, NULL };
	static struct grep_driver driver_false = { (char *)"!diff", 1, NULL, 0, 0, 0, NULL, NULL };

	if (f->driver_done)
		return;
	f->driver_done = 1;
	f->driver = NULL;
	if (f->src->path && g->o.attrs &&
	    fgit_attrs_get(&v, g->o.attrs, f->src->path, names, 1) == 0) {
		if (v.state == FGIT_ATTR_SET)
			f->driver = &driver_true;
		else if (v.state == FGIT_ATTR_UNSET)
			f->driver = &driver_false;
		else if (v.state == FGIT_ATTR_VALUE)
			f->driver = find_driver(g, v.value);
	}
	if (!f->driver) {
		if (!g->default_loaded) {
			g->default_loaded = 1;
			g->default_driver = grep_driver_load("default", g->o.config);
		}
		f->driver = g->default_driver;
	}
	f->funcname_ok = f->driver && f->driver->funcname;
}

static int is_binary(struct file *f)
{
	if (f->binary >= 0)
		return f->binary;
	load_driver(f);
	if (f->driver && f->driver->binary != -1)
		f->binary = f->driver->binary;
	else
		f->binary = memchr(f->src->buf, 0, f->src->size < 8000 ? f->src->size : 8000) != NULL;
	return f->binary;
}

static int match_funcname(struct file *f, const char *bol, const char *eol)
{
	load_driver(f);
	if (f->funcname_ok) {
		int r = grep_driver_match(f->driver, bol, eol);
		if (r < 0) {
			f->err = r;
			return 0;
		}
		return r;
	}
	if (bol == eol)
		return 0;
	return isalpha((unsigned char)*bol) || *bol == '_' || *bol == '$';
}

/* ---- output ---- */

static void out_color(struct file *f, const char *data, size_t len, const char *color)
{
	if (f->g->o.color && color && *color) {
		fgit_buf_adds(f->out, color);
		fgit_buf_add(f->out, data, len);
		fgit_buf_adds(f->out, "\033[m");
	} else {
		fgit_buf_add(f->out, data, len);
	}
}

static void out_sep(struct file *f, char sign)
{
	if (f->g->o.null_following_name)
		fgit_buf_addch(f->out, 0);
	else
		out_color(f, &sign, 1, f->g->o.colors[FGIT_GREP_COLOR_SEP]);
}

static void show_name(struct file *f)
{
	out_color(f, f->src->name, strlen(f->src->name), f->g->o.colors[FGIT_GREP_COLOR_FILENAME]);
	fgit_buf_addch(f->out, f->g->o.null_following_name ? 0 : '\n');
}

static void line_header(struct file *f, unsigned lno, long cno, char sign)
{
	const struct fgit_grep_options *o = &f->g->o;
	char buf[32];

	if (o->heading && f->last_shown == 0) {
		out_color(f, f->src->name, strlen(f->src->name), o->colors[FGIT_GREP_COLOR_FILENAME]);
		fgit_buf_addch(f->out, '\n');
	}
	f->last_shown = lno;
	f->any_shown = 1;
	if (!o->heading && o->pathname) {
		out_color(f, f->src->name, strlen(f->src->name), o->colors[FGIT_GREP_COLOR_FILENAME]);
		out_sep(f, sign);
	}
	if (o->linenum) {
		snprintf(buf, sizeof(buf), "%u", lno);
		out_color(f, buf, strlen(buf), o->colors[FGIT_GREP_COLOR_LINENO]);
		out_sep(f, sign);
	}
	if (o->columnnum && cno) {
		snprintf(buf, sizeof(buf), "%ld", cno);
		out_color(f, buf, strlen(buf), o->colors[FGIT_GREP_COLOR_COLUMNNO]);
		out_sep(f, sign);
	}
}

static void show_line(struct file *f, const char *bol, const char *eol,
		      unsigned lno, long cno, char sign)
{
	const struct fgit_grep_options *o = &f->g->o;
	long rest = eol - bol;
	const char *match_color = NULL, *line_color = NULL;

	if (o->file_break && f->last_shown == 0) {
		if (f->out->len == f->start)
			f->mark_len = 1;
		fgit_buf_addch(f->out, '\n');
	} else if (o->pre_context || o->post_context || o->funcbody) {
		if (f->last_shown == 0 || lno > f->last_shown + 1) {
			size_t at = f->out->len;
			out_color(f, "--", 2, o->colors[FGIT_GREP_COLOR_SEP]);
			fgit_buf_addch(f->out, '\n');
			if (at == f->start && f->last_shown == 0)
				f->mark_len = f->out->len - at;
		}
	}
	/* the heading and last_shown come with the line header: with -o
	 * only a printed match counts as shown (git 2.39) */
	if (!o->only_matching)
		line_header(f, lno, cno, sign);
	if (o->color || o->only_matching) {
		long so, eo;
		int notbol = 0;
		if (o->color) {
			match_color = o->colors[sign == ':' ? FGIT_GREP_COLOR_MATCH_SELECTED
							     : FGIT_GREP_COLOR_MATCH_CONTEXT];
			line_color = sign == ':' ? o->colors[FGIT_GREP_COLOR_SELECTED] :
				     sign == '-' ? o->colors[FGIT_GREP_COLOR_CONTEXT] :
				     sign == '=' ? o->colors[FGIT_GREP_COLOR_FUNCTION] : NULL;
		}
		for (;;) {
			int r = next_match(f->g, bol, eol, &so, &eo, notbol);
			if (r < 0) {
				f->err = r;
				break;
			}
			if (!r || so == eo)
				break;
			if (o->only_matching)
				line_header(f, lno, cno, sign);
			else
				out_color(f, bol, so, line_color);
			out_color(f, bol + so, eo - so, match_color);
			if (o->only_matching)
				fgit_buf_addch(f->out, '\n');
			bol += eo;
			cno += eo;
			rest -= eo;
			notbol = 1;
		}
	}
	if (!o->only_matching && rest)
		out_color(f, bol, rest, line_color);
	if (!o->only_matching)
		fgit_buf_addch(f->out, '\n');
}

static void show_funcname_line(struct file *f, const char *bol, unsigned lno)
{
	const char *buf = f->src->buf;
	while (bol > buf) {
		const char *eol = --bol;
		while (bol > buf && bol[-1] != '\n')
			bol--;
		lno--;
		if (lno <= f->last_shown)
			break;
		if (match_funcname(f, bol, eol)) {
			show_line(f, bol, eol, lno, 0, '=');
			break;
		}
	}
}

static int is_empty_line(const char *bol, const char *eol)
{
	while (bol < eol && isspace((unsigned char)*bol))
		bol++;
	return bol == eol;
}

static void show_pre_context(struct file *f, const char *bol, const char *end, unsigned lno)
{
	const struct fgit_grep_options *o = &f->g->o;
	const char *buf = f->src->buf;
	unsigned cur = lno, from = 1, funcname_lno = 0, orig_from;
	int funcname_needed = !!o->funcname, comment_needed = 0;

	if ((unsigned)o->pre_context < lno)
		from = lno - o->pre_context;
	if (from <= f->last_shown)
		from = f->last_shown + 1;
	orig_from = from;
	if (o->funcbody) {
		if (match_funcname(f, bol, end))
			comment_needed = 1;
		else
			funcname_needed = 1;
		from = f->last_shown + 1;
	}
	while (bol > buf && cur > from) {
		const char *next_bol = bol;
		const char *eol = --bol;
		while (bol > buf && bol[-1] != '\n')
			bol--;
		cur--;
		if (comment_needed && (is_empty_line(bol, eol) || match_funcname(f, bol, eol))) {
			comment_needed = 0;
			from = orig_from;
			if (cur < from) {
				cur++;
				bol = next_bol;
				break;
			}
		}
		if (funcname_needed && match_funcname(f, bol, eol)) {
			funcname_lno = cur;
			funcname_needed = 0;
			if (o->funcbody)
				comment_needed = 1;
			else
				from = orig_from;
		}
	}
	if (o->funcname && funcname_needed)
		show_funcname_line(f, bol, cur);
	while (cur < lno) {
		const char *eol = bol;
		char sign = cur == funcname_lno ? '=' : '-';
		while (*eol != '\n')
			eol++;
		show_line(f, bol, eol, cur, 0, sign);
		bol = eol + 1;
		cur++;
	}
}

static const char *end_of_line(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', end - p);
	return e ? e : end;
}

static int grep_file(struct file *f)
{
	struct fgit_grep *g = f->g;
	const struct fgit_grep_options *o = &g->o;
	const char *buf = f->src->buf, *end = buf + f->src->size, *bol, *peek_bol = NULL;
	unsigned lno, last_hit, count;
	int collect = g->extended && o->all_match, show_function, hit, show;

	if (o->binary == FGIT_GREP_BINARY_TEXT)
		f->binary = 0;
	/* --all-match: hits are per file; a file that failed the check
	 * returned with its hits still set */
	if (collect)
		clr_hit(g->expr);
again:
	bol = buf;
	lno = 1;
	last_hit = 0;
	count = 0;
	show_function = 0;
	while (bol < end || (bol == end && 0)) {
		const char *eol;
		long col = -1, icol = -1, cno;

		if (g->lookahead && !collect &&
		    !(last_hit && (show_function || lno <= last_hit + o->post_context))) {
			int err = 0;
			const char *m = look_ahead(g, bol, end, &err), *sp;
			if (err)
				return err;
			if (!m)
				break;
			for (sp = m; sp > bol && sp[-1] != '\n'; sp--)
				;
			/* count the lines skipped */
			{
				const char *q = bol;
				while ((q = memchr(q, '\n', sp - q))) {
					lno++;
					q++;
				}
			}
			bol = sp;
		}
		eol = end_of_line(bol, end);
		hit = match_line(g, bol, eol, &col, &icol, collect);
		if (hit < 0)
			return hit;
		if (collect)
			goto next_line;
		if (o->invert)
			hit = !hit;
		if (o->unmatch_name_only) {
			if (hit)
				return 0;
			goto next_line;
		}
		if (hit && (o->max_count < 0 || count < (unsigned)o->max_count)) {
			if (o->binary == FGIT_GREP_BINARY_NOMATCH && is_binary(f))
				return 0;
			count++;
			if (o->status_only)
				return 1;
			if (o->name_only) {
				show_name(f);
				return 1;
			}
			if (o->count)
				goto next_line;
			if (is_binary(f)) {
				fgit_buf_adds(f->out, "Binary file ");
				out_color(f, f->src->name, strlen(f->src->name),
					  o->colors[FGIT_GREP_COLOR_FILENAME]);
				fgit_buf_adds(f->out, " matches\n");
				return 1;
			}
			if (o->pre_context || o->funcbody)
				show_pre_context(f, bol, eol, lno);
			else if (o->funcname)
				show_funcname_line(f, bol, lno);
			cno = o->invert ? icol : col;
			if (cno < 0)
				cno = 0;
			show_line(f, bol, eol, lno, cno + 1, ':');
			last_hit = lno;
			if (o->funcbody)
				show_function = 1;
			goto next_line;
		}
		/*
		 * -W: the function goes on up to the next line that starts
		 * one, looking past empty lines (git 2.39's observable
		 * behaviour: the peek starts at the current line).
		 */
		if (show_function && (!peek_bol || peek_bol < bol)) {
			const char *pe = bol;
			while (pe < end && *pe == '\n')
				pe++;
			peek_bol = pe;
			pe = end_of_line(peek_bol, end);
			if (match_funcname(f, peek_bol, pe))
				show_function = 0;
		}
		show = show_function || (last_hit && lno <= last_hit + o->post_context);
		if (show)
			show_line(f, bol, eol, lno, col + 1, '-');
next_line:
		if (f->err)
			return f->err;
		if (eol >= end)
			break;
		bol = eol + 1;
		lno++;
	}
	if (collect) {
		if (!chk_hit(g->expr))
			return 0;
		clr_hit(g->expr);
		collect = 0;
		goto again;
	}
	if (o->binary == FGIT_GREP_BINARY_NOMATCH && o->unmatch_name_only && is_binary(f))
		return 0;
	if (o->status_only)
		return o->unmatch_name_only;
	if (o->unmatch_name_only) {
		show_name(f);
		return 1;
	}
	if (o->count && count) {
		char b[32];
		if (o->pathname) {
			out_color(f, f->src->name, strlen(f->src->name),
				  o->colors[FGIT_GREP_COLOR_FILENAME]);
			out_sep(f, ':');
		}
		snprintf(b, sizeof(b), "%u\n", count);
		fgit_buf_adds(f->out, b);
		return 1;
	}
	return !!last_hit;
}

int fgit_grep_buffer(struct fgit_buf *out, struct fgit_grep_result *res,
		     struct fgit_grep *g, const struct fgit_grep_source *src)
{
	struct file f;
	int r;

	if (!g->compiled)
		return fgit_error_set(FGIT_ERROR, "BUG: grep patterns not compiled");
	memset(&f, 0, sizeof(f));
	f.g = g;
	f.src = src;
	f.out = out;
	f.start = out->len;
	f.binary = -1;
	r = grep_file(&f);
	if (res) {
		res->mark_len = f.mark_len;
		res->shown = f.any_shown;
	}
	return r;
}
