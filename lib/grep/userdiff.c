/*
 * Function-line drivers for grep -p / -W (gitattributes(5) "Defining a
 * custom hunk-header", diff=<driver>): built-in drivers for common
 * languages (ada, bash, bibtex, cpp, csharp, css, dts, elixir, fortran,
 * fountain, golang, html, java, kotlin, markdown, matlab, objc, pascal,
 * perl, php, python, ruby, rust, scheme, tex: all of git 2.39's) and
 * diff.<driver>.xfuncname / funcname / binary from config.
 *
 * grep only asks whether a line starts a function, never for the header
 * text, so each built-in driver is written here as the predicate git's
 * driver computes: an ordered list of extended regexes, tried in turn on
 * the line; the first that matches decides, and one marked '!' means "not
 * a function line".  Checked against git 2.39 on sample files
 * (tests/compat/t7813-grep-funcname.sh).
 */
#include <stdlib.h>
#include <string.h>
#include "fgit/common.h"
#include "fgit/config.h"
#include "grep_internal.h"

struct builtin {
	const char *name;
	const char *re;
	int icase;
};

static const struct builtin builtins[] = {
	{ "bash",
	  "^[ \t]*([a-zA-Z_][a-zA-Z0-9_]*[ \t]*\\([ \t]*\\)|function[ \t]+[a-zA-Z_][a-zA-Z0-9_]*([ \t]*\\([ \t]*\\)|[ \t]+))[ \t]*(\\{|\\(|\\[\\[)", 0 },
	{ "cpp",
	  "!^[ \t]*[A-Za-z_][A-Za-z_0-9]*:[[:space:]]*($|/[/*])\n"
	  "^(::[[:space:]]*)?[A-Za-z_]", 0 },
	{ "css",
	  "![:;][[:space:]]*$\n"
	  "^[:[@.#]?[_a-z0-9]", 1 },
	{ "dts",
	  "!;\n"
	  "!=\n"
	  "^[ \t]*(/[ \t]*\\{|&?[a-zA-Z_])", 0 },
	{ "golang",
	  "^[ \t]*func\n"
	  "^[ \t]*type[ \t].*(struct|interface)", 0 },
	{ "html",
	  "^[ \t]*<[Hh][1-6]([ \t].*)?>", 0 },
	{ "java",
	  "!^[ \t]*(catch|do|for|if|instanceof|new|return|switch|throw|while)\n"
	  "^[ \t]*([a-z-]+[ \t]+)*(class|enum|interface|record)[ \t]+\n"
	  "^[ \t]*([A-Za-z_][][?&<>.,A-Za-z_0-9]*[ \t]+)+[A-Za-z_][A-Za-z_0-9]*[ \t]*\\([^;]*$", 0 },
	{ "markdown",
	  "^ {0,3}#{1,6}[ \t]", 0 },
	{ "perl",
	  "^package \n"
	  "^sub [[:alnum:]_':]+[ \t]*(\\([^)]*\\)[ \t]*)?(:[^;#]*)?(\\{[ \t]*)?(#.*)?$\n"
	  "^(BEGIN|END|INIT|CHECK|UNITCHECK|AUTOLOAD|DESTROY)[ \t]*(\\{[ \t]*)?(#.*)?$\n"
	  "^=head[0-9] ", 0 },
	{ "php",
	  "^[\t ]*((public|protected|private|static|abstract|final)[\t ]+)*function\n"
	  "^[\t ]*(((final|abstract)[\t ]+)?class|enum|interface|trait)", 0 },
	{ "python",
	  "^[ \t]*(class|def|async[ \t]+def)[ \t]", 0 },
	{ "ruby",
	  "^[ \t]*(class|module|def)[ \t]", 0 },
	{ "rust",
	  "^[\t ]*(pub(\\([^\\)]+\\))?[\t ]+)?((async|const|unsafe|extern([\t ]+\"[^\"]+\"))[\t ]+)?(struct|enum|union|mod|trait|fn|impl|macro_rules!)[< \t]+[^;]*$", 0 },
	{ "tex",
	  "^\\\\((sub)*section|chapter|part)\\*?\\{", 0 },
	{ "ada",
	  "!^(.*[ \t])?(is[ \t]+new|renames|is[ \t]+separate)([ \t].*)?$\n"
	  "!^[ \t]*with[ \t]\n"
	  "^[ \t]*(procedure|function)[ \t]\n"
	  "^[ \t]*(package|protected|task)[ \t]", 1 },
	{ "bibtex",
	  "^@[[:alpha:]]+\\{", 0 },
	{ "csharp",
	  "!^[ \t]*(do|while|for|if|else|instanceof|new|return|switch|case|throw|catch|using)\n"
	  "^[ \t]*((static|public|internal|private|protected|new|virtual|sealed|override|unsafe|async)[ \t]+)*[][<>@.~_[:alnum:]]+[ \t]+[<>@._[:alnum:]]+[ \t]*\\(.*\\)[ \t]*$\n"
	  "^[ \t]*((static|public|internal|private|protected|new|virtual|sealed|override|unsafe)[ \t]+)*[][<>@.~_[:alnum:]]+[ \t]+[@._[:alnum:]]+[ \t]*$\n"
	  "^[ \t]*((static|public|internal|private|protected|new|unsafe|sealed|abstract|partial)[ \t]+)*(class|enum|interface|struct|record)[ \t]+\n"
	  "^[ \t]*namespace[ \t]+", 0 },
	{ "elixir",
	  "^[ \t]*(def(macro|module|impl|protocol|p)?|test)[ \t]", 0 },
	{ "fortran",
	  "!^([C*]|[ \t]*!)\n"
	  "!^[ \t]*MODULE[ \t]+PROCEDURE[ \t]\n"
	  "^[ \t]*(END[ \t]+)?(PROGRAM|MODULE|BLOCK[ \t]+DATA|([^!'\" \t]+[ \t]+)*(SUBROUTINE|FUNCTION))[ \t]+[A-Z]", 1 },
	{ "fountain",
	  "^(\\.[^.]|(int|ext|est|int\\.?/ext|i/e)[. ])", 1 },
	{ "kotlin",
	  "^[ \t]*([a-z]+[ \t]+)*(fun|class|interface)[ \t]+", 1 },
	{ "matlab",
	  "^[[:space:]]*(classdef|function)[[:space:]]|^(%%%?|##)[[:space:]]", 0 },
	{ "objc",
	  "!^[ \t]*(do|for|if|else|return|switch|while)\n"
	  "^[ \t]*[-+][ \t]*\\([ \t]*[A-Za-z_][A-Za-z_0-9* \t]*\\)[ \t]*[A-Za-z_]\n"
	  "^[ \t]*([A-Za-z_][A-Za-z_0-9]*[ \t]+)+[A-Za-z_][A-Za-z_0-9]*[ \t]*\\([^;]*$\n"
	  "^@(implementation|interface|protocol)[ \t]", 0 },
	{ "pascal",
	  "^((class[ \t]+)?(procedure|function)|constructor|destructor|interface|implementation|initialization|finalization)\n"
	  "^.*=[ \t]*(class|record)", 0 },
	{ "scheme",
	  "^[\t ]*\\(((define|def(struct|syntax|class|method|rules|record|proto|alias)?)[-*/ \t]|(library|module|struct|class)[*+ \t])", 0 },
	{ "default", NULL, 0 },
};

