/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A model of pam_limits (Linux-PAM modules/pam_limits/pam_limits.c), Debian 1.5.2 and
 * upstream >= 1.6.  Every rule here is a rule of that module; the comments say which.
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

/* ---- matching ---- */

static bool in_group_name(struct ident *id, const struct id_user *u, const char *name) {
        const struct id_group *g;
        if (ident_group(id, name, &g) < 0)
                return false;
        return ident_user_in_group(id, u, g);
}

static bool in_group_gid(struct ident *id, const struct id_user *u, gid_t gid) {
        const struct id_group *g;
        if (ident_group_by_gid(id, gid, &g) < 0)
                return false;
        return ident_user_in_group(id, u, g);
}

static bool range_match(enum lc_range rng, uint32_t rmin, uint32_t rmax, uint32_t v) {
        switch (rng) {
        case LC_RANGE_ONE:
                return v == rmax;
        case LC_RANGE_MM:
                return v <= rmax && v >= rmin;
        case LC_RANGE_MIN:
                return v >= rmin;
        default:
                return false;
        }
}

static bool is_root_debian(const struct lc_tree *t, const struct id_user *u) {
        return t->flavour == LC_FLAVOUR_DEBIAN && u->uid == 0;
}

/* The rank a 4-field line matches the user with (parse_config_file()), or -1. */
int lc_line_match(const struct lc_tree *t, struct ident *id, const struct id_user *u, const struct lc_line *l) {
        bool root = is_root_debian(t, u);
        const char *d = l->domain;

        if (l->range == LC_RANGE_ERR)
                return -1;
        if (streq(u->name, d))
                return LC_RANK_USER;
        if (d[0] == '@' && !root) {
                switch (l->range) {
                case LC_RANGE_NONE:
                        return in_group_name(id, u, d + 1) ? LC_RANK_GROUP : -1;
                case LC_RANGE_ONE:
                        return in_group_gid(id, u, l->rmax) ? LC_RANK_GROUP : -1;
                default:
                        /* @min:max and @min: compare the primary gid only */
                        return range_match(l->range, l->rmin, l->rmax, u->gid) ? LC_RANK_GROUP : -1;
                }
        }
        if (d[0] == '%' && !root) {
                switch (l->range) {
                case LC_RANGE_NONE:
                        if (streq(d, "%"))
                                return LC_RANK_ALL;
                        return in_group_name(id, u, d + 1) ? LC_RANK_ALLGROUP : -1;
                case LC_RANGE_ONE:
                        return in_group_gid(id, u, l->rmax) ? LC_RANK_ALLGROUP : -1;
                default:
                        return -1; /* "range unsupported for %group matching" */
                }
        }
        /* Everything else, including @ and % forms for root on Debian: "*" or a uid range */
        if (l->range == LC_RANGE_NONE)
                return streq(d, "*") && !root ? LC_RANK_DEFAULT : -1;
        return range_match(l->range, l->rmin, l->rmax, u->uid) ? LC_RANK_USER : -1;
}

/* Does a 2-field "<domain> -" line stop processing for this user? */
static bool stop_match(struct ident *id, const struct id_user *u, const struct lc_line *l) {
        const char *d = l->domain;

        if (l->range == LC_RANGE_ERR)
                return false;
        if (streq(u->name, d))
                return true;
        if (d[0] == '@') {
                switch (l->range) {
                case LC_RANGE_NONE:
                        return in_group_name(id, u, d + 1);
                case LC_RANGE_ONE:
                        return in_group_gid(id, u, l->rmax);
                default:
                        return range_match(l->range, l->rmin, l->rmax, u->gid);
                }
        }
        if (l->range == LC_RANGE_NONE)
                return false;
        return range_match(l->range, l->rmin, l->rmax, u->uid);
}

enum lc_rank lc_line_rank(const struct lc_line *l) {
        const char *d = l->domain;
        if (d[0] == '@')
                return LC_RANK_GROUP;
        if (d[0] == '%')
                return streq(d, "%") ? LC_RANK_ALL : LC_RANK_ALLGROUP;
        if (l->range == LC_RANGE_NONE && streq(d, "*"))
                return LC_RANK_DEFAULT;
        return LC_RANK_USER;
}

/* ---- resolution ---- */

