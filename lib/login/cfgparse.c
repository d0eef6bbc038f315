/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libconfig's grammar without libconfig (cfgparse.h says where and why it differs).
 *
 * The scanner takes the longest match at each point, as flex does for libconfig 1.5's rules,
 * with ties going to the earlier rule (true, false, name, float, integer, integer64, hex,
 * hex64): "1e5" is a float, "0x1f" a hex integer, "1a" an integer and then a name.  The parser
 * is a recursive descent over grammar.y's rules:
 *
 *   file     = setting*
 *   setting  = NAME ('=' | ':') value (';' | ',')?
 *   value    = scalar | '[' scalars ']' | '(' values ')' | '{' setting* '}'
 *   scalars  = (scalar (',' scalar)* ','?)?     all of one type
 *   values   = (value (',' value)* ','?)?
 *   scalar   = BOOL | INT | FLOAT | STRING+
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "array.h"
#include "cfgparse.h"
#include "macro.h"
#include "strmap.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

enum tok {
        T_EOF,
        T_NAME,
        T_BOOL,
        T_INT,
        T_FLOAT,
        T_STRING,
        T_EQ,
        T_COMMA,
        T_SEMI,
        T_LBRACE,
        T_RBRACE,
        T_LBRACK,
        T_RBRACK,
        T_LPAREN,
        T_RPAREN,
};

struct cfgp {
        const char *text;
        size_t len, pos;
        unsigned line;
        bool line_start;        /* only blanks since the last newline: where @include counts */
        bool nul_seen;
        unsigned depth, max_depth;
        cfg_error_fn fn;
        void *data;

        /* the current token */
        enum tok t;
        unsigned tline;
        size_t tstart, tlen;    /* its bytes in text */
        int64_t i;
        bool wide;              /* T_INT: libconfig's int64 (an L suffix) */
        double f;
        bool b;
        char *s;                /* T_STRING: decoded, malloc()ed, owned here until taken */
        size_t slen, scap;
};

_printf_(3, 4) static void report(struct cfgp *x, unsigned line, const char *fmt, ...) {
        char msg[256];
        va_list ap;

        if (!x->fn)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        x->fn(x->data, line, msg);
}

/* A token for a message: "';'", "the name \"rules\"", "the end of the file" */
static const char *describe(const struct cfgp *x, char *buf, size_t size) {
        switch (x->t) {
        case T_EOF:
                return "the end of the file";
        case T_NAME:
                snprintf(buf, size, "the name \"%.*s\"", (int)MIN(x->tlen, (size_t)64), x->text + x->tstart);
                return buf;
        case T_BOOL:
        case T_INT:
        case T_FLOAT:
                snprintf(buf, size, "the value %.*s", (int)MIN(x->tlen, (size_t)64), x->text + x->tstart);
                return buf;
        case T_STRING:
                return "a string";
        default:   /* one character, as written ('=' or ':' for T_EQ) */
                snprintf(buf, size, "'%c'", x->text[x->tstart]);
                return buf;
        }
}

static int unexpected(struct cfgp *x, const char *wanted) {
        char buf[96];
        report(x, x->tline, "syntax error: %s where %s was expected", describe(x, buf, sizeof buf), wanted);
        return -EINVAL;
}

/* ---------------------------------------------------------------------------------------
 * The scanner's rules, each the length of its match at s (0: none).
 */
static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_xdigit(char c) {
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static unsigned xvalue(char c) {
        return is_digit(c) ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10);
}

static size_t digits(const char *s, size_t n, size_t i) {
        while (i < n && is_digit(s[i]))
                i++;
        return i;
}

/* name [A-Za-z*][-A-Za-z0-9_*]* */
static size_t m_name(const char *s, size_t n) {
        size_t i = 0;
        if (n == 0 || !(is_alpha(s[0]) || s[0] == '*'))
                return 0;
        for (i = 1; i < n && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '*'); i++)
                ;
        return i;
}

/* [eE][-+]?[0-9]+ at i: its end, or i */
static size_t exponent(const char *s, size_t n, size_t i) {
        size_t k = i;
        if (k >= n || (s[k] != 'e' && s[k] != 'E'))
                return i;
        k++;
        if (k < n && (s[k] == '-' || s[k] == '+'))
                k++;
        size_t e = digits(s, n, k);
        return e > k ? e : i;
}

