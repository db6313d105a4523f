/*
 * name_norm.c - normalised class and thread names (see name_norm.h): a
 * table of the literal texts after which a generated name carries an
 * address or a counter, each with the characters the address or counter
 * is made of; the first rule that matches at a position replaces that run
 * by '*'. The pool of a thread (name_norm_pool) is its name with only the
 * number that ends it replaced, the same number name_norm_thread replaces.
 */
#include "postproc/name_norm.h"

#include <ctype.h>
#include <string.h>

enum chars { DIGITS, HEX, ALNUM, ALNUM_US };

struct rule {
	const char *lit; /* the text before the address or counter, kept */
	enum chars run;	 /* what the replaced run is made of */
	unsigned kind;
};

/* First match wins: longer literals before their prefixes. */
static const struct rule rules[] = {
    {"$$Lambda$", DIGITS, NAME_NORM_LAMBDA},
    {".0x", HEX, NAME_NORM_HIDDEN},
    {"/0x", HEX, NAME_NORM_HIDDEN},
    {"$Proxy", DIGITS, NAME_NORM_PROXY},
    {"jdk.proxy", DIGITS, NAME_NORM_PROXY},
    {"jdk/proxy", DIGITS, NAME_NORM_PROXY},
    {"GeneratedMethodAccessor", DIGITS, NAME_NORM_ACCESSOR},
    {"GeneratedConstructorAccessor", DIGITS, NAME_NORM_ACCESSOR},
    {"GeneratedSerializationConstructorAccessor", DIGITS, NAME_NORM_ACCESSOR},
    {"$HibernateProxy$", ALNUM, NAME_NORM_HIBERNATE},
    {"$ByteBuddy$", ALNUM, NAME_NORM_HIBERNATE},
    {"$MockitoMock$", DIGITS, NAME_NORM_HIBERNATE},
    {"_$$_jvst", ALNUM_US, NAME_NORM_HIBERNATE},
    {"_$$_javassist_", DIGITS, NAME_NORM_HIBERNATE},
};

static const char *const labels[NAME_NORM_NKINDS] = {
    "hidden classes",	    "lambdas",	     "proxies",
    "reflection accessors", "CGLIB classes", "Hibernate/ByteBuddy proxies",
};
static const char *const keys[NAME_NORM_NKINDS] = {
    "hidden_classes", "lambdas", "proxies", "accessors", "cglib", "hibernate",
};

static int is_run(int c, enum chars run)
{
	switch (run) {
	case DIGITS:
		return c >= '0' && c <= '9';
	case HEX:
		return isxdigit(c);
	case ALNUM:
		return isalnum(c);
	case ALNUM_US:
		return isalnum(c) || c == '_';
	}
	return 0;
}

/* The output being written: like snprintf, counts what does not fit. */
struct out {
	char *buf;
	size_t len, n;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->n++)
		if (o->n + 1 < o->len)
			o->buf[o->n] = s[i];
}

static size_t finish(struct out *o)
{
	if (o->len)
		o->buf[o->n < o->len ? o->n : o->len - 1] = '\0';
	return o->n;
}

/* A CGLIB class name part "$$<Word>CGLIB$$<alnum>" at s (CGLIB's
 * EnhancerByCGLIB, FastClassByCGLIB, Spring's ...BySpringCGLIB and
 * SpringCGLIB): the length of "$$<Word>CGLIB$$", 0 when there is none or
 * no run follows. */
static size_t cglib_at(const char *s)
{
	size_t i = 2;

	if (s[0] != '$' || s[1] != '$')
		return 0;
	while (isalpha((unsigned char)s[i]))
		i++;
	if (i < 7 || strncmp(s + i - 5, "CGLIB", 5) || s[i] != '$' || s[i + 1] != '$' ||
	    !isalnum((unsigned char)s[i + 2]))
		return 0;
	return i + 2;
}

/* The rule matching at s with at least one character of its run after
 * the literal; its literal's length in *lit. NULL for none. */
