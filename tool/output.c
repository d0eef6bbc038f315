/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "escape.h"
#include "output.h"
#include "tool.h"

const char *code_word(int code, const struct code_word *words, size_t n, const char *dflt) {
        for (size_t i = 0; i < n; i++)
                if (words[i].code == code)
                        return words[i].word;
        return dflt;
}

void log_at(const struct ctx *c, const char *level, const char *fmt, ...) {
        _cleanup_free_ char *msg = NULL;
        va_list ap;

        if (c && c->quiet)
                return;
        fputs("rdmalimits: ", stderr);
        if (level)
                fputs(level, stderr);
        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) >= 0)
                str_escape_fputs(msg, stderr); /* the whole line: callers pass raw bytes */
        va_end(ap);
        fputc('\n', stderr);
}

int log_oom(void) {
        log_error("out of memory");
        return -ENOMEM;
}

static void sep(struct json *j) {
        if (j->after_key) {
                j->after_key = false;
                return;
        }
        if (!j->first[j->depth])
                fputs(", ", j->f);
        j->first[j->depth] = false;
}

static void push(struct json *j, char c) {
        sep(j);
        fputc(c, j->f);
        if (j->depth < 31)
                j->depth++;
        j->first[j->depth] = true;
}

void json_obj_begin(struct json *j) {
        push(j, '{');
}
void json_arr_begin(struct json *j) {
        push(j, '[');
}
void json_obj_end(struct json *j) {
        j->depth--;
        fputc('}', j->f);
}
void json_arr_end(struct json *j) {
        j->depth--;
        fputc(']', j->f);
}

/* s quoted: the escaper's output of each byte (escape.h), with '"' and '\\' after a backslash;
 * with lines, a newline and a tab as \n and \t (the layout of a text of lines, which
 * print_lines() keeps too).  What JSON strings and Prometheus label values both are. */
static void put_quoted(FILE *f, const char *s, bool lines) {
        char e[5];

        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
                if (lines && (*p == '\n' || *p == '\t')) {
                        fputs(*p == '\n' ? "\\n" : "\\t", f);
                        continue;
                }
                size_t k = str_escape_byte(*p, e);
                for (size_t i = 0; i < k; i++) {
                        if (e[i] == '"' || e[i] == '\\')
                                fputc('\\', f);
                        fputc(e[i], f);
                }
        }
        fputc('"', f);
}

void json_key(struct json *j, const char *key) {
        sep(j);
        put_quoted(j->f, key, false);
        fputs(": ", j->f);
        j->after_key = true;
}

void json_str(struct json *j, const char *s) {
        sep(j);
        if (s)
                put_quoted(j->f, s, false);
        else
                fputs("null", j->f);
}

void json_u64(struct json *j, uint64_t v) {
        sep(j);
        fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v) {
        sep(j);
        fprintf(j->f, "%" PRId64, v);
}

void json_bool(struct json *j, bool v) {
        sep(j);
        fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j) {
        sep(j);
        fputs("null", j->f);
}

void json_limit(struct json *j, uint64_t v) {
        if (v == UINT64_MAX)
                json_str(j, "unlimited");
        else
                json_u64(j, v);
}

void json_doc_begin(struct json *j) {
        *j = (struct json){ .f = stdout, .first = { true } };
        json_obj_begin(j);
}

void json_doc_end(struct json *j) {
        json_obj_end(j);
        fputc('\n', j->f);
}

void json_kstr(struct json *j, const char *key, const char *s) {
        json_key(j, key);
        json_str(j, s);
}

void json_klines(struct json *j, const char *key, const char *text) {
        json_key(j, key);
        sep(j);
        put_quoted(j->f, text ? text : "", true);
}

void print_lines(FILE *f, const char *text) {
        char e[5];

        for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
                if (*p == '\n' || *p == '\t')
                        fputc(*p, f);
                else
                        fwrite(e, 1, str_escape_byte(*p, e), f);
        }
}

void prom_label_value(FILE *f, const char *s) {
        put_quoted(f, s ? s : "", false);
}

void json_ku64(struct json *j, const char *key, uint64_t v) {
        json_key(j, key);
        json_u64(j, v);
}

void json_ki64(struct json *j, const char *key, int64_t v) {
        json_key(j, key);
        json_i64(j, v);
}

void json_kbool(struct json *j, const char *key, bool v) {
        json_key(j, key);
        json_bool(j, v);
}

void json_klimit(struct json *j, const char *key, uint64_t v) {
        json_key(j, key);
        json_limit(j, v);
}

/* KEY, then null when !known; whether the value is still to be written */
static bool json_kknown(struct json *j, const char *key, bool known) {
        json_key(j, key);
        if (!known)
                json_null(j);
        return known;
}

