/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cfg_parse() against the real libconfig 1.5 (built only when libconfig is installed: it is the
 * oracle, not a dependency).  Three parts, TAP on stdout:
 *   - a table of edge cases: every token kind of libconfig 1.5's scanner (lib/scanner.l), its
 *     grammar (lib/grammar.y) and its errors.  Either both accept with the same tree or both
 *     refuse; where cfgparse.h documents a difference, the documented behaviour is asserted;
 *   - cfg_parse() alone: max_depth, a NULL fn, text that does not end in NUL;
 *   - random documents of the grammar from a fixed seed (argv[1], default 1), each also
 *     mutated by a byte or a token.  The acceptance must agree and, when both accept, the
 *     trees must be equal.  classify() finds the documented differences a text hits, by the
 *     scanner's rules: where cfg_parse refuses, it must refuse; NUL bytes, trailing commas and
 *     a comment at the end are compared with libconfig's reading of the text as cfg_parse
 *     reads it (NUL bytes blanked, the commas dropped, a newline added); integers libconfig
 *     wraps are compared but for their values; a text with @include is not given to libconfig
 *     (cfg_parse's contract is still checked).
 * Trees are equal when types (libconfig's int and int64 are both CFG_INT), names, values
 * (floats bit for bit, strings byte for byte), element order, the line of every named setting
 * and the line of every group, list or array element of a list are.  libconfig records a
 * scalar element's line after a lookahead, so scalar elements' lines are not compared.
 * The work is fixed (no clock): the number of documents and their size are bounded.
 *
 * The oracle is the library installed, Debian 12's libconfig9 1.5-0.4.  Its scanner is not
 * quite the v1.5 tag's lib/scanner.l: it reads a decimal integer without L with atoi() (an int,
 * its low 32 bits: 8589934592 is 0), as scanner.l did before commit add4314 ("Recognize long
 * integers without the need for L extension"); the tag reads it as an int64 when it does not
 * fit in an int.  Another libconfig (1.7 reads octal, accepts trailing commas) is not this
 * oracle: the test is skipped there.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cfgparse.h"

#define N_DOCS 4000             /* random documents, and as many mutated copies */
#define RANDOM_DEPTH 3          /* containers nested in a random document */
#define MAX_DEPTH 64            /* cfg_parse()'s max_depth for the table and the random part */
#define EXAMPLES 10             /* disagreements shown per random part */
#define PATH_CAP 512

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FMT(a, b) __attribute__((format(printf, a, b)))

/* A marker: cfg_parse() must leave *ret alone when it fails. */
#define MARKER ((struct cfg_node *)(uintptr_t)0x5ca1ab1e)

/* ---------------------------------------------------------------------------------------
 * TAP
 */
static unsigned tap_n, tap_failed;

FMT(2, 3) static void tap(bool ok, const char *fmt, ...) {
        va_list ap;

        tap_n++;
        if (!ok)
                tap_failed++;
        printf("%sok %u - ", ok ? "" : "not ", tap_n);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
}

FMT(1, 2) static void diag(const char *fmt, ...) {
        va_list ap;

        fputs("# ", stdout);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        putchar('\n');
}

/* One byte as in a C string literal, into out (at least 5 bytes); its length. */
static size_t esc_byte(unsigned char c, char *out) {
        static const char from[] = "\n\r\t\f\\\"", to[] = "nrtf\\\"";
        const char *k = c ? strchr(from, c) : NULL;

        if (k) {
                out[0] = '\\';
                out[1] = to[k - from];
                return 2;
        }
        if (c >= 0x20 && c < 0x7f) {
                out[0] = (char)c;
                return 1;
        }
        snprintf(out, 5, "\\x%02x", c);
        return 4;
}

/* s[0..n) escaped into out[0..size), cut with "..." when it does not fit. */
static const char *esc(const char *s, size_t n, char *out, size_t size) {
        size_t k = 0;
        char b[5];

        for (size_t i = 0; i < n; i++) {
                size_t l = esc_byte((unsigned char)s[i], b);
                if (k + l + 4 >= size) {
                        memcpy(out + k, "...", 3);
                        k += 3;
                        break;
                }
                memcpy(out + k, b, l);
                k += l;
        }
        out[k] = '\0';
        return out;
}

/* The input of a failed check: one C string literal per line of it. */
static void diag_text(const char *label, const char *s, size_t len) {
        size_t i = 0;
        char b[5];

        printf("# %s, %zu bytes%s\n", label, len, len ? ":" : " (empty)");
        while (i < len) {
                size_t col = 0;
                fputs("#     \"", stdout);
                while (i < len) {
                        unsigned char c = (unsigned char)s[i++];
                        size_t l = esc_byte(c, b);
                        fwrite(b, 1, l, stdout);
                        col += l;
                        if (c == '\n' || col >= 96)
                                break;
                }
                fputs("\"\n", stdout);
        }
}

/* ---------------------------------------------------------------------------------------
 * Both parsers on one text
 */
enum verdict {
        V_ACCEPT,       /* cfg_parse: 0 and no finding */
        V_REPORT,       /* cfg_parse: 0 with findings (NUL bytes and @include only) */
        V_REFUSE,       /* cfg_parse: -EINVAL */
        V_OTHER,        /* cfg_parse: anything else */
};

struct outcome {
        bool lib_ok;
        config_t lib;
        int r;
        struct cfg_node *root; /* MARKER when cfg_parse() left it */
        unsigned nfind, find_line;
        char find_msg[200];
};

static void on_finding(void *data, unsigned line, const char *msg) {
        struct outcome *o = data;

        if (o->nfind++ == 0) {
                o->find_line = line;
                snprintf(o->find_msg, sizeof o->find_msg, "%s", msg ? msg : "(null)");
        }
}

/* libconfig's read of text[0..len), NUL bytes included; c is initialized either way. */
static bool lib_parse(const char *text, size_t len, config_t *c) {
        bool ok;
        FILE *f;

        config_init(c);
        if (len == 0)
                return config_read_string(c, "") == CONFIG_TRUE;
        f = fmemopen((void *)text, len, "r");
        if (!f) {
                perror("fmemopen");
                exit(99);
        }
        ok = config_read(c, f) == CONFIG_TRUE;
        fclose(f);
        return ok;
}

/* with_lib false: libconfig is not asked (its @include of a directory ends the process) */
static void run_both(const char *text, size_t len, unsigned max_depth, bool with_lib, struct outcome *o) {
        /* a copy of exactly len bytes: a read past the end shows under valgrind */
        char *copy = malloc(len ? len : 1);

        if (!copy)
                exit(99);
        memcpy(copy, text, len);
        *o = (struct outcome){ .root = MARKER };
        if (with_lib)
                o->lib_ok = lib_parse(copy, len, &o->lib);
        else
                config_init(&o->lib);
        o->r = cfg_parse(copy, len, max_depth, on_finding, o, &o->root);
        free(copy);
}

static void outcome_free(struct outcome *o) {
        config_destroy(&o->lib);
        if (o->root != MARKER)
                cfg_free(o->root);
        o->root = MARKER;
}

static enum verdict verdict_of(const struct outcome *o) {
        if (o->r == 0)
                return o->nfind ? V_REPORT : V_ACCEPT;
        return o->r == -EINVAL ? V_REFUSE : V_OTHER;
}

static void diag_outcome(const struct outcome *o) {
        if (o->lib_ok)
                diag("libconfig %d.%d: accepts", LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR);
        else
                diag("libconfig %d.%d: refuses: line %d: %s", LIBCONFIG_VER_MAJOR, LIBCONFIG_VER_MINOR,
                     config_error_line(&o->lib), config_error_text(&o->lib) ? config_error_text(&o->lib) : "?");
        switch (verdict_of(o)) {
        case V_ACCEPT:
                diag("cfg_parse: accepts");
                break;
        case V_REPORT:
                diag("cfg_parse: returns 0 with %u finding(s), the first: line %u: %s", o->nfind, o->find_line,
                     o->find_msg);
                break;
        case V_REFUSE:
                if (o->nfind)
                        diag("cfg_parse: -EINVAL, %u finding(s), the first: line %u: %s", o->nfind, o->find_line,
                             o->find_msg);
                else
                        diag("cfg_parse: -EINVAL without a finding");
                break;
        case V_OTHER:
                diag("cfg_parse: %d (%s)", o->r, strerror(o->r < 0 ? -o->r : o->r));
                break;
        }
}

/* cfgparse.h's promises on findings and *ret; "" when kept, else what broke. */
static const char *contract(const struct outcome *o) {
        if (o->r != 0 && o->r != -EINVAL)
                return "cfg_parse returned neither 0 nor -EINVAL";
        if (o->r == 0 && (o->root == MARKER || !o->root))
                return "cfg_parse returned 0 without setting *ret";
        if (o->r < 0 && o->root != MARKER)
                return "cfg_parse failed and changed *ret";
        if (o->r < 0 && o->nfind == 0)
                return "cfg_parse refused without reporting a finding";
        if (o->r == 0 && (o->root->type != CFG_GROUP || o->root->name))
                return "the root is not a CFG_GROUP named NULL";
        return "";
}

/* ---------------------------------------------------------------------------------------
 * Tree comparison
 */
enum where { W_ROOT, W_NAMED, W_ELEMENT };

static enum cfg_type map_type(int t) {
        switch (t) {
        case CONFIG_TYPE_GROUP:
                return CFG_GROUP;
        case CONFIG_TYPE_INT:
        case CONFIG_TYPE_INT64:
                return CFG_INT;
        case CONFIG_TYPE_FLOAT:
                return CFG_FLOAT;
        case CONFIG_TYPE_STRING:
                return CFG_STRING;
        case CONFIG_TYPE_BOOL:
                return CFG_BOOL;
        case CONFIG_TYPE_ARRAY:
                return CFG_ARRAY;
        case CONFIG_TYPE_LIST:
                return CFG_LIST;
        default:
                return (enum cfg_type)0;
        }
}

static bool is_container(enum cfg_type t) {
        return t == CFG_GROUP || t == CFG_ARRAY || t == CFG_LIST;
}

FMT(3, 4) static bool differ(char *why, size_t size, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
        return false;
}

/* path[0..plen) names s; true when n is the same, else false with why set. */
static bool same_node(const config_setting_t *s, const struct cfg_node *n, enum where w, bool ints, char *path,
                      size_t plen, char *why, size_t size) {
        int lt = config_setting_type(s);
        enum cfg_type t = map_type(lt);
        const char *name = config_setting_name(s);
        char a[256], b[256];

        path[plen] = '\0';
        if (n->type != t)
                return differ(why, size, "%s: libconfig has %s (its type %d), cfg_parse %s (%d)", path,
                              cfg_type_name(t), lt, cfg_type_name(n->type), (int)n->type);
        if (!name != !n->name || (name && strcmp(name, n->name) != 0))
                return differ(why, size, "%s: libconfig names it %s, cfg_parse %s", path, name ? name : "(null)",
                              n->name ? n->name : "(null)");
        if ((w == W_NAMED || (w == W_ELEMENT && is_container(t))) && config_setting_source_line(s) != n->line)
                return differ(why, size, "%s: libconfig's line %u, cfg_parse's %u", path,
                              (unsigned)config_setting_source_line(s), n->line);
        switch (lt) {
        case CONFIG_TYPE_INT:
        case CONFIG_TYPE_INT64: {
                int64_t v = lt == CONFIG_TYPE_INT ? config_setting_get_int(s) : config_setting_get_int64(s);
                if (ints && v != n->i)
                        return differ(why, size, "%s: libconfig's integer %" PRId64 ", cfg_parse's %" PRId64, path, v,
                                      n->i);
                return true;
        }
        case CONFIG_TYPE_FLOAT: {
                double v = config_setting_get_float(s);
                if (memcmp(&v, &n->f, sizeof v) != 0)
                        return differ(why, size, "%s: libconfig's float %.17g (%a), cfg_parse's %.17g (%a)", path, v, v,
                                      n->f, n->f);
                return true;
        }
        case CONFIG_TYPE_BOOL:
                if ((config_setting_get_bool(s) != 0) != n->b)
                        return differ(why, size, "%s: libconfig's bool %d, cfg_parse's %d", path,
                                      config_setting_get_bool(s) != 0, (int)n->b);
                return true;
        case CONFIG_TYPE_STRING: {
                const char *v = config_setting_get_string(s);
                if (!n->s || strcmp(v, n->s) != 0)
                        return differ(why, size, "%s: libconfig's string \"%s\", cfg_parse's \"%s\"", path,
                                      esc(v, strlen(v), a, sizeof a),
                                      n->s ? esc(n->s, strlen(n->s), b, sizeof b) : "(null)");
                return true;
        }
        default:
                break;
        }
        size_t len = (size_t)config_setting_length(s);
        if (len != n->c.n)
                return differ(why, size, "%s: libconfig has %zu elements, cfg_parse %zu", path, len, n->c.n);
        for (size_t i = 0; i < len; i++) {
                const config_setting_t *e = config_setting_get_elem(s, (unsigned)i);
                const char *en = config_setting_name(e);
                int k = lt == CONFIG_TYPE_GROUP
                                ? snprintf(path + plen, PATH_CAP - plen, "%s%s", plen ? "." : "", en ? en : "?")
                                : snprintf(path + plen, PATH_CAP - plen, "[%zu]", i);
                size_t cl = k < 0 ? plen : plen + (size_t)k;
                if (cl >= PATH_CAP)
                        cl = PATH_CAP - 1;
                if (!same_node(e, &n->c.v[i], lt == CONFIG_TYPE_GROUP ? W_NAMED : W_ELEMENT, ints, path, cl, why,
                               size))
                        return false;
                path[plen] = '\0';
        }
        return true;
}

/* ints: compare integers' values too */
static bool same_tree(const config_t *c, const struct cfg_node *root, bool ints, char *why, size_t size) {
        char path[PATH_CAP] = "";

        return same_node(config_root_setting(c), root, W_ROOT, ints, path, 0, why, size);
}

/* ---------------------------------------------------------------------------------------
 * The table
 */
enum expect {
        AGREE,          /* libconfig does lib_ok; cfg_parse the same, with the same tree */
        DOC_ACCEPTS,    /* documented: cfg_parse accepts; its tree is libconfig's tree of equiv */
        DOC_REFUSES,    /* documented: cfg_parse refuses (-EINVAL) */
        DOC_REPORTS,    /* documented: cfg_parse returns 0 with findings (read as blanks: equiv) */
        DOC_INTS,       /* documented: both accept, the same tree but for integers libconfig wraps */
};

struct fixed {
        const char *what;
        const char *text;
        size_t len;
        enum expect expect;
        bool lib_ok;            /* what libconfig 1.5 does: checked, the case's own premise */
        const char *equiv;
};

#define SAME_OK(w, t) { w, t, sizeof(t) - 1, AGREE, true, NULL }
#define SAME_BAD(w, t) { w, t, sizeof(t) - 1, AGREE, false, NULL }
#define DOC_OK(w, t, e) { w, t, sizeof(t) - 1, DOC_ACCEPTS, false, e }
#define DOC_VAL(w, t, e) { w, t, sizeof(t) - 1, DOC_ACCEPTS, true, e }
#define DOC_INT(w, t) { w, t, sizeof(t) - 1, DOC_INTS, true, NULL }
#define DOC_BAD(w, t) { w, t, sizeof(t) - 1, DOC_REFUSES, true, NULL }
#define DOC_REP(w, t, lib, e) { w, t, sizeof(t) - 1, DOC_REPORTS, lib, e }

#define Z10 "0000000000"
#define A10 "aaaaaaaaaa"

static const struct fixed fixed[] = {
        /* blanks, comments, settings */
        SAME_OK("an empty file", ""),
        SAME_OK("only blanks and comments", " \t\n# hash\n// slashes\n/* block\n   comment */\n\f\r\n"),
        SAME_OK("a setting with '=' and ';'", "a = 1;\n"),
        SAME_OK("':' as the separator", "a : 1;\n"),
        SAME_OK("no terminator", "a = 1\nb = 2\n"),
        SAME_OK("',' as the terminator", "a = 1,\nb = 2,\n"),
        SAME_OK("no blanks: a=1b=2 is two settings", "a=1b=2"),
        SAME_OK("a name right after a string", "a=\"x\"b=1"),
        SAME_OK("0x1f is one hex token; 1c is an int, then a name", "x=0x1f b=1c=2"),
        SAME_OK("terminators mixed in a group", "g = { a = 1, b = 2 c = 3; d = 4 };\n"),
        /* names */
        SAME_OK("names: '*', and - _ * inside", "* = 1; *a-b_* = 2; A9_-z = 3; x-- = 4; Z = 5;\n"),
        SAME_OK("names made of a number's letters", "e5 = 1; E = 2; L = 3; x = 4; e = 5.; LL = 6;\n"),
        SAME_OK("a name of 200 characters",
                A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 A10 " = 1;\n"),
        SAME_BAD("a name starting with '_'", "_a = 1;\n"),
        SAME_BAD("a name starting with a digit", "9a = 1;\n"),
        SAME_BAD("a name holding '.'", "a.b = 1;\n"),
        SAME_BAD("a name holding a non-ASCII letter", "\xc3\xa9t\xc3\xa9 = 1;\n"),
        SAME_BAD("a setting named true", "true = 1;\n"),
        SAME_BAD("a setting named False", "False = 1;\n"),
        SAME_OK("names starting with true or false", "truex = 1; false_ = 2; true-1 = 3; FALSE* = 4; True9 = 5;\n"),
        SAME_BAD("a name as a value", "a = b;\n"),
        SAME_BAD("TRUE1 as a value (a name)", "a = TRUE1;\n"),
        /* booleans, integers */
        SAME_OK("true and false in any case", "a = true; b = FALSE; c = TrUe; d = fAlSe;\n"),
        SAME_OK("integers: signs, int's bounds", "a = 0; b = -1; c = +5; d = 2147483647; e = -2147483648; h = -0;\n"),
        DOC_VAL("a decimal integer beyond int without L: the number, where libconfig 1.5 keeps 32 bits",
                "a = 2147483648; b = -2147483649; c = 4294967296; d = 8589934592; e = 5000000000;\n"
                "f = 9223372036854775807; g = -9223372036854775808; h = 4294967297;\n",
                "a = 2147483648L; b = -2147483649L; c = 4294967296L; d = 8589934592L; e = 5000000000L;\n"
                "f = 9223372036854775807L; g = -9223372036854775808L; h = 4294967297L;\n"),
        SAME_OK("integer64: L and LL",
                "a = 1L; b = -2LL; c = +3L; d = 9223372036854775807L; e = -9223372036854775808LL;\n"),
        SAME_BAD("a lower-case l suffix (a name)", "a = 1l;\n"),
        SAME_BAD("LLL: 1LL, then the name L", "a = 1LLL;\n"),
        SAME_OK("leading zeros: decimal in libconfig 1.5", "a = 010; b = -007; c = 00; d = 08; e = 0010L; f = +09;\n"),
        SAME_OK("hex", "a = 0x0; b = 0XfF; c = 0x7FFFFFFF; d = 0x00000001; e = 0x000000000000000000ab;\n"),
        SAME_OK("hex64: L and LL", "a = 0x1L; b = 0x7FFFFFFFFFFFFFFFLL; c = 0xabcdef0123L; d = 0X10L;\n"),
        DOC_VAL("hex above INT_MAX without L: the number, where libconfig 1.5 keeps 32 bits",
                "a = 0x80000000; b = 0xFFFFFFFF; c = 0x100000000; d = 0x7FFFFFFFFFFFFFFF;\n",
                "a = 0x80000000L; b = 0xFFFFFFFFL; c = 0x100000000L; d = 0x7FFFFFFFFFFFFFFFL;\n"),
        SAME_BAD("0x without a digit", "a = 0x;\n"),
        SAME_BAD("+0x5: the int +0, then the name x5", "a = +0x5;\n"),
        SAME_OK("an integer of 200 digits, leading zeros",
                "a = " Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 "0000000042;\n"),
        SAME_BAD("0xg", "a = 0xg;\n"),
        SAME_OK("integers of every kind in a list", "l = (1, 2L, 0x3, 0x4L, -5, 5000000000L);\n"),
        /* floats */
        SAME_OK("floats: every form of the regex",
                "a = 1.5; b = 1.; c = .5; d = -.5; e = +1.5; f = 1e3; g = 1E+3; h = 1e-3; i = 1.5e3; j = 1.e3;\n"
                "k = .5e-3; l = -0.0; m = +.5E+2; n = 0e0; o = -1.e-0; p = 00.5; q = 1e007;\n"),
        SAME_OK("floats: rounding of long and extreme literals",
                "a = 0.1; b = 2.2250738585072014e-308; c = 1.7976931348623157e308; d = 4.9e-324;\n"
                "e = 2.4703282292062328e-324; f = 123456789012345678901234567890.0; g = 0.30000000000000004441;\n"
                "h = 9007199254740993.0; i = 2.4703282292062327e-324;\n"),
        SAME_OK("a float beyond double: inf", "a = 1e400; b = -1e400;\n"),
        SAME_OK("a float below double: 0", "a = 1e-400; b = -1e-400;\n"),
        SAME_OK("-0.0 keeps its sign", "a = -0.0; b = [0.0, -0.0];\n"),
        SAME_OK("a float literal of 135 characters",
                "a = 0." Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 "1;\n"),
        DOC_BAD("\".\" as a float", "a = .;\n"),
        DOC_BAD("\"-.\" as a float", "a = -.;\n"),
        DOC_BAD("\".e5\": a float without a digit before its exponent", "a = .e5;\n"),
        SAME_BAD("1.5.5", "a = 1.5.5;\n"),
        SAME_BAD("1e: the int 1, then the name e", "a = 1e;\n"),
        SAME_BAD("1e5L: the float 1e5, then the name L", "a = 1e5L;\n"),
        SAME_BAD("1.5e+: the float, the name e, then '+'", "a = 1.5e+;\n"),
        /* strings */
        SAME_OK("string escapes", "a = \"<\\n\\r\\t\\f\\\\\\\">\";\n"),
        SAME_OK("\\xHH and \\XHH", "a = \"\\x41\\x7a\\xFF\\X20\\x7F\\x01\";\n"),
        SAME_OK("unknown escapes keep their backslash", "a = \"\\q\\a\\0\\e\\'\\x4g\\xg\\x\";\n"),
        SAME_OK("a backslash before a newline", "a = \"x\\\ny\";\nb = 1;\n"),
        DOC_BAD("\\x00 in a string", "a = \"ab\\x00cd\";\n"),
        SAME_OK("adjacent strings across blanks, comments and newlines",
                "a = \"ab\" \"cd\"\n  \"ef\" /* c */ \"gh\" # x\n \"ij\" // y\n\"\";\nb = 1;\n"),
        SAME_OK("a string over three lines", "a = \"x\ny\n\";\nb = 1;\n"),
        SAME_OK("comment markers in a string", "a = \"# // /* */\";\nb = 1;\n"),
        SAME_OK("raw bytes in a string", "a = \"\xc3\xa9\t\x7f\x80\xff\r\";\n"),
        SAME_OK("the empty string", "a = \"\"; b = \"\" \"\";\n"),
        SAME_OK("strings joined in an array", "a = [\"a\" \"b\", \"c\"\n\"d\"];\n"),
        SAME_BAD("an unterminated string as a value", "a = \"abc"),
        DOC_BAD("an unterminated string where a setting may start (libconfig 1.5 drops it)", "a = 1;\n\"abc"),
        DOC_BAD("a second string left open after a value (libconfig 1.5 keeps the first)", "a = \"x\" \"y"),
        /* comments */
        SAME_BAD("an unterminated comment in a value", "a = /* x"),
        SAME_OK("an unterminated comment where a setting may start", "a = 1; /* x\n y"),
        DOC_OK("a # comment at the end without a newline (flex's $ needs one)", "a = 1; # c", "a = 1; # c\n"),
        DOC_OK("a // comment at the end without a newline", "a = 1;\n// c", "a = 1;\n// c\n"),
        DOC_OK("a comment without a newline as the whole file", "#", ""),
        SAME_OK("a # comment ended by CRLF", "a = 1; # c\r\n"),
        SAME_OK("comments between every token",
                "a /*x*/ = /*y*/ 1 /*z*/ ; # t\ng // u\n : { /* v */ b = 2; } ;\n"),
        SAME_OK("# and // right after a token", "a=1;#c\nb=2;//d\nc=3/*e*/;\n"),
        SAME_BAD("*/ outside a comment: the name *, then '/'", "a = 1; /* x */ */\n"),
        SAME_BAD("comments do not nest", "/* /* */ */\n"),
        SAME_BAD("a lone '/'", "a = 1; /\n"),
        /* groups, arrays, lists */
        SAME_OK("groups", "g = { a = 1; b = { c = \"x\"; d = { }; }; };\nh : {};\n"),
        SAME_OK("empty lists and arrays", "l = (); a = []; m = ( ); b = [ ];\n"),
        SAME_OK("arrays of each type",
                "a = [1, 2, 3]; b = [1.5, 2., .5e1]; c = [\"x\", \"y\" \"z\"]; d = [true, FALSE]; e = [1L, 2LL];\n"
                "f = [0x1, 2]; g = [0x1L, 5000000000L]; h = [5000000000L, 1L];\n"),
        SAME_BAD("an array of an int and a float", "a = [1, 1.5];\n"),
        SAME_BAD("an array of an int and a string", "a = [1, \"x\"];\n"),
        SAME_BAD("an array of a bool and an int", "a = [true, 1];\n"),
        SAME_BAD("an array of an int and an int64 (two types in libconfig)", "a = [1, 2L];\n"),
        DOC_INT("an array of an int and a decimal beyond int without L: one type, as for libconfig 1.5",
                "a = [1, 5000000000];\n"),
        SAME_BAD("an array of a decimal beyond int without L (an int to libconfig 1.5) and an int64",
                 "a = [5000000000, 1L];\n"),
        SAME_BAD("an array of an int64 and an int", "a = [1L, 2];\n"),
        SAME_BAD("a group in an array", "a = [ { b = 1; } ];\n"),
        SAME_BAD("an array in an array", "a = [ [1] ];\n"),
        SAME_BAD("a list in an array", "a = [ (1) ];\n"),
        SAME_OK("a list of every kind of value",
                "l = (1, \"x\", 1.5, true, [1, 2], (2, 3L), { a = 1; }, (), [], {});\n"),
        SAME_OK("nested lists of groups over lines",
                "l = (\n  { a = 1; },\n  {\n    b = 2;\n    c = ( { d = 3; }, [ 4 ] );\n  },\n  ( { e = 5; } ),\n\n"
                "  [\n 1.5 ]\n);\nz = 0;\n"),
        SAME_OK("list elements after a string over two lines", "l = (\"x\ny\", { a = 1; }, \"p\"\n\"q\", ( ));\n"),
        SAME_OK("nesting four deep", "a = ( ( ( { b = [ 1 ]; } ) ) );\n"),
        SAME_OK("lines after blank lines and comments",
                "\n\n/*\n\n*/ a = 1;\n# x\n\n  b\n =\n 2;\nc = (\n\n{\n d = 1; }\n, [\n1 ]\n,\n(\n)\n);\n"),
        /* duplicates */
        SAME_BAD("a duplicate name", "a = 1; a = 2;\n"),
        SAME_BAD("a duplicate name in a group", "g = { x = 1; y = 2; x = \"3\"; };\n"),
        SAME_BAD("a duplicate name of another type", "a = 1; a = { };\n"),
        SAME_OK("names differing in case", "a = 1; A = 2;\n"),
        SAME_OK("one name in different groups",
                "g = { a = 1; }; h = { a = 1; g = 2; }; a = 1; l = ({ a = 1; }, { a = 2; });\n"),
        /* commas */
        DOC_OK("a trailing comma in a list", "l = (1, 2,);\n", "l = (1, 2);\n"),
        DOC_OK("a trailing comma in an array", "a = [1, 2, ];\n", "a = [1, 2];\n"),
        DOC_OK("trailing commas in nested lists", "l = ( { a = 1; }, ( [ \"x\", ], ), );\n",
               "l = ( { a = 1; }, ( [ \"x\" ] ) );\n"),
        SAME_BAD("a comma alone in a list", "l = (,);\n"),
        SAME_BAD("a comma alone in an array", "a = [,];\n"),
        SAME_BAD("two commas at the end of a list", "l = (1,,);\n"),
        SAME_BAD("an empty element", "a = [1, , 2];\n"),
        SAME_BAD("elements without a comma", "l = (1 2);\n"),
        /* syntax errors */
        SAME_BAD("two terminators", "a = 1;;\n"),
        SAME_BAD("',' then ';'", "a = 1,;\n"),
        SAME_BAD("no value", "a = ;\n"),
        SAME_BAD("no '='", "a 1;\n"),
        SAME_BAD("'=='", "a == 1;\n"),
        SAME_BAD("no name", "= 1;\n"),
        SAME_BAD("a terminator alone", ";\n"),
        SAME_BAD("garbage: '$'", "a = 1; $\n"),
        SAME_BAD("garbage: '@' as a value", "a = @;\n"),
        SAME_BAD("garbage: a control byte", "a = 1;\x01\n"),
        SAME_BAD("garbage: a vertical tab", "a = 1;\v\n"),
        SAME_BAD("garbage: single quotes", "a = 'x';\n"),
        SAME_BAD("garbage: a byte above 0x7f", "a = 1; \xff\n"),
        SAME_BAD("@include not at the start of a line", "a = 1; @include \"/dev/null\"\n"),
        SAME_BAD("@include after a form feed", "a = 1;\n\f@include \"/dev/null\"\n"),
        SAME_BAD("an unclosed group", "g = { a = 1;\n"),
        SAME_BAD("one '}' too many", "g = { a = 1; }}\n"),
        SAME_BAD("an unclosed list", "l = (1, 2\n"),
        SAME_BAD("'[' closed by ')'", "a = [1, 2);\n"),
        SAME_BAD("a '}' alone", "}\n"),
        SAME_BAD("a group at the top", "{ a = 1; }\n"),
        SAME_BAD("a list at the top", "(1, 2)\n"),
        SAME_BAD("']' after the settings", "a = 1; ]\n"),
        /* line ends */
        SAME_OK("CRLF line ends",
                "a = 1;\r\nb = \"x\";\r\n# c\r\ng = {\r\n  c = 2;\r\n};\r\nl = (\r\n{ d = 1; }\r\n);\r\n"),
        SAME_OK("a lone CR: a blank, not a line end", "a = 1;\rb = 2;\n c = 3;\r\r\n d = (\r{ });\n"),
        SAME_OK("form feeds", "a = 1;\f\nb = 2;\fc = 3;\n\fd = { };\n"),
        /* integers outside int64: libconfig 1.5 saturates */
        DOC_BAD("an integer above int64", "a = 9223372036854775808;\n"),
        DOC_BAD("an integer below int64", "a = -9223372036854775809;\n"),
        DOC_BAD("an L integer above int64", "a = 99999999999999999999L;\n"),
        DOC_BAD("a hex64 above int64", "a = 0x8000000000000000L;\n"),
        DOC_BAD("64 bits of ones in hex64", "a = 0xFFFFFFFFFFFFFFFFL;\n"),
        DOC_BAD("a hex integer beyond 64 bits", "a = 0x10000000000000000;\n"),
        DOC_BAD("an integer above int64 in a list", "l = (1, 18446744073709551616);\n"),
        /* @include and NUL bytes: reported, read as blanks */
        DOC_REP("@include at the start of a line", "a = 1;\n@include \"/dev/null\"\nb = 2;\n", true,
                "a = 1;\n\nb = 2;\n"),
        DOC_REP("@include after blanks", "a = 1;\n  \t@include \"/dev/null\"\nb = 2;\n", true, "a = 1;\n\nb = 2;\n"),
        DOC_REP("@include of a missing file", "@include \"/nonexistent/rdmalimit\"\na = 1;\n", false, "\na = 1;\n"),
        DOC_REP("a NUL byte between settings", "a = 1;\0b = 2;\n", false, "a = 1; b = 2;\n"),
        DOC_REP("a NUL byte in a string", "a = \"x\0y\";\n", true, "a = \"x y\";\n"),
        DOC_REP("a NUL byte in a # comment", "a = 1; # x\0y\nb = 2;\n", true, "a = 1; # x y\nb = 2;\n"),
        DOC_REP("a NUL byte in a /* */ comment", "a = 1; /* x\0y */ b = 2;\n", true, "a = 1; /* x y */ b = 2;\n"),
};

static const char *expect_name(const struct fixed *f) {
        switch (f->expect) {
        case AGREE:
                return f->lib_ok ? "both accept" : "both refuse";
        case DOC_ACCEPTS:
                return "cfg_parse accepts (documented)";
        case DOC_REFUSES:
                return "cfg_parse refuses (documented)";
        case DOC_INTS:
                return "both accept, integers aside (documented)";
        default:
                return "cfg_parse reports it (documented)";
        }
}

static void run_fixed(const struct fixed *f) {
        struct outcome o;
        enum verdict v;
        char why[1024] = "";
        config_t eq;
        bool have_eq = false;

        run_both(f->text, f->len, MAX_DEPTH, true, &o);
        v = verdict_of(&o);
        if (o.lib_ok != f->lib_ok)
                snprintf(why, sizeof why, "the case's premise is wrong: libconfig %s it",
                         o.lib_ok ? "accepts" : "refuses");
        else if (*contract(&o))
                snprintf(why, sizeof why, "%s", contract(&o));
        else
                switch (f->expect) {
                case AGREE:
                        if (f->lib_ok && v != V_ACCEPT)
                                snprintf(why, sizeof why, "libconfig accepts, cfg_parse does not");
                        else if (!f->lib_ok && v != V_REFUSE)
                                snprintf(why, sizeof why, "libconfig refuses, cfg_parse does not");
                        else if (f->lib_ok)
                                same_tree(&o.lib, o.root, true, why, sizeof why);
                        break;
                case DOC_ACCEPTS:
                case DOC_REPORTS:
                        if (v != (f->expect == DOC_ACCEPTS ? V_ACCEPT : V_REPORT)) {
                                snprintf(why, sizeof why, "cfg_parse should %s",
                                         f->expect == DOC_ACCEPTS ? "accept it" : "return 0 with a finding");
                                break;
                        }
                        if (!f->equiv)
                                break;
                        have_eq = true;
                        if (!lib_parse(f->equiv, strlen(f->equiv), &eq))
                                snprintf(why, sizeof why, "libconfig refuses the equivalent text: line %d: %s",
                                         config_error_line(&eq), config_error_text(&eq));
                        else
                                same_tree(&eq, o.root, true, why, sizeof why);
                        break;
                case DOC_REFUSES:
                        if (v != V_REFUSE)
                                snprintf(why, sizeof why, "cfg_parse should refuse it (-EINVAL)");
                        break;
                case DOC_INTS:
                        if (v != V_ACCEPT)
                                snprintf(why, sizeof why, "libconfig accepts, cfg_parse does not");
                        else
                                same_tree(&o.lib, o.root, false, why, sizeof why);
                        break;
                }
        tap(!*why, "%s: %s", f->what, expect_name(f));
        if (*why) {
                diag_text("input", f->text, f->len);
                if (have_eq)
                        diag_text("compared with libconfig's tree of", f->equiv, strlen(f->equiv));
                diag_outcome(&o);
                diag("%s", why);
        }
        if (have_eq)
                config_destroy(&eq);
        outcome_free(&o);
}

/* ---------------------------------------------------------------------------------------
 * cfg_parse() alone
 */
static int cfg_only(const char *text, size_t len, unsigned max_depth, bool with_fn, unsigned *nfind,
                    struct cfg_node **root) {
        struct outcome o = { .root = MARKER };
        int r;

        r = cfg_parse(text, len, max_depth, with_fn ? on_finding : NULL, &o, &o.root);
        *nfind = o.nfind;
        *root = o.root;
        return r;
}

static void depth_case(const char *text, unsigned max_depth, bool accept) {
        struct cfg_node *root;
        unsigned nfind;
        int r = cfg_only(text, strlen(text), max_depth, true, &nfind, &root);
        bool ok = accept ? r == 0 && nfind == 0 : r == -EINVAL && nfind > 0 && root == MARKER;

        tap(ok, "max_depth %u: %s %s", max_depth, text, accept ? "accepted" : "refused with a finding");
        if (!ok)
                diag("cfg_parse returned %d with %u finding(s)", r, nfind);
        if (r == 0)
                cfg_free(root);
}

static void run_cfg_only(void) {
        struct cfg_node *root;
        unsigned nfind;
        int r;

        depth_case("a = ( { b = 1; } );", 2, true);
        depth_case("a = ( ( ( 1 ) ) );", 2, false);
        depth_case("a = 1; b = \"x\";", 0, true);
        depth_case("a = { };", 0, false);

        r = cfg_only("a = ;", 5, MAX_DEPTH, false, &nfind, &root);
        tap(r == -EINVAL && root == MARKER, "fn may be NULL: a syntax error is still -EINVAL");
        if (r == 0)
                cfg_free(root);

        /* len stops the text before its NUL: "a = 12" read as "a = 1" */
        r = cfg_only("a = 12", 5, MAX_DEPTH, true, &nfind, &root);
        tap(r == 0 && nfind == 0 && root->c.n == 1 && root->c.v[0].type == CFG_INT && root->c.v[0].i == 1,
            "the text ends at len, not at a NUL");
        if (r == 0)
                cfg_free(root);
}

/* ---------------------------------------------------------------------------------------
 * classify(): which documented differences (skipped) and known libconfig 1.5 quirks (named in
 * the diagnostics) a text hits, found by libconfig 1.5's scanner rules (longest match).
 */
enum {
        D_NUL = 1 << 0,         /* a NUL byte */
        D_XNUL = 1 << 1,        /* "\x00" in a string */
        D_INCLUDE = 1 << 2,     /* @include */
        D_NODIGIT = 1 << 3,     /* a float without a digit before its exponent */
        D_RANGE = 1 << 4,       /* an integer outside int64 */
        D_TRAILING = 1 << 5,    /* ',' before ']' or ')' */
        D_OPEN_STRING = 1 << 6, /* a string still open at the end */
        D_COMMENT_EOF = 1 << 7, /* a # or // comment without a newline at the end */
        DOCUMENTED = 0xff,      /* cfg_parse reads the text otherwise than libconfig */
        I_HEX_WRAP = 1 << 8,    /* hex without L above INT_MAX: libconfig keeps 32 bits */
        I_DEC_WRAP = 1 << 9,    /* decimal without L beyond int: libconfig 1.5 (atoi) keeps 32 bits */
        INTS_DIFFER = I_HEX_WRAP | I_DEC_WRAP, /* documented too: integers' values not compared */
};

static const char *const flag_names[] = {
        "a NUL byte", "\\x00", "@include", "a float without a digit", "an integer outside int64",
        "a trailing comma", "a string open at the end", "a line comment without a newline at the end",
        "hex above INT_MAX without L", "a decimal integer beyond int without L",
};

static bool is_digit(char c) {
        return c >= '0' && c <= '9';
}

static bool is_xdigit(char c) {
        return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static size_t run_of_digits(const char *p, size_t n) {
        size_t i = 0;
        while (i < n && is_digit(p[i]))
                i++;
        return i;
}

/* [A-Za-z*][-A-Za-z0-9_*]* */
static size_t match_name(const char *p, size_t n) {
        size_t i = 1;
        if (n == 0 || !(is_alpha(p[0]) || p[0] == '*'))
                return 0;
        while (i < n && (is_alpha(p[i]) || is_digit(p[i]) || p[i] == '-' || p[i] == '_' || p[i] == '*'))
                i++;
        return i;
}

/* [eE][-+]?[0-9]+ */
static size_t match_exp(const char *p, size_t n) {
        size_t i = 1, d;
        if (n == 0 || (p[0] != 'e' && p[0] != 'E'))
                return 0;
        if (i < n && (p[i] == '-' || p[i] == '+'))
                i++;
        d = run_of_digits(p + i, n - i);
        return d ? i + d : 0;
}

/* ([-+]?([0-9]*)?\.[0-9]*([eE][-+]?[0-9]+)?)|([-+]?([0-9]+)(\.[0-9]*)?[eE][-+]?[0-9]+) */
static size_t match_float(const char *p, size_t n, bool *mantissa_digit) {
        size_t s = n && (p[0] == '-' || p[0] == '+'), d1 = run_of_digits(p + s, n - s), l1 = 0, l2 = 0;
        size_t i = s + d1;

        *mantissa_digit = false;
        if (i < n && p[i] == '.') {
                size_t d2 = run_of_digits(p + i + 1, n - i - 1);
                l1 = i + 1 + d2;
                l1 += match_exp(p + l1, n - l1);
                *mantissa_digit = d1 + d2 > 0;
        }
        if (d1) {
                size_t k = i, e;
                if (k < n && p[k] == '.')
                        k += 1 + run_of_digits(p + k + 1, n - k - 1);
                e = match_exp(p + k, n - k);
                if (e)
                        l2 = k + e;
        }
        if (l2 > l1)
                *mantissa_digit = true;
        return l1 > l2 ? l1 : l2;
}

/* [-+]?[0-9]+ */
static size_t match_int(const char *p, size_t n) {
        size_t s = n && (p[0] == '-' || p[0] == '+'), d = run_of_digits(p + s, n - s);
        return d ? s + d : 0;
}

/* 0[Xx][0-9A-Fa-f]+ */
static size_t match_hex(const char *p, size_t n) {
        size_t i = 2;
        if (n < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
                return 0;
        while (i < n && is_xdigit(p[i]))
                i++;
        return i > 2 ? i : 0;
}

/* base followed by L(L)? */
static size_t match_l(const char *p, size_t n, size_t base) {
        if (!base || base >= n || p[base] != 'L')
                return 0;
        return base + 1 < n && p[base + 1] == 'L' ? base + 2 : base + 1;
}

/* The decimal digits of p[0..n) (a sign first) fit in int64; *in_int: in int too. */
static bool int_fits(const char *p, size_t n, bool *in_int) {
        bool neg = p[0] == '-';
        size_t i = p[0] == '-' || p[0] == '+';
        uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

        for (; i < n && is_digit(p[i]); i++) {
                unsigned d = (unsigned)(p[i] - '0');
                if (v > (limit - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *in_int = v <= (neg ? (uint64_t)INT32_MAX + 1 : (uint64_t)INT32_MAX);
        return true;
}

/* The value of the hex digits after 0x; false when above int64. */
static bool hex_value(const char *p, size_t n, uint64_t *v) {
        *v = 0;
        for (size_t i = 2; i < n && is_xdigit(p[i]); i++) {
                unsigned d = is_digit(p[i]) ? (unsigned)(p[i] - '0') : (unsigned)((p[i] | 0x20) - 'a' + 10);
                if (*v > (UINT64_MAX >> 4))
                        return false;
                *v = *v << 4 | d;
        }
        return *v <= INT64_MAX;
}

/*
 * The flags of s[0..n), which has no NUL (they are blanked first, as cfg_parse reads them).
 * A trailing comma, one right after a value and before ']' or ')', is blanked in s: what is
 * left is what cfg_parse reads (a comma with no value before it is refused by both).
 */
static unsigned classify(char *s, size_t n) {
        unsigned fl = 0;
        bool value_end = false;         /* the last token ended a value */
        size_t comma = SIZE_MAX;        /* a ',' after a value, and only blanks since */
        size_t i = 0;

        if (memmem(s, n, "@include", 8))
                fl |= D_INCLUDE;
        while (i < n) {
                const char *p = s + i;
                size_t left = n - i;
                char c = *p;

                if (c == '/' && left > 1 && p[1] == '*') {
                        const char *e = memmem(p + 2, left - 2, "*/", 2);
                        if (!e)
                                break;  /* libconfig reads the end of the file */
                        i = (size_t)(e - s) + 2;
                        continue;
                }
                if (c == '#' || (c == '/' && left > 1 && p[1] == '/')) {
                        const char *e = memchr(p, '\n', left);
                        if (!e) {
                                fl |= D_COMMENT_EOF;
                                break;
                        }
                        i = (size_t)(e - s);
                        continue;
                }
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
                        i++;
                        continue;
                }
                if (c == '"') {
                        size_t j = i + 1;
                        for (;;) {
                                if (j >= n) {
                                        fl |= D_OPEN_STRING;
                                        return fl;
                                }
                                if (s[j] == '"')
                                        break;
                                if (s[j] != '\\') {
                                        j++;
                                        continue;
                                }
                                if (j + 1 < n && s[j + 1] && strchr("nrtf\\\"", s[j + 1]))
                                        j += 2;
                                else if (j + 3 < n && (s[j + 1] == 'x' || s[j + 1] == 'X') && is_xdigit(s[j + 2]) &&
                                         is_xdigit(s[j + 3])) {
                                        if (s[j + 2] == '0' && s[j + 3] == '0')
                                                fl |= D_XNUL;
                                        j += 4;
                                } else
                                        j++;
                        }
                        value_end = true;
                        comma = SIZE_MAX;
                        i = j + 1;
                        continue;
                }
                if (c == ',') {
                        comma = value_end ? i : SIZE_MAX;
                        value_end = false;
                        i++;
                        continue;
                }
                if ((c == ']' || c == ')') && comma != SIZE_MAX) {
                        fl |= D_TRAILING;
                        s[comma] = ' ';
                }
                comma = SIZE_MAX;
                value_end = c == ']' || c == ')' || c == '}';
                if (c && strchr("=:;{}[]()", c)) {
                        i++;
                        continue;
                }

                bool mant;
                size_t ln = match_name(p, left), lf = match_float(p, left, &mant), li = match_int(p, left);
                size_t li64 = match_l(p, left, li), lh = match_hex(p, left), lh64 = match_l(p, left, lh);
                size_t best = ln;
                enum { NAME, FLOAT, INT, INT64, HEX, HEX64 } kind = NAME;
                /* the longest match; a tie goes to the earlier rule */
                if (lf > best)
                        best = lf, kind = FLOAT;
                if (li > best)
                        best = li, kind = INT;
                if (li64 > best)
                        best = li64, kind = INT64;
                if (lh > best)
                        best = lh, kind = HEX;
                if (lh64 > best)
                        best = lh64, kind = HEX64;
                if (!best) {    /* garbage: libconfig stops here */
                        i++;
                        continue;
                }
                value_end = kind != NAME || (ln == 4 && strncasecmp(p, "true", 4) == 0) ||
                            (ln == 5 && strncasecmp(p, "false", 5) == 0);
                uint64_t v;
                bool in_int;
                switch (kind) {
                case FLOAT:
                        if (!mant)
                                fl |= D_NODIGIT;
                        break;
                case INT:
                case INT64:
                        if (!int_fits(p, best, &in_int))
                                fl |= D_RANGE;
                        else if (kind == INT && !in_int)
                                fl |= I_DEC_WRAP;
                        break;
                case HEX:
                case HEX64:
                        if (!hex_value(p, best, &v))
                                fl |= D_RANGE;
                        else if (kind == HEX && v > INT32_MAX)
                                fl |= I_HEX_WRAP;
                        break;
                default:
                        break;
                }
                i += best;
        }
        return fl;
}

static const char *flags_text(unsigned fl, char *out, size_t size) {
        size_t k = 0;

        out[0] = '\0';
        for (size_t b = 0; b < ARRAY_SIZE(flag_names); b++)
                if (fl & (1u << b) && flag_names[b]) {
                        int w = snprintf(out + k, size - k, "%s%s", k ? ", " : "", flag_names[b]);
                        if (w < 0 || (size_t)w >= size - k)
                                break;
                        k += (size_t)w;
                }
        return k ? out : "nothing documented";
}

/* ---------------------------------------------------------------------------------------
 * Random documents
 */
struct rng {
        uint64_t s;
};

static uint64_t rnd64(struct rng *r) {   /* splitmix64 */
        uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static unsigned rnd(struct rng *r, unsigned n) {
        return (unsigned)(rnd64(r) % n);
}

static bool chance(struct rng *r, unsigned percent) {
        return rnd(r, 100) < percent;
}

static char pick(struct rng *r, const char *set) {
        return set[rnd(r, (unsigned)strlen(set))];
}

struct buf {
        char *p;
        size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n) {
        if (b->n + n + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 256;
                while (cap < b->n + n + 1)
                        cap *= 2;
                char *p = realloc(b->p, cap);
                if (!p)
                        exit(99);
                b->p = p;
                b->cap = cap;
        }
        memcpy(b->p + b->n, s, n);
        b->n += n;
        b->p[b->n] = '\0';
}

static void put_s(struct buf *b, const char *s) {
        put(b, s, strlen(s));
}

static void put_c(struct buf *b, char c) {
        put(b, &c, 1);
}

FMT(2, 3) static void put_f(struct buf *b, const char *fmt, ...) {
        char tmp[128];
        va_list ap;
        int k;

        va_start(ap, fmt);
        k = vsnprintf(tmp, sizeof tmp, fmt, ap);
        va_end(ap);
        if (k < 0 || (size_t)k >= sizeof tmp)
                exit(99);
        put(b, tmp, (size_t)k);
}

static const char PRINTABLE[] =
        " !#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~";
static const char COMMENT_CHARS[] = " \t!\"#$%&'()*+,-.0123456789:;<=>?@ABCXYZ[\\]^_`abcxyz{|}~";

/* Blanks and comments; empty (tokens touch) only when allowed. */
static void gen_blank(struct rng *r, struct buf *b, bool may_be_empty) {
        unsigned k = chance(r, 20) ? 1 + rnd(r, 3) : 1;

        for (unsigned j = 0; j < k; j++)
                switch (rnd(r, 24)) {
                case 0:
                        if (may_be_empty)
                                break;
                        /* fall through */
                case 1 ... 8:
                        put_c(b, ' ');
                        break;
                case 9:
                        put_s(b, "\n");
                        break;
                case 10:
                        put_s(b, "\r\n");
                        break;
                case 11:
                        put_s(b, "\t");
                        break;
                case 12:
                        put_s(b, "\f");
                        break;
                case 13:
                        put_s(b, "\r");
                        break;
                case 14:
                        put_s(b, "\n\n  ");
                        break;
                case 15 ... 16:
                case 17: {
                        unsigned m = rnd(r, 12);
                        put_s(b, rnd(r, 3) ? "#" : "//");
                        for (unsigned q = 0; q < m; q++)
                                put_c(b, pick(r, COMMENT_CHARS));
                        put_s(b, chance(r, 20) ? "\r\n" : "\n");
                        break;
                }
                case 18 ... 19: {
                        unsigned m = rnd(r, 12);
                        put_s(b, "/*");
                        for (unsigned q = 0; q < m; q++)
                                put_c(b, chance(r, 10) ? '\n' : chance(r, 10) ? '*' : pick(r, COMMENT_CHARS));
                        put_s(b, "*/");
                        break;
                }
                default:
                        put_s(b, j ? " " : "  ");
                        break;
                }
}

static bool name_is_keyword(const char *s) {
        return strcasecmp(s, "true") == 0 || strcasecmp(s, "false") == 0;
}

static void gen_name(struct rng *r, char out[static 32]) {
        static const char *const special[] = {
                "true_", "falsey", "True9", "TRUEX", "e", "E5", "L", "LL", "x", "inf", "nan",
                "*", "a-b", "rules", "limit", "e1e1", "x0", "false-", "truE*",
        };

        do {
                if (chance(r, 12)) {
                        snprintf(out, 32, "%s", special[rnd(r, ARRAY_SIZE(special))]);
                        return;
                }
                unsigned len = 1 + (chance(r, 10) ? rnd(r, 24) : rnd(r, 8)), i = 0;
                out[i++] = pick(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz*");
                while (i < len)
                        out[i++] = pick(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_*");
                out[i] = '\0';
        } while (name_is_keyword(out));
}

enum scalar_kind { SK_INT, SK_INT64, SK_FLOAT, SK_STRING, SK_BOOL };

static enum scalar_kind rand_kind(struct rng *r) {
        unsigned k = rnd(r, 100);
        return k < 30 ? SK_INT : k < 42 ? SK_INT64 : k < 62 ? SK_FLOAT : k < 85 ? SK_STRING : SK_BOOL;
}

static void put_decimal(struct rng *r, struct buf *b, int64_t v) {
        uint64_t m = v < 0 ? -(uint64_t)v : (uint64_t)v;

        if (v < 0)
                put_c(b, '-');
        else if (chance(r, 10))
                put_c(b, '+');
        else if (v == 0 && chance(r, 5))
                put_c(b, '-');
        if (chance(r, 5))
                put_s(b, chance(r, 50) ? "0" : "00");
        put_f(b, "%" PRIu64, m);
}

static void put_hex(struct rng *r, struct buf *b, uint64_t v) {
        char digits[17];
        bool upper = chance(r, 50);

        put_s(b, chance(r, 80) ? "0x" : "0X");
        if (chance(r, 10))
                put_s(b, chance(r, 50) ? "0" : "0000");
        snprintf(digits, sizeof digits, upper ? "%" PRIX64 : "%" PRIx64, v);
        if (chance(r, 10))      /* mixed case */
                for (char *d = digits; *d; d++)
                        if (chance(r, 50) && *d > '9')
                                *d ^= 0x20;
        put_s(b, digits);
}

/* An integer libconfig reads as int (wide: as int64). */
static void gen_int(struct rng *r, struct buf *b, bool wide) {
        static const int64_t edges32[] = { 0, 1, -1, INT32_MAX, INT32_MIN, 10, 255 };
        static const int64_t edges64[] = { (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1, INT64_MAX, INT64_MIN,
                                           UINT32_MAX, -(int64_t)UINT32_MAX };
        bool hex = chance(r, 25);
        unsigned k;
        int64_t v;

        if (!wide) {
                switch (rnd(r, 5)) {
                case 0:
                        v = rnd(r, 10);
                        break;
                case 1:
                        v = (int64_t)rnd(r, 2001) - 1000;
                        break;
                case 2:
                        v = (int32_t)(uint32_t)rnd64(r);
                        break;
                case 3:
                        k = rnd(r, 32);
                        v = (int32_t)((uint32_t)rnd64(r) >> k);
                        break;
                default:
                        v = edges32[rnd(r, ARRAY_SIZE(edges32))];
                        break;
                }
                if (hex)
                        put_hex(r, b, (uint64_t)(v < 0 ? -(v + 1) : v));     /* 0 to INT32_MAX */
                else
                        put_decimal(r, b, v);
                return;
        }
        bool suffix = hex || chance(r, 90);     /* without L beyond int: documented */
        for (;;) {
                switch (rnd(r, 4)) {
                case 0:
                        v = suffix ? (int64_t)rnd(r, 100) : (int64_t)INT32_MAX + 1 + rnd(r, 1000);
                        break;
                case 1:
                        v = (int64_t)rnd64(r);
                        break;
                case 2:
                        k = 1 + rnd(r, 63);
                        v = (int64_t)(rnd64(r) >> k);
                        if (chance(r, 50))
                                v = -v;
                        break;
                default:
                        v = edges64[rnd(r, ARRAY_SIZE(edges64))];
                        break;
                }
                if (hex && v < 0)
                        v = v == INT64_MIN ? 0 : -v;
                if (suffix || v > INT32_MAX || v < INT32_MIN)
                        break;
        }
        if (hex)
                put_hex(r, b, (uint64_t)v);
        else
                put_decimal(r, b, v);
        if (suffix)
                put_s(b, chance(r, 70) ? "L" : "LL");
}

static void put_digits(struct rng *r, struct buf *b, unsigned n) {
        for (unsigned i = 0; i < n; i++)
                put_c(b, (char)('0' + rnd(r, 10)));
}

/* A float literal of the scanner's regex with a digit before any exponent, of at most
 * 20 + 20 digits and an exponent that keeps it a normal double (or 0). */
static void gen_float(struct rng *r, struct buf *b) {
        unsigned form = rnd(r, 7);      /* I.F I. .F IeX I.FeX I.eX .FeX */
        unsigned id = 1 + (chance(r, 10) ? rnd(r, 20) : rnd(r, 4));
        unsigned fd = 1 + (chance(r, 10) ? rnd(r, 20) : rnd(r, 4));

        if (chance(r, 15))
                put_c(b, '-');
        else if (chance(r, 8))
                put_c(b, '+');
        if (form != 2 && form != 6)
                put_digits(r, b, id);
        if (form != 3)
                put_c(b, '.');
        if (form == 0 || form == 2 || form == 4 || form == 6)
                put_digits(r, b, fd);
        if (form >= 3) {
                unsigned e = chance(r, 80) ? rnd(r, 20) : rnd(r, 270);
                put_c(b, chance(r, 50) ? 'e' : 'E');
                if (chance(r, 40))
                        put_c(b, '-');
                else if (chance(r, 30))
                        put_c(b, '+');
                if (chance(r, 5))
                        put_c(b, '0');
                put_f(b, "%u", e);
        }
}

static void gen_string(struct rng *r, struct buf *b) {
        unsigned pieces = chance(r, 20) ? 2 + rnd(r, 2) : 1, k;

        for (unsigned p = 0; p < pieces; p++) {
                unsigned items = rnd(r, 12);
                if (p)
                        gen_blank(r, b, true);
                put_c(b, '"');
                for (unsigned i = 0; i < items; i++)
                        switch (rnd(r, 20)) {
                        case 10:
                                put_c(b, '\\');
                                put_c(b, pick(r, "nrtf\\\""));
                                break;
                        case 11:
                                put_c(b, '\\');
                                put_c(b, chance(r, 80) ? 'x' : 'X');
                                k = chance(r, 50);
                                put_f(b, k ? "%02x" : "%02X", 1 + rnd(r, 255));
                                break;
                        case 12:
                                put_c(b, '\\');
                                put_c(b, pick(r, "qa0ez'?/ b9#"));
                                break;
                        case 13:
                                put_s(b, chance(r, 50) ? "\\x" : "\\X");
                                if (chance(r, 50))
                                        put_c(b, pick(r, "0123456789abcdefABCDEF"));
                                put_c(b, pick(r, "gz-_ G"));
                                break;
                        case 14:
                                put_c(b, (char)(0x80 + rnd(r, 0x80)));
                                break;
                        case 15:
                                put_c(b, '\t');
                                break;
                        case 16:
                                put_c(b, chance(r, 30) ? '\n' : 'n');
                                break;
                        case 17: {
                                static const char *const marks[] = { "#", "//", "/*", "*/" };
                                put_s(b, marks[rnd(r, 4)]);
                                break;
                        }
                        case 18:
                                put_c(b, chance(r, 30) ? '\r' : 'r');
                                break;
                        default: {
                                char c;
                                do
                                        c = pick(r, PRINTABLE);
                                while (c == '"' || c == '\\');
                                put_c(b, c);
                                break;
                        }
                        }
                put_c(b, '"');
        }
}

static void gen_bool(struct rng *r, struct buf *b) {
        const char *w = chance(r, 50) ? "true" : "false";
        bool lower = chance(r, 40);

        for (const char *c = w; *c; c++)
                put_c(b, lower || chance(r, 50) ? *c : (char)(*c ^ 0x20));
}

static void gen_scalar(struct rng *r, struct buf *b, enum scalar_kind k) {
        switch (k) {
        case SK_INT:
                gen_int(r, b, false);
                break;
        case SK_INT64:
                gen_int(r, b, true);
                break;
        case SK_FLOAT:
                gen_float(r, b);
                break;
        case SK_STRING:
                gen_string(r, b);
                break;
        case SK_BOOL:
                gen_bool(r, b);
                break;
        }
}

static void gen_settings(struct rng *r, struct buf *b, unsigned depth, unsigned count);

static void gen_value(struct rng *r, struct buf *b, unsigned depth) {
        unsigned n;

        if (depth >= RANDOM_DEPTH || !chance(r, 35)) {
                gen_scalar(r, b, rand_kind(r));
                return;
        }
        switch (rnd(r, 20)) {
        case 0 ... 7:
                put_c(b, '{');
                gen_blank(r, b, true);
                gen_settings(r, b, depth + 1, rnd(r, 5));
                put_c(b, '}');
                break;
        case 8 ... 14:
                put_c(b, '(');
                gen_blank(r, b, true);
                n = rnd(r, 6);
                for (unsigned i = 0; i < n; i++) {
                        if (i) {
                                put_c(b, ',');
                                gen_blank(r, b, true);
                        }
                        gen_value(r, b, depth + 1);
                        gen_blank(r, b, true);
                }
                if (n && chance(r, 5))  /* documented: cfg_parse accepts it */
                        put_c(b, ',');
                put_c(b, ')');
                break;
        default: {
                enum scalar_kind k = rand_kind(r);
                bool mixed = chance(r, 4);      /* refused by both, mostly */
                put_c(b, '[');
                gen_blank(r, b, true);
                n = rnd(r, 6);
                for (unsigned i = 0; i < n; i++) {
                        if (i) {
                                put_c(b, ',');
                                gen_blank(r, b, true);
                        }
                        gen_scalar(r, b, mixed ? rand_kind(r) : k);
                        gen_blank(r, b, true);
                }
                if (n && chance(r, 5))
                        put_c(b, ',');
                put_c(b, ']');
                break;
        }
        }
}

static void gen_settings(struct rng *r, struct buf *b, unsigned depth, unsigned count) {
        char names[8][32];

        for (unsigned i = 0; i < count && i < ARRAY_SIZE(names); i++) {
                bool dup;
                if (i && chance(r, 2))  /* a duplicate: refused by both */
                        memcpy(names[i], names[rnd(r, i)], sizeof names[i]);
                else
                        do {
                                gen_name(r, names[i]);
                                dup = false;
                                for (unsigned j = 0; j < i; j++)
                                        dup |= strcmp(names[i], names[j]) == 0;
                        } while (dup);
                put_s(b, names[i]);
                gen_blank(r, b, true);
                put_c(b, chance(r, 75) ? '=' : ':');
                gen_blank(r, b, true);
                gen_value(r, b, depth);
                gen_blank(r, b, true);
                switch (rnd(r, 20)) {
                case 0 ... 9:
                        put_c(b, ';');
                        break;
                case 10 ... 12:
                        put_c(b, ',');
                        break;
                default:
                        break;
                }
                gen_blank(r, b, true);
        }
}

static void gen_doc(struct rng *r, struct buf *b) {
        b->n = 0;
        put(b, "", 0);
        if (chance(r, 50))
                gen_blank(r, b, true);
        gen_settings(r, b, 0, rnd(r, 8));
        if (chance(r, 3))       /* documented: cfg_parse reads it as a comment */
                put_s(b, chance(r, 50) ? "# the end" : "//");
}

/* ---------------------------------------------------------------------------------------
 * Mutations
 */
static const char INTERESTING[] = "{}[]()=:;,\"\\#/*.-+xXeEL0123456789aztTfF_ \n\t\r\f@$'";

static char rand_byte(struct rng *r) {
        if (chance(r, 1))
                return '\0';
        if (chance(r, 12))
                return (char)(1 + rnd(r, 255));
        return pick(r, INTERESTING);
}

/* The end of the token-like run at i: a run of name/number characters or of blanks, else
 * one byte. */
static size_t run_end(const char *s, size_t n, size_t i) {
        bool word = is_alpha(s[i]) || is_digit(s[i]) || (s[i] && strchr("._+-*", s[i]));
        bool blank = s[i] == ' ' || s[i] == '\t';
        size_t j = i + 1;

        if (!word && !blank)
                return j;
        while (j < n && (word ? is_alpha(s[j]) || is_digit(s[j]) || (s[j] && strchr("._+-*", s[j]))
                              : s[j] == ' ' || s[j] == '\t'))
                j++;
        return j;
}

static void mutate(struct rng *r, struct buf *b) {
        static const char *const tokens[] = {
                "{", "}", "(", ")", "[", "]", ",", ";", "=", "\"", "/*", "*/", "#", "//", "\n", "0x", "L",
                ".", "e", "-", "true", "1", "\\", "a", ",)", "= 1;", "\"x\"", "9223372036854775807",
                "\n@include \"/dev/null\"\n",
        };
        unsigned ops = chance(r, 25) ? 2 : 1;

        for (unsigned op = 0; op < ops; op++) {
                size_t n = b->n, i = n ? rnd(r, (unsigned)n) : 0, j;
                struct buf t = { 0 };
                char c;

                switch (n ? rnd(r, 8) : 1) {
                case 0: /* delete a byte */
                        memmove(b->p + i, b->p + i + 1, n - i - 1);
                        b->n--;
                        break;
                case 1: /* insert a byte */
                        i = n ? rnd(r, (unsigned)n + 1) : 0;
                        c = rand_byte(r);
                        put(&t, b->p + i, n - i);
                        b->n = i;
                        put_c(b, c);
                        put(b, t.p, t.n);
                        break;
                case 2: /* duplicate a byte */
                        put(&t, b->p + i, n - i);
                        b->n = i;
                        put_c(b, t.p[0]);
                        put(b, t.p, t.n);
                        break;
                case 3: /* delete a token */
                        j = run_end(b->p, n, i);
                        memmove(b->p + i, b->p + j, n - j);
                        b->n -= j - i;
                        break;
                case 4: /* duplicate a token */
                        j = run_end(b->p, n, i);
                        put(&t, b->p + i, n - i);
                        b->n = i;
                        put(b, t.p, j - i);
                        put(b, t.p, t.n);
                        break;
                case 5: /* swap two bytes */
                        if (i + 1 < n) {
                                c = b->p[i];
                                b->p[i] = b->p[i + 1];
                                b->p[i + 1] = c;
                        }
                        break;
                case 6: /* replace a byte */
                        b->p[i] = rand_byte(r);
                        break;
                default: /* insert a token */
                        i = rnd(r, (unsigned)n + 1);
                        put(&t, b->p + i, n - i);
                        b->n = i;
                        put_s(b, tokens[rnd(r, ARRAY_SIZE(tokens))]);
                        put(b, t.p, t.n);
                        break;
                }
                free(t.p);
                if (b->p)
                        b->p[b->n] = '\0';
        }
}

/* ---------------------------------------------------------------------------------------
 * The random part
 */
struct tally {
        const char *what;
        unsigned total, both_ok, both_bad, ints_aside, via_equiv, refused_doc, skipped, disagree, broken;
        unsigned plain, plain_lib_ok;   /* texts without a documented difference, and libconfig's accepted */
        unsigned with[8];       /* texts with each documented difference */
};

/* Documented differences where cfg_parse refuses. */
#define REFUSED (D_XNUL | D_NODIGIT | D_RANGE | D_OPEN_STRING)

static void check_random(struct tally *t, const char *text, size_t len, unsigned index) {
        struct outcome o;
        char *eq = malloc(len + 1);
        size_t eqlen = len;
        unsigned fl;
        const char *broken;
        char why[1024] = "", fb[256];
        config_t ec;
        bool have_ec = false, ec_ok = false, ints;
        enum verdict v, want;

        if (!eq)
                exit(99);
        /* eq: the text as cfg_parse reads it, for libconfig: NUL bytes blanked, trailing commas
         * dropped, a newline after a comment that ends the file */
        for (size_t i = 0; i < len; i++)
                eq[i] = text[i] ? text[i] : ' ';
        fl = classify(eq, len) | (memchr(text, '\0', len) ? D_NUL : 0);
        if (fl & D_COMMENT_EOF)
                eq[eqlen++] = '\n';
        ints = !(fl & INTS_DIFFER);

        t->total++;
        run_both(text, len, MAX_DEPTH, !(fl & D_INCLUDE), &o);
        if (!(fl & DOCUMENTED)) {
                t->plain++;
                t->plain_lib_ok += o.lib_ok;
        }
        for (unsigned b = 0; b < ARRAY_SIZE(t->with); b++)
                t->with[b] += !!(fl & 1u << b);

        /* cfgparse.h's promises hold for every text */
        broken = contract(&o);
        if (!*broken && o.r == 0 && o.nfind && !(fl & (D_NUL | D_INCLUDE)))
                broken = "cfg_parse reported a finding but returned 0 for a text without NUL or @include";
        if (!*broken && o.r == 0 && (fl & D_NUL) && !o.nfind)
                broken = "cfg_parse accepted a NUL byte without reporting it";
        if (*broken && t->broken++ < 5) {
                diag("%s %u: %s", t->what, index, broken);
                diag_text("input", text, len);
                diag_outcome(&o);
        }

        v = verdict_of(&o);
        if (fl & D_INCLUDE) {
                /* which lines cfg_parse blanks is its own rule: not modelled here */
                t->skipped++;
        } else if (fl & REFUSED) {
                t->refused_doc++;
                if (v != V_REFUSE)
                        snprintf(why, sizeof why, "cfg_parse should refuse it: %s",
                                 flags_text(fl & REFUSED, fb, sizeof fb));
        } else {
                bool lib_ok = o.lib_ok;
                const config_t *lib = &o.lib;
                if (fl & DOCUMENTED) {  /* NUL bytes, trailing commas, a comment at the end */
                        t->via_equiv++;
                        have_ec = true;
                        lib_ok = ec_ok = lib_parse(eq, eqlen, &ec);
                        lib = &ec;
                }
                want = !lib_ok ? V_REFUSE : (fl & D_NUL) ? V_REPORT : V_ACCEPT;
                if (v != want)
                        snprintf(why, sizeof why, "libconfig %s%s, cfg_parse %s", lib_ok ? "accepts" : "refuses",
                                 have_ec ? " the equivalent text" : "",
                                 v == V_ACCEPT ? "accepts" : v == V_REPORT ? "returns 0 with findings"
                                 : v == V_REFUSE ? "refuses" : "does neither");
                else if (want == V_REFUSE)
                        t->both_bad++;
                else if (same_tree(lib, o.root, ints, why, sizeof why)) {
                        t->both_ok++;
                        t->ints_aside += !ints;
                }
        }
        if (*why && t->disagree++ < EXAMPLES) {
                diag("%s %u disagrees: %s", t->what, index, why);
                if (fl)
                        diag("  with %s (documented)%s", flags_text(fl, fb, sizeof fb),
                             ints ? "" : ": integers' values not compared");
                diag_text("input", text, len);
                if (have_ec)
                        diag_text("the equivalent text for libconfig", eq, eqlen);
                diag_outcome(&o);
                if (have_ec && ec_ok)
                        diag("libconfig: accepts the equivalent text");
                else if (have_ec)
                        diag("libconfig: refuses the equivalent text: line %d: %s", config_error_line(&ec),
                             config_error_text(&ec));
        }
        if (have_ec)
                config_destroy(&ec);
        outcome_free(&o);
        free(eq);
}

static void report_tally(const struct tally *t, uint64_t seed) {
        char fb[256];

        tap(t->disagree == 0, "%ss (seed %" PRIu64 "): cfg_parse agrees with libconfig on %u of %u", t->what, seed,
            t->total - t->skipped - t->disagree, t->total - t->skipped);
        diag("  %u accepted by both (%u with integers libconfig wraps: compared but for their values)", t->both_ok,
             t->ints_aside);
        diag("  %u refused by both, %u refused by cfg_parse as documented", t->both_bad, t->refused_doc);
        diag("  %u skipped (@include); %u compared with libconfig's reading of the text as cfg_parse reads it "
             "(NUL bytes blanked, trailing commas dropped, a newline after a comment at the end)",
             t->skipped, t->via_equiv);
        for (unsigned b = 0; b < ARRAY_SIZE(t->with); b++)
                if (t->with[b])
                        diag("  %u with %s (documented)", t->with[b], flags_text(1u << b, fb, sizeof fb));
}

static void run_random(uint64_t seed) {
        struct rng r = { seed };
        struct tally docs = { .what = "random document" }, muts = { .what = "mutated document" };
        struct buf doc = { 0 }, mut = { 0 };

        for (unsigned i = 0; i < N_DOCS; i++) {
                gen_doc(&r, &doc);
                check_random(&docs, doc.p, doc.n, i);
                mut.n = 0;
                put(&mut, doc.p, doc.n);
                mutate(&r, &mut);
                check_random(&muts, mut.p, mut.n, i);
        }
        free(doc.p);
        free(mut.p);

        report_tally(&docs, seed);
        report_tally(&muts, seed);
        tap(docs.broken + muts.broken == 0, "cfg_parse keeps cfgparse.h's promises on findings and *ret (%u broken)",
            docs.broken + muts.broken);
        /* the generator's own checks: it makes documents libconfig reads, and mutants it does not */
        tap(docs.plain_lib_ok * 100 >= docs.plain * 85,
            "libconfig accepts %u of the %u random documents without a documented difference (85%% at least)",
            docs.plain_lib_ok, docs.plain);
        tap((muts.plain - muts.plain_lib_ok) * 100 >= muts.plain * 25,
            "libconfig refuses %u of the %u mutated documents without a documented difference (25%% at least)",
            muts.plain - muts.plain_lib_ok, muts.plain);
}

/* The sanitizer build's LeakSanitizer: libconfig 1.5 leaks a string token when a syntax error
 * follows it (its parser drops the token), as tests/fuzz/lsan.supp says too. */
const char *__lsan_default_suppressions(void);
__attribute__((used, visibility("default"))) const char *__lsan_default_suppressions(void) {
        return "leak:libconfig.so\n";
}

int main(int argc, char **argv) {
        uint64_t seed = 1;

        if (argc > 1) {
                char *end;
                errno = 0;
                seed = strtoull(argv[1], &end, 0);
                if (errno || end == argv[1] || *end) {
                        fprintf(stderr, "usage: %s [SEED]\n", argv[0]);
                        return 2;
                }
        }
#if LIBCONFIG_VER_MAJOR != 1 || LIBCONFIG_VER_MINOR != 5
        printf("1..0 # SKIP the oracle is libconfig 1.5, this is libconfig %d.%d\n", LIBCONFIG_VER_MAJOR,
               LIBCONFIG_VER_MINOR);
        return 0;
#endif
        printf("1..%zu\n", ARRAY_SIZE(fixed) + 6 + 5);
        for (size_t i = 0; i < ARRAY_SIZE(fixed); i++)
                run_fixed(&fixed[i]);
        run_cfg_only();
        run_random(seed);
        return tap_failed ? 1 : 0;
}