static int add_event(struct lc_result *r, size_t *cap, const struct lc_line *l, unsigned slot,
                     enum lc_rank rank, enum lc_outcome out) {
        const struct lc_slot *held = slot == LC_HARD ? &r->hard : &r->soft;
        if (r->n_events == *cap) {
                size_t c = *cap ? *cap * 2 : 16;
                struct lc_event *v = reallocarray(r->events, c, sizeof(*v));
                if (!v)
                        return -ENOMEM;
                r->events = v;
                *cap = c;
        }
        r->events[r->n_events++] = (struct lc_event){ .line = l, .slot = slot, .rank = rank, .outcome = out,
                                                      .held_rank = held->rank, .held = held->src };
        return 0;
}

static bool file_fails_session(const struct lc_tree *t, size_t i) {
        const struct lc_file *f = &t->files[i];
        if (!f->open_error)
                return false;
        if (t->flavour == LC_FLAVOUR_DEBIAN)
                return true;    /* 1.5.2: any fopen() failure is PAM_SERVICE_ERR */
        /* upstream: a missing file is fine unless it was named with conf= */
        return !(f->open_error == -ENOENT && !(t->conf_override && i == 0));
}

int lc_resolve(const struct lc_tree *t, struct ident *id, const char *user,
               const struct lc_baseline *base, struct lc_result *ret) {
        struct lc_result res = {};
        const struct id_user *u;
        size_t cap = 0;
        int r;

        r = ident_user(id, user, &u);
        if (r == -ENOENT) {
                res.kind = LC_RES_USER_UNKNOWN;
                *ret = res;
                return 0;
        }
        if (r < 0)
                return r;

        res.root_user_debian = is_root_debian(t, u);
        res.login_limit = -2;
        int login_rank = LC_RANK_NONE;
        res.soft = (struct lc_slot){ .known = base->known, .value = base->soft, .rank = base->rank };
        res.hard = (struct lc_slot){ .known = base->known, .value = base->hard, .rank = base->rank };

        for (size_t fi = 0; fi < t->n_files; fi++) {
                const struct lc_file *f = &t->files[fi];
                if (file_fails_session(t, fi)) {
                        res.kind = LC_RES_SERVICE_ERR;
                        res.bad_file = f;
                        goto done;
                }
                for (size_t li = f->first; li < f->first + f->n; li++) {
                        const struct lc_line *l = &t->lines[li];
                        if (l->range == LC_RANGE_ERR)
                                continue;
                        if (l->nfields == 2 && l->type[0] == '-') {
                                if (stop_match(id, u, l)) {
                                        res.kind = LC_RES_NO_LIMITS;
                                        res.stop = l;
                                        goto done;
                                }
                                continue;
                        }
                        if (l->nfields == 4 && l->item_kind == LC_ITEM_LOGIN && l->value_ok) {
                                /* maxlogins: any type, % domains count, equal rank overwrites */
                                int lr = lc_line_match(t, id, u, l);
                                /* % domains count for maxlogins only, not maxsyslogins */
                                if ((lr == LC_RANK_ALL || lr == LC_RANK_ALLGROUP) && !streq(l->item, "maxlogins"))
                                        continue;
                                if (lr >= 0 && lr <= login_rank) {
                                        login_rank = lr;
                                        res.login_limit = l->ivalue;
                                        res.login_line = l;
                                }
                                continue;
                        }
                        if (l->nfields != 4 || l->item_kind != LC_ITEM_MEMLOCK)
                                continue;
                        int rank = lc_line_match(t, id, u, l);
                        if (rank < 0)
                                continue;
                        /* process_limit(): type, value, then the % rule */
                        if (!l->type_mask) {
                                r = add_event(&res, &cap, l, LC_SOFT | LC_HARD, rank, LC_OUT_BAD_TYPE);
                        } else if (!l->value_ok) {
                                r = add_event(&res, &cap, l, l->type_mask, rank, LC_OUT_BAD_VALUE);
                        } else if (rank == LC_RANK_ALL || rank == LC_RANK_ALLGROUP) {
                                r = add_event(&res, &cap, l, l->type_mask, rank, LC_OUT_PERCENT);
                        } else {
                                r = 0;
                                if (l->type_mask & LC_SOFT) {
                                        if ((int)res.soft.rank < rank) {
                                                r = add_event(&res, &cap, l, LC_SOFT, rank, LC_OUT_WEAKER);
                                                if (r >= 0 && (l->type_mask & LC_HARD))
                                                        r = add_event(&res, &cap, l, LC_HARD, rank, LC_OUT_QUIRK);
                                                if (r < 0)
                                                        goto fail;
                                                continue;
                                        }
                                        res.soft = (struct lc_slot){ .known = true, .value = l->bytes, .rank = rank, .src = l };
                                        r = add_event(&res, &cap, l, LC_SOFT, rank, LC_OUT_APPLIED);
                                }
                                if (r >= 0 && (l->type_mask & LC_HARD)) {
                                        if ((int)res.hard.rank < rank)
                                                r = add_event(&res, &cap, l, LC_HARD, rank, LC_OUT_WEAKER);
                                        else {
                                                res.hard = (struct lc_slot){ .known = true, .value = l->bytes, .rank = rank, .src = l };
                                                r = add_event(&res, &cap, l, LC_HARD, rank, LC_OUT_APPLIED);
                                        }
                                }
                        }
                        if (r < 0)
                                goto fail;
                }
        }
        res.kind = LC_RES_LIMITS;
        /* setup_limits(): a login limit of 0 refuses the session (not for uid 0) */
        if (res.login_limit == 0 && u->uid != 0)
                res.kind = LC_RES_LOGINS_DENIED;
        /* a soft value above the hard value is set to the hard value */
        if (res.soft.known && res.hard.known && res.soft.value > res.hard.value) {
                res.soft_clamped = true;
        }
done:
        *ret = res;
        return 0;
fail:
        free(res.events);
        return r;
}

