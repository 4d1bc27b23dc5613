/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ingest: what a push request looks like, as pure functions: the checks of --push, --push-name,
 * --push-label and --push-header, Pyroscope's ingest URL and Parca's WriteRaw body.
 *
 * Pyroscope's POST /ingest takes the series in its name parameter, "app{key=value,key=value}",
 * percent-encoded like every query value, and the window as from/until in Unix seconds. Its parser
 * splits the name at '{', ',', '=' and '}', so none of them may appear inside a name, key or value;
 * they are refused up front rather than escaped into something the server reads differently.
 */
#include "push/push.h"
#include "push/push_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The scheme: its length with "://", the server it means and whether over TLS. */
static bool url_scheme(const char *url, size_t *skip, enum push_kind *kind, bool *tls)
{
	static const struct {
		const char *prefix;
		enum push_kind kind;
		bool tls;
	} schemes[] = {
		{ "http://", PUSH_PYROSCOPE, false }, { "https://", PUSH_PYROSCOPE, true },
		{ "parca://", PUSH_PARCA, false }, { "parcas://", PUSH_PARCA, true },
	};
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		size_t n = strlen(schemes[i].prefix);
		if (!strncasecmp(url, schemes[i].prefix, n)) {
			*skip = n;
			*kind = schemes[i].kind;
			*tls = schemes[i].tls;
			return true;
		}
	}
	return false;
}

/* host[:port] (or [v6]:port), with the port in 1..65535 when given. */
static bool host_port_ok(const char *h, size_t n)
{
	size_t i = 0;
	if (n && h[0] == '[') {
		while (i < n && h[i] != ']')
			i++;
		if (i == n || i < 2)
			return false;
		for (size_t k = 1; k < i; k++)
			if (!isxdigit((unsigned char)h[k]) && h[k] != ':' && h[k] != '.')
				return false;
		i++;
	} else {
		while (i < n && (isalnum((unsigned char)h[i]) || h[i] == '.' || h[i] == '-' || h[i] == '_'))
			i++;
		if (i == 0)
			return false;
	}
	if (i == n)
		return true;
	if (h[i] != ':' || i + 1 == n || n - i - 1 > 5)
		return false;
	unsigned port = 0;
	for (size_t k = i + 1; k < n; k++) {
		if (!isdigit((unsigned char)h[k]))
			return false;
		port = port * 10 + (unsigned)(h[k] - '0');
	}
	return port >= 1 && port <= 65535;
}

/* The URL without its password (ingest.c's messages and secrets.c's argv masking share it). */
void push_mask_url_arg(char *url)
{
	char *auth = strstr(url, "://");
	auth = auth ? auth + 3 : url; /* no scheme: what it would be is masked all the same */
	size_t alen = strcspn(auth, "/");
	char *at = memrchr(auth, '@', alen);
	char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (colon)
		memset(colon + 1, '*', (size_t)(at - colon - 1));
}

void push_url_shown(const char *url, char *out, size_t cap)
{
	snprintf(out, cap, "%s", url);
	push_mask_url_arg(out);
}

