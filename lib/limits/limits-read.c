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

#include "array.h"
#include "fsutil.h"
#include "limits-internal.h"
#include "limitsconf.h"
#include "procfs.h"
#include "macro.h"
#include "pamstack.h"
#include "rpmdb.h"
#include "size.h"
#include "strmap.h"
#include "strv.h"


static bool ends_with_word(const char *s, const char *w) {
        size_t a = strlen(s), b = strlen(w);
        return a >= b && strcmp(s + a - b, w) == 0 && (a == b || s[a - b - 1] == ' ');
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

/* ---- flavours ---- */

static unsigned fl_major(enum lc_flavour f) { return ((unsigned)f >> 16) & 0xff; }
static unsigned fl_minor(enum lc_flavour f) { return ((unsigned)f >> 8) & 0xff; }
static unsigned fl_patch(enum lc_flavour f) { return (unsigned)f & 0xff; }
static bool fl_debian(enum lc_flavour f) { return ((unsigned)f >> 24) & 1; }
static enum lc_flavour fl_release(enum lc_flavour f) { return (enum lc_flavour)((int)f & LC_FLAVOUR_RELEASE_MASK); }
static enum lc_flavour fl_with_from(enum lc_flavour f, enum lc_flavour_from from) {
        return (enum lc_flavour)(((int)f & (LC_FLAVOUR_RELEASE_MASK | LC_FLAVOUR_VENDOR_SHARE)) |
                                 (int)from << LC_FLAVOUR_FROM_SHIFT);
}
/* f >= major.minor.patch */
static bool fl_ge(enum lc_flavour f, unsigned major, unsigned minor, unsigned patch) {
        return ((int)f & 0xffffff) >= (int)(major << 16 | minor << 8 | patch);
}

void lc_flavour_behaviour(enum lc_flavour f, struct lc_behaviour *ret) {
        bool deb = fl_debian(f);
        if (fl_release(f) == LC_FLAVOUR_AUTO)
                f = LC_FLAVOUR_UPSTREAM;
        *ret = (struct lc_behaviour){
                .fgets_reader = !fl_ge(f, 1, 6, 0),
                .trim_value = fl_ge(f, 1, 6, 1),
                .enoent_ok = fl_ge(f, 1, 5, 3),
                .pid1_always = deb && !fl_ge(f, 1, 7, 0),
                .root_rule = deb,
                .eperm_silent = deb,
                .nofile_nr_open = fl_ge(f, 1, 5, 2),
                .nonewprivs = fl_ge(f, 1, 5, 0),
                .rttime = fl_ge(f, 1, 7, 1),
                .chroot = deb,
                .vendor_capable = fl_ge(f, 1, 5, 3),
                /* a distribution's build (Fedora, RHEL: /usr/share); else meson's vendordir
                 * option, which defaults to /usr/share/pam from 1.7.2 on; Debian and Ubuntu
                 * build without one */
                .vendor_default = ((int)f & LC_FLAVOUR_VENDOR_SHARE) ? "/usr/share/security"
                                  : !deb && fl_ge(f, 1, 7, 2)       ? "/usr/share/pam/security"
                                                                    : NULL,
        };
}

enum lc_flavour lc_flavour_model(enum lc_flavour f) {
        f = fl_release(f);
        if (f == LC_FLAVOUR_AUTO)
                return LC_FLAVOUR_AUTO;
        if (fl_debian(f))
                return fl_ge(f, 1, 7, 0) ? LC_FLAVOUR_DEBIAN_NEWEST : LC_FLAVOUR_DEBIAN;
        if (fl_ge(f, 1, 6, 1))
                return LC_FLAVOUR_UPSTREAM;
        if (fl_ge(f, 1, 6, 0))
                return LC_FLAVOUR_MAKE(1, 6, 0, 0);
        if (fl_ge(f, 1, 5, 3))
                return LC_FLAVOUR_MAKE(1, 5, 3, 0);
        return LC_FLAVOUR_MAKE(1, 5, 2, 0);   /* 1.3.1 ... 1.5.2 */
}

const char *lc_flavour_to_string(enum lc_flavour f, char buf[static LC_FLAVOUR_NAME_MAX]) {
        f = fl_release(f);
        if (f == LC_FLAVOUR_AUTO)
                return "auto";
        snprintf(buf, LC_FLAVOUR_NAME_MAX, "%s-%u.%u.%u", fl_debian(f) ? "debian" : "upstream", fl_major(f) % 100u,
                 fl_minor(f) % 100u, fl_patch(f) % 100u);
        return buf;
}

static int parse_version(const char *v, unsigned *maj, unsigned *min, unsigned *pat) {
        unsigned x[3] = {};
        const char *p = v, *end;
        bool erange;
        for (int i = 0; i < 3; i++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                unsigned long n = c_strtoul(p, &end, &erange);
                if (erange || n > 99)
                        return -EINVAL;
                x[i] = (unsigned)n;
                p = end;
                if (i < 2 && *p++ != '.')
                        return -EINVAL;
        }
        *maj = x[0];
        *min = x[1];
        *pat = x[2];
        return (int)(p - v);
}

static int flavour_make(bool debian, unsigned maj, unsigned min, unsigned pat, enum lc_flavour *ret) {
        enum lc_flavour f = LC_FLAVOUR_MAKE(maj, min, pat, debian);
        if (!fl_ge(f, 1, 3, 1) || maj != 1)
                return -ERANGE;  /* before 1.3.1: not modelled */
        *ret = f;
        return 0;
}

static int release_find(const char *id, const char *version, enum lc_flavour *ret);

/* A distribution's release as an alias of its model ("rhel-9", "ubuntu-22.04"): 0 or -EINVAL. */
static int flavour_alias(const char *s, enum lc_flavour *ret) {
        const char *dash = strrchr(s, '-');
        char id[32];
        if (!dash || dash == s || (size_t)(dash - s) >= sizeof id)
                return -EINVAL;
        snprintf(id, sizeof id, "%.*s", (int)(dash - s), s);
        /* the whole version: "rhel-9" and "ubuntu-22.04", not "rhel-9.4" */
        if (streq(id, "ubuntu") ? strlen(dash + 1) != 5 : strchr(dash + 1, '.') != NULL)
                return -EINVAL;
        return release_find(id, dash + 1, ret) < 0 ? -EINVAL : 0;
}

int lc_flavour_from_string(const char *s, enum lc_flavour *ret) {
        unsigned maj, min, pat;
        bool debian;
        int n;

        if (!s)
                return -EINVAL;
        if (flavour_alias(s, ret) == 0)
                return 0;
        if (streq(s, "debian") || streq(s, "upstream")) {
                *ret = s[0] == 'd' ? LC_FLAVOUR_DEBIAN_NEWEST : LC_FLAVOUR_UPSTREAM;
                return 0;
        }
        if (strncmp(s, "debian-", 7) == 0)
                debian = true, s += 7;
        else if (strncmp(s, "upstream-", 9) == 0)
                debian = false, s += 9;
        else
                return -EINVAL;
        n = parse_version(s, &maj, &min, &pat);
        if (n < 0 || s[n] != '\0')
                return -EINVAL;
        return flavour_make(debian, maj, min, pat, ret) < 0 ? -EINVAL : 0;
}

const char *lc_tree_flavour_from(const struct lc_tree *t) {
        static const char *const names[] = { "--flavour", "dpkg", "rpm", "pam_limits.so", "os-release", "assumed",
                                             "assumed" };
        unsigned from = ((unsigned)t->release >> LC_FLAVOUR_FROM_SHIFT) & 7;
        return from < ELEMENTSOF(names) ? names[from] : "?";
}

const char *lc_tree_flavour_assumption(const struct lc_tree *t) {
        switch (((unsigned)t->release >> LC_FLAVOUR_FROM_SHIFT) & 7) {
        case LC_FROM_DEFAULT:
                return "the distribution is neither in a package database nor in the release table: "
                       "pam_limits is modelled as its family's newest";
        case LC_FROM_HOST:
                return "the tree has no OS files the tool can read (no dpkg status, rpm database or os-release, "
                       "or one larger than the tool reads): pam_limits is modelled as this system's";
        default:
                return NULL;
        }
}

/* libpam-modules' Version in var/lib/dpkg/status ("1.5.2-6+deb12u1"): Debian's build */
static int flavour_dpkg(const char *root, enum lc_flavour *ret) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        size_t n = 0, budget = FS_LINES_MAX;
        bool in = false, installed = false;
        char version[64] = "";

        if (fs_fopen_in_root(root, "/var/lib/dpkg/status", &f) < 0)
                return -ENOENT;
        for (;;) {
                ssize_t k = fs_getline(&line, &n, f, &budget);
                if (k <= 0 || line[0] == '\n') {
                        if (in && installed && version[0])
                                break;
                        in = installed = false;
                        version[0] = '\0';
                        if (k <= 0)
                                return -ENOENT;
                        continue;
                }
                line[strcspn(line, "\n")] = '\0';
                if (strncmp(line, "Package: ", 9) == 0)
                        in = streq(line + 9, "libpam-modules");
                else if (in && strncmp(line, "Status: ", 8) == 0)
                        installed = ends_with_word(line, "installed");
                else if (in && strncmp(line, "Version: ", 9) == 0)
                        snprintf(version, sizeof version, "%s", line + 9);
        }
        unsigned maj, min, pat;
        const char *v = strchr(version, ':') ? strchr(version, ':') + 1 : version;  /* an epoch */
        if (parse_version(v, &maj, &min, &pat) < 0 || flavour_make(true, maj, min, pat, ret) < 0)
                return -EINVAL;
        return 0;
}