void lc_result_clear(struct lc_result *r) {
        free(r->events);
        *r = (struct lc_result){};
}

/* ---- overriding ---- */

/* Does `l` match every user (uid range 0:, @0:, or the ranges that cover all ids)? */
static bool matches_everyone(const struct lc_line *l) {
        if (l->range == LC_RANGE_MIN && l->rmin == 0)
                return l->domain[0] != '%';
        if (l->range == LC_RANGE_MM && l->rmin == 0 && l->rmax == UINT32_MAX)
                return l->domain[0] != '%';
        return false;
}

static bool effective(const struct lc_line *l) {
        return l->range != LC_RANGE_ERR && l->nfields == 4 && l->item_kind == LC_ITEM_MEMLOCK &&
               l->type_mask && l->value_ok && l->domain[0] != '%';
}

enum lc_override lc_line_overrides(const struct lc_tree *t, struct ident *id, const struct lc_line *ours,
                                   const struct lc_line *other) {
        if (ours == other || !effective(ours) || !effective(other))
                return LC_OVR_NEVER;
        if (!(ours->type_mask & other->type_mask))
                return LC_OVR_NEVER;
        enum lc_rank ro = lc_line_rank(ours), rx = lc_line_rank(other);
        bool later = other > ours; /* lines are stored in read order */

        if (rx > ro || (rx == ro && !later))
                return LC_OVR_NEVER;
        /* same domain text: same users, same rank, and the later one wins */
        if (streq(ours->domain, other->domain))
                return LC_OVR_ALWAYS;
        if (matches_everyone(other))
                return LC_OVR_ALWAYS;
        /* a user name entry inside our group */
        if (ours->domain[0] == '@' && ours->range == LC_RANGE_NONE && lc_line_rank(other) == LC_RANK_USER &&
            other->range == LC_RANGE_NONE) {
                const struct id_user *u;
                const struct id_group *g;
                if (ident_user(id, other->domain, &u) < 0 || ident_group(id, ours->domain + 1, &g) < 0)
                        return LC_OVR_NEVER;
                return ident_user_in_group(id, u, g) ? LC_OVR_SOME : LC_OVR_NEVER;
        }
        /* a user named by ours and also covered by the other's uid range or group */
        if (lc_line_rank(ours) == LC_RANK_USER && ours->range == LC_RANGE_NONE) {
                const struct id_user *u;
                if (ident_user(id, ours->domain, &u) < 0)
                        return LC_OVR_NEVER;
                return lc_line_match(t, id, u, other) >= 0 ? LC_OVR_ALWAYS : LC_OVR_NEVER;
        }
        /* otherwise the overlap depends on who is in which group or range */
        return LC_OVR_SOME;
}

/* ---- check ---- */

#define W(t, l) lc_line_where((t), (l), where, sizeof where)

