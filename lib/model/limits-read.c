/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A model of pam_limits (Linux-PAM modules/pam_limits/pam_limits.c), Debian 1.5.2 and
 * upstream >= 1.6.  Every rule here is a rule of that module; the comments say which.
 * Part 1: the flavours, reading the files as pam_limits reads them, the PID 1 baseline.
 * Part 2 (limits-resolve.c): matching and resolving; part 3 (limits-check.c): check.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "limits-internal.h"
#include "limitsconf.h"
#include "macro.h"
#include "size.h"
#include "strmap.h"

#define LC_MAX_FILE (64u * 1024 * 1024)   /* a limits file larger than this is not read */

/* isspace() and tolower() of the "C" locale, which login services run in */
static bool c_isspace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static void lowercase(char *s) {
        for (; s && *s; s++)
                if (*s >= 'A' && *s <= 'Z')
                        *s = (char)(*s - 'A' + 'a');
}

const char *lc_rank_name(enum lc_rank r) {
        static const char *const names[] = { "USER", "GROUP", "ALLGROUP", "ALL", "DEFAULT", "KERNEL", "NONE" };
        return r >= 0 && r <= LC_RANK_NONE ? names[r] : "?";
}

const char *lc_flavour_to_string(enum lc_flavour f) {
        return f == LC_FLAVOUR_DEBIAN ? "debian" : "upstream";
}

int lc_flavour_from_string(const char *s, enum lc_flavour *ret) {
        if (streq(s, "debian"))
                *ret = LC_FLAVOUR_DEBIAN;
        else if (streq(s, "upstream"))
                *ret = LC_FLAVOUR_UPSTREAM;
        else
                return -EINVAL;
        return 0;
}

/* Debian family: /etc/debian_version, or ID/ID_LIKE of os-release naming debian. */
static int flavour_of(const char *root) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        struct stat st;
        size_t n = 0;

        if (fs_stat_in_root(root, "/etc/debian_version", false, &st) == 0)
                return LC_FLAVOUR_DEBIAN;
        if (fs_fopen_in_root(root, "/etc/os-release", &f) < 0)
                return -ENOENT;
        while (getline(&line, &n, f) > 0)
                if ((strncmp(line, "ID=", 3) == 0 || strncmp(line, "ID_LIKE=", 8) == 0) && strstr(line, "debian"))
                        return LC_FLAVOUR_DEBIAN;
        return LC_FLAVOUR_UPSTREAM;
}

enum lc_flavour lc_flavour_default(const char *root) {
        int f = root ? flavour_of(root) : -ENOENT;
        if (f < 0)
                f = flavour_of(NULL); /* a root tree without OS files: this system's */
        return f == LC_FLAVOUR_DEBIAN ? LC_FLAVOUR_DEBIAN : LC_FLAVOUR_UPSTREAM;
}

/* ---- line analysis ---- */

/* parse_uid_range() of pam_limits: an unsigned long conversion stored in a 32-bit uid_t. */
static enum lc_range parse_range(const char *domain, uint32_t *rmin, uint32_t *rmax) {
        const char *range = domain, *pmax, *end;
        enum lc_range rv = LC_RANGE_MM;
        bool erange;

        pmax = strchr(range, ':');
        if (!pmax)
                return LC_RANGE_NONE;
        pmax++;
        if (range[0] == '@' || range[0] == '%')
                range++;
        if (range[0] == ':')
                rv = LC_RANGE_ONE;
        else {
                unsigned long v = c_strtoul(range, &end, &erange);
                if (erange || end == range || *end != ':')
                        return LC_RANGE_ERR;
                *rmin = (uint32_t)v;
        }
        if (*pmax == '\0')
                return rv == LC_RANGE_ONE ? LC_RANGE_ERR : LC_RANGE_MIN;
        unsigned long v = c_strtoul(pmax, &end, &erange);
        if (erange || end == pmax || *end != '\0')
                return LC_RANGE_ERR;
        *rmax = (uint32_t)v;
        if (rv == LC_RANGE_ONE)
                *rmin = *rmax;
        return rv;
}