/* The rpm database: the pam package's version, as this system's rpm reads the tree's database
 * (lib/host/rpmdb.c: a private copy, rpm as nobody, a deadline).  Without rpm(8) here, an rpm
 * system still says "rpm" when its pam package's NEWS is found (its first release line). */
static int flavour_rpm(const char *root, enum lc_flavour *ret) {
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *line = NULL;
        char version[64];
        unsigned maj, min, pat;
        size_t n = 0, budget = FS_LINES_MAX;
        int r;

        r = rpmdb_package_version(root, "pam", RPMDB_TIMEOUT_MS, version, sizeof version);
        if (r == 0)
                return parse_version(version, &maj, &min, &pat) < 0 || flavour_make(false, maj, min, pat, ret) < 0
                               ? -EINVAL : 0;
        if (r != -ENOEXEC)   /* -ENOEXEC: the tree has a database, this system no rpm(8) */
                return -ENOENT;
        if (fs_fopen_in_root(root, "/usr/share/doc/pam/NEWS", &f) < 0)
                return -ENOENT;
        /* "Release 1.5.1" is the first release line of Linux-PAM's NEWS */
        for (int i = 0; i < 200 && fs_getline(&line, &n, f, &budget) > 0; i++) {
                const char *p = strstr(line, "Release ");
                if (p && parse_version(p + 8, &maj, &min, &pat) > 0)
                        return flavour_make(false, maj, min, pat, ret) < 0 ? -EINVAL : 0;
        }
        return -ENOENT;
}

/* The strings of the installed pam_limits.so: each release added one (read in each tag) */
static int flavour_module(const char *root, enum lc_flavour *ret) {
        /* newest first; a marker's length counts its NUL where the whole string must match */
        static const struct {
                const char *s;
                size_t len;
                unsigned min, pat;
        } marks[] = {
                { "rttime", 7, 7, 1 },           { "sd_get_sessions", 15, 7, 0 },
                { "invalid line %llu", 17, 6, 1 }, { "/proc/sys/fs/nr_open", 20, 5, 2 },
                { "nonewprivs", 11, 5, 1 },
        };
        static const char *const dirs[] = { "/usr/lib/x86_64-linux-gnu/security", "/lib/x86_64-linux-gnu/security",
                                            "/usr/lib64/security", "/lib64/security", "/usr/lib/security",
                                            "/lib/security", "/usr/lib/aarch64-linux-gnu/security" };
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *rel = NULL, *buf = NULL;
                _cleanup_close_ int fd = -1;
                size_t len = 0;
                if (asprintf(&rel, "%s/pam_limits.so", dirs[i]) < 0)
                        return -ENOMEM;
                if (fs_open_in_root(root, rel, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd) < 0)
                        continue;
                if (fs_read_all(fd, 8u * 1024 * 1024, &buf, &len) < 0)
                        continue;
                bool deb = memmem(buf, len, "chroot", 7) != NULL;
                unsigned min = deb ? 4 : 3, pat = deb ? 0 : 1;
                for (size_t k = 0; k < ELEMENTSOF(marks); k++)
                        if (memmem(buf, len, marks[k].s, marks[k].len)) {
                                min = marks[k].min;
                                pat = marks[k].pat;
                                break;
                        }
                return flavour_make(deb, 1, min, pat, ret);
        }
        return -ENOENT;
}

/* Is word one of the space-separated words of list? */
static bool word_in(const char *list, const char *word) {
        size_t wl = strlen(word);
        for (const char *p = list; *p;) {
                size_t n = strcspn(p, " ");
                if (n == wl && strncmp(p, word, n) == 0)
                        return true;
                p += n;
                p += strspn(p, " ");
        }
        return false;
}