static int check_file_meta(const struct lc_tree *t, size_t fi, struct diag_list *d) {
        const struct lc_file *f = &t->files[fi];
        int r = 0;

        if (f->open_error) {
                if (f->open_error == -ENOENT && !file_fails_session(t, fi))
                        return diag_add(d, DIAG_INFO, f->display, 0, "does not exist (fine for pam_limits >= 1.5.3)");
                if (f->open_error == -ENOENT)
                        return diag_add(d, DIAG_ERROR, f->display, 0,
                                        "does not exist: pam_limits 1.5.2 fails every session that uses it "
                                        "(PAM_SERVICE_ERR); create it, even empty");
                if (f->open_error == FS_ERR_NOTREG)
                        return diag_add(d, DIAG_ERROR, f->display, 0,
                                        "is not a regular file (a FIFO or a device): pam_limits blocks on it or "
                                        "reads garbage at every login; remove it");
                return diag_add(d, DIAG_ERROR, f->display, 0, "cannot be read (%s): pam_limits fails the session",
                                fs_strerror(f->open_error));
        }
        if (f->is_dir)
                r = diag_add(d, DIAG_WARNING, f->display, 0, "is a directory: pam_limits reads nothing from it");
        if (r >= 0 && f->stat_ok && f->st.st_uid != 0)
                r = diag_add(d, DIAG_ERROR, f->display, 0,
                             "is owned by uid %u, not root: its owner can set any user's limits",
                             (unsigned)f->st.st_uid);
        if (r >= 0 && f->stat_ok && (f->st.st_mode & (S_IWGRP | S_IWOTH)))
                r = diag_add(d, DIAG_ERROR, f->display, 0,
                             "is writable by %s (mode %04o): anyone who can write it can set any user's limits",
                             (f->st.st_mode & S_IWOTH) ? "everyone" : "its group",
                             (unsigned)(f->st.st_mode & 07777));
        if (r >= 0 && f->no_final_newline)
                r = diag_add(d, DIAG_WARNING, f->display, f->n_physical,
                             "no newline at the end of the file: text appended later is glued to this line");
        if (r >= 0 && f->has_nul)
                r = diag_add(d, DIAG_WARNING, f->display, 0,
                             "contains NUL bytes: pam_limits ignores the rest of a line after one");
        return r;
}

static bool looks_like_units(const char *v) {
        const char *end;
        c_strtoull(v, &end, NULL);
        return end != v && *end && strchr("kmgtb", *end) && (end[1] == '\0' || streq(end + 1, "b") ||
                                                              streq(end + 1, "ib"));
}