static enum lc_item item_kind(const char *item, enum lc_flavour fl) {
        static const char *const rlimits[] = { "cpu", "fsize", "data", "stack", "core", "rss", "nproc",
                                               "nofile", "as", "locks", "sigpending", "msgqueue", "rtprio" };
        if (streq(item, "memlock"))
                return LC_ITEM_MEMLOCK;
        for (size_t i = 0; i < ELEMENTSOF(rlimits); i++)
                if (streq(item, rlimits[i]))
                        return LC_ITEM_RLIMIT;
        if (fl == LC_FLAVOUR_UPSTREAM && streq(item, "rttime"))
                return LC_ITEM_RLIMIT;
        if (streq(item, "nice"))
                return LC_ITEM_NICE;
        if (streq(item, "maxlogins") || streq(item, "maxsyslogins"))
                return LC_ITEM_LOGIN;
        if (streq(item, "priority"))
                return LC_ITEM_PRIORITY;
        if (streq(item, "nonewprivs"))
                return LC_ITEM_NONEWPRIVS;
        if (fl == LC_FLAVOUR_DEBIAN && streq(item, "chroot"))
                return LC_ITEM_CHROOT;
        return LC_ITEM_UNKNOWN;
}

/* process_limit()'s reading of item, type and value, without the domain. */
static void analyse_values(struct lc_line *l, enum lc_flavour fl) {
        l->item_kind = item_kind(l->item, fl);
        if (streq(l->type, "soft"))
                l->type_mask = LC_SOFT;
        else if (streq(l->type, "hard"))
                l->type_mask = LC_HARD;
        else if (streq(l->type, "-"))
                l->type_mask = LC_SOFT | LC_HARD;
        else
                l->type_mask = 0;

        switch (l->item_kind) {
        case LC_ITEM_MEMLOCK:
        case LC_ITEM_RLIMIT: {
                const char *v = l->value, *end;
                if (streq(v, "-1") || streq(v, "-") || streq(v, "unlimited") || streq(v, "infinity")) {
                        l->value_ok = true;
                        l->value_infinity = true;
                        l->value_raw = UINT64_MAX;
                } else {
                        unsigned long long x = c_strtoull(v, &end, NULL);
                        if (x == 0 && end == v)
                                l->value_ok = false;
                        else {
                                l->value_ok = true;
                                l->value_misread = *end != '\0';
                                l->value_raw = x;
                                l->value_infinity = x == UINT64_MAX;
                        }
                }
                if (l->value_ok && l->item_kind == LC_ITEM_MEMLOCK) {
                        if (l->value_raw == UINT64_MAX || l->value_raw >= UINT64_MAX / 1024)
                                l->bytes = UINT64_MAX;
                        else
                                l->bytes = l->value_raw * 1024;
                }
                break;
        }
        case LC_ITEM_NICE:
        case LC_ITEM_PRIORITY:
        case LC_ITEM_LOGIN: {
                const char *v = l->value, *end;
                if (l->item_kind == LC_ITEM_LOGIN &&
                    (streq(v, "-1") || streq(v, "-") || streq(v, "unlimited") || streq(v, "infinity"))) {
                        l->value_ok = true;
                        l->ivalue = -1;
                        break;
                }
                long x = c_strtol(v, &end, NULL);
                x = x < INT_MAX ? x : INT_MAX;
                l->ivalue = x > INT_MIN ? (int)x : INT_MIN;
                l->value_ok = !(l->ivalue == 0 && end == v);
                l->value_misread = l->value_ok && *end != '\0';
                break;
        }
        case LC_ITEM_NONEWPRIVS:
                l->value_ok = streq(l->value, "0") || streq(l->value, "1");
                break;
        default:
                l->value_ok = true;
                break;
        }
}