void json_ku64_opt(struct json *j, const char *key, bool known, uint64_t v) {
        if (json_kknown(j, key, known))
                json_u64(j, v);
}

void json_ki64_opt(struct json *j, const char *key, bool known, int64_t v) {
        if (json_kknown(j, key, known))
                json_i64(j, v);
}

void json_klimit_opt(struct json *j, const char *key, bool known, uint64_t v) {
        if (json_kknown(j, key, known))
                json_limit(j, v);
}

void json_kobj_begin(struct json *j, const char *key) {
        json_key(j, key);
        json_obj_begin(j);
}

void json_karr_begin(struct json *j, const char *key) {
        json_key(j, key);
        json_arr_begin(j);
}

void diag_print(const struct diag_list *l, FILE *f, bool errors_only) {
        for (size_t i = 0; i < l->n; i++) {
                const struct diag *d = &l->v[i];
                if (errors_only && d->severity != DIAG_ERROR)
                        continue;
                if (d->path) {
                        str_escape_fputs(d->path, f);
                        if (d->line)
                                fprintf(f, ":%u", d->line);
                        fputs(": ", f);
                }
                fprintf(f, "%s: ", diag_severity_name(d->severity));
                str_escape_fputs(d->message, f);
                fputc('\n', f);
        }
}

void diag_json(struct json *j, const struct diag_list *l) {
        json_arr_begin(j);
        for (size_t i = 0; i < l->n; i++) {
                const struct diag *d = &l->v[i];
                json_obj_begin(j);
                json_kstr(j, "severity", diag_severity_name(d->severity));
                json_kstr(j, "file", d->path);
                json_ku64_opt(j, "line", d->line, d->line);
                json_kstr(j, "message", d->message);
                if (d->id)
                        json_kstr(j, "id", d->id);
                if (d->fix)
                        json_kstr(j, "fix", d->fix);
                json_obj_end(j);
        }
        json_arr_end(j);
}

/* ---- unified diff (LCS over lines; files here are small) ---- */

struct lines {
        char **v;
        size_t n;
        char *buf;
};

static void lines_clear(struct lines *l) {
        free(l->v);
        free(l->buf);
}

/* s into l (empty), line by line; 0 or -ENOMEM (l is to be cleared then). */
static int split_lines(const char *s, struct lines *l) {
        l->buf = strdup(s ? s : "");
        if (!l->buf)
                return -ENOMEM;
        size_t cap = 0;
        for (char *p = l->buf; *p;) {
                char *nl = strchr(p, '\n');
                if (GROW(l->v, cap, l->n + 1) < 0)
                        return -ENOMEM;
                l->v[l->n++] = p;
                if (!nl)
                        break;
                *nl = '\0';
                p = nl + 1;
        }
        return 0;
}

char *unified_diff_string(const char *an, const char *a, const char *bn, const char *b) {
        _cleanup_(lines_clear) struct lines la = {}, lb = {};
        _cleanup_free_ unsigned *t = NULL;
        char *out = NULL;
        size_t size = 0;
        FILE *f;

        if (split_lines(a, &la) < 0 || split_lines(b, &lb) < 0)
                return NULL;
        size_t n = la.n, m = lb.n;
        t = calloc((n + 1) * (m + 1), sizeof(unsigned));
        f = open_memstream(&out, &size);
        if (!t || !f)
                goto done;
#define T(i, k) t[(i) * (m + 1) + (k)]
        for (size_t i = n; i-- > 0;)
                for (size_t k = m; k-- > 0;)
                        T(i, k) = streq(la.v[i], lb.v[k]) ? T(i + 1, k + 1) + 1
                                  : (T(i + 1, k) > T(i, k + 1) ? T(i + 1, k) : T(i, k + 1));
        if (T(0, 0) == n && n == m)
                goto done;
        fprintf(f, "--- %s\n+++ %s\n@@ -%zu,%zu +%zu,%zu @@\n", an, bn, n ? (size_t)1 : 0, n, m ? (size_t)1 : 0, m);
        for (size_t i = 0, k = 0; i < n || k < m;) {
                if (i < n && k < m && streq(la.v[i], lb.v[k])) {
                        fprintf(f, " %s\n", la.v[i]);
                        i++, k++;
                } else if (i < n && (k == m || T(i + 1, k) >= T(i, k + 1))) {
                        fprintf(f, "-%s\n", la.v[i++]);
                } else {
                        fprintf(f, "+%s\n", lb.v[k++]);
                }
        }
#undef T
done:
        /* glibc leaves out NULL when the last realloc fails, and fclose() still returns 0 */
        if (f && fclose(f) != 0) {
                free(out);
                out = NULL;
        }
        return out;
}