static int check_line(const struct lc_tree *t, const struct lc_line *l, struct diag_list *d) {
        const char *path = t->files[l->file].display;
        unsigned ln = l->lineno;
        bool debian = t->flavour == LC_FLAVOUR_DEBIAN;

        if (l->chunk > 0)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "line longer than 1023 bytes: pam_limits 1.5.2 reads byte %u onwards as a "
                                "separate line (\"%.40s\")", l->chunk * (LC_LINE_LENGTH - 1) + 1, l->text);
        if (l->range == LC_RANGE_ERR)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "invalid uid/gid range '%s': pam_limits skips the line", l->domain);
        if (l->nfields == 2 && l->type[0] == '-') {
                if (l->range == LC_RANGE_NONE && (streq(l->domain, "*") || l->domain[0] == '%'))
                        return diag_add(d, DIAG_WARNING, path, ln,
                                        "'%s -' has no effect: pam_limits honours no-limit lines only for users, "
                                        "@groups and id ranges", l->domain);
                return diag_add(d, DIAG_INFO, path, ln,
                                "no-limits line: for '%s' pam_limits applies no limit at all and reads no "
                                "further line or file", l->domain);
        }
        if (l->nfields != 4)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "invalid line (%d field%s, expected <domain> <type> <item> <value>): pam_limits "
                                "skips it", l->nfields, l->nfields == 1 ? "" : "s");
        if (l->item_kind == LC_ITEM_UNKNOWN)
                return diag_add(d, DIAG_ERROR, path, ln, "unknown item '%s': pam_limits skips the line", l->item);
        if (!l->type_mask && l->item_kind != LC_ITEM_LOGIN && l->item_kind != LC_ITEM_NONEWPRIVS)
                return diag_add(d, DIAG_ERROR, path, ln,
                                "unknown type '%s' (soft, hard or -): pam_limits skips the line", l->type);
        if (!l->value_ok)
                return diag_add(d, DIAG_ERROR, path, ln, "value '%s' is not a number: pam_limits skips the line",
                                l->value);
        int r = 0;
        bool memlock = l->item_kind == LC_ITEM_MEMLOCK;
        if (l->value_misread) {
                if (memlock && looks_like_units(l->value))
                        r = diag_add(d, DIAG_ERROR, path, ln,
                                     "'%s' is read as %llu KiB: pam_limits has no units, memlock counts in KiB "
                                     "(write e.g. 1048576 for 1 GiB)", l->value, (unsigned long long)l->value_raw);
                else
                        r = diag_add(d, DIAG_ERROR, path, ln, "'%s' is read as %llu: pam_limits ignores what follows "
                                     "the digits", l->value, (unsigned long long)l->value_raw);
        } else if (!l->value_infinity && l->value[0] == '-' && l->item_kind != LC_ITEM_NICE &&
                   l->item_kind != LC_ITEM_PRIORITY) {
                r = diag_add(d, DIAG_ERROR, path, ln, "negative value '%s' wraps around to %llu", l->value,
                             (unsigned long long)l->value_raw);
        } else if (memlock && !l->value_infinity && l->value_raw == UINT64_MAX) {
                r = diag_add(d, DIAG_WARNING, path, ln, "value '%s' overflows and is read as unlimited", l->value);
        }
        if (r < 0)
                return r;
        if (debian && l->extra_words)
                r = diag_add(d, DIAG_WARNING, path, ln, "words after the value are ignored");
        if (r >= 0 && l->domain[0] == '%' && l->item_kind != LC_ITEM_LOGIN)
                r = diag_add(d, DIAG_WARNING, path, ln,
                             "pam_limits ignores '%s' domains for every item but maxlogins", "%");
        if (r >= 0 && l->domain[0] == '%' && (l->range == LC_RANGE_MIN || l->range == LC_RANGE_MM))
                r = diag_add(d, DIAG_WARNING, path, ln, "pam_limits does not support ranges for %%group matching");
        if (r >= 0 && memlock && l->value_ok && !l->value_infinity && !l->value_misread) {
                if (l->value_raw == 0)
                        r = diag_add(d, DIAG_WARNING, path, ln,
                                     "memlock 0 makes every RDMA memory registration fail with EPERM");
                else if (l->value_raw < 64)
                        r = diag_add(d, DIAG_WARNING, path, ln,
                                     "memlock %llu is %llu KiB: limits.conf counts memlock in KiB", (unsigned long long)l->value_raw,
                                     (unsigned long long)l->value_raw);
        }
        return r;
}

/* last line per (domain, slot), and the strongest "everyone" entries: linear in the lines */
struct last_seen {
        const struct lc_line *soft, *hard;
};

/* The last effective line per domain and slot, in one pass. */
static int last_seen_map(const struct lc_tree *t, struct strmap *last) {
        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!effective(l))
                        continue;
                struct last_seen *s = strmap_get(last, l->domain);
                if (!s) {
                        s = calloc(1, sizeof(*s));
                        if (!s || strmap_put(last, l->domain, s) < 0) {
                                free(s);
                                return -ENOMEM;
                        }
                }
                if (l->type_mask & LC_SOFT)
                        s->soft = l;
                if (l->type_mask & LC_HARD)
                        s->hard = l;
        }
        return 0;
}

