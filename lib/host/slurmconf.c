/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one reader of slurm.conf and of plugstack.conf (slurmconf.h: what Slurm does with them,
 * read in its sources).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "array.h"
#include "fsutil.h"
#include "macro.h"
#include "apply.h"
#include "slurmconf.h"
#include "strv.h"

/* nesting below which includes are followed (besides visit.h's bound) */
#define SLURM_INCLUDE_DEPTH_MAX 8
#define SLURM_TEXT_MAX (4u * 1024 * 1024)
#define SPANK_PLUGIN_NAME "spank_rdmalimit.so"

/* dir of abs (without the last '/'), then "/" name: name as Slurm resolves a relative include */
static char *relative_to(const char *abs, const char *name) {
        const char *slash = strrchr(abs, '/');
        if (name[0] == '/')
                return strdup(name);
        return strf("%.*s/%s", slash ? (int)(slash - abs) : 0, abs, name);
}

/* One file of a walk: opened inside the root, entered in v (brought by from, "FILE:LINE", NULL for
 * the first), its text read.  0; -ENOENT and other open errors; v's error. */
static int walk_open(const char *root, const char *abs, struct visit *v, const char *from, char **ret_text) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int r = fs_open_config_in_root(root, abs, false, false, &fd, &st);

        if (r < 0)
                return r;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        r = visit_enter(v, &st, fs_root_shown(root, abs), from, 0);
        if (r < 0)
                return r;
        r = fs_read_all(fd, SLURM_TEXT_MAX, ret_text, NULL);
        if (r < 0)
                visit_leave(v);
        return r;
}

static char *next_line(char **cursor) {
        char *line = *cursor;
        if (line && (*cursor = strchr(line, '\n')))
                *(*cursor)++ = '\0';
        return line && (*line || *cursor) ? line : NULL;
}

/* ------------------------------------------------------------------------------------ */
/* slurm.conf */

void slurm_conf_clear(struct slurm_conf *c) {
        struct slurm_value *v[] = { &c->limits, &c->except, &c->plugstack, &c->plugindir, &c->usepam };
        for (size_t i = 0; i < ELEMENTSOF(v); i++) {
                free(v[i]->value);
                free(v[i]->where);
        }
        free(c->path);
        free(c->file);
        visit_done(&c->walk);
        *c = (struct slurm_conf){};
}

static int value_set(struct slurm_value *v, const char *value, size_t len, const char *where) {
        char *a = strndup(value, len), *b = strdup(where);
        if (!a || !b) {
                free(a);
                free(b);
                return -ENOMEM;
        }
        free(v->value);
        free(v->where);
        v->value = a;
        v->where = b;
        return 0;
}

/* parse_config.c _strip_comments(): a '#' after an even number of backslashes */
static void strip_comment(char *line) {
        unsigned bs = 0;
        for (char *p = line; *p; p++) {
                if (*p == '#' && bs % 2 == 0) {
                        *p = '\0';
                        return;
                }
                bs = *p == '\\' ? bs + 1 : 0;
        }
}