struct cfg_walk {
	struct grep_driver *d;
	size_t prefix_len;
	const char *prefix;
	int found;
	int err;
};

static int cfg_cb(const char *key, const char *value, enum fgit_config_scope scope,
		  void *payload)
{
	struct cfg_walk *w = payload;
	const char *k;

	if (strncmp(key, w->prefix, w->prefix_len))
		return 0;
	k = key + w->prefix_len;
	if (strchr(k, '.'))
		return 0;
	if (!strcmp(k, "funcname") || !strcmp(k, "xfuncname")) {
		char *v;
		if (!value) {
			w->err = fgit_error_set(FGIT_EINVALID, "missing value for '%s'", key);
			return 1;
		}
		v = strdup(value);
		if (!v) {
			w->err = fgit_error_set(FGIT_ENOMEM, "out of memory");
			return 1;
		}
		free(w->d->funcname);
		w->d->funcname = v;
		w->d->cflags = k[0] == 'x' ? REG_EXTENDED : 0;
		w->found = 1;
	} else if (!strcmp(k, "binary")) {
		int b = value ? fgit_config_parse_bool(value) : 1;
		w->d->binary = b < 0 ? 1 : b;
		w->found = 1;
	} else if (!strcmp(k, "command") || !strcmp(k, "textconv") ||
		   !strcmp(k, "cachetextconv") || !strcmp(k, "wordregex") ||
		   !strcmp(k, "algorithm")) {
		w->found = 1;
	}
	return 0;
}