/* float ([-+]?([0-9]*)?\.[0-9]*([eE][-+]?[0-9]+)?)|([-+]?([0-9]+)(\.[0-9]*)?[eE][-+]?[0-9]+) */
static size_t m_float(const char *s, size_t n) {
        size_t sign = n > 0 && (s[0] == '-' || s[0] == '+'), a = 0, b = 0;
        size_t i = digits(s, n, sign);

        if (i < n && s[i] == '.')
                a = exponent(s, n, digits(s, n, i + 1));
        /* the second form with a '.' is also the first form's: only "1e5" is its own */
        if (i > sign) {
                size_t e = exponent(s, n, i);
                if (e > i)
                        b = e;
        }
        return MAX(a, b);
}

/* integer [-+]?[0-9]+ */
static size_t m_int(const char *s, size_t n) {
        size_t sign = n > 0 && (s[0] == '-' || s[0] == '+');
        size_t i = digits(s, n, sign);
        return i > sign ? i : 0;
}

/* hex 0[Xx][0-9A-Fa-f]+ */
static size_t m_hex(const char *s, size_t n) {
        size_t i = 2;
        if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
                return 0;
        while (i < n && is_xdigit(s[i]))
                i++;
        return i > 2 ? i : 0;
}

/* integer64 and hex64: the match of base followed by L(L)? */
static size_t with_l(const char *s, size_t n, size_t base) {
        if (base == 0 || base >= n || s[base] != 'L')
                return 0;
        return base + 1 < n && s[base + 1] == 'L' ? base + 2 : base + 1;
}

/* ---------------------------------------------------------------------------------------
 * Token values.
 */
static int int_value(struct cfgp *x, size_t len, bool hex) {
        const char *s = x->text + x->tstart;
        bool neg = false;
        uint64_t v = 0, limit;
        size_t i = 0;

        if (hex) {
                for (i = 2; i < len && is_xdigit(s[i]); i++) {
                        unsigned d = xvalue(s[i]);
                        if (v > (UINT64_MAX >> 4))
                                goto range;
                        v = (v << 4) | d;
                }
                if (v > INT64_MAX)
                        goto range;
                x->i = (int64_t)v;
                x->wide = s[len - 1] == 'L';
                return 0;
        }
        if (s[0] == '-' || s[0] == '+')
                neg = s[i++] == '-';
        limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        for (; i < len && is_digit(s[i]); i++) {
                unsigned d = (unsigned)(s[i] - '0');
                if (v > (limit - d) / 10)
                        goto range;
                v = v * 10 + d;
        }
        x->i = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
        x->wide = s[len - 1] == 'L';
        return 0;
range:
        report(x, x->line, "the integer %.*s is out of range (at most 64 bits)", (int)MIN(len, (size_t)64), s);
        return -EINVAL;
}

static int float_value(struct cfgp *x, size_t len) {
        const char *s = x->text + x->tstart;
        _cleanup_free_ char *copy = NULL;
        char buf[128], *num = buf, *end;
        bool digit = false;

        for (size_t i = 0; i < len && s[i] != 'e' && s[i] != 'E'; i++)
                digit |= is_digit(s[i]);
        if (!digit) {
                report(x, x->line, "syntax error: \"%.*s\" is not a number", (int)MIN(len, (size_t)64), s);
                return -EINVAL;
        }
        if (len >= sizeof buf && !(num = copy = malloc(len + 1)))
                return -ENOMEM;
        memcpy(num, s, len);
        num[len] = '\0';
        /* libconfig reads floats in the "C" locale whatever the caller's (su sets the user's);
         * newlocale() of "C" reads neither files nor the environment */
        locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
        if (!c)
                return -ENOMEM;
        x->f = strtod_l(num, &end, c);
        freelocale(c);
        return 0;
}

static int put_char(struct cfgp *x, char c) {
        if (GROW(x->s, x->scap, x->slen + 2) < 0)
                return -ENOMEM;
        x->s[x->slen++] = c;
        x->s[x->slen] = '\0';
        return 0;
}

static void nul_byte(struct cfgp *x) {
        if (!x->nul_seen)
                report(x, x->line, "the file contains a NUL byte: not a text file");
        x->nul_seen = true;
}

