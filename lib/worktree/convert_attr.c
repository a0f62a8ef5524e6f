/*
 * Where conversion settings come from: the attributes of a path and the
 * core.* configuration, resolved the way git's convert_attrs() reads them
 * (see include/fgit/convert.h).  The conversion itself is convert.c.
 */
#include <string.h>
#include <strings.h>
#include "fgit/attr.h"
#include "fgit/common.h"
#include "fgit/config.h"
#include "fgit/convert.h"

int fgit_conv_config_read(struct fgit_conv_config *out, const struct fgit_config *cfg)
{
	const char *v;
	int b;

	*out = (struct fgit_conv_config)FGIT_CONV_CONFIG_INIT;
	if (fgit_config_get_string(&v, cfg, "core.autocrlf") == 0) {
		if (v && !strcasecmp(v, "input"))
			out->autocrlf = FGIT_AUTOCRLF_INPUT;
		else if (fgit_config_get_bool(&b, cfg, "core.autocrlf") < 0)
			return FGIT_EINVALID;
		else
			out->autocrlf = b ? FGIT_AUTOCRLF_TRUE : FGIT_AUTOCRLF_FALSE;
	}
	if (fgit_config_get_string(&v, cfg, "core.eol") == 0 && v) {
		if (!strcasecmp(v, "lf"))
			out->core_eol = FGIT_EOL_LF;
		else if (!strcasecmp(v, "crlf"))
			out->core_eol = FGIT_EOL_CRLF;
	}
	if (fgit_config_get_string(&v, cfg, "core.safecrlf") == 0) {
		if (v && !strcasecmp(v, "warn"))
			out->safecrlf = FGIT_SAFECRLF_WARN;
		else if (fgit_config_get_bool(&b, cfg, "core.safecrlf") < 0)
			return FGIT_EINVALID;
		else
			out->safecrlf = b ? FGIT_SAFECRLF_TRUE : FGIT_SAFECRLF_FALSE;
	}
	fgit_error_clear();
	return 0;
}

/* text / crlf: set, unset, "auto", "input" (text with eol=lf). */
static enum fgit_attr_text text_of(const struct fgit_attr_value *v, int *input)
{
	switch (v->state) {
	case FGIT_ATTR_SET:
		return FGIT_TEXT_SET;
	case FGIT_ATTR_UNSET:
		return FGIT_TEXT_UNSET;
	case FGIT_ATTR_VALUE:
		if (!strcmp(v->value, "auto"))
			return FGIT_TEXT_AUTO;
		if (!strcmp(v->value, "input")) {
			*input = 1;
			return FGIT_TEXT_SET;
		}
		return FGIT_TEXT_UNSPECIFIED;
	default:
		return FGIT_TEXT_UNSPECIFIED;
	}
}

int fgit_conv_attrs_get(struct fgit_conv_attrs *out, struct fgit_conv_extra *extra,
			struct fgit_attrs *attrs, const char *path)
{
	static const char *const names[] = {
		"text", "crlf", "eol", "ident", "filter", "working-tree-encoding",
	};
	struct fgit_attr_value v[6];
	int input = 0, r;

	memset(out, 0, sizeof(*out));
	if (extra)
		memset(extra, 0, sizeof(*extra));
	if (!attrs)
		return 0;
	r = fgit_attrs_get(v, attrs, path, names, 6);
	if (r < 0)
		return r;
	out->text = text_of(&v[0], &input);
	if (out->text == FGIT_TEXT_UNSPECIFIED)
		out->text = text_of(&v[1], &input);
	if (input)
		out->eol = FGIT_EOL_LF;
	if (v[2].state == FGIT_ATTR_VALUE && !strcmp(v[2].value, "lf"))
		out->eol = FGIT_EOL_LF;
	else if (v[2].state == FGIT_ATTR_VALUE && !strcmp(v[2].value, "crlf"))
		out->eol = FGIT_EOL_CRLF;
	out->ident = v[3].state == FGIT_ATTR_SET;
	if (extra && v[4].state == FGIT_ATTR_VALUE)
		extra->filter = v[4].value;
	if (extra && v[5].state == FGIT_ATTR_VALUE)
		extra->encoding = v[5].value;
	return 0;
}