struct grep_driver *grep_driver_load(const char *name, const struct fgit_config *cfg)
{
	const struct builtin *b;
	struct grep_driver *d = calloc(1, sizeof(*d));
	struct cfg_walk w;
	int known = 0;

	if (!d)
		return NULL;
	d->name = strdup(name);
	d->binary = -1;
	if (!d->name)
		goto fail;
	for (b = builtins; b < builtins + sizeof(builtins) / sizeof(*builtins); b++)
		if (!strcmp(b->name, name)) {
			known = 1;
			if (b->re && !(d->funcname = strdup(b->re)))
				goto fail;
			d->cflags = REG_EXTENDED | (b->icase ? REG_ICASE : 0);
		}
	if (cfg) {
		size_t n = strlen(name);
		char *prefix = malloc(n + 7);
		if (!prefix)
			goto fail;
		memcpy(prefix, "diff.", 5);
		memcpy(prefix + 5, name, n);
		memcpy(prefix + 5 + n, ".", 2);
		memset(&w, 0, sizeof(w));
		w.d = d;
		w.prefix = prefix;
		w.prefix_len = n + 6;
		fgit_config_foreach(cfg, cfg_cb, &w);
		free(prefix);
		if (w.found)
			known = 1;
	}
	if (!known)
		goto fail;
	return d;
fail:
	grep_driver_free(d);
	return NULL;
}

void grep_driver_free(struct grep_driver *d)
{
	size_t i;
	if (!d)
		return;
	for (i = 0; i < d->nre; i++)
		regfree(&d->re[i]);
	free(d->re);
	free(d->negate);
	free(d->funcname);
	free(d->name);
	free(d);
}

static int compile_driver(struct grep_driver *d)
{
	const char *p = d->funcname;
	size_t n = 1, i;

	for (i = 0; p[i]; i++)
		if (p[i] == '\n')
			n++;
	d->re = calloc(n, sizeof(*d->re));
	d->negate = calloc(n, 1);
	if (!d->re || !d->negate)
		return fgit_error_set(FGIT_ENOMEM, "out of memory");
	while (d->nre < n) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char *one = malloc(len + 1);
		if (!one)
			return fgit_error_set(FGIT_ENOMEM, "out of memory");
		memcpy(one, p, len);
		one[len] = 0;
		if (one[0] == '!')
			d->negate[d->nre] = 1;
		if (regcomp(&d->re[d->nre], one + d->negate[d->nre], d->cflags)) {
			int r = fgit_error_set(FGIT_EINVALID,
					       "Invalid regexp to look for hunk header: %s",
					       one + d->negate[d->nre]);
			free(one);
			return r;
		}
		free(one);
		d->nre++;
		p = e ? e + 1 : p + len;
	}
	return 0;
}

int grep_driver_match(struct grep_driver *d, const char *bol, const char *eol)
{
	size_t i;

	if (!d->compiled) {
		int r;
		d->compiled = 1;
		if ((r = compile_driver(d)) < 0) {
			d->compiled = -1;
			return r;
		}
	}
	if (d->compiled < 0)
		return fgit_error_set(FGIT_EINVALID, "Invalid regexp to look for hunk header");
	for (i = 0; i < d->nre; i++) {
		regmatch_t m[1];
		m[0].rm_so = 0;
		m[0].rm_eo = eol - bol;
		if (!regexec(&d->re[i], bol, 1, m, REG_STARTEND))
			return !d->negate[i];
	}
	return 0;
}