static const struct rule *rule_at(const char *s, size_t *lit)
{
	for (size_t r = 0; r < sizeof(rules) / sizeof(rules[0]); r++) {
		size_t n;

		if (*s != rules[r].lit[0]) /* most characters start no rule */
			continue;
		n = strlen(rules[r].lit);
		if (!strncmp(s, rules[r].lit, n) && is_run((unsigned char)s[n], rules[r].run)) {
			*lit = n;
			return &rules[r];
		}
	}
	return NULL;
}

size_t name_norm_class(const char *s, char *buf, size_t len, unsigned *kinds)
{
	struct out o = {buf, len, 0};

	*kinds = 0;
	while (*s) {
		const struct rule *r;
		size_t lit = cglib_at(s);
		enum chars run = ALNUM;
		unsigned kind = NAME_NORM_CGLIB;

		if (!lit && (r = rule_at(s, &lit)) != NULL) {
			run = r->run;
			kind = r->kind;
		}
		if (!lit) {
			put(&o, s++, 1);
			continue;
		}
		put(&o, s, lit);
		put(&o, "*", 1);
		s += lit;
		while (is_run((unsigned char)*s, run))
			s++;
		*kinds |= kind;
	}
	return finish(&o);
}

unsigned name_norm_primary(unsigned kinds)
{
	/* the most specific first: a lambda's or a proxy's class may be hidden */
	static const unsigned order[] = {NAME_NORM_LAMBDA, NAME_NORM_PROXY,	NAME_NORM_ACCESSOR,
					 NAME_NORM_CGLIB,  NAME_NORM_HIBERNATE, NAME_NORM_HIDDEN};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (kinds & order[i])
			return order[i];
	return 0;
}

unsigned name_norm_index(unsigned kind)
{
	unsigned i = 0;

	while (i + 1 < NAME_NORM_NKINDS && !(kind & (1u << i)))
		i++;
	return i;
}

const char *name_norm_label(unsigned index)
{
	return index < NAME_NORM_NKINDS ? labels[index] : "";
}

const char *name_norm_key(unsigned index)
{
	return index < NAME_NORM_NKINDS ? keys[index] : "";
}

/* "pool-" in any case of "pool" at s, followed by a digit. */
static int pool_at(const char *s)
{
	return !strncasecmp(s, "pool-", 5) && isdigit((unsigned char)s[5]);
}

/* Where the number that ends s after one of "-_#. " starts; n (s's length)
 * when there is none. */
static size_t number_tail(const char *s, size_t n)
{
	size_t tail = n;

	while (tail > 0 && isdigit((unsigned char)s[tail - 1]))
		tail--;
	if (tail == n || tail == 0 || !strchr("-_#. ", s[tail - 1]))
		tail = n;
	return tail;
}

size_t name_norm_pool(const char *s, char *buf, size_t len, int *pooled)
{
	struct out o = {buf, len, 0};
	size_t n = strlen(s), tail = number_tail(s, n);

	if (tail < 2) /* "-7": a separator and a number name no pool */
		tail = n;
	put(&o, s, tail);
	*pooled = tail < n;
	if (tail < n)
		put(&o, "*", 1);
	return finish(&o);
}

size_t name_norm_thread(const char *s, char *buf, size_t len, int *changed)
{
	struct out o = {buf, len, 0};
	size_t n = strlen(s), tail = number_tail(s, n);

	*changed = 0;
	for (size_t i = 0; i < tail;) {
		if (pool_at(s + i)) {
			put(&o, s + i, 5);
			put(&o, "*", 1);
			if (i + 5 == tail) /* "pool-3" ending the name: its number is the tail */
				tail = n;
			for (i += 5; i < n && isdigit((unsigned char)s[i]); i++)
				;
			*changed = 1;
			continue;
		}
		put(&o, s + i++, 1);
	}
	if (tail < n) {
		put(&o, "*", 1);
		*changed = 1;
	}
	return finish(&o);
}