/* The value of KEY= in an os-release text (quotes taken off), into buf; false when absent. */
static bool os_release_value(const char *text, const char *key, char *buf, size_t size) {
        size_t kl = strlen(key);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, key, kl) != 0 || l[kl] != '=')
                        continue;
                const char *v = l + kl + 1;
                size_t n = strcspn(v, "\n");
                if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
                        v++, n -= 2;
                snprintf(buf, size, "%.*s", (int)n, v);
                return true;
        }
        return false;
}

/* The tree's os-release, the one reader of it: /etc/os-release, else /usr/lib/os-release
 * (os-release(5)); opened without blocking, at most 64 KiB.  0, or -errno (-ENOENT: neither). */
static int os_release_text(const char *root, char **ret) {
        static const char *const paths[] = { "/etc/os-release", "/usr/lib/os-release" };
        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                _cleanup_close_ int fd = -1;
                /* one that cannot be opened or read (a directory, too large): the next */
                if (fs_open_in_root(root, paths[i], O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd) >= 0 &&
                    fs_read_all(fd, 64 * 1024, ret, NULL) >= 0)
                        return 0;
        }
        return -ENOENT;
}

/* Does the os-release's ID, or a word of its ID_LIKE, equal word?  1, 0, or -ENOENT without
 * the file. */
static int os_release_like(const char *root, const char *word) {
        _cleanup_free_ char *text = NULL;
        char v[256];

        if (os_release_text(root, &text) < 0)
                return -ENOENT;
        return (os_release_value(text, "ID", v, sizeof v) && streq(v, word)) ||
               (os_release_value(text, "ID_LIKE", v, sizeof v) && word_in(v, word));
}

/*
 * The Linux-PAM release of each distribution release (FACTS: read from the distributions' own
 * packages): RHEL and its rebuilds 8 1.3.1, 9 1.5.1, 10 1.6.1; Fedora 40/41 1.6.1, 42 1.7.0,
 * 43 1.7.1; Ubuntu 20.04 1.3.1, 22.04 1.4.0, 24.04 1.5.3 (with Debian's patches); Debian 11
 * 1.4.0, 12 1.5.2, 13 1.7.0.  VERSION_ID matches by its major version ("9.4" is 9), Ubuntu's
 * whole.  share: the build's vendor directory is /usr/share (Fedora's pam.spec, inherited by
 * RHEL 9 and 10: --enable-vendordir=%{_datadir}); it matters from 1.5.3 on only, the first
 * pam_limits that reads a vendor directory, so not to RHEL 9's 1.5.1.
 */
static const struct release_row {
        const char *ids;       /* ID or a word of ID_LIKE, space-separated */
        const char *version;   /* VERSION_ID, or its major before the first '.' */
        bool debian;
        unsigned min, pat;
        bool share;
} releases[] = {
        { "rhel rocky almalinux centos ol", "8", false, 3, 1, false },
        { "rhel rocky almalinux centos ol", "9", false, 5, 1, true },
        { "rhel rocky almalinux centos ol", "10", false, 6, 1, true },
        { "fedora", "40", false, 6, 1, true },     { "fedora", "41", false, 6, 1, true },
        { "fedora", "42", false, 7, 0, true },     { "fedora", "43", false, 7, 1, true },
        { "ubuntu", "20.04", true, 3, 1, false },  { "ubuntu", "22.04", true, 4, 0, false },
        { "ubuntu", "24.04", true, 5, 3, false },
        { "debian", "11", true, 4, 0, false },     { "debian", "12", true, 5, 2, false },
        { "debian", "13", true, 7, 0, false },
};

/* The row of distribution id at version (VERSION_ID: its major counts, Ubuntu's whole). */
static const struct release_row *release_row(const char *id, const char *version) {
        char major[64];
        snprintf(major, sizeof major, "%.*s", (int)strcspn(version, "."), version);
        for (size_t i = 0; i < ELEMENTSOF(releases); i++) {
                bool ubuntu = streq(id, "ubuntu");
                if (word_in(releases[i].ids, id) && streq(releases[i].version, ubuntu ? version : major))
                        return &releases[i];
        }
        return NULL;
}

/* The release of a row (NULL: -ENOENT), with its vendor directory bit. */
static int row_flavour(const struct release_row *row, enum lc_flavour *ret) {
        if (!row)
                return -ENOENT;
        int r = flavour_make(row->debian, 1, row->min, row->pat, ret);
        if (r == 0 && row->share)
                *ret = (enum lc_flavour)((int)*ret | LC_FLAVOUR_VENDOR_SHARE);
        return r;
}

static int release_find(const char *id, const char *version, enum lc_flavour *ret) {
        return row_flavour(release_row(id, version), ret);
}

/* The row of the tree's os-release (ID, VERSION_ID), or NULL. */
/* The tree's os-release ID and VERSION_ID: 0, or -ENOENT without the file or either value. */
static int os_release_id_version(const char *root, char id[static 64], char version[static 64]) {
        _cleanup_free_ char *text = NULL;

        if (os_release_text(root, &text) < 0 || !os_release_value(text, "ID", id, 64) ||
            !os_release_value(text, "VERSION_ID", version, 64))
                return -ENOENT;
        return 0;
}

static const struct release_row *os_release_row(const char *root) {
        char id[64] = "", version[64] = "";
        return os_release_id_version(root, id, version) < 0 ? NULL : release_row(id, version);
}

/* The major version of a VERSION_ID ("9.4": 9; "24.04": 24) */
static int major_of(const char *version, uint32_t *ret) {
        char major[16];
        if (strcspn(version, ".") >= sizeof major)
                return -EINVAL;
        snprintf(major, sizeof major, "%.*s", (int)strcspn(version, "."), version);
        return parse_u32(major, ret);
}

/* Is the tree's pam built with its vendor directory in /usr/share?  Its row's bit; for a release
 * newer than the table's newest of its distribution (Fedora 44 after 43), that newest row's:
 * a distribution does not drop its vendor directory. */
static bool os_release_share(const char *root) {
        char id[64] = "", version[64] = "";
        const struct release_row *newest = NULL;
        uint32_t want, top = 0;

        if (os_release_id_version(root, id, version) < 0)
                return false;
        const struct release_row *row = release_row(id, version);
        if (row)
                return row->share;
        if (major_of(version, &want) < 0)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(releases); i++) {
                uint32_t v;
                if (word_in(releases[i].ids, id) && major_of(releases[i].version, &v) >= 0 && v >= top) {
                        top = v;
                        newest = &releases[i];
                }
        }
        return newest && want > top && newest->share;
}

