/*
 * Option parsing in git's style (see cli.h).  Written for fgit; follows the
 * behaviour documented in git's gitcli(7) and api-parse-options: bundled
 * short options, unique long prefixes, --no-<name>, "--".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static const char *const *cur_usage;
static const struct cli_option *cur_opts;
static const char *cur_cmd;

static void print_usage(FILE *f, const char *const *usage, const struct cli_option *opts)
{
	const struct cli_option *o;
	int first = 1;

	for (; usage && *usage; usage++) {
		fprintf(f, "%s%s\n", first ? "usage: " : "   or: ", *usage);
		first = 0;
	}
	fputc('\n', f);
	for (o = opts; o && o->type != CLI_OPT_END; o++) {
		char line[256];
		int n = 0;
		if (o->type == CLI_OPT_GROUP) {
			fprintf(f, "\n%s\n", o->help ? o->help : "");
			continue;
		}
		if (o->flags & CLI_OPT_HIDDEN)
			continue;
		n += snprintf(line + n, sizeof(line) - n, "    ");
		if (o->short_name)
			n += snprintf(line + n, sizeof(line) - n, "-%c", o->short_name);
		if (o->short_name && o->long_name)
			n += snprintf(line + n, sizeof(line) - n, ", ");
		if (o->long_name)
			n += snprintf(line + n, sizeof(line) - n, "--%s", o->long_name);
		if (o->argh && (o->type == CLI_OPT_STRING || o->type == CLI_OPT_INTEGER ||
				(o->type == CLI_OPT_CALLBACK && !(o->flags & CLI_OPT_NOARG))))
			n += snprintf(line + n, sizeof(line) - n,
				      o->flags & CLI_OPT_OPTARG ? "[=<%s>]" : " <%s>", o->argh);
		if (n >= 26)
			fprintf(f, "%s\n%26s%s\n", line, "", o->help ? o->help : "");
		else
			fprintf(f, "%-26s%s\n", line, o->help ? o->help : "");
	}
	fputc('\n', f);
}

void cli_usage_with_options(const char *const *usage, const struct cli_option *opts,
			    int to_stdout)
{
	fflush(stdout);
	print_usage(to_stdout ? stdout : stderr, usage, opts);
	fflush(stdout);
	exit(129);
}

void cli_usage(const char *line)
{
	fflush(stdout);
	fprintf(stderr, "usage: %s\n", line);
	exit(129);
}

static _Noreturn void bad(const char *fmt, const char *arg)
{
	fflush(stdout);
	fprintf(stderr, "error: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	print_usage(stderr, cur_usage, cur_opts);
	exit(129);
}

static int takes_arg(const struct cli_option *o)
{
	switch (o->type) {
	case CLI_OPT_STRING:
	case CLI_OPT_INTEGER:
		return 1;
	case CLI_OPT_CALLBACK:
		return !(o->flags & CLI_OPT_NOARG);
	default:
		return 0;
	}
}

static void opt_name(char *buf, size_t n, const struct cli_option *o, int as_long)
{
	if (as_long || !o->short_name)
		snprintf(buf, n, "option `%s'", o->long_name);
	else
		snprintf(buf, n, "switch `%c'", o->short_name);
}

/*
 * Apply option o.  `arg` is the attached argument (or NULL); `next` points at
 * the following argv slot so a required argument can be taken from it.
 * Returns how many extra argv slots were consumed.
 */
static int apply(const struct cli_option *o, const char *arg, int unset,
		 int as_long, int argc_left, const char **next)
{
	char name[128];
	int used = 0;

	opt_name(name, sizeof(name), o, as_long);
	if (o->type == CLI_OPT_UNIMPLEMENTED) {
		char what[128];
		if (o->long_name)
			snprintf(what, sizeof(what), "--%s", o->long_name);
		else
			snprintf(what, sizeof(what), "-%c", o->short_name);
		die_unimplemented(cur_cmd, what);
	}
	if (unset) {
		if (arg) {
			char m[200];
			snprintf(m, sizeof(m), "%s takes no value", name);
			bad("%s", m);
		}
	} else if (takes_arg(o)) {
		if (!arg && !(o->flags & CLI_OPT_OPTARG)) {
			if (argc_left <= 0) {
				char m[200];
				snprintf(m, sizeof(m), "%s requires a value", name);
				bad("%s", m);
			}
			arg = *next;
			used = 1;
		}
	} else if (arg) {
		char m[200];
		snprintf(m, sizeof(m), "%s takes no value", name);
		bad("%s", m);
	}

	switch (o->type) {
	case CLI_OPT_BOOL:
		*(int *)o->value = unset ? 0 : 1;
		break;
	case CLI_OPT_COUNT:
		*(int *)o->value = unset ? 0 : *(int *)o->value + 1;
		break;
	case CLI_OPT_SET_INT:
		*(int *)o->value = unset ? 0 : (int)o->defval;
		break;
	case CLI_OPT_STRING:
		*(const char **)o->value = unset ? NULL : arg;
		break;
	case CLI_OPT_INTEGER:
		if (unset) {
			*(int *)o->value = 0;
		} else {
			char *end;
			long v;
			errno = 0;
			v = strtol(arg, &end, 10);
			if (!*arg || *end || errno) {
				char m[200];
				snprintf(m, sizeof(m), "%s expects a numerical value", name);
				bad("%s", m);
			}
			*(int *)o->value = (int)v;
		}
		break;
	case CLI_OPT_CALLBACK:
		if (o->cb(o, arg, unset))
			exit(129);
		break;
	default:
		break;
	}
	return used;
}

