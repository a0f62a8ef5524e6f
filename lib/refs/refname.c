/* Refname rules, as listed in git-check-ref-format(1). */
#include <string.h>
#include "fgit/common.h"
#include "fgit/refs.h"

static int bad_char(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == ' ' || c == '~' || c == '^' || c == ':' ||
	       c == '?' || c == '[' || c == '\\';
}

int fgit_refname_check(const char *name, unsigned int flags)
{
	const char *comp = name, *p;
	int components = 0, stars = 0;

	if (!strcmp(name, "@") || !*name)
		return FGIT_EINVALID;
	for (;;) {
		size_t len;
		for (p = comp; *p && *p != '/'; p++) {
			if (bad_char((unsigned char)*p))
				return FGIT_EINVALID;
			if (*p == '*') {
				if (!(flags & FGIT_REFNAME_REFSPEC_PATTERN) || ++stars > 1)
					return FGIT_EINVALID;
			}
			if (*p == '.' && p[1] == '.')
				return FGIT_EINVALID;
			if (*p == '@' && p[1] == '{')
				return FGIT_EINVALID;
		}
		len = (size_t)(p - comp);
		if (!len)
			return FGIT_EINVALID;	/* empty component: "//", leading or trailing '/' */
		if (comp[0] == '.')
			return FGIT_EINVALID;
		if (len >= 5 && !memcmp(p - 5, ".lock", 5))
			return FGIT_EINVALID;
		components++;
		if (!*p)
			break;
		comp = p + 1;
	}
	if (p[-1] == '.')
		return FGIT_EINVALID;
	if (components < 2 && !(flags & FGIT_REFNAME_ALLOW_ONELEVEL))
		return FGIT_EINVALID;
	return 0;
}

/* git's refname_is_safe(), what deletion requires of a name. */
int fgit_refname_is_safe(const char *name)
{
	const char *p;

	if (!strncmp(name, "refs/", 5)) {
		const char *rest = name + 5;
		if (!*rest || rest[strlen(rest) - 1] == '/')
			return 0;
		for (p = rest; *p;) {
			const char *e = strchr(p, '/');
			size_t n = e ? (size_t)(e - p) : strlen(p);
			if (!n || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2)))
				return 0;
			p += n + (e ? 1 : 0);
		}
		return 1;
	}
	for (p = name; *p; p++)
		if (!(*p >= 'A' && *p <= 'Z') && *p != '_')
			return 0;
	return *name != 0;
}