/* A "string" from x->pos (after its quote), decoded as libconfig's STRING state does. */
static int scan_string(struct cfgp *x) {
        const char *s = x->text;
        unsigned start = x->line;

        x->slen = 0;
        if (put_char(x, '\0') < 0)       /* an empty string is "" */
                return -ENOMEM;
        x->slen = 0;
        for (;;) {
                char c, out;
                if (x->pos >= x->len) {
                        report(x, start, "syntax error: a string that starts here has no closing quote");
                        return -EINVAL;
                }
                c = s[x->pos++];
                if (c == '"')
                        return 0;
                out = c;
                if (c == '\n')
                        x->line++;
                else if (c == '\0') {
                        nul_byte(x);
                        out = ' ';
                } else if (c == '\\' && x->pos < x->len) {
                        char e = s[x->pos];
                        const char *from = "nrtf\\\"", *to = "\n\r\t\f\\\"", *k = strchr(from, e);
                        if (e && k) {
                                out = to[k - from];
                                x->pos++;
                        } else if ((e == 'x' || e == 'X') && x->pos + 2 < x->len && is_xdigit(s[x->pos + 1]) &&
                                   is_xdigit(s[x->pos + 2])) {
                                unsigned hi = xvalue(s[x->pos + 1]), lo = xvalue(s[x->pos + 2]);
                                out = (char)(hi << 4 | lo);
                                if (out == '\0') {
                                        report(x, x->line, "a string holds \\x00, which would end it there: not accepted");
                                        return -EINVAL;
                                }
                                x->pos += 3;
                        }
                        /* any other backslash stays a backslash, and what follows is read as usual */
                }
                if (put_char(x, out) < 0)
                        return -ENOMEM;
        }
}

/* Past blanks, comments and @include lines (each reported), to a token or the end. */
static void skip_blanks(struct cfgp *x) {
        const char *s = x->text;

        for (;;) {
                if (x->pos >= x->len)
                        return;
                char c = s[x->pos], n = x->pos + 1 < x->len ? s[x->pos + 1] : '\0';
                if (c == '\0') {
                        nul_byte(x);
                        x->pos++;
                        continue;
                }
                if (c == '\n') {
                        x->line++;
                        x->line_start = true;
                        x->pos++;
                        continue;
                }
                if (c == ' ' || c == '\t') {
                        x->pos++;
                        continue;
                }
                if (c == '\r' || c == '\f') {
                        x->line_start = false;
                        x->pos++;
                        continue;
                }
                if (c == '#' || (c == '/' && n == '/')) {
                        for (; x->pos < x->len && s[x->pos] != '\n'; x->pos++)
                                if (s[x->pos] == '\0')
                                        nul_byte(x);
                        continue;
                }
                if (c == '/' && n == '*') {
                        /* an unterminated comment ends the file, as for libconfig */
                        for (x->pos += 2; x->pos < x->len; x->pos++) {
                                if (s[x->pos] == '\n')
                                        x->line++;
                                else if (s[x->pos] == '\0')
                                        nul_byte(x);
                                else if (s[x->pos] == '*' && x->pos + 1 < x->len && s[x->pos + 1] == '/') {
                                        x->pos += 2;
                                        break;
                                }
                        }
                        x->line_start = false;
                        continue;
                }
                if (c == '@' && x->line_start && x->len - x->pos >= 8 && memcmp(s + x->pos, "@include", 8) == 0) {
                        report(x, x->line, "@include is not supported: the policy is one file, trusted after its "
                               "owner and mode are checked");
                        for (; x->pos < x->len && s[x->pos] != '\n'; x->pos++)
                                if (s[x->pos] == '\0')
                                        nul_byte(x);
                        continue;
                }
                return;
        }
}

/* A name, true/false or a number at x->pos: the longest match, as flex takes it. */
static int scan_word(struct cfgp *x) {
        const char *s = x->text;
        char c = s[x->pos];
        const char *p = s + x->pos;
        size_t left = x->len - x->pos, len;
        size_t name = m_name(p, left);
        if (name > 0) {
                x->tlen = name;
                x->pos += name;
                if ((name == 4 && c_strncaseeq(p, "true", 4)) || (name == 5 && c_strncaseeq(p, "false", 5))) {
                        x->t = T_BOOL;
                        x->b = name == 4;
                } else
                        x->t = T_NAME;
                return 0;
        }
        size_t fl = m_float(p, left), in = m_int(p, left), in64 = with_l(p, left, in);
        size_t hx = m_hex(p, left), hx64 = with_l(p, left, hx);
        len = MAX(MAX(MAX(fl, in), MAX(in64, hx)), hx64);
        if (len == 0) {
                unsigned char u = (unsigned char)c;
                if (u > ' ' && u < 0x7f)
                        report(x, x->line, "syntax error: unexpected '%c'", c);
                else
                        report(x, x->line, "syntax error: unexpected byte \\x%02x", u);
                return -EINVAL;
        }
        x->tlen = len;
        x->pos += len;
        if (len == fl) {
                x->t = T_FLOAT;
                return float_value(x, len);
        }
        x->t = T_INT;
        return int_value(x, len, len == hx || len == hx64);
}