static const struct cli_option *find_short(const struct cli_option *opts, int c)
{
	for (; opts->type != CLI_OPT_END; opts++)
		if (opts->type != CLI_OPT_GROUP && opts->short_name == c)
			return opts;
	return NULL;
}

/* Find a long option by exact name or unique prefix; sets *unset for --no-. */
static const struct cli_option *find_long(const struct cli_option *opts,
					  const char *name, size_t len, int *unset)
{
	const struct cli_option *o, *abbrev = NULL, *ambig = NULL;
	int abbrev_unset = 0;

	for (o = opts; o->type != CLI_OPT_END; o++) {
		const char *ln = o->long_name;
		if (o->type == CLI_OPT_GROUP || !ln)
			continue;
		if (strlen(ln) == len && !strncmp(ln, name, len)) {
			*unset = 0;
			return o;
		}
		if (!(o->flags & CLI_OPT_NONEG) && len > 3 && !strncmp(name, "no-", 3) &&
		    strlen(ln) == len - 3 && !strncmp(ln, name + 3, len - 3)) {
			*unset = 1;
			return o;
		}
		/* a long name that itself starts with no- can be negated by dropping it */
		if (!strncmp(ln, "no-", 3) && !(o->flags & CLI_OPT_NONEG) &&
		    strlen(ln) - 3 == len && !strncmp(ln + 3, name, len)) {
			*unset = 1;
			return o;
		}
		if (len < strlen(ln) && !strncmp(ln, name, len)) {
			if (abbrev && abbrev != o)
				ambig = o;
			abbrev = o;
			abbrev_unset = 0;
		} else if (!(o->flags & CLI_OPT_NONEG) && len > 3 &&
			   !strncmp(name, "no-", 3) && len - 3 < strlen(ln) &&
			   !strncmp(ln, name + 3, len - 3)) {
			if (abbrev && abbrev != o)
				ambig = o;
			abbrev = o;
			abbrev_unset = 1;
		}
	}
	if (ambig) {
		char m[300];
		snprintf(m, sizeof(m), "ambiguous option: %.*s (could be --%s or --%s)",
			 (int)len, name, abbrev->long_name, ambig->long_name);
		bad("%s", m);
	}
	*unset = abbrev_unset;
	return abbrev;
}

int cli_opt_abbrev(const struct cli_option *opt, const char *arg, int unset)
{
	int *out = opt->value;
	char *end;
	long v;

	if (unset || !arg) {
		*out = unset ? 0 : -1;
		return 0;
	}
	v = strtol(arg, &end, 10);
	if (!*arg || *end) {
		error("option `%s' expects a numerical value", opt->long_name);
		return -1;
	}
	*out = v < 4 ? 4 : v > 40 ? 40 : (int)v;
	return 0;
}

int cli_parse_options(int argc, const char **argv, const char *cmd,
		      const struct cli_option *opts, const char *const *usage,
		      unsigned int flags)
{
	int i, out = 0;
	const char **rest = argv;

	cur_usage = usage;
	cur_opts = opts;
	cur_cmd = cmd;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !a[1]) {
			if (flags & CLI_PARSE_STOP_AT_NON_OPTION) {
				while (i < argc)
					rest[out++] = argv[i++];
				break;
			}
			rest[out++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			if (flags & CLI_PARSE_KEEP_DASHDASH)
				rest[out++] = a;
			for (i++; i < argc; i++)
				rest[out++] = argv[i];
			break;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			int unset = 0;
			const struct cli_option *o;

			if (len == 4 && !strncmp(name, "help", 4) && !eq)
				cli_usage_with_options(usage, opts, 1);
			o = find_long(opts, name, len, &unset);
			if (!o) {
				if (flags & CLI_PARSE_KEEP_UNKNOWN) {
					rest[out++] = a;
					continue;
				}
				bad("unknown option `%s'", name);
			}
			i += apply(o, eq ? eq + 1 : NULL, unset, 1, argc - i - 1, argv + i + 1);
			continue;
		}
		/* short options, possibly bundled: -abc, -n5, -m msg */
		if (!strcmp(a, "-h") && !find_short(opts, 'h'))
			cli_usage_with_options(usage, opts, 1);
		for (a++; *a; a++) {
			const struct cli_option *o = find_short(opts, *a);
			char sw[2] = { *a, 0 };
			if (!o) {
				if (flags & CLI_PARSE_KEEP_UNKNOWN) {
					rest[out++] = argv[i];
					break;
				}
				if (*a == 'h')
					cli_usage_with_options(usage, opts, 1);
				bad("unknown switch `%s'", sw);
			}
			if (takes_arg(o)) {
				const char *arg = a[1] ? a + 1 : NULL;
				if (!arg && (o->flags & CLI_OPT_OPTARG))
					arg = NULL;
				i += apply(o, arg, 0, 0, argc - i - 1, argv + i + 1);
				break;
			}
			apply(o, NULL, 0, 0, 0, NULL);
		}
	}
	rest[out] = NULL;
	return out;
}
