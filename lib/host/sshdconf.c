/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one reader of sshd_config (sshdconf.h: what sshd does with it, read in OpenSSH's
 * sources).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "fsutil.h"
#include "macro.h"
#include "procfs.h"
#include "sshdconf.h"

/* OpenSSH's own bound (servconf.c SERVCONF_MAX_DEPTH): deeper, sshd refuses the
 * configuration ("Too many recursive configuration includes") */
#define SSHD_INCLUDE_DEPTH_MAX 16
#define SSHD_TEXT_MAX (4u * 1024 * 1024)
#define SSHD_DIR "/etc/ssh"

void sshd_conf_clear(struct sshd_conf *c) {
        free(c->path);
        free(c->file);
        free(c->where);
        free(c->bad_where);
        free(c->ignored_where);
        free(c->match_where);
        free(c->deep_where);
        visit_done(&c->walk);
        *c = (struct sshd_conf){};
}

static int set_once(char **dst, const char *where) {
        if (*dst)
                return 0;
        return (*dst = strdup(where)) ? 0 : -ENOMEM;
}

/* One UsePAM value at where. */
static int usepam(char *val, const char *where, struct sshd_conf *s) {
        char *end;
        if (val[0] == '"') {
                val++;
                end = val + strcspn(val, "\"");
                if (*end)
                        *end++ = '\0';
        } else {
                end = val + strcspn(val, " \t\r");
                if (*end)
                        *end++ = '\0';
        }
        /* what follows the value: a comment, else extra arguments, which sshd refuses
         * ("extra arguments at end of line": a bad option, and it does not start) */
        end += strspn(end, " \t\r");
        bool extra = *end && *end != '#';
        if (s->in_match)
                return set_once(&s->match_where, where);
        bool yes = strcasecmp(val, "yes") == 0;
        if (extra || (!yes && strcasecmp(val, "no") != 0))
                return set_once(&s->bad_where, where);
        if (!s->set) {
                s->set = true;
                s->value = yes;
                return set_once(&s->where, where);
        }
        if (yes != s->value && !s->ignored) {
                s->ignored = true;
                s->ignored_value = yes;
                return set_once(&s->ignored_where, where);
        }
        return 0;
}

/* Split "Keyword value", "Keyword=value" or "Keyword = value" in place; NULL for a blank or
 * comment line. */
static char *split(char *line, char **ret_rest) {
        char *p = line;
        while (*p == ' ' || *p == '\t')
                p++;
        if (!*p || *p == '#' || *p == '\r')
                return NULL;
        char *kw = p;
        p += strcspn(p, " \t=\r");
        bool eq = *p == '=';
        if (*p)
                *p++ = '\0';
        while (*p == ' ' || *p == '\t')
                p++;
        if (!eq && *p == '=')   /* "Keyword = value" */
                for (p++; *p == ' ' || *p == '\t'; p++)
                        ;
        *ret_rest = p;
        return kw;
}

static int conf_file(const char *root, const char *abs, const char *from, struct sshd_conf *s);

/* "Include WORD" at from: glob(3) as sshd calls it, wildcards in any component, relative to
 * /etc/ssh; more paths than the walk's budget of files is the walk's budget error. */
static int include(const char *root, const char *word, const char *from, struct sshd_conf *s) {
        _cleanup_free_ char *pat = word[0] == '/' ? strdup(word) : strf(SSHD_DIR "/%s", word);
        _cleanup_(strv_clear) struct strv paths = {};
        int r;

        if (!pat)
                return -ENOMEM;
        r = fs_glob_in_root(root, pat, VISIT_FILES_MAX, &paths);
        if (r == -E2BIG)
                return visit_too_many(&s->walk, from ? from : "", fs_root_shown(root, pat));
        s->depth++;
        for (size_t i = 0; i < paths.n && r >= 0; i++)
                if (fs_exists_in_root(root, paths.v[i], false) > 0)
                        r = conf_file(root, paths.v[i], from, s);
        s->depth--;
        return s->walk.error ? s->walk.error : r;
}