static int flavour_os_release(const char *root, enum lc_flavour *ret) {
        return row_flavour(os_release_row(root), ret);
}

static int flavour_detect(const char *root, enum lc_flavour *ret) {
        static const struct {
                int (*detect)(const char *root, enum lc_flavour *ret);
                enum lc_flavour_from from;
        } sources[] = { { flavour_dpkg, LC_FROM_DPKG },
                        { flavour_rpm, LC_FROM_RPM },
                        { flavour_os_release, LC_FROM_OS_RELEASE },
                        { flavour_module, LC_FROM_MODULE } };
        enum lc_flavour f;
        struct stat st;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(sources); i++)
                if (sources[i].detect(root, &f) == 0) {
                        /* the release from a package database or the module; the build's vendor
                         * directory from the distribution's row, when the family agrees */
                        if (sources[i].from != LC_FROM_OS_RELEASE && !fl_debian(f) && os_release_share(root))
                                f = (enum lc_flavour)((int)f | LC_FLAVOUR_VENDOR_SHARE);
                        *ret = fl_with_from(f, sources[i].from);
                        return 0;
                }
        /* the Debian family: /etc/debian_version, or ID/ID_LIKE of os-release naming debian */
        r = 1;
        if (fs_stat_in_root(root, "/etc/debian_version", false, &st) != 0)
                r = os_release_like(root, "debian");
        if (r < 0)
                return r;
        /* a distribution the table does not know: its family's newest model, as an assumption */
        *ret = fl_with_from(r ? LC_FLAVOUR_DEBIAN_NEWEST : LC_FLAVOUR_UPSTREAM, LC_FROM_DEFAULT);
        return 0;
}

enum lc_flavour lc_flavour_default(const char *root) {
        enum lc_flavour f;
        if (root && flavour_detect(root, &f) == 0)
                return f;
        if (flavour_detect(NULL, &f) == 0)  /* a root tree without OS files: this system's, assumed */
                return root ? fl_with_from(f, LC_FROM_HOST) : f;
        return fl_with_from(LC_FLAVOUR_UPSTREAM, LC_FROM_DEFAULT);
}

/* ---- module arguments ---- */