/* Debian 1.5.2: four whitespace-separated "%s" words, as its scanf call reads them.  Splits in place. */
static void split_sscanf(struct lc_line *l) {
        char *f[4] = {};
        char *p = l->text;
        int n = 0;

        while (n < 4) {
                while (*p && c_isspace(*p))
                        p++;
                if (!*p)
                        break;
                f[n++] = p;
                while (*p && !c_isspace(*p))
                        p++;
                if (*p)
                        *p++ = '\0';
        }
        if (n == 4) {
                while (*p && c_isspace(*p))
                        p++;
                l->extra_words = *p != '\0';
        }
        l->nfields = n;
        l->domain = f[0];
        l->type = f[1];
        l->item = f[2];
        l->value = f[3];
}

/* Upstream: strtok_r(" \t") for three fields, the rest of the line trimmed of ' ' and '\t'. */
static void split_upstream(struct lc_line *l) {
        char *save = NULL, *f[4];
        int n = 0;

        f[0] = strtok_r(l->text, " \t", &save);
        f[1] = strtok_r(NULL, " \t", &save);
        f[2] = strtok_r(NULL, " \t", &save);
        f[3] = strtok_r(NULL, "", &save);
        if (f[3]) {
                while (*f[3] == ' ' || *f[3] == '\t')
                        f[3]++;
                if (!*f[3])
                        f[3] = NULL;
                else {
                        char *e = f[3] + strlen(f[3]) - 1;
                        while (e >= f[3] && (*e == ' ' || *e == '\t'))
                                *e-- = '\0';
                }
        }
        for (int i = 0; i < 4; i++)
                if (f[i])
                        n++;
        l->nfields = n;
        l->domain = f[0];
        l->type = f[1];
        l->item = f[2];
        l->value = f[3];
}

static char empty_field[1] = "";

static void analyse_line(struct lc_line *l, enum lc_flavour fl) {
        if (fl == LC_FLAVOUR_DEBIAN)
                split_sscanf(l);
        else
                split_upstream(l);
        /* absent fields are empty strings, as in pam_limits */
        if (!l->domain)
                l->domain = empty_field;
        if (!l->type)
                l->type = empty_field;
        if (!l->item)
                l->item = empty_field;
        if (!l->value)
                l->value = empty_field;
        lowercase(l->type);
        l->range = parse_range(l->domain, &l->rmin, &l->rmax);
        if (l->nfields == 4) {
                lowercase(l->item);
                lowercase(l->value);
                analyse_values(l, fl);
        } else
                l->item_kind = LC_ITEM_UNKNOWN;
}

/* ---- reading files ---- */

struct builder {
        struct lc_tree *t;
        size_t cap_lines, cap_files, cap_skipped;
};

static int add_line(struct builder *b, unsigned file, unsigned lineno, unsigned chunk, const char *piece, size_t len) {
        struct lc_tree *t = b->t;
        char *text, *c;

        /* C string semantics: a NUL ends the line for pam_limits */
        len = strnlen(piece, len);
        /* skip the leading white space */
        while (len && c_isspace(*piece)) {
                piece++;
                len--;
        }
        text = strndup(piece, len);
        if (!text)
                return -ENOMEM;
        /* rip off the comment and the newline */
        if ((c = strchr(text, '#')))
                *c = '\0';
        if ((c = strchr(text, '\n')))
                *c = '\0';
        if (!*text) {
                free(text);
                return 0;
        }
        if (t->n_lines == b->cap_lines) {
                size_t cap = b->cap_lines ? b->cap_lines * 2 : 64;
                struct lc_line *v = reallocarray(t->lines, cap, sizeof(*v));
                if (!v) {
                        free(text);
                        return -ENOMEM;
                }
                t->lines = v;
                b->cap_lines = cap;
        }
        struct lc_line *l = &t->lines[t->n_lines++];
        *l = (struct lc_line){ .file = file, .lineno = lineno, .chunk = chunk, .text = text };
        analyse_line(l, t->flavour);
        return 0;
}