static int conf_line(const char *root, char *line, const char *where, struct sshd_conf *s) {
        char *rest, *save = NULL;
        char *kw = split(line, &rest);
        int r;

        if (!kw)
                return 0;
        if (strcasecmp(kw, "Match") == 0) {
                /* sshd reads its configuration with no connection: `Match all` is active (the
                 * usual end of a Match block), every other criterion is not (servconf.c
                 * match_cfg_line()) */
                char *w = strtok_r(rest, " \t\r", &save), *next = w ? strtok_r(NULL, " \t\r", &save) : NULL;
                /* a word that starts with '#' ends the line (OpenSSH 8.7 and later: argv_split()
                 * and match_cfg_line() stop at a comment) */
                s->in_match = !(w && strcasecmp(w, "all") == 0 && (!next || next[0] == '#'));
                return 0;
        }
        if (strcasecmp(kw, "Include") == 0) {
                for (char *w = strtok_r(rest, " \t\r", &save); w && w[0] != '#'; w = strtok_r(NULL, " \t\r", &save))
                        if ((r = include(root, w, where, s)) < 0)
                                return r;
                return 0;
        }
        return strcasecmp(kw, "UsePAM") == 0 ? usepam(rest, where, s) : 0;
}

/* One file, entered in the walk.  An included file starts in the Match block its Include line
 * is in, and a Match in it ends with it.  Errors of an included file other than -ENOMEM and the
 * walk's are left out (sshd's own glob skips what it cannot read). */
static int conf_file(const char *root, const char *abs, const char *from, struct sshd_conf *s) {
        _cleanup_free_ char *text = NULL;
        _cleanup_close_ int fd = -1;
        bool in_match = s->in_match;
        struct stat st;
        unsigned lineno = 0;

        if (s->depth > SSHD_INCLUDE_DEPTH_MAX)
                return set_once(&s->deep_where, from);
        int r = fs_open_config_in_root(root, abs, false, false, &fd, &st);
        if (r >= 0)
                r = visit_enter(&s->walk, &st, fs_root_shown(root, abs), from, 0);
        if (r < 0)
                return s->depth == 0 || r == -ENOMEM || r == s->walk.error ? r : 0;
        r = fs_read_all(fd, SSHD_TEXT_MAX, &text, NULL);
        for (char *cur = text, *line; r >= 0 && cur && *cur;) {
                line = cur;
                if ((cur = strchr(line, '\n')))
                        *cur++ = '\0';
                _cleanup_free_ char *where = strf("%s:%u", fs_root_shown(root, abs), ++lineno);
                if (!where)
                        r = -ENOMEM;
                else if ((r = visit_line(&s->walk, fs_root_shown(root, abs), lineno, strlen(line) + 1)) >= 0)
                        r = conf_line(root, line, where, s);
        }
        visit_leave(&s->walk);
        s->in_match = in_match;
        return s->depth == 0 || r == -ENOMEM || r == s->walk.error ? r : 0;
}

int sshd_conf_read(const char *root, const char *path, const struct strv *opts, const char *cmdline_where,
                   struct sshd_conf *ret) {
        struct sshd_conf s = {};
        int r = 0;

        /* the command line's -o options first: the first value read wins */
        for (size_t i = 0; opts && i < opts->n && r >= 0; i++) {
                _cleanup_free_ char *line = strdup(opts->v[i]);
                r = line ? conf_line(root, line, cmdline_where ? cmdline_where : "the command line of sshd", &s) : -ENOMEM;
        }
        if (r >= 0 && (!(s.path = strdup(path ? path : SSHD_CONFIG_DEFAULT)) ||
                       !(s.file = strdup(fs_root_shown(root, s.path)))))
                r = -ENOMEM;
        if (r >= 0) {
                r = conf_file(root, s.path, NULL, &s);
                if (r < 0 && r != -ENOMEM && r != s.walk.error) {
                        s.error = r;
                        r = 0;
                }
        }
        if (r == -ENOMEM) {
                sshd_conf_clear(&s);
                return r;
        }
        *ret = s;
        return 0;
}

enum sshd_pam sshd_conf_pam(const struct sshd_conf *c, const char **ret_where) {
        const char *where = NULL;
        enum sshd_pam p;

        if (c->walk.error == VISIT_ERR_CYCLE)
                p = SSHD_PAM_REFUSED, where = c->walk.where;
        else if (c->match_where || c->bad_where || c->deep_where)
                p = SSHD_PAM_REFUSED, where = c->match_where ? c->match_where : c->bad_where ? c->bad_where : c->deep_where;
        else if (c->set)
                /* past the walk's bound, the first value read counts */
                p = c->value ? SSHD_PAM_YES : SSHD_PAM_NO, where = c->where;
        else if (c->error || c->walk.error)
                p = SSHD_PAM_UNKNOWN, where = c->error ? NULL : c->walk.where;
        else
                p = SSHD_PAM_NO, where = c->file;
        if (ret_where)
                *ret_where = where;
        return p;
}