static bool blank(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

static bool key_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static int conf_file(const char *root, const char *abs, const char *from, unsigned depth, struct slurm_conf *c);

/* "Include FILE" at the start of a line (parse_config.c _parse_include_directive()): 1 when
 * the line is one (FILE read), 0 when not, or the walk's error. */
static int conf_include(const char *root, const char *abs, char *line, const char *where, unsigned depth,
                        struct slurm_conf *c) {
        if (strncasecmp(line, "include", 7) != 0 || !blank(line[7]))
                return 0;
        char *name = line + 7;
        while (blank(*name))
                name++;
        name[strcspn(name, " \t\r\v\f\n")] = '\0';
        if (!*name || depth >= SLURM_INCLUDE_DEPTH_MAX)
                return 1;
        _cleanup_free_ char *p = relative_to(abs, name);
        if (!p)
                return -ENOMEM;
        int r = conf_file(root, p, where, depth + 1, c);
        return r == -ENOMEM || c->walk.error ? (c->walk.error ? c->walk.error : r) : 1;
}

/* The KEY=VALUE pairs of a line (parse_config.c's keyvalue_pattern), the keys of slurmconf.h. */
static int conf_pairs(char *p, const char *where, struct slurm_conf *c) {
        static const struct {
                const char *key;
                size_t offset;
        } keys[] = {
                { "PropagateResourceLimits", offsetof(struct slurm_conf, limits) },
                { "PropagateResourceLimitsExcept", offsetof(struct slurm_conf, except) },
                { "PlugStackConfig", offsetof(struct slurm_conf, plugstack) },
                { "PluginDir", offsetof(struct slurm_conf, plugindir) },
                { "UsePAM", offsetof(struct slurm_conf, usepam) },
        };
        for (;;) {
                while (blank(*p))
                        p++;
                const char *key = p;
                while (key_char(*p))
                        p++;
                size_t klen = (size_t)(p - key);
                while (blank(*p))
                        p++;
                if (*p && strchr("-*+/", *p) && p[1] == '=')
                        p++;
                if (klen == 0 || *p != '=')
                        return 0;
                p++;
                while (blank(*p))
                        p++;
                const char *value = p;
                size_t vlen;
                if (*p == '"' && strchr(p + 1, '"')) {
                        value = p + 1;
                        vlen = (size_t)(strchr(value, '"') - value);
                        p = (char *)value + vlen + 1;
                } else {
                        vlen = strcspn(p, " \t\r\v\f\n");
                        p += vlen;
                }
                if (vlen == 0 && value == p)
                        return 0;
                for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                        if (strlen(keys[i].key) == klen && strncasecmp(key, keys[i].key, klen) == 0) {
                                int r = value_set((struct slurm_value *)((char *)c + keys[i].offset), value, vlen,
                                                  where);
                                if (r < 0)
                                        return r;
                        }
                if (*p && !blank(*p))
                        return 0;
        }
}

/* parse_config.c _strip_continuation(): does the line (its comment stripped) go on on the next
 * one?  It does when it ends, blanks after it aside, in an odd number of backslashes; the last
 * of them and what follows it are cut. */
static bool strip_continuation(char *line) {
        size_t len = strlen(line), bs = 0, i = len;
        while (i > 0 && (line[i - 1] == '\\' || (blank(line[i - 1]) && bs == 0))) {
                bs += line[i - 1] == '\\';
                i--;
        }
        if (bs % 2 == 0)
                return false;
        line[i + bs - 1] = '\0';
        return true;
}

/* parse_config.c _strip_escapes(): each backslash dropped, the byte after it kept */
static void strip_escapes(char *line) {
        char *w = line;
        for (const char *p = line; *p; p++) {
                if (*p == '\\' && !*++p)
                        break;
                *w++ = *p;
        }
        *w = '\0';
}

/* One logical line of slurm.conf (parse_config.c _get_next_line()): physical lines, each without
 * its comment, joined while one continues (a trailing backslash), then its escapes stripped.
 * *ret (malloc'd) and the number of physical lines it took, each counted against the walk's
 * bound; 0 at the end of the text, or the walk's error, or -ENOMEM. */
static int conf_next_line(char **cursor, struct visit *walk, const char *file, unsigned first, char **ret,
                          unsigned *ret_lines) {
        _cleanup_free_ char *joined = NULL;
        size_t len = 0;
        unsigned n = 0;
        char *line;
        bool more = true;

        *ret = NULL;
        *ret_lines = 0;
        while (more && (line = next_line(cursor))) {
                int r = visit_line(walk, file, first + n, strlen(line) + 1);
                if (r < 0)
                        return r;
                n++;
                strip_comment(line);
                more = strip_continuation(line);
                size_t l = strlen(line);
                char *j = realloc(joined, len + l + 1);
                if (!j)
                        return -ENOMEM;
                joined = j;
                memcpy(joined + len, line, l + 1);
                len += l;
        }
        if (n == 0)
                return 0;
        strip_escapes(joined);
        *ret = TAKE_PTR(joined);
        *ret_lines = n;
        return 1;
}

static int conf_file(const char *root, const char *abs, const char *from, unsigned depth, struct slurm_conf *c) {
        _cleanup_free_ char *text = NULL;
        unsigned lineno = 1, n;
        int r = walk_open(root, abs, &c->walk, from, &text);

        if (r < 0)
                return depth == 0 || r == -ENOMEM || c->walk.error ? r : 0;
        for (char *cur = text;; lineno += n) {
                _cleanup_free_ char *line = NULL, *where = NULL;
                if ((r = conf_next_line(&cur, &c->walk, fs_root_shown(root, abs), lineno, &line, &n)) <= 0)
                        break;
                if (!(where = strf("%s:%u", fs_root_shown(root, abs), lineno))) {
                        r = -ENOMEM;
                        break;
                }
                r = conf_include(root, abs, line, where, depth, c);
                if (r == 0)
                        r = conf_pairs(line, where, c);
                if (r < 0)
                        break;
        }
        visit_leave(&c->walk);
        return r < 0 ? r : 0;
}

int slurm_conf_read(const char *root, const char *path, struct slurm_conf *ret) {
        const char *const defaults[] = { SLURM_CONF_DEFAULT, SLURM_CONF_LLNL };
        struct slurm_conf c = {};
        int r = -ENOENT;

        for (size_t i = 0; path ? i < 1 : i < ELEMENTSOF(defaults); i++) {
                const char *p = path ? path : defaults[i];
                r = conf_file(root, p, NULL, 0, &c);
                if (r == -ENOENT)
                        continue;
                if (!(c.path = strdup(p)) || !(c.file = strdup(fs_root_shown(root, p))))
                        r = -ENOMEM;
                break;
        }
        if (r == -ENOMEM || c.walk.error == -ENOMEM) {
                slurm_conf_clear(&c);
                return -ENOMEM;
        }
        if (r < 0 && r != -ENOENT && !c.walk.error)
                c.error = r;
        *ret = c;
        return 0;
}

/* ------------------------------------------------------------------------------------ */
/* PropagateResourceLimits(Except) */

/* Does the list name MEMLOCK?  1 yes, 0 no, -EINVAL: a name parse_rlimits() refuses. */
static int list_names_memlock(const char *list) {
        static const char *const names[] = { "CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS",
                                             "NPROC", "NOFILE", "MEMLOCK", "AS" };
        _cleanup_free_ char *copy = strdup(list);
        char *save = NULL;
        int found = 0;

        if (!copy)
                return -ENOMEM;
        for (char *w = strtok_r(copy, ", \t\n", &save); w; w = strtok_r(NULL, ", \t\n", &save)) {
                const char *n = strncmp(w, "RLIMIT_", 7) == 0 ? w + 7 : w;
                bool known = false;
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        known = known || streq(n, names[i]);
                if (!known)
                        return -EINVAL;
                if (streq(n, "MEMLOCK"))
                        found = 1;
        }
        return found;
}

/*
 * read_config.c: Except when set, else PropagateResourceLimits (default "ALL"), each through
 * parse_rlimits(): "NONE" flips the flag for every limit, "ALL" sets it for every limit, a list
 * sets it for the limits it names and the opposite for the others.
 */
bool slurm_conf_usepam(const struct slurm_conf *c, const char **ret_where) {
        static const char *const yes[] = { "yes", "up", "true", "1" };
        *ret_where = c->usepam.where;
        for (size_t i = 0; c->usepam.value && i < ELEMENTSOF(yes); i++)
                if (strcasecmp(c->usepam.value, yes[i]) == 0)
                        return true;
        return false;
}

int slurm_conf_propagation(const struct slurm_conf *c, enum slurm_propagate *ret, char **ret_what,
                           const char **ret_where) {
        const struct slurm_value *v = c->except.value ? &c->except : c->limits.value ? &c->limits : NULL;
        bool except = v == &c->except;
        int named;

        if (!v) {
                *ret = SLURM_PROP_YES;
                *ret_where = c->file;
                *ret_what = strdup("PropagateResourceLimits is not set (its default is ALL)");
                return *ret_what ? 0 : -ENOMEM;
        }
        *ret_where = v->where;
        if (streq(v->value, "ALL") || streq(v->value, "NONE"))
                named = 1;
        else if ((named = list_names_memlock(v->value)) == -ENOMEM)
                return named;
        if (named == -EINVAL)
                *ret = SLURM_PROP_BAD;
        else {
                bool on = named == 1;
                if (streq(v->value, "NONE"))
                        on = false;
                /* named (or ALL) sets the list's flag, the others (or NONE: all) get the opposite */
                *ret = on != except ? SLURM_PROP_YES : SLURM_PROP_NO;
        }
        *ret_what = strf("%s=%s", except ? "PropagateResourceLimitsExcept" : "PropagateResourceLimits", v->value);
        return *ret_what ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------------------------ */
/* plugstack.conf */

void plugstack_clear(struct plugstack *p) {
        for (size_t i = 0; i < p->n_lines; i++) {
                struct spank_line *l = &p->lines[i];
                free(l->where);
                free(l->plugin);
                free(l->so);
                free(l->args);
                free(l->conf);
                free(l->cache);
        }
        free(p->lines);
        free(p->path);
        free(p->file);
        free(p->set_where);
        free(p->plugindir);
        free(p->other_fails_where);
        free(p->other_fails);
        visit_done(&p->walk);
        *p = (struct plugstack){ .loads = -1, .fails = -1 };
}

static bool exists_file(const char *root, const char *abs) {
        struct stat st;
        return fs_stat_in_root(root, abs, false, &st) >= 0 && S_ISREG(st.st_mode);
}

/* _spank_plugin_find(): the first directory of PluginDir that has the file */
static int plugin_find(const char *root, const char *dirs, const char *name, char **ret) {
        _cleanup_free_ char *copy = strdup(dirs);
        char *save = NULL;

        *ret = NULL;
        if (!copy)
                return -ENOMEM;
        if (name[0] == '/')
                return exists_file(root, name) && !(*ret = strdup(name)) ? -ENOMEM : 0;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
                _cleanup_free_ char *p = strf("%s%s%s", d, endswith(d, "/") ? "" : "/", name);
                if (!p)
                        return -ENOMEM;
                if (exists_file(root, p)) {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
        }
        return 0;
}

/* The plugin's own arguments (spank_rdmalimit.c parse_args()) from words w[2..n). */
/* The plugin's arguments, read as the plugin reads them (login_arg()). */
static int spank_args(struct spank_line *l, char **w, size_t n) {
        struct login_args a;
        size_t len = 0;
        login_args_init(&a);
        for (size_t i = 2; i < n; i++)
                len += strlen(w[i]) + 1;
        if (!(l->args = calloc(1, len + 1)))
                return -ENOMEM;
        for (size_t i = 2; i < n; i++) {
                if (i > 2)
                        strcat(l->args, " ");
                strcat(l->args, w[i]);
                (void)login_arg(&a, w[i]);   /* the plugin ignores (and logs) any other word */
        }
        l->cache_given = a.cache_given;
        l->strict = a.strict, l->quiet = a.quiet, l->debug = a.debug;
        if ((a.conf_given && !(l->conf = strdup(a.conf))) || (a.cache_given && a.cache && !(l->cache = strdup(a.cache))))
                return -ENOMEM;
        return 0;
}

static int stack_file(const char *root, const char *abs, const char *from, unsigned depth, struct plugstack *p);

/* _spank_conf_include(): glob(3) of the pattern (fs_glob_in_root(): wildcards in any
 * component), relative to the including file's directory; more paths than the walk's budget
 * of files is the walk's budget error at where. */
static int stack_include(const char *root, const char *abs, const char *pattern, const char *where, unsigned depth,
                         struct plugstack *p) {
        _cleanup_free_ char *full = relative_to(abs, pattern);
        _cleanup_(strv_clear) struct strv paths = {};
        int r;

        if (!full)
                return -ENOMEM;
        if (depth >= SLURM_INCLUDE_DEPTH_MAX)
                return 0;
        r = fs_glob_in_root(root, full, VISIT_FILES_MAX, &paths);
        if (r == -E2BIG)
                return visit_too_many(&p->walk, where, fs_root_shown(root, full));
        for (size_t i = 0; i < paths.n && r >= 0 && !p->walk.error; i++)
                if (exists_file(root, paths.v[i]))
                        r = stack_file(root, paths.v[i], where, depth + 1, p);
        return r;
}

/* One line of a stack file: 0, or -ENOMEM, or the walk's error. */
static int stack_line(const char *root, const char *abs, char *line, const char *where, unsigned depth,
                      struct plugstack *p) {
        _cleanup_free_ char **w = NULL;
        size_t n = 0;
        char *save = NULL;

        line[strcspn(line, "#")] = '\0';
        for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
                if (GROW_EXACT(w, n + 1) < 0)
                        return -ENOMEM;
                w[n++] = t;
        }
        if (n < 2 || (!streq(w[0], "required") && !streq(w[0], "optional") && !streq(w[0], "include")))
                return 0;     /* "Invalid line. Ignoring." */
        if (streq(w[0], "include")) {
                int r = stack_include(root, abs, w[1], where, depth, p);
                return p->walk.error ? p->walk.error : r;
        }
        const char *base = strrchr(w[1], '/') ? strrchr(w[1], '/') + 1 : w[1];
        if (!streq(base, SPANK_PLUGIN_NAME)) {
                /* another plugin: only a required one whose file does not exist matters (a file
                 * that exists is assumed to load) */
                _cleanup_free_ char *so = NULL;
                if (!streq(w[0], "required"))
                        return 0;
                int r = plugin_find(root, p->plugindir, w[1], &so);
                if (r < 0 || so)
                        return r;
                return !(p->other_fails_where = strdup(where)) || !(p->other_fails = strdup(w[1])) ? -ENOMEM : 0;
        }
        if (GROW_EXACT(p->lines, p->n_lines + 1) < 0)
                return -ENOMEM;
        struct spank_line *l = &p->lines[p->n_lines++];
        *l = (struct spank_line){ .required = streq(w[0], "required") };
        if (!(l->where = strdup(where)) || !(l->plugin = strdup(w[1])))
                return -ENOMEM;
        int r = plugin_find(root, p->plugindir, w[1], &l->so);
        if (r >= 0)
                r = spank_args(l, w, n);
        if (r >= 0 && l->so)
                p->loads = (long)(p->n_lines - 1);
        else if (r >= 0 && l->required && p->fails < 0)
                p->fails = (long)(p->n_lines - 1);
        return r;
}

#define SPANK_LINE_MAX 4095   /* the most one fgets(buf, 4096) of Slurm's reads */

static int stack_file(const char *root, const char *abs, const char *from, unsigned depth, struct plugstack *p) {
        _cleanup_free_ char *text = NULL;
        unsigned lineno = 0;
        int r = walk_open(root, abs, &p->walk, from, &text);

        if (r < 0)
                return r == -ENOMEM || p->walk.error ? r : depth == 0 ? r : 0;
        for (char *cur = text, *line; r >= 0 && p->fails < 0 && !p->other_fails && (line = next_line(&cur));) {
                _cleanup_free_ char *where = strf("%s:%u", fs_root_shown(root, abs), ++lineno);
                size_t len = strlen(line);
                if (!where)
                        r = -ENOMEM;
                else if ((r = visit_line(&p->walk, fs_root_shown(root, abs), lineno, len + 1)) < 0)
                        break;
                /* plugstack.c _spank_stack_load(): fgets() into 4096 bytes, so a longer line is
                 * read as several, each up to 4095 bytes (the newline counted); the file:line
                 * shown stays the physical line's */
                for (size_t off = 0; r >= 0 && p->fails < 0 && !p->other_fails && (off < len || off == 0);
                     off += SPANK_LINE_MAX) {
                        char chunk[SPANK_LINE_MAX + 1];
                        size_t n = len - off < SPANK_LINE_MAX ? len - off : SPANK_LINE_MAX;
                        memcpy(chunk, line + off, n);
                        chunk[n] = '\0';
                        r = stack_line(root, abs, chunk, where, depth, p);
                }
        }
        visit_leave(&p->walk);
        return r < 0 ? r : 0;
}

int plugstack_read(const char *root, const struct slurm_conf *c, struct plugstack *ret) {
        struct plugstack p = { .loads = -1, .fails = -1 };
        const char *conf = c->path ? c->path : SLURM_CONF_DEFAULT;
        int r;

        /* PlugStackConfig, else plugstack.conf next to slurm.conf (get_extra_conf_path()) */
        p.path = c->plugstack.value ? relative_to(conf, c->plugstack.value) : relative_to(conf, "plugstack.conf");
        p.plugindir = strdup(c->plugindir.value ? c->plugindir.value : SPANKPLUGINDIR);
        if (!p.path || !p.plugindir || !(p.file = strdup(fs_root_shown(root, p.path))) ||
            (c->plugstack.where && !(p.set_where = strdup(c->plugstack.where)))) {
                plugstack_clear(&p);
                return -ENOMEM;
        }
        r = stack_file(root, p.path, NULL, 0, &p);
        p.exists = r != -ENOENT;
        if (r == -ENOMEM || p.walk.error == -ENOMEM) {
                plugstack_clear(&p);
                return -ENOMEM;
        }
        if (r < 0 && r != -ENOENT && !p.walk.error)
                p.error = r;
        *ret = p;
        return 0;
}