static int check_shadowed(const struct lc_tree *t, const struct strmap *last, struct diag_list *d) {
        const struct lc_line *every_user_soft = NULL, *every_user_hard = NULL;
        const struct lc_line *every_group_soft = NULL, *every_group_hard = NULL;
        char where[4096];
        int r = 0;

        for (size_t i = 0; i < t->n_lines; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!effective(l))
                        continue;
                if (matches_everyone(l)) {
                        bool user = lc_line_rank(l) == LC_RANK_USER;
                        if (l->type_mask & LC_SOFT)
                                *(user ? &every_user_soft : &every_group_soft) = l;
                        if (l->type_mask & LC_HARD)
                                *(user ? &every_user_hard : &every_group_hard) = l;
                }
        }
        for (size_t i = 0; i < t->n_lines && r >= 0; i++) {
                const struct lc_line *l = &t->lines[i];
                if (!effective(l))
                        continue;
                const struct last_seen *s = strmap_get(last, l->domain);
                enum lc_rank rank = lc_line_rank(l);
                const struct lc_line *by[2] = {};
                for (int k = 0; k < 2; k++) {
                        unsigned slot = k == 0 ? LC_SOFT : LC_HARD;
                        if (!(l->type_mask & slot))
                                continue;
                        const struct lc_line *same = k == 0 ? s->soft : s->hard;
                        const struct lc_line *eu = k == 0 ? every_user_soft : every_user_hard;
                        const struct lc_line *eg = k == 0 ? every_group_soft : every_group_hard;
                        if (same != l)
                                by[k] = same;
                        else if (eu && eu != l && (rank > LC_RANK_USER || eu > l))
                                by[k] = eu;
                        else if (eg && eg != l && (rank > LC_RANK_GROUP || (rank == LC_RANK_GROUP && eg > l)))
                                by[k] = eg;
                }
                bool dead = (!(l->type_mask & LC_SOFT) || by[0]) && (!(l->type_mask & LC_HARD) || by[1]);
                if (!dead)
                        continue;
                const struct lc_line *o = by[0] ? by[0] : by[1];
                r = diag_add(d, DIAG_WARNING, t->files[l->file].display, l->lineno,
                             "never takes effect: overridden by %s ('%s', %s rank)", W(t, o), o->domain,
                             lc_rank_name(lc_line_rank(o)));
        }
        return r;
}

static int check_soft_above_hard(const struct lc_tree *t, const struct strmap *last, struct diag_list *d) {
        char where[4096];
        int r = 0;

        for (size_t i = 0; i < last->cap && r >= 0; i++) {
                const struct last_seen *s = last->v[i].value;
                if (!last->v[i].key || !s->soft || !s->hard || s->soft->bytes <= s->hard->bytes)
                        continue;
                char a[SIZE_FMT_MAX], b[SIZE_FMT_MAX];
                r = diag_add(d, DIAG_ERROR, t->files[s->soft->file].display, s->soft->lineno,
                             "soft memlock %s for '%s' is above its hard memlock %s (%s): the session gets "
                             "the hard value as soft", size_format(s->soft->bytes, a), s->soft->domain,
                             size_format(s->hard->bytes, b), W(t, s->hard));
        }
        return r;
}

int lc_check(const struct lc_tree *t, struct ident *id, struct diag_list *d) {
        int r = 0;

        for (size_t fi = 0; fi < t->n_files && r >= 0; fi++) {
                const struct lc_file *f = &t->files[fi];
                r = check_file_meta(t, fi, d);
                for (size_t li = f->first; li < f->first + f->n && r >= 0; li++)
                        r = check_line(t, &t->lines[li], d);
        }
        for (size_t i = 0; i < t->n_skipped && r >= 0; i++)
                r = diag_add(d, DIAG_WARNING, t->skipped[i].display, 0, "ignored: %s", t->skipped[i].reason);
        if (r >= 0 && t->dir_error)
                r = diag_add(d, DIAG_ERROR, t->dir_display, 0,
                             "cannot be read (%s): pam_limits reads none of its files", fs_strerror(t->dir_error));
        if (r >= 0 && !t->conf_override && t->dir_display) {
                struct stat st;
                if (fs_stat_in_root(t->root, LC_LIMITS_DIR, false, &st) == 0 && S_ISDIR(st.st_mode)) {
                        if (st.st_uid != 0)
                                r = diag_add(d, DIAG_ERROR, t->dir_display, 0,
                                             "is owned by uid %u, not root: its owner can add limits files",
                                             (unsigned)st.st_uid);
                        else if (st.st_mode & (S_IWGRP | S_IWOTH))
                                r = diag_add(d, DIAG_ERROR, t->dir_display, 0,
                                             "is writable by %s (mode %04o): anyone who can write it can add limits files",
                                             (st.st_mode & S_IWOTH) ? "everyone" : "its group",
                                             (unsigned)(st.st_mode & 07777));
                }
        }
        struct strmap last = {};
        if (r >= 0)
                r = last_seen_map(t, &last);
        if (r >= 0)
                r = check_soft_above_hard(t, &last, d);
        if (r >= 0)
                r = check_shadowed(t, &last, d);
        strmap_clear(&last, free);
        (void)id;
        return r;
}