int lc_args_parse(const char *module_args, struct lc_args *ret) {
        struct lc_args a = {};
        size_t n;
        _cleanup_free_ char *words = pam_args_words(module_args, &n);

        if (!words)
                return -ENOMEM;
        const char *w = words;
        for (size_t k = 0; k < n; k++, w = pam_args_next(w)) {
                /* utmp_early, noaudit, debug and the arguments pam_limits does not know (it
                 * logs and ignores them) have no effect on the limits */
                if (streq(w, "set_all"))
                        a.set_all = true;
                else if (strncmp(w, "conf=", 5) == 0) {
                        /* "conf=" alone names the file "": fopen() fails (ENOENT) */
                        if (strlen(w + 5) >= sizeof a.conf)
                                return -EINVAL;
                        snprintf(a.conf, sizeof a.conf, "%s", w + 5);
                        a.conf_set = true;
                }
        }
        *ret = a;
        return 0;
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

static const struct {
        const char *name;
        int resource;
} rlimit_names[] = {
        { "cpu", RLIMIT_CPU },         { "fsize", RLIMIT_FSIZE },     { "data", RLIMIT_DATA },
        { "stack", RLIMIT_STACK },     { "core", RLIMIT_CORE },       { "rss", RLIMIT_RSS },
        { "nproc", RLIMIT_NPROC },     { "nofile", RLIMIT_NOFILE },   { "memlock", RLIMIT_MEMLOCK },
        { "as", RLIMIT_AS },           { "locks", RLIMIT_LOCKS },     { "sigpending", RLIMIT_SIGPENDING },
        { "msgqueue", RLIMIT_MSGQUEUE }, { "nice", RLIMIT_NICE },     { "rtprio", RLIMIT_RTPRIO },
        { "rttime", RLIMIT_RTTIME },
};

const char *lc_rlimit_name(int resource) {
        for (size_t i = 0; i < ELEMENTSOF(rlimit_names); i++)
                if (rlimit_names[i].resource == resource)
                        return rlimit_names[i].name;
        return NULL;
}

/* process_limit()'s item names; *ret_resource the RLIMIT_ of a setrlimit item, else -1 */
static enum lc_item item_kind(const char *item, const struct lc_behaviour *beh, int *ret_resource) {
        *ret_resource = -1;
        for (size_t i = 0; i < ELEMENTSOF(rlimit_names); i++) {
                if (!streq(item, rlimit_names[i].name))
                        continue;
                if (rlimit_names[i].resource == RLIMIT_RTTIME && !beh->rttime)
                        return LC_ITEM_UNKNOWN;
                *ret_resource = rlimit_names[i].resource;
                return rlimit_names[i].resource == RLIMIT_MEMLOCK ? LC_ITEM_MEMLOCK :
                       rlimit_names[i].resource == RLIMIT_NICE    ? LC_ITEM_NICE :
                                                                    LC_ITEM_RLIMIT;
        }
        if (streq(item, "maxlogins") || streq(item, "maxsyslogins"))
                return LC_ITEM_LOGIN;
        if (streq(item, "priority"))
                return LC_ITEM_PRIORITY;
        if (beh->nonewprivs && streq(item, "nonewprivs"))
                return LC_ITEM_NONEWPRIVS;
        if (beh->chroot && streq(item, "chroot"))
                return LC_ITEM_CHROOT;
        return LC_ITEM_UNKNOWN;
}

/* the value process_limit() sets: x60 for cpu, x1024 (saturating) for the sizes in KiB,
 * 20 - nice (clamped to -20..19) for nice */
static uint64_t scaled_value(const struct lc_line *l) {
        uint64_t v = l->value_raw;
        switch (l->resource) {
        case RLIMIT_CPU:
                return v == UINT64_MAX || v >= UINT64_MAX / 60 ? UINT64_MAX : v * 60;
        case RLIMIT_FSIZE:
        case RLIMIT_DATA:
        case RLIMIT_STACK:
        case RLIMIT_CORE:
        case RLIMIT_RSS:
        case RLIMIT_MEMLOCK:
        case RLIMIT_AS:
                return v == UINT64_MAX || v >= UINT64_MAX / 1024 ? UINT64_MAX : v * 1024;
        case RLIMIT_NICE: {
                int n = l->ivalue > 19 ? 19 : l->ivalue < -20 ? -20 : l->ivalue;
                return (uint64_t)(20 - n);
        }
        default:
                return v;
        }
}

/* the words process_limit() reads as no limit */
static bool is_unlimited(const char *v) {
        return streq(v, "-1") || streq(v, "-") || streq(v, "unlimited") || streq(v, "infinity");
}

/* process_limit()'s reading of item, type and value, without the domain. */
static void analyse_values(struct lc_line *l, const struct lc_behaviour *beh) {
        static const char *const types[] = { [LC_SOFT] = "soft", [LC_HARD] = "hard", [LC_SOFT | LC_HARD] = "-" };

        l->item_kind = item_kind(l->item, beh, &l->resource);
        l->type_mask = 0;
        for (unsigned m = LC_SOFT; m < ELEMENTSOF(types); m++)
                if (streq(l->type, types[m]))
                        l->type_mask = m;

        switch (l->item_kind) {
        case LC_ITEM_MEMLOCK:
        case LC_ITEM_RLIMIT: {
                const char *v = l->value, *end;
                if (is_unlimited(v)) {
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
                if (l->value_ok)
                        l->rvalue = scaled_value(l);
                if (l->value_ok && l->item_kind == LC_ITEM_MEMLOCK)
                        l->bytes = l->rvalue;
                break;
        }
        case LC_ITEM_NICE:
        case LC_ITEM_PRIORITY:
        case LC_ITEM_LOGIN: {
                const char *v = l->value, *end;
                if (l->item_kind == LC_ITEM_LOGIN && is_unlimited(v)) {
                        l->value_ok = true;
                        l->ivalue = -1;
                        break;
                }
                long x = c_strtol(v, &end, NULL);
                x = x < INT_MAX ? x : INT_MAX;
                l->ivalue = x > INT_MIN ? (int)x : INT_MIN;
                l->value_ok = !(l->ivalue == 0 && end == v);
                l->value_misread = l->value_ok && *end != '\0';
                if (l->value_ok && l->item_kind == LC_ITEM_NICE)
                        l->rvalue = scaled_value(l);
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

/* The fields as pam_limits has them: an absent one is empty, the type is lowercased, and with
 * all four the item and the value too. */
static void set_fields(struct lc_line *l, char *f[4], int n) {
        for (int i = 1; i < 4; i++)
                if (f[i] && (i == 1 || n == 4))
                        lowercase(f[i]);
        l->nfields = n;
        l->domain = f[0] ? f[0] : "";
        l->type = f[1] ? f[1] : "";
        l->item = f[2] ? f[2] : "";
        l->value = f[3] ? f[3] : "";
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
        set_fields(l, f, n);
}

/* Upstream >= 1.6: strtok_r(" \t") for three fields, the rest of the line (1.6.1 on: trimmed
 * of ' ' and '\t'; 1.6.0: as it is). */
static void split_upstream(struct lc_line *l, bool trim) {
        char *save = NULL, *f[4];
        int n = 0;

        f[0] = strtok_r(l->text, " \t", &save);
        f[1] = strtok_r(NULL, " \t", &save);
        f[2] = strtok_r(NULL, " \t", &save);
        f[3] = strtok_r(NULL, "", &save);
        if (f[3] && trim) {
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
        set_fields(l, f, n);
}

static void analyse_line(struct lc_line *l, const struct lc_behaviour *beh) {
        l->resource = -1;
        if (beh->fgets_reader)
                split_sscanf(l);
        else
                split_upstream(l, beh->trim_value);
        l->range = parse_range(l->domain, &l->rmin, &l->rmax);
        l->domain_hash = str_hash(l->domain);
        l->rank = lc_domain_rank(l->domain, l->range);
        if (l->nfields == 4)
                analyse_values(l, beh);
        else
                l->item_kind = LC_ITEM_UNKNOWN;
}

/* ---- reading files ---- */

struct builder {
        struct lc_tree *t;
        size_t cap_lines, cap_files, cap_skipped;
        const struct lc_edit *edit;     /* a limits.d file read as it would be after an edit */
};

static int add_line(struct builder *b, unsigned file, unsigned lineno, unsigned chunk, const char *piece, size_t len) {
        struct lc_tree *t = b->t;
        _cleanup_free_ char *text = NULL;
        char *c;

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
        if (!*text)
                return 0;
        if (GROW(t->lines, b->cap_lines, t->n_lines + 1) < 0)
                return -ENOMEM;
        struct lc_line *l = &t->lines[t->n_lines++];
        *l = (struct lc_line){ .file = file, .lineno = lineno, .chunk = chunk,
                               .text = TAKE_PTR(text) };
        analyse_line(l, &t->beh);
        return 0;
}

static int add_file(struct builder *b, const char *path, const char *display, unsigned *ret) {
        struct lc_tree *t = b->t;
        _cleanup_free_ char *p = strdup(path), *d = strdup(display);
        if (!p || !d || GROW(t->files, b->cap_files, t->n_files + 1) < 0)
                return -ENOMEM;
        t->files[t->n_files] = (struct lc_file){ .path = TAKE_PTR(p), .display = TAKE_PTR(d) };
        *ret = (unsigned)t->n_files++;
        return 0;
}

/* One physical line (with its '\n' when it has one) as the release's reader sees it. */
static int parse_line(struct builder *b, unsigned file, unsigned lineno, const char *buf, size_t linelen) {
        struct lc_file *f = &b->t->files[file];
        int r;

        if (linelen > LC_LINE_LENGTH)
                f->has_long_lines = true;
        if (memchr(buf, '\0', linelen))
                f->has_nul = true;
        if (!b->t->beh.fgets_reader)
                return add_line(b, file, lineno, 0, buf, linelen);
        /* fgets(buf, 1024): pieces of at most 1023 bytes */
        for (size_t off = 0, chunk = 0; off < linelen; chunk++) {
                size_t n = linelen - off;
                if (n > LC_LINE_LENGTH - 1)
                        n = LC_LINE_LENGTH - 1;
                r = add_line(b, file, lineno, (unsigned)chunk, buf + off, n);
                if (r < 0)
                        return r;
                off += n;
        }
        return 0;
}

/* A file given as text (path and display as add_file() takes them), read from memory. */
static int parse_buffer(struct builder *b, const char *path, const char *display, const char *buf,
                        size_t len) {
        unsigned file, lineno = 1;
        size_t pos = 0;
        int r = add_file(b, path, display, &file);

        if (r < 0)
                return r;
        struct lc_file *f = &b->t->files[file];
        f->first = b->t->n_lines;
        f->no_final_newline = len > 0 && buf[len - 1] != '\n';
        while (pos < len) {
                const char *nl = memchr(buf + pos, '\n', len - pos);
                size_t linelen = nl ? (size_t)(nl - (buf + pos)) + 1 : len - pos;
                r = parse_line(b, file, lineno, buf + pos, linelen);
                if (r < 0)
                        return r;
                pos += linelen;
                lineno++;
        }
        f->n = b->t->n_lines - f->first;
        f->n_physical = lineno - 1;
        return 0;
}

#define LC_DEVICE_MAX (64u * 1024 * 1024)   /* a device that gives more never ends (/dev/zero) */

/* Read an opened file line by line as pam_limits does.  The descriptor is non-blocking: a FIFO
 * without a writer or a device without data would make pam_limits wait forever (the login
 * hangs); we say so instead of waiting.  A regular file is read up to LC_DEVICE_MAX too (a
 * sparse file of a tree from elsewhere costs its maker nothing): past that it is truncated,
 * which check and explain say. */
static int parse_fd(struct builder *b, unsigned file, int fd, bool device) {
        struct lc_file *f = &b->t->files[file];
        _cleanup_free_ char *buf = NULL;
        size_t cap = 0, len = 0, total = 0;
        unsigned lineno = 1;
        bool eof = false;
        int r;

        f->first = b->t->n_lines;
        for (size_t start = 0;;) {
                char *nl = len > start ? memchr(buf + start, '\n', len - start) : NULL;
                if (nl || (eof && len > start)) {
                        size_t linelen = nl ? (size_t)(nl - (buf + start)) + 1 : len - start;
                        f->no_final_newline = !nl;
                        r = parse_line(b, file, lineno++, buf + start, linelen);
                        if (r < 0)
                                return r;
                        start += linelen;
                        continue;
                }
                if (eof)
                        break;
                /* keep the unfinished line, read more */
                if (start > 0 && len > start)
                        memmove(buf, buf + start, len - start);
                len -= start;
                start = 0;
                if (GROW(buf, cap, len + 65536) < 0)   /* 64 KiB free at least */
                        return -ENOMEM;
                ssize_t k = read(fd, buf + len, cap - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                        f->would_block = true;
                        f->open_error = -EAGAIN;
                        break;
                }
                if (k < 0)
                        break;  /* fgets()/getline() fail: pam_limits stops reading the file, no error */
                eof = k == 0;
                len += (size_t)k;
                total += (size_t)k;
                if (total > LC_DEVICE_MAX) {
                        if (device) {
                                f->endless = true;
                                f->open_error = -EFBIG;
                        } else {
                                /* what was read of the unfinished line still tells of a NUL */
                                f->truncated = true;
                                f->has_nul |= len > start && memchr(buf + start, '\0', len - start) != NULL;
                        }
                        break;
                }
        }
        f->n = b->t->n_lines - f->first;
        f->n_physical = lineno - 1;
        return 0;
}

/* Read rel (inside the tree's root): path is what the tree records for it, display what it
 * prints. */
static int read_file(struct builder *b, const char *rel, const char *path, const char *display, bool vendor) {
        _cleanup_close_ int fd = -1;
        unsigned idx;
        int r;

        r = add_file(b, path, display, &idx);
        if (r < 0)
                return r;
        struct lc_file *f = &b->t->files[idx];
        f->first = b->t->n_lines;
        f->vendor = vendor;
        /* A link to /dev/null is the usual way to mask a file, and pam_limits reads it as
         * empty.  Under --root the tree's links resolve inside the tree, where /dev/null is not
         * the device: the link itself says what pam_limits would read. */
        /* "conf=" alone: fopen("") fails with ENOENT (inside a root, "" would be the root) */
        if (!*rel) {
                f->open_error = -ENOENT;
                return 0;
        }
        char target[32];
        if (b->t->root && fs_readlink_in_root(b->t->root, rel, target, sizeof target) > 0 &&
            streq(target, "/dev/null")) {
                f->masked = true;
                return 0;
        }
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
                if (S_ISFIFO(f->st.st_mode) || S_ISSOCK(f->st.st_mode)) {
                        /* fopen() of a FIFO waits for a writer; a socket cannot be opened */
                        f->would_block = S_ISFIFO(f->st.st_mode);
                        f->open_error = S_ISFIFO(f->st.st_mode) ? -EAGAIN : -ENXIO;
                        return 0;
                }
        }
        return parse_fd(b, idx, fd, f->stat_ok && (S_ISCHR(f->st.st_mode) || S_ISBLK(f->st.st_mode)));
}

static int add_skipped(struct builder *b, const char *display, const char *reason) {
        struct lc_tree *t = b->t;
        if (GROW(t->skipped, b->cap_skipped, t->n_skipped + 1) < 0)
                return -ENOMEM;
        char *d = strdup(display);
        if (!d)
                return -ENOMEM;
        t->skipped[t->n_skipped++] = (struct lc_skipped){ .display = d, .reason = reason };
        return 0;
}

/* display form of a path under the root: relative to it, or absolute without a root */
static char *display_path(const struct lc_tree *t, const char *abs) {
        return strdup(t->root && abs[0] == '/' ? abs + 1 : abs);
}

/* glob(DIR "/" "*.conf"): names ending in .conf, not starting with a dot */
static bool glob_matches(const char *name) {
        return name[0] != '.' && endswith(name, ".conf");
}

/* The entries of dir (inside the root); -errno when it cannot be read. */
static int list_dir(const struct lc_tree *t, const char *dir, struct strv *ret) {
        DIR *d = NULL;
        int r = fs_opendir_in_root(t->root, dir, &d);
        if (r < 0)
                return r;
        for (struct dirent *de; (de = readdir(d));) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                r = strv_push(ret, de->d_name);
                if (r < 0)
                        break;
        }
        closedir(d);
        return r < 0 ? r : 0;
}

/* One entry of a limits.d: skipped with the reason, or read */
static int read_entry(struct builder *b, const char *dir, const char *name, int vendor) {
        _cleanup_free_ char *rel = NULL, *path = NULL, *disp = NULL;
        if (asprintf(&rel, "%s/%s", dir, name) < 0)
                return -ENOMEM;
        path = fs_root_path(b->t->root, rel);
        disp = display_path(b->t, rel);
        if (!path || !disp)
                return -ENOMEM;
        /* the edited file of /etc's limits.d (read_dir() took out a removed one) in place of what
         * is on disk */
        if (b->edit && !vendor && streq(name, b->edit->name) && glob_matches(name))
                return parse_buffer(b, path, disp, b->edit->text, b->edit->len);
        if (name[0] == '.')
                return add_skipped(b, disp, "a dotfile; pam_limits reads only names matching *.conf that do not start with a dot");
        if (!endswith(name, ".conf"))
                return add_skipped(b, disp, "the name does not end in .conf; pam_limits reads only limits.d/*.conf");
        if (vendor == 2)
                return add_skipped(b, disp, "the same name is in /etc/security/limits.d, which pam_limits reads instead");
        return read_file(b, rel, path, disp, vendor != 0);
}

struct entry {
        const char *name;
        bool vendor;
        bool shadowed;       /* a vendor file /etc has the same name of */
};

static int cmp_entry(const void *a, const void *b) {
        const struct entry *x = a, *y = b;
        int c = strcmp(x->name, y->name);
        return c ? c : (int)x->vendor - (int)y->vendor;
}

/* limits.d, and the vendor directory's limits.d merged in: a vendor file is read unless
 * /etc's limits.d has one of the same name; all sorted by name (read_limits_dir()) */
static int read_dir(struct builder *b) {
        struct lc_tree *t = b->t;
        _cleanup_free_ char *vdir = NULL;
        _cleanup_free_ struct entry *e = NULL;
        _cleanup_(strv_clear) struct strv etc = {}, ven = {};
        size_t n = 0;
        int r;

        t->dir_display = display_path(t, LC_LIMITS_DIR);
        if (!t->dir_display)
                return -ENOMEM;
        r = list_dir(t, LC_LIMITS_DIR, &etc);
        if (r < 0) {
                /* glob(GLOB_ERR): a missing directory matches nothing, an unreadable one
                 * aborts the glob; either way no file of it is read */
                t->dir_error = r == -ENOENT ? 0 : r;
                strv_clear(&etc);   /* what it listed before it failed */
                if (r == -ENOMEM)
                        return r;
        }
        /* an edit that creates the file adds its name; one that removes it takes it out */
        if (b->edit) {
                bool found = false;
                for (size_t i = 0; i < etc.n; i++)
                        if (streq(etc.v[i], b->edit->name)) {
                                found = true;
                                if (!b->edit->text) {
                                        free(etc.v[i]);
                                        etc.v[i] = etc.v[--etc.n];
                                }
                                break;
                        }
                if (!found && b->edit->text && (r = strv_push(&etc, b->edit->name)) < 0)
                        return r;
        }
        if (t->vendor_dir) {
                if (asprintf(&vdir, "%s/limits.d", t->vendor_dir) < 0)
                        return -ENOMEM;
                r = list_dir(t, vdir, &ven);
                if (r < 0)
                        strv_clear(&ven);
                if (r == -ENOMEM)
                        return r;
        }
        e = calloc(etc.n + ven.n + 1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        for (size_t i = 0; i < etc.n; i++)
                e[n++] = (struct entry){ .name = etc.v[i] };
        for (size_t i = 0; i < ven.n; i++) {
                bool dup = false;
                for (size_t k = 0; k < etc.n && !dup; k++)
                        dup = glob_matches(etc.v[k]) && streq(etc.v[k], ven.v[i]);
                e[n++] = (struct entry){ .name = ven.v[i], .vendor = true, .shadowed = dup };
        }
        /* glob sorts in the C locale, read_limits_dir() by the names: byte order */
        if (n > 1)
                qsort(e, n, sizeof(*e), cmp_entry);
        r = 0;
        for (size_t i = 0; i < n && r >= 0; i++)
                r = read_entry(b, e[i].vendor ? vdir : LC_LIMITS_DIR, e[i].name,
                               e[i].shadowed ? 2 : e[i].vendor);
        return r;
}

static struct lc_tree *tree_new(const char *root, enum lc_flavour flavour) {
        _cleanup_free_ struct lc_tree *t = calloc(1, sizeof(*t));
        if (!t || (root && *root && !streq(root, "/") && !(t->root = strdup(root))))
                return NULL;
        if (fl_release(flavour) == LC_FLAVOUR_AUTO)
                flavour = lc_flavour_default(t->root);
        t->release = flavour;
        t->flavour = lc_flavour_model(flavour);
        lc_flavour_behaviour(flavour, &t->beh);
        return TAKE_PTR(t);
}

/* VENDOR_SCONFIGDIR: read by pam_limits from 1.5.3 on only; a directory given for an older
 * release is no directory of its build */
static int choose_vendor_dir(struct lc_tree *t) {
        const char *v = NULL;
        if (!t->beh.vendor_capable)
                return 0;
        if (t->args.vendor == LC_VENDOR_DIR)
                v = t->args.vendordir;
        else if (t->args.vendor == LC_VENDOR_BUILD)   /* openSUSE: --enable-vendordir=/usr/etc */
                v = os_release_like(t->root, "suse") > 0 ? "/usr/etc/security"
                                                               : t->beh.vendor_default;
        if (!v || !*v)
                return 0;
        t->vendor_dir = strdup(v);
        return t->vendor_dir ? 0 : -ENOMEM;
}

int lc_tree_load_args(const char *root, enum lc_flavour flavour, const struct lc_args *args, struct lc_tree **ret) {
        return lc_tree_load_edited(root, flavour, args, NULL, ret);
}

int lc_tree_load_edited(const char *root, enum lc_flavour flavour, const struct lc_args *args,
                        const struct lc_edit *edit, struct lc_tree **ret) {
        _cleanup_free_ char *path = NULL, *disp = NULL, *vconf = NULL;
        _cleanup_(lc_tree_freep) struct lc_tree *t = tree_new(root, flavour);
        struct builder b = { .t = t, .edit = edit };
        const char *conf = LC_LIMITS_CONF;
        bool vendor = false;
        struct stat st;
        int r;

        if (!t)
                return -ENOMEM;
        if (args)
                t->args = *args;
        t->conf_override = t->args.conf_set;
        r = choose_vendor_dir(t);
        if (r < 0)
                return r;
        if (t->args.conf_set)
                conf = t->args.conf;
        else if (t->vendor_dir && fs_stat_in_root(t->root, LC_LIMITS_CONF, false, &st) == -ENOENT) {
                /* stat(LIMITS_FILE) fails with ENOENT: the vendor's limits.conf */
                if (asprintf(&vconf, "%s/limits.conf", t->vendor_dir) < 0)
                        return -ENOMEM;
                conf = vconf;
                vendor = true;
        }
        path = fs_root_path(t->root, conf);
        /* "conf=" alone: the name "", which no file has */
        disp = conf[0] ? display_path(t, conf) : strdup("\"\" (an empty conf=)");
        if (!path || !disp)
                return -ENOMEM;
        r = read_file(&b, conf, path, disp, vendor);
        if (r >= 0 && !t->conf_override)
                r = read_dir(&b);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
        return 0;
}

int lc_tree_load(const char *root, enum lc_flavour flavour, const char *conf_file, struct lc_tree **ret) {
        struct lc_args a = {};
        if (conf_file) {
                if (strlen(conf_file) >= sizeof a.conf)
                        return -ENAMETOOLONG;
                snprintf(a.conf, sizeof a.conf, "%s", conf_file);
                a.conf_set = true;
        }
        return lc_tree_load_args(root, flavour, &a, ret);
}

int lc_tree_load_text(const char *display, const char *text, size_t len, enum lc_flavour flavour,
                      struct lc_tree **ret) {
        _cleanup_(lc_tree_freep) struct lc_tree *t = tree_new(NULL, flavour);
        struct builder b = { .t = t };
        int r;

        if (!t)
                return -ENOMEM;
        t->conf_override = true;
        r = parse_buffer(&b, display, display, text, len);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(t);
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
        free(t->vendor_dir);
        free(t->root);
        free(t);
}

const char *lc_line_where(const struct lc_tree *t, const struct lc_line *l, char *buf, size_t size) {
        snprintf(buf, size, "%s:%u", t->files[l->file].display, l->lineno);
        return buf;
}

/* ---- baseline ---- */

const struct lc_proc_row lc_proc_rows[16] = {
        { "Max cpu time", RLIMIT_CPU },            { "Max file size", RLIMIT_FSIZE },
        { "Max data size", RLIMIT_DATA },          { "Max stack size", RLIMIT_STACK },
        { "Max core file size", RLIMIT_CORE },     { "Max resident set", RLIMIT_RSS },
        { "Max processes", RLIMIT_NPROC },         { "Max open files", RLIMIT_NOFILE },
        { "Max locked memory", RLIMIT_MEMLOCK },   { "Max address space", RLIMIT_AS },
        { "Max file locks", RLIMIT_LOCKS },        { "Max pending signals", RLIMIT_SIGPENDING },
        { "Max msgqueue size", RLIMIT_MSGQUEUE },  { "Max nice priority", RLIMIT_NICE },
        { "Max realtime priority", RLIMIT_RTPRIO }, { "Max realtime timeout", RLIMIT_RTTIME },
};

/* Every row of lc_proc_rows a /proc/PID/limits text has (procfs.c's reader of a row) */
void lc_parse_proc_limits(const char *buf, struct lc_rl rl[static RLIM_NLIMITS]) {
        for (size_t i = 0; i < ELEMENTSOF(lc_proc_rows); i++) {
                uint64_t soft, hard;
                if (proc_limits_row(buf, lc_proc_rows[i].row, &soft, &hard) == 0)
                        rl[lc_proc_rows[i].resource] = (struct lc_rl){ .known = true, .soft = soft, .hard = hard };
        }
}

int lc_proc1_limits(const char *root, const char *path, struct lc_rl rl[static RLIM_NLIMITS]) {
        _cleanup_free_ char *buf = NULL;
        _cleanup_close_ int fd = -1;
        const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        int r;

        if (!path && fs_root_is_set(root)) {
                r = fs_open_in_root(root, LC_PROC1_LIMITS, flags, 0, &fd);
                if (r < 0)
                        return r;
        } else if ((fd = open(path ? path : LC_PROC1_LIMITS, flags)) < 0)
                return negative_errno();
        if (fs_read_all(fd, 65536, &buf, NULL) == 0)
                lc_parse_proc_limits(buf, rl);
        return 0;
}

uint64_t lc_nr_open(void) {
        _cleanup_close_ int fd = open("/proc/sys/fs/nr_open", O_RDONLY | O_CLOEXEC | O_NOCTTY);
        _cleanup_free_ char *buf = NULL;
        uint64_t v = 0;
        if (fd < 0 || fs_read_all(fd, 64, &buf, NULL) < 0)
                return 0;
        buf[strcspn(buf, "\n")] = '\0';
        return parse_u64(buf, &v) < 0 ? 0 : v;
}

void lc_baseline_assume(struct lc_baseline *b) {
        *b = (struct lc_baseline){ .known = true, .soft = LC_ASSUMED_PID1_MEMLOCK, .hard = LC_ASSUMED_PID1_MEMLOCK,
                                   .rank = LC_RANK_KERNEL };
        b->rl[RLIMIT_MEMLOCK].known = true;
        b->rl[RLIMIT_MEMLOCK].soft = b->rl[RLIMIT_MEMLOCK].hard = LC_ASSUMED_PID1_MEMLOCK;
        snprintf(b->source, sizeof b->source, "%s", LC_ASSUMED_PID1_SOURCE);
}

int lc_baseline_load(const struct lc_tree *t, const char *proc1_limits, struct lc_baseline *ret) {
        struct lc_baseline b = {};
        long ps;

        if (!t->beh.pid1_always && !t->args.set_all) {
                /* upstream, and Debian from 1.7.0 on: the service's own limits (unless set_all) */
                *ret = (struct lc_baseline){ .rank = LC_RANK_NONE, .source = "inherited" };
                return 0;
        }
        /* a tree may carry its own (a test's, an image's): read inside it; a tree's answer
         * never comes from the host's PID 1: without one, say what is assumed */
        if (lc_proc1_limits(t->root, proc1_limits, b.rl) < 0 && !proc1_limits && t->root) {
                lc_baseline_assume(&b);
                *ret = b;
                return 0;
        }
        if (b.rl[RLIMIT_MEMLOCK].known) {
                b.known = true;
                b.soft = b.rl[RLIMIT_MEMLOCK].soft;
                b.hard = b.rl[RLIMIT_MEMLOCK].hard;
                b.rank = LC_RANK_KERNEL;
                snprintf(b.source, sizeof b.source, "%s", LC_PROC1_LIMITS);
        } else if (t->beh.pid1_always) {
                /* Debian's init_limits(): the PAM default, max(page size, 64 KiB) */
                ps = sysconf(_SC_PAGESIZE);
                b.known = true;
                b.soft = b.hard = ps > 65536 ? (uint64_t)ps : 65536;
                b.rank = LC_RANK_DEFAULT;
                b.rl[RLIMIT_MEMLOCK].known = true;
                b.rl[RLIMIT_MEMLOCK].soft = b.rl[RLIMIT_MEMLOCK].hard = b.soft;
                snprintf(b.source, sizeof b.source, "pam_limits default (%s unreadable)", LC_PROC1_LIMITS);
        } else {
                /* set_all without the row: the service's value, not set (LIMITS_DEF_NONE) */
                b.rank = LC_RANK_NONE;
                snprintf(b.source, sizeof b.source, "inherited (%s has no memlock row)", LC_PROC1_LIMITS);
        }
        *ret = b;
        return 0;
}