int push_check_url(const char *given, char *err, size_t errlen)
{
	/* the URL as a message may show it: never its password */
	char shown[1100];
	push_url_shown(given, shown, sizeof(shown));
	const char *url = given;
	size_t skip;
	enum push_kind kind;
	bool tls;
	if (!url_scheme(url, &skip, &kind, &tls))
		return fail(err, errlen, "--push wants an http[s]:// (Pyroscope) or parca[s]:// URL, not "
			    "'%s'", shown);
	const char *auth = url + skip;
	if (strpbrk(auth, "?#"))
		return fail(err, errlen, "--push: '%s': no query or fragment (the ingest path and its "
			    "parameters are perftop's)", shown);
	for (const char *c = url; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return fail(err, errlen, "--push: spaces or control characters in the URL");
	size_t alen = strcspn(auth, "/");
	const char *at = memrchr(auth, '@', alen);
	const char *host = at ? at + 1 : auth;
	size_t hlen = alen - (size_t)(host - auth);
	if (at && (at == auth || auth[0] == ':'))
		return fail(err, errlen, "--push: '%s': user:password@ needs a user", shown);
	if (!host_port_ok(host, hlen))
		return fail(err, errlen, "--push: '%s' has no valid host[:port]", shown);
	return 0;
}

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

/* The n bytes at s, percent-decoded, into out (cap > 0). */
static void pct_decode(char *out, size_t cap, const char *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < cap; i++) {
		int hi, lo;
		if (s[i] == '%' && i + 2 < n && (hi = hexval((unsigned char)s[i + 1])) >= 0 &&
		    (lo = hexval((unsigned char)s[i + 2])) >= 0) {
			out[o++] = (char)(hi * 16 + lo);
			i += 2;
		} else {
			out[o++] = s[i];
		}
	}
	out[o] = '\0';
}

int push_split_url(const char *url, struct push_target *t)
{
	size_t skip;
	enum push_kind kind;
	bool tls;
	if (push_check_url(url, NULL, 0) || !url_scheme(url, &skip, &kind, &tls))
		return -1;
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	const char *auth = url + skip;
	size_t alen = strcspn(auth, "/");
	const char *at = memrchr(auth, '@', alen);
	const char *rest = auth;
	if (at) {
		const char *colon = memchr(auth, ':', (size_t)(at - auth));
		size_t ulen = colon ? (size_t)(colon - auth) : (size_t)(at - auth);
		pct_decode(t->user, sizeof(t->user), auth, ulen);
		if (colon)
			pct_decode(t->password, sizeof(t->password), colon + 1, (size_t)(at - colon - 1));
		t->auth = true;
		rest = at + 1;
	}
	int n = snprintf(t->base, sizeof(t->base), "%s%s", tls ? "https://" : "http://", rest);
	if (n < 0 || (size_t)n >= sizeof(t->base))
		return -1;
	while (n > 0 && t->base[n - 1] == '/')
		t->base[--n] = '\0';
	return 0;
}

/* A character Pyroscope's series parser would split at, or one that has no place in a name. */
static bool series_char_ok(unsigned char c)
{
	return c > ' ' && c < 0x7f && !strchr("{}=,\"\\", c);
}

int push_check_name(const char *name, char *err, size_t errlen)
{
	if (!name[0] || strlen(name) > 200)
		return fail(err, errlen, "--push-name wants 1 to 200 characters, not '%s'", name);
	for (const char *c = name; *c; c++)
		if (!series_char_ok((unsigned char)*c))
			return fail(err, errlen, "--push-name: '%s': no spaces, quotes or any of {}=,", name);
	return 0;
}

void push_sanitize_name(char *name)
{
	for (char *c = name; *c; c++)
		if (!series_char_ok((unsigned char)*c))
			*c = '_';
}