static int parse_buffer(struct builder *b, unsigned file, const char *buf, size_t len) {
        struct lc_file *f = &b->t->files[file];
        unsigned lineno = 1, chunk = 0;
        size_t pos = 0;
        int r;

        f->first = b->t->n_lines;
        f->no_final_newline = len > 0 && buf[len - 1] != '\n';
        f->has_nul = memchr(buf, '\0', len) != NULL;
        while (pos < len) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                size_t linelen = nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos;
                if (linelen > LC_LINE_LENGTH)
                        f->has_long_lines = true;
                if (b->t->flavour == LC_FLAVOUR_DEBIAN) {
                        /* fgets(buf, 1024): pieces of at most 1023 bytes */
                        size_t off = 0;
                        chunk = 0;
                        while (off < linelen) {
                                size_t n = linelen - off;
                                if (n > LC_LINE_LENGTH - 1)
                                        n = LC_LINE_LENGTH - 1;
                                r = add_line(b, file, lineno, chunk++, buf + pos + off, n);
                                if (r < 0)
                                        return r;
                                off += n;
                        }
                } else {
                        r = add_line(b, file, lineno, 0, buf + pos, linelen);
                        if (r < 0)
                                return r;
                }
                pos += linelen;
                lineno++;
        }
        f->n = b->t->n_lines - f->first;
        f->n_physical = lineno - 1;
        return 0;
}

static int add_file(struct builder *b, const char *path, const char *display, unsigned *ret) {
        struct lc_tree *t = b->t;
        if (t->n_files == b->cap_files) {
                size_t cap = b->cap_files ? b->cap_files * 2 : 8;
                struct lc_file *v = reallocarray(t->files, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                t->files = v;
                b->cap_files = cap;
        }
        struct lc_file *f = &t->files[t->n_files];
        *f = (struct lc_file){};
        f->path = strdup(path);
        f->display = strdup(display);
        if (!f->path || !f->display) {
                free(f->path);
                free(f->display);
                return -ENOMEM;
        }
        *ret = (unsigned)t->n_files++;
        return 0;
}

/* Read rel (inside the tree's root): path is what the tree records for it, display what it
 * prints. */
static int read_file(struct builder *b, const char *rel, const char *path, const char *display) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        unsigned idx;
        int r;

        r = add_file(b, path, display, &idx);
        if (r < 0)
                return r;
        struct lc_file *f = &b->t->files[idx];
        f->first = b->t->n_lines;
        r = fs_open_in_root(b->t->root, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd);
        if (r < 0) {
                f->open_error = r;
                return 0;
        }
        if (fstat(fd, &f->st) == 0) {
                f->stat_ok = true;
                if (S_ISDIR(f->st.st_mode)) {
                        /* fopen() of a directory works and fgets() reads nothing */
                        f->is_dir = true;
                        return 0;
                }
                if (!S_ISREG(f->st.st_mode)) {
                        /* a FIFO or a device: pam_limits would block on it or read garbage */
                        f->open_error = FS_ERR_NOTREG;
                        return 0;
                }
        }
        r = fs_read_all(fd, LC_MAX_FILE, &buf, &len);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                f->open_error = r;
                return 0;
        }
        return parse_buffer(b, idx, buf, len);
}

