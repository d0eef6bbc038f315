/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * The policy's syntax: libconfig's grammar, read without libconfig (rdmalimit.conf(5), SYNTAX).
 *
 * A login reads the policy every time; loading libconfig.so for it cost more than the rest of
 * the module's work.  This reader follows libconfig 1.5's scanner and grammar (lib/scanner.l,
 * lib/grammar.y) with these deliberate differences, each tested against the real library:
 *   - a trailing comma in a list or an array is accepted, as libconfig 1.7 does, and so is a
 *     # or // comment that ends the file without a newline (libconfig 1.5: a syntax error);
 *   - refused where libconfig accepts: @include (the policy is one file, checked for its owner
 *     and mode), NUL bytes, "\x00" in a string (libconfig drops the byte), an integer outside
 *     int64, a float without a digit in its mantissa ("." "-." ".e5"), a string without its closing
 *     quote at the end of the file (libconfig 1.5 drops it), nesting deeper than max_depth;
 *   - integers of either size are one type (CFG_INT, int64_t) holding the number written:
 *     libconfig 1.5 wraps a decimal integer beyond 32 bits without L to an int (4294967297
 *     reads as 1), and a hex one too (0xffffffff is -1); a decimal integer with leading zeros
 *     is decimal (libconfig 1.5; 1.7 reads it as octal); refused beyond int64.  An array
 *     still may not mix integers with and without L, as for libconfig.
 * Numbers are read without the locale.  Library code: negative errno, no printing, no
 * environment.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum cfg_type {
        CFG_GROUP = 1,
        CFG_INT,
        CFG_FLOAT,
        CFG_STRING,
        CFG_BOOL,
        CFG_ARRAY,
        CFG_LIST,
};

struct cfg_node {
        enum cfg_type type;
        char *name;             /* a setting's name; NULL for an element of an array or a list */
        unsigned line;          /* a setting: its name's line; an element: its first token's */
        union {
                int64_t i;      /* CFG_INT */
                double f;       /* CFG_FLOAT */
                bool b;         /* CFG_BOOL */
                char *s;        /* CFG_STRING: adjacent strings joined, escapes decoded, no NUL */
                struct {
                        struct cfg_node *v;
                        size_t n, cap;
                } c;            /* CFG_GROUP (settings, names unique), CFG_ARRAY (scalars of one
                                 * type), CFG_LIST (any values) */
        };
};

/* One finding: the line (1-based; 0 for none) and the message. */
typedef void (*cfg_error_fn)(void *data, unsigned line, const char *msg);

/*
 * Parse text (len bytes; it need not end in NUL).  The root is a CFG_GROUP named NULL.
 *   0: *ret set.  NUL bytes and @include lines were each reported through fn and read as
 *      blanks, so the caller refuses the file but can still report what else it finds.
 *   -EINVAL: a syntax error (reported through fn, with its line; nothing after it is read),
 *      nesting deeper than max_depth, or a duplicate name in a group; *ret untouched.
 *   -ENOMEM.
 * fn may be NULL.
 */
int cfg_parse(const char *text, size_t len, unsigned max_depth, cfg_error_fn fn, void *data,
              struct cfg_node **ret);
void cfg_free(struct cfg_node *root);
static inline void cfg_freep(struct cfg_node **p) {
        cfg_free(*p);
}
/* "a group { }", "an integer", ... for messages */
const char *cfg_type_name(enum cfg_type t);