/* The next token into x.  -EINVAL after reporting a bad one, -ENOMEM. */
static int next(struct cfgp *x) {
        const char *s = x->text;

        skip_blanks(x);
        if (x->pos >= x->len) {
                x->t = T_EOF;
                x->tline = x->line;
                x->tstart = x->pos;
                x->tlen = 0;
                return 0;
        }

        x->line_start = false;
        x->tline = x->line;
        x->tstart = x->pos;
        x->tlen = 1;
        /* the one-character tokens, each as its own token */
        static const char punct[] = "=:,;{}[]()";
        static const enum tok punct_tok[] = { T_EQ,     T_EQ,     T_COMMA,  T_SEMI,   T_LBRACE,
                                              T_RBRACE, T_LBRACK, T_RBRACK, T_LPAREN, T_RPAREN };
        char c = s[x->pos];
        const char *k = c ? strchr(punct, c) : NULL;
        if (k) {
                x->t = punct_tok[k - punct];
                x->pos++;
                return 0;
        }
        if (c == '"') {
                x->pos++;
                x->t = T_STRING;
                return scan_string(x);
        }
        return scan_word(x);
}

/* ---------------------------------------------------------------------------------------
 * The parser.
 */
static void node_clear(struct cfg_node *n) {
        free(n->name);
        if (n->type == CFG_STRING)
                free(n->s);
        else if (n->type == CFG_GROUP || n->type == CFG_ARRAY || n->type == CFG_LIST) {
                for (size_t i = 0; i < n->c.n; i++)
                        node_clear(&n->c.v[i]);
                free(n->c.v);
        }
}

void cfg_free(struct cfg_node *root) {
        if (!root)
                return;
        node_clear(root);
        free(root);
}

/* A new zeroed child of parent (valid until the next one is added). */
static struct cfg_node *add_child(struct cfg_node *parent) {
        /* doubling: 25000 rules are not copied 25000 times */
        if (GROW(parent->c.v, parent->c.cap, parent->c.n + 1) < 0)
                return NULL;
        struct cfg_node *e = &parent->c.v[parent->c.n++];
        *e = (struct cfg_node){ .type = CFG_INT };   /* a scalar until it is a container */
        return e;
}

static int value(struct cfgp *x, struct cfg_node *n);

static int enter(struct cfgp *x, struct cfg_node *n, enum cfg_type type) {
        if (++x->depth > x->max_depth) {
                report(x, x->tline, "nested deeper than %u levels: a policy needs two (rules = ( { ... } ))",
                       x->max_depth);
                return -EINVAL;
        }
        n->type = type;
        n->c.v = NULL;
        n->c.n = n->c.cap = 0;
        return next(x);
}

/* A scalar at the current token into n. */
static int scalar(struct cfgp *x, struct cfg_node *n) {
        int r;

        switch (x->t) {
        case T_BOOL:
                n->type = CFG_BOOL;
                n->b = x->b;
                return next(x);
        case T_INT:
                n->type = CFG_INT;
                n->i = x->i;
                return next(x);
        case T_FLOAT:
                n->type = CFG_FLOAT;
                n->f = x->f;
                return next(x);
        case T_STRING: {
                /* adjacent strings are one */
                _cleanup_free_ char *acc = NULL;
                size_t len = 0, cap = 0;
                do {
                        /* doubling: 190000 adjacent strings are not copied 190000 times */
                        if (GROW(acc, cap, len + x->slen + 1) < 0)
                                return -ENOMEM;
                        memcpy(acc + len, x->s, x->slen);
                        len += x->slen;
                        acc[len] = '\0';
                        if ((r = next(x)) < 0)
                                return r;
                } while (x->t == T_STRING);
                n->type = CFG_STRING;
                n->s = TAKE_PTR(acc);
                return 0;
        }
        default:
                return unexpected(x, "a value");
        }
}

/* The line of the setting of group named name, or 0.  Small groups are searched; from
 * NAMES_HASHED settings on, their names go to *names as well, so that a large file costs no
 * more than its length. */
#define NAMES_HASHED 16u

static int find_name(const struct cfg_node *group, struct strmap *names, const char *name, unsigned *ret) {
        *ret = 0;
        if (group->c.n < NAMES_HASHED) {
                for (size_t i = 0; i < group->c.n; i++)
                        if (streq(group->c.v[i].name, name))
                                *ret = group->c.v[i].line;
                return 0;
        }
        for (size_t i = names->n; i < group->c.n; i++)   /* the settings not in the map yet */
                if (strmap_put(names, group->c.v[i].name, (void *)(uintptr_t)group->c.v[i].line) < 0)
                        return -ENOMEM;
        *ret = (unsigned)(uintptr_t)strmap_get(names, name);
        return 0;
}