static int add_skipped(struct builder *b, const char *display, const char *reason) {
        struct lc_tree *t = b->t;
        if (t->n_skipped == b->cap_skipped) {
                size_t cap = b->cap_skipped ? b->cap_skipped * 2 : 8;
                struct lc_skipped *v = reallocarray(t->skipped, cap, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                t->skipped = v;
                b->cap_skipped = cap;
        }
        char *d = strdup(display);
        if (!d)
                return -ENOMEM;
        t->skipped[t->n_skipped++] = (struct lc_skipped){ .display = d, .reason = reason };
        return 0;
}

static int cmp_str(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ends_with(const char *s, const char *suffix) {
        size_t a = strlen(s), b = strlen(suffix);
        return a >= b && streq(s + a - b, suffix);
}

/* display form of a path under the root: relative to it, or absolute without a root */
static char *display_path(const struct lc_tree *t, const char *abs) {
        if (!t->root)
                return strdup(abs);
        return strdup(abs[0] == '/' ? abs + 1 : abs);
}

static int read_dir(struct builder *b) {
        struct lc_tree *t = b->t;
        char **names = NULL;
        size_t n = 0, cap = 0;
        DIR *d = NULL;
        int r = 0;

        t->dir_display = display_path(t, LC_LIMITS_DIR);
        if (!t->dir_display)
                return -ENOMEM;
        r = fs_opendir_in_root(t->root, LC_LIMITS_DIR, &d);
        if (r < 0) {
                /* glob(GLOB_ERR): a missing directory matches nothing, an unreadable one
                 * aborts the glob; either way no file of it is read */
                t->dir_error = r == -ENOENT ? 0 : r;
                return r == -ENOMEM ? r : 0;
        }
        r = 0;
        for (struct dirent *de; (de = readdir(d));) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n == cap) {
                        cap = cap ? cap * 2 : 32;
                        char **v = reallocarray(names, cap, sizeof(char *));
                        if (!v) {
                                r = -ENOMEM;
                                goto out;
                        }
                        names = v;
                }
                if (!(names[n] = strdup(de->d_name))) {
                        r = -ENOMEM;
                        goto out;
                }
                n++;
        }
        /* glob sorts in the C locale: byte order of the names */
        if (n > 1)
                qsort(names, n, sizeof(char *), cmp_str);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *rel = NULL, *path = NULL, *disp = NULL;
                if (asprintf(&rel, "%s/%s", LC_LIMITS_DIR, names[i]) < 0) {
                        r = -ENOMEM;
                        goto out;
                }
                path = fs_root_path(t->root, rel);
                disp = display_path(t, rel);
                if (!path || !disp) {
                        r = -ENOMEM;
                        goto out;
                }
                if (names[i][0] == '.')
                        r = add_skipped(b, disp, "a dotfile; pam_limits reads only names matching *.conf that do not start with a dot");
                else if (!ends_with(names[i], ".conf"))
                        r = add_skipped(b, disp, "the name does not end in .conf; pam_limits reads only limits.d/*.conf");
                else
                        r = read_file(b, rel, path, disp);
                if (r < 0)
                        goto out;
        }
out:
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        closedir(d);
        return r;
}

static struct lc_tree *tree_new(const char *root, enum lc_flavour flavour) {
        struct lc_tree *t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        t->flavour = flavour;
        if (root && *root && !streq(root, "/")) {
                t->root = strdup(root);
                if (!t->root) {
                        free(t);
                        return NULL;
                }
        }
        return t;
}

int lc_tree_load(const char *root, enum lc_flavour flavour, const char *conf_file, struct lc_tree **ret) {
        struct builder b = {};
        _cleanup_free_ char *path = NULL, *disp = NULL;
        int r;

        b.t = tree_new(root, flavour);
        if (!b.t)
                return -ENOMEM;
        b.t->conf_override = conf_file != NULL;
        path = fs_root_path(b.t->root, conf_file ? conf_file : LC_LIMITS_CONF);
        disp = display_path(b.t, conf_file ? conf_file : LC_LIMITS_CONF);
        if (!path || !disp) {
                lc_tree_free(b.t);
                return -ENOMEM;
        }
        r = read_file(&b, conf_file ? conf_file : LC_LIMITS_CONF, path, disp);
        if (r >= 0 && !conf_file)
                r = read_dir(&b);
        if (r < 0) {
                lc_tree_free(b.t);
                return r;
        }
        *ret = b.t;
        return 0;
}

