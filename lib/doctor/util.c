/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * doctor's small helpers: heap strings, paths shown relative to the root,
 * files and directories read inside the root (lib/base/fsutil.h only).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor-internal.h"
#include "fsutil.h"
#include "visit.h"

/* ---- text ---- */

int set_str(char **field, const char *value) {
        char *v = strdup(value);
        if (!v)
                return -ENOMEM;
        free(*field);
        *field = v;
        return 0;
}

char *line_next(char **cursor) {
        char *line = *cursor;
        if (line && (*cursor = strchr(line, '\n')))
                *(*cursor)++ = '\0';
        return line;
}

char *strip(char *s) {
        while (*s == ' ' || *s == '\t')
                s++;
        size_t n = strlen(s);
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
                s[--n] = '\0';
        return s;
}

const char *fmt_pair(uint64_t soft, uint64_t hard, char buf[static PAIR_MAX]) {
        char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
        if (soft == hard)
                snprintf(buf, PAIR_MAX, "%s", size_format(soft, a));
        else
                snprintf(buf, PAIR_MAX, "soft %s, hard %s", size_format(soft, a), size_format(hard, b));
        return buf;
}

/* ---- paths and files ---- */

const char *disp(const struct doc *d, const char *abs) {
        if (d->in->root && abs[0] == '/')
                return abs + 1;
        return abs;
}

const char *disp_rooted(const struct doc *d, const char *path) {
        const char *root = d->in->root;
        if (!root || !path)
                return path;
        size_t rl = strlen(root);
        while (rl > 1 && root[rl - 1] == '/')
                rl--;
        if (strncmp(path, root, rl) == 0 && path[rl] == '/')
                return path + rl + 1;
        return path;
}

/* root NULL: the running system's file */
static int read_in(const char *root, const char *abs, char **ret) {
        _cleanup_close_ int fd = -1;
        int r = fs_open_config_in_root(root, abs, false, false, &fd, NULL);
        if (r < 0)
                return r;
        return fs_read_all(fd, DOC_TEXT_MAX, ret, NULL);
}

int read_text(const char *path, char **ret) {
        return read_in(NULL, path, ret);
}

int read_rooted(const struct doc *d, const char *abs, char **ret) {
        return read_in(d->in->root, abs, ret);
}

int read_lines_walk(struct doc *d, const char *abs, struct visit *v, const char *from, line_fn *fn, void *userdata) {
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;
        struct stat st;
        unsigned lineno = 0;
        int r = fs_open_config_in_root(d->in->root, abs, false, false, &fd, &st);

        if (r >= 0 && v)
                r = visit_enter(v, &st, disp(d, abs), from, 0);
        if (r < 0)
                return r;
        r = fs_read_all(fd, DOC_TEXT_MAX, &text, NULL);
        for (char *cur = text, *line; r >= 0 && (line = line_next(&cur));) {
                _cleanup_free_ char *where = strf("%s:%u", disp(d, abs), ++lineno);
                if (!where)
                        r = -ENOMEM;
                else if (!v || (r = visit_line(v, disp(d, abs), lineno, strlen(line) + 1)) >= 0)
                        r = fn(d, line, where, userdata);
        }
        if (v)
                visit_leave(v);
        return r;
}

int walk_finding(struct doc *d, enum doctor_group g, const char *cycle_id, const char *bound_id,
                 enum diag_severity bound_lvl, int error,
                 const char *where, const char *keyword, const char *reader, const char *subject,
                 const char *cycle_effect) {
        bool cycle = error == VISIT_ERR_CYCLE;
        _cleanup_free_ char *fix = cycle ? strf("remove the %s at %s that brings the file back", keyword, where)
                                         : strf("include fewer files at %s: %s", where, reader);
        if (!fix)
                return -ENOMEM;
        return doctor_add(d->rep, g, cycle ? DIAG_ERROR : bound_lvl, cycle ? cycle_id : bound_id, where, fix, "%s: %s%s%s", subject,
                          visit_strerror(error), cycle ? "; " : "", cycle ? cycle_effect : "");
}

bool exists_rooted(const struct doc *d, const char *abs, bool want_dir) {
        return fs_exists_in_root(d->in->root, abs, want_dir) > 0;
}

int list_dir(const struct doc *d, const char *absdir, const char *pattern, struct strv *ret) {
        return fs_list_in_root(d->in->root, absdir, pattern, ret);
}

/* The names of the .conf files in dir not in *names yet, appended to both vectors. */
static int dropins_add_dir(const struct doc *d, const char *dir, struct strv *names, struct strv *paths) {
        _cleanup_(strv_clear) struct strv here = {};
        int r = list_dir(d, dir, "*.conf", &here);

        for (size_t k = 0; k < here.n && r >= 0; k++)
                if (!strv_contains(names->v, here.v[k]) && (r = strv_push(names, here.v[k])) >= 0)
                        r = strv_consume(paths, strf("%s/%s", dir, here.v[k]));
        return r;
}

static int cmp_basename(const void *a, const void *b) {
        const char *x = *(char *const *)a, *y = *(char *const *)b;
        return strcmp(strrchr(x, '/') + 1, strrchr(y, '/') + 1);
}

int list_conf_files(const struct doc *d, char *const *dirs, size_t n_dirs, struct strv *ret) {
        _cleanup_(strv_clear) struct strv names = {}, paths = {};
        int r = 0;

        for (size_t i = 0; i < n_dirs && r >= 0; i++)
                r = dropins_add_dir(d, dirs[i], &names, &paths);
        if (r < 0)
                return r;
        /* by file name; names are unique, so the order of equal keys does not matter */
        if (paths.n > 1)
                qsort(paths.v, paths.n, sizeof(char *), cmp_basename);
        *ret = paths;
        paths = (struct strv){};
        return 0;
}

int list_dropins(const struct doc *d, const char *const *dirs, size_t n_dirs, const char *const *subs,
                 size_t n_subs, struct strv *ret) {
        _cleanup_(strv_clear) struct strv all = {};
        int r = 0;

        for (size_t s = 0; s < n_subs && r >= 0; s++)
                for (size_t i = 0; i < n_dirs && r >= 0; i++)
                        r = strv_consume(&all, strf("%s/%s", dirs[i], subs[s]));
        return r < 0 ? r : list_conf_files(d, all.v, all.n, ret);
}