static int setting(struct cfgp *x, struct cfg_node *group, struct strmap *names) {
        _cleanup_free_ char *name = NULL;
        unsigned line = x->tline, first;
        int r;

        if (x->t != T_NAME)
                return unexpected(x, "a setting's name");
        name = strndup(x->text + x->tstart, x->tlen);
        if (!name)
                return -ENOMEM;
        if ((r = find_name(group, names, name, &first)) < 0)
                return r;
        if (first) {
                report(x, line, "duplicate key \"%.64s\": a key may appear once in a group (line %u has it)",
                       name, first);
                return -EINVAL;
        }
        if ((r = next(x)) < 0)
                return r;
        if (x->t != T_EQ)
                return unexpected(x, "'=' or ':'");
        if ((r = next(x)) < 0)
                return r;
        struct cfg_node *n = add_child(group);
        if (!n)
                return -ENOMEM;
        n->name = TAKE_PTR(name);
        n->line = line;
        if ((r = value(x, n)) < 0)
                return r;
        if (x->t == T_SEMI || x->t == T_COMMA)
                return next(x);
        return 0;
}

/* libconfig's array: scalars of one type (its int and int64 are two) */
static int kind_of(const struct cfg_node *e, bool wide) {
        return e->type == CFG_INT ? (wide ? 100 : CFG_INT) : (int)e->type;
}

static int value(struct cfgp *x, struct cfg_node *n) {
        int r;

        switch (x->t) {
        case T_LBRACE: {
                struct strmap names = {};
                r = enter(x, n, CFG_GROUP);
                while (r >= 0 && x->t != T_RBRACE)
                        r = setting(x, n, &names);
                strmap_clear(&names, NULL);
                if (r < 0)
                        return r;
                break;
        }
        case T_LPAREN:
        case T_LBRACK: {
                bool array = x->t == T_LBRACK;
                enum tok close = array ? T_RBRACK : T_RPAREN;
                int kind = 0;
                if ((r = enter(x, n, array ? CFG_ARRAY : CFG_LIST)) < 0)
                        return r;
                while (x->t != close) {
                        struct cfg_node *e = add_child(n);
                        bool wide = x->wide;
                        if (!e)
                                return -ENOMEM;
                        e->line = x->tline;
                        if (array) {
                                unsigned line = x->tline;
                                if ((r = scalar(x, e)) < 0)
                                        return r;
                                if (kind && kind_of(e, wide) != kind) {
                                        report(x, line, "syntax error: the elements of an array [ ] are all of one type");
                                        return -EINVAL;
                                }
                                kind = kind_of(e, wide);
                        } else if ((r = value(x, e)) < 0)
                                return r;
                        if (x->t != T_COMMA)
                                break;
                        if ((r = next(x)) < 0)
                                return r;
                }
                if (x->t != close)
                        return unexpected(x, array ? "',' or ']'" : "',' or ')'");
                break;
        }
        default:
                return scalar(x, n);
        }
        x->depth--;
        return next(x);
}

int cfg_parse(const char *text, size_t len, unsigned max_depth, cfg_error_fn fn, void *data,
              struct cfg_node **ret) {
        struct cfgp x = { .text = text, .len = len, .line = 1, .line_start = true, .max_depth = max_depth,
                          .fn = fn, .data = data };
        struct cfg_node *root;
        int r;

        if ((!text && len > 0) || !ret)
                return -EINVAL;
        root = calloc(1, sizeof(*root));
        if (!root)
                return -ENOMEM;
        root->type = CFG_GROUP;
        struct strmap names = {};
        r = next(&x);
        while (r >= 0 && x.t != T_EOF)
                r = setting(&x, root, &names);
        strmap_clear(&names, NULL);
        free(x.s);
        if (r < 0) {
                cfg_free(root);
                return r;
        }
        *ret = root;
        return 0;
}

const char *cfg_type_name(enum cfg_type t) {
        static const char *const names[] = {
                [CFG_GROUP] = "a group { }", [CFG_INT] = "an integer",   [CFG_FLOAT] = "a float",
                [CFG_STRING] = "a string",   [CFG_BOOL] = "a boolean",   [CFG_ARRAY] = "an array [ ]",
                [CFG_LIST] = "a list ( )",
        };
        if ((size_t)t >= ELEMENTSOF(names) || !names[t])
                return "a value of unknown type";
        return names[t];
}