/* sshd's options that take an argument (sshd.c's getopt string) */
#define SSHD_OPTS_WITH_ARG "CEbcfghkopu"

int sshd_args_parse(char *const *argv, size_t argc, char **ret_path, struct strv *opts) {
        _cleanup_free_ char *path = NULL;
        int r;

        for (size_t i = 0; i < argc; i++) {
                const char *a = argv[i];
                if (a[0] != '-' || !a[1])
                        break;              /* getopt stops at the first operand */
                if (streq(a, "--"))
                        break;
                for (const char *p = a + 1; *p; p++) {
                        if (!strchr(SSHD_OPTS_WITH_ARG, *p))
                                continue;
                        const char *val = p[1] ? p + 1 : i + 1 < argc ? argv[++i] : NULL;
                        if (!val)
                                return -EINVAL;
                        if (*p == 'f') {
                                free(path);
                                if (!(path = strdup(val)))
                                        return -ENOMEM;
                        } else if (*p == 'o' && (r = strv_push(opts, val)) < 0)
                                return r;
                        break;
                }
        }
        *ret_path = TAKE_PTR(path);
        return 0;
}

/* The listener's title (OpenSSH 8.2 and later rewrite their argv): "sshd: PROGRAM ARGS
 * [listener] ...", ARGS joined with single blanks.  Into args, split at blanks, an option's
 * value together with the words after it up to the next option (a `-o 'UsePAM no'` comes
 * back whole).  -EBADMSG when it is not such a title (cut short: no "[listener]"). */
/* An option word whose option takes a value that follows in the same word ("-oUsePAM",
 * "-Df/e/c"), as sshd_args_parse() reads it. */
static bool attached_value(const char *w) {
        for (const char *p = w + 1; *p; p++)
                if (strchr(SSHD_OPTS_WITH_ARG, *p))
                        return p[1] != '\0';
        return false;
}

int sshd_title_args(const char *title, struct strv *args) {
        static const char prefix[] = "sshd: ", mark[] = " [listener]";
        _cleanup_free_ char *copy = NULL;
        char *save = NULL;
        int r;

        if (strncmp(title, prefix, strlen(prefix)) != 0 || !strstr(title, mark))
                return -EBADMSG;
        if (!(copy = strndup(title + strlen(prefix), (size_t)(strstr(title, mark) - title) - strlen(prefix))))
                return -ENOMEM;
        bool program = true;
        for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
                if (program) {
                        program = false;
                        continue;
                }
                /* the word before is a value (after an option, or an option with its value attached:
                 * "-oUsePAM", whose value went on after a blank), so a word without '-' goes on
                 * with it: the listener runs, its command line was one sshd accepted */
                const char *prev = args->n > 0 ? args->v[args->n - 1] : NULL;
                bool value = prev && (prev[0] != '-' || attached_value(prev));
                if (w[0] != '-' && value) {
                        /* a word of the value before it (it had a blank) */
                        char *joined = strf("%s %s", args->v[args->n - 1], w);
                        if (!joined)
                                return -ENOMEM;
                        free(args->v[args->n - 1]);
                        args->v[args->n - 1] = joined;
                        continue;
                }
                if ((r = strv_push(args, w)) < 0)
                        return r;
        }
        return 0;
}

int sshd_cmdline(pid_t pid, char **ret_path, struct strv *opts) {
        _cleanup_(strv_clear) struct strv args = {};
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        if ((r = proc_cmdline(pid, &buf, &len)) < 0)
                return r;
        if (memchr(buf, '\0', len)) {
                /* its argv as started, NUL-separated; the first is the program */
                for (size_t off = strlen(buf) + 1; off < len; off += strlen(buf + off) + 1)
                        if ((r = strv_push(&args, buf + off)) < 0)
                                return r;
        } else if ((r = sshd_title_args(buf, &args)) < 0)
                return r;
        _cleanup_free_ char *path = NULL;
        if ((r = sshd_args_parse(args.v, args.n, &path, opts)) < 0)
                return r;
        /* a relative -f was read from the directory sshd started in, which it has left for /
         * since: not known */
        if (path && path[0] != '/')
                return -EBADMSG;
        *ret_path = TAKE_PTR(path);
        return 0;
}