int lc_tree_load_text(const char *display, const char *text, size_t len, enum lc_flavour flavour,
                      struct lc_tree **ret) {
        struct builder b = {};
        unsigned idx;
        int r;

        b.t = tree_new(NULL, flavour);
        if (!b.t)
                return -ENOMEM;
        b.t->conf_override = true;
        r = add_file(&b, display, display, &idx);
        if (r >= 0)
                r = parse_buffer(&b, idx, text, len);
        if (r < 0) {
                lc_tree_free(b.t);
                return r;
        }
        *ret = b.t;
        return 0;
}

void lc_tree_free(struct lc_tree *t) {
        if (!t)
                return;
        for (size_t i = 0; i < t->n_lines; i++)
                free(t->lines[i].text);
        free(t->lines);
        for (size_t i = 0; i < t->n_files; i++) {
                free(t->files[i].path);
                free(t->files[i].display);
        }
        free(t->files);
        for (size_t i = 0; i < t->n_skipped; i++)
                free(t->skipped[i].display);
        free(t->skipped);
        free(t->dir_display);
        free(t->root);
        free(t);
}

const char *lc_line_where(const struct lc_tree *t, const struct lc_line *l, char *buf, size_t size) {
        snprintf(buf, size, "%s:%u", t->files[l->file].display, l->lineno);
        return buf;
}

/* ---- baseline ---- */

int lc_baseline_load(const struct lc_tree *t, const char *proc1_limits, struct lc_baseline *ret) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_close_ int fd = -1;
        const char *path = proc1_limits;
        struct lc_baseline b = {};
        long ps;
        int r;

        if (t->flavour == LC_FLAVOUR_UPSTREAM) {
                /* upstream starts from the service's own limits (unless set_all) */
                b.known = false;
                b.rank = LC_RANK_NONE;
                snprintf(b.source, sizeof b.source, "inherited");
                *ret = b;
                return 0;
        }
        if (!path) {
                path = LC_PROC1_LIMITS;
                /* a tree may carry its own (a test's, an image's): read inside it */
                if (t->root)
                        (void)fs_open_in_root(t->root, LC_PROC1_LIMITS, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd);
        }
        if (fd < 0)
                fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd >= 0 && (r = fs_read_all(fd, 65536, &buf, NULL)) == 0) {
                for (char *line = buf, *next; line && *line; line = next) {
                        next = strchr(line, '\n');
                        if (next)
                                *next++ = '\0';
                        if (strncmp(line, "Max locked memory", 17) != 0)
                                continue;
                        /* columns: name, soft, hard, units */
                        char *w[8];
                        size_t n = 0;
                        for (char *p = line + 17; *p && n < 8;) {
                                while (*p == ' ')
                                        p++;
                                if (!*p)
                                        break;
                                w[n++] = p;
                                while (*p && *p != ' ')
                                        p++;
                                if (*p)
                                        *p++ = '\0';
                        }
                        if (n < 2)
                                break;
                        uint64_t v[2];
                        bool ok = true;
                        for (int i = 0; i < 2; i++) {
                                if (streq(w[i], "unlimited"))
                                        v[i] = UINT64_MAX;
                                else
                                        v[i] = c_strtoull(w[i], NULL, NULL);
                        }
                        if (ok) {
                                b.known = true;
                                b.soft = v[0];
                                b.hard = v[1];
                                b.rank = LC_RANK_KERNEL;
                                snprintf(b.source, sizeof b.source, "%s", LC_PROC1_LIMITS);
                        }
                        break;
                }
        }
        if (!b.known) {
                /* init_limits(): the PAM default, max(page size, 64 KiB) */
                ps = sysconf(_SC_PAGESIZE);
                b.known = true;
                b.soft = b.hard = ps > 65536 ? (uint64_t)ps : 65536;
                b.rank = LC_RANK_DEFAULT;
                snprintf(b.source, sizeof b.source, "pam_limits default (%s unreadable)", LC_PROC1_LIMITS);
        }
        *ret = b;
        return 0;
}