int push_check_label(const char *label, char *err, size_t errlen)
{
	const char *eq = strchr(label, '=');
	if (!eq || eq == label || !eq[1] || strlen(label) > 256)
		return fail(err, errlen, "--push-label wants KEY=VALUE, not '%s'", label);
	if (!isalpha((unsigned char)label[0]) && label[0] != '_')
		return fail(err, errlen, "--push-label: '%s': a key starts with a letter or '_'", label);
	for (const char *c = label; c < eq; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return fail(err, errlen, "--push-label: '%s': a key is letters, digits and '_'",
				    label);
	for (const char *c = eq + 1; *c; c++)
		if (!series_char_ok((unsigned char)*c))
			return fail(err, errlen, "--push-label: '%s': no spaces, quotes or any of {}=, in "
				    "a value", label);
	return 0;
}

int push_check_header(const char *header, char *err, size_t errlen)
{
	const char *colon = strchr(header, ':');
	/* no message shows a value: it may be a credential (a token without its name, even) */
	if (!colon || colon == header || strlen(header) > 1024)
		return fail(err, errlen, "--push-header wants 'Name: value' (at most 1024 bytes): "
			    "this one has %s", !colon || colon == header ? "no name before a ':'"
									 : "more");
	for (const char *c = header; c < colon; c++)
		if (!isalnum((unsigned char)*c) && !strchr("!#$%&'*+-.^_`|~", *c))
			return fail(err, errlen, "--push-header: '%.*s' is not a header name",
				    (int)(colon - header), header);
	for (const char *c = colon + 1; *c; c++)
		if ((unsigned char)*c < ' ' && *c != '\t')
			return fail(err, errlen, "--push-header: control characters in the value of '%.*s'",
				    (int)(colon - header), header);
	return 0;
}

int push_urlencode(char *out, size_t cap, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (isalnum(*c) || strchr("-._~", *c)) {
			if (o + 1 >= cap)
				return -1;
			out[o++] = (char)*c;
		} else {
			if (o + 3 >= cap)
				return -1;
			out[o++] = '%';
			out[o++] = hex[*c >> 4];
			out[o++] = hex[*c & 15];
		}
	}
	if (o >= cap)
		return -1;
	out[o] = '\0';
	return (int)o;
}

int push_ingest_url(char *out, size_t cap, const char *base, const char *app,
		    const char *const *labels, int nlabels, int64_t from, int64_t until,
		    unsigned hz)
{
	char series[PUSH_MAX_LABELS * 260 + PUSH_SERIES_LABELS + 256];
	size_t n = (size_t)snprintf(series, sizeof(series), "%s{", app);
	for (int i = 0; i < nlabels && n < sizeof(series); i++)
		n += (size_t)snprintf(series + n, sizeof(series) - n, "%s%s", i ? "," : "", labels[i]);
	if (n + 2 > sizeof(series))
		return -1;
	series[n++] = '}';
	series[n] = '\0';
	char enc[sizeof(series) * 3 + 1];
	if (push_urlencode(enc, sizeof(enc), series) < 0)
		return -1;
	int len = snprintf(out, cap,
			   "%s/ingest?name=%s&from=%" PRId64 "&until=%" PRId64
			   "&format=pprof&sampleRate=%u&spyName=perftop",
			   base, enc, from, until, hz);
	return len < 0 || (size_t)len >= cap ? -1 : len;
}

size_t push_base64(char *out, const unsigned char *p, size_t len)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < len)
			v |= p[i + 2];
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = i + 1 < len ? abc[v >> 6 & 63] : '=';
		out[o++] = i + 2 < len ? abc[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

char *push_parca_body(const void *data, size_t len, const char *app,
		      const char *const *labels, int nlabels, size_t *outlen)
{
	/* The names and values were checked (push_check_name, push_check_label): no quote,
	 * backslash or control character, so they go into the JSON as they are. */
	size_t cap = 4 * ((len + 2) / 3) + 512 + strlen(app);
	for (int i = 0; i < nlabels; i++)
		cap += strlen(labels[i]) + 32;
	char *out = xmalloc(cap);
	size_t n = (size_t)snprintf(out, cap, "{\"series\": [{\"labels\": {\"labels\": ["
				   "{\"name\": \"__name__\", \"value\": \"perftop\"}, "
				   "{\"name\": \"job\", \"value\": \"%s\"}", app);
	for (int i = 0; i < nlabels; i++) {
		const char *eq = strchr(labels[i], '=');
		n += (size_t)snprintf(out + n, cap - n, ", {\"name\": \"%.*s\", \"value\": \"%s\"}",
				      (int)(eq - labels[i]), labels[i], eq + 1);
	}
	n += (size_t)snprintf(out + n, cap - n, "]}, \"samples\": [{\"rawProfile\": \"");
	n += push_base64(out + n, data, len);
	n += (size_t)snprintf(out + n, cap - n, "\"}]}]}");
	*outlen = n;
	return out;
}
