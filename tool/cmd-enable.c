/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * enable and disable: put `session optional pam_rdmalimit.so` after the last pam_limits of
 * the PAM stacks that need a line of their own, or take out the lines enable added.
 *
 * Files a distribution's tool manages are never edited: on Debian the common-* files belong
 * to pam-auth-update (the module goes there through the profile /usr/share/pam-configs/
 * rdmalimit), on RHEL-like systems system-auth and password-auth belong to authselect (the
 * module goes into a custom profile, custom/rdmalimit).  Everything is planned first; a stack
 * that is not understood stops the run before anything is written.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "fsutil.h"
#include "pamedit.h"
#include "pammod.h"
#include "pamstack.h"
#include "session.h"
#include "strv.h"
#include "tool.h"

#define PAM_DIR "/etc/pam.d"
#define PAM_CONFIGS_PROFILE "/usr/share/pam-configs/rdmalimit"
#define AUTHSELECT_CONF "/etc/authselect/authselect.conf"
#define AUTHSELECT_PROFILE_DIR "/etc/authselect/custom/rdmalimit"
#define AUTHSELECT_PROFILE "custom/rdmalimit"
/* in the profile's directory: the profile selected before enable selected it (authselect
 * reads only the files it knows there) */
#define AUTHSELECT_RECORD "rdmalimits-previous"
#define RECORD_PATH AUTHSELECT_PROFILE_DIR "/" AUTHSELECT_RECORD

/* A file as it was before the commit replaced it, put back when a later write fails. */
struct prior {
        char *data;              /* NULL: there was none */
        size_t len;
        mode_t mode;
        bool replaced;           /* the commit wrote it */
};

/* One file enable or disable may rewrite. */
struct target {
        char *name;              /* in its directory */
        char *display;           /* for messages */
        int dirfd;               /* borrowed */
        char *old;
        size_t old_len;
        mode_t mode;
        bool symlink;
        struct pam_file f;
        char *text;              /* the new text, when it changes */
        char note[3 * PAMEDIT_WHERE_MAX + 256];
        bool written;            /* the commit replaced it (its old text is old) */
        struct prior bak;        /* FILE PAMEDIT_BACKUP_SUFFIX as it was */
};

struct run {
        const struct ctx *c;
        bool disabling;
        bool after_tools;        /* the distribution's tools have run: a refusal no longer means
                                  * that nothing was written */
        int pamfd, lockfd, profilefd;
        struct target *t;
        size_t nt, t_cap;
        unsigned errors;
        bool pending;            /* commands remain (printed or run) */
        bool need_pau, need_authselect;
        struct strv cmds;        /* the commands of the distribution's mechanism, as shown */
        /* what the mechanism runs (not under --root, --check, or when the tool is missing) */
        bool run_pau;
        /* authselect: the selected profile and its features, the one recorded before enable */
        bool as_tool;            /* authselect is on PATH, and may run (not under --root) */
        bool as_create;          /* create-profile runs first, then the new profile is edited */
        char as_base[256], as_previous[256];
        struct strv as_feat;
        struct strv as_argv;     /* the select command run (r->cmds shows it) */
        char *as_record;         /* the record's new text, when it changes */
        struct prior record;     /* the record as it was */
        char as_note[512];       /* --check: what happens between the commands */
        char chroot[PATH_MAX + 8];  /* "chroot ROOT " under --root: the tools run in the tree */
        /* the policies and trees the stacks' lines read (tool_session_lines()) */
        struct tool_session reads;
};

static void target_clear(struct target *t) {
        free(t->name);
        free(t->display);
        free(t->old);
        free(t->text);
        free(t->bak.data);
        pam_file_clear(&t->f);
}

static void run_done(struct run *r) {
        for (size_t i = 0; i < r->nt; i++)
                target_clear(&r->t[i]);
        free(r->t);
        strv_clear(&r->cmds);
        strv_clear(&r->as_feat);
        strv_clear(&r->as_argv);
        free(r->as_record);
        free(r->record.data);
        closep(&r->pamfd);
        closep(&r->profilefd);
        closep(&r->lockfd);
        tool_session_clear(&r->reads);
}

/* abs as pamstack.h names the files of a stack: relative to the root under --root */
static const char *shown(const struct ctx *c, const char *abs) {
        return fs_root_is_set(c->root) ? abs + 1 : abs;
}

/* A problem of the run: said, and counted (nothing is written when there is one) */
#define run_error(r, ...) ((r)->errors++, log_error(__VA_ARGS__))

/* out of memory: said, and counted as an error of the run */
static int run_oom(struct run *r) {
        r->errors++;
        return log_oom();
}

/* One more command of the distribution's mechanism; 0, or run_oom(). */
_printf_(2, 3) static int add_cmd(struct run *r, const char *fmt, ...) {
        char *s = NULL;
        va_list ap;
        va_start(ap, fmt);
        int n = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (strv_consume(&r->cmds, n < 0 ? NULL : s) < 0)
                return run_oom(r);
        return 0;
}

static bool valid_name(const char *s) {
        return *s && !strchr(s, '/') && !streq(s, ".") && !streq(s, "..") && strlen(s) < 200;
}

/* Names in pam.d that are not services: editors' and package managers' copies, ours. */
static bool skipped_name(const char *s) {
        static const char *const suffixes[] = { PAMEDIT_BACKUP_SUFFIX, "~", ".bak", ".orig", ".old", ".swp",
                                                ".dpkg-old", ".dpkg-new", ".dpkg-dist", ".dpkg-tmp", ".dpkg-bak",
                                                ".ucf-old", ".ucf-new", ".ucf-dist", ".rpmnew", ".rpmsave",
                                                ".pacnew", ".pacsave" };
        if (s[0] == '.')
                return true;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (strlen(s) > strlen(suffixes[i]) && endswith(s, suffixes[i]))
                        return true;
        return false;
}

/* The services of pam.d, sorted, into ret.  0 or a CMD_* outcome. */
static int list_services(const struct run *r, struct strv *ret) {
        _cleanup_close_ int fd = fcntl(r->pamfd, F_DUPFD_CLOEXEC, 3);
        DIR *d;
        struct dirent *de;
        int k = 0;

        if (fd < 0 || !(d = fdopendir(fd))) {
                log_error("%s: %s", PAM_DIR, errno_text(-errno));
                return CMD_FINDINGS;
        }
        fd = -1;
        rewinddir(d);
        while (k == 0 && (de = readdir(d))) {
                if (skipped_name(de->d_name) || !valid_name(de->d_name))
                        continue;
                if (de->d_type != DT_REG && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
                        continue;
                k = strv_push(ret, de->d_name);
        }
        closedir(d);
        if (k < 0)
                return log_oom();
        strv_sort(ret);
        return 0;
}

/* Read and parse dirfd/name into a new target.  Returns the target, or NULL with r->errors
 * counted. */
static struct target *target_load(struct run *r, int dirfd, const char *dir, const char *name, bool profile) {
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *abs = NULL;
        _cleanup_(diag_list_clear) struct diag_list diags = {};
        struct stat st;
        struct target t = { .dirfd = dirfd };
        int k;

        if (asprintf(&abs, "%s/%s", dir, name) < 0 || !(t.display = strdup(shown(r->c, abs))) || !(t.name = strdup(name)))
                goto oom;
        k = fs_open_config(dirfd, name, false, true, &fd, &st);
        if (k == -ELOOP) {
                /* read through the link (inside the root), never written through */
                t.symlink = true;
                k = fs_open_config_in_root(r->c->root, abs, false, false, &fd, &st);
        }
        if (k < 0) {
                log_error("%s: %s", t.display, k == -ENOENT ? "no such PAM service" : fs_strerror(k));
                goto fail;
        }
        t.mode = st.st_mode & 07777;
        k = fs_read_all(fd, 1024 * 1024, &t.old, &t.old_len);
        if (k < 0) {
                log_error("%s: %s", t.display, fs_strerror(k));
                goto fail;
        }
        k = (profile ? pam_file_parse_profile : pam_file_parse)(t.display, t.old, t.old_len, &t.f, &diags);
        if (k == -ENOMEM)
                goto oom;
        if (k < 0) {
                diag_print(&diags, stderr, false);
                log_error("%s: lines rdmalimits does not understand; it changes nothing until they are fixed",
                          t.display);
                goto fail;
        }
        if (GROW(r->t, r->t_cap, r->nt + 1) < 0)
                goto oom;
        r->t[r->nt] = t;
        return &r->t[r->nt++];
oom:
        log_oom();
fail:
        r->errors++;
        target_clear(&t);
        return NULL;
}

/* The service's file in pam.d as a new target; NULL when a service named (explicit) does not
 * exist (said), when it does not load, or when the distribution's tool manages it (if named,
 * that tool's side is planned then). */
static struct target *service_target(struct run *r, const char *name, bool explicit) {
        enum pam_manager m = PAM_MANAGER_NONE;

        if (pam_service_manager(r->c->root, name, &m) == -ENOENT && explicit) {
                run_error(r, "%s/%s: no such PAM service", shown(r->c, PAM_DIR), name);
                return NULL;
        }
        if (m != PAM_MANAGER_NONE) {
                r->need_pau |= explicit && m == PAM_MANAGER_PAM_AUTH_UPDATE;
                r->need_authselect |= explicit && m == PAM_MANAGER_AUTHSELECT;
                return NULL;
        }
        return target_load(r, r->pamfd, PAM_DIR, name, false);
}

static void target_drop_last(struct run *r) {
        target_clear(&r->t[--r->nt]);
}

static int target_render(struct run *r, struct target *t) {
        _cleanup_free_ char *s = pam_file_render(&t->f);
        if (!s)
                return run_oom(r);
        if (streq(s, t->old))
                return 0;
        if (t->symlink) {
                run_error(r, "%s is a symbolic link; refusing to write through it (edit its "
                          "target, or replace the link by a file)", t->display);
                return -ELOOP;
        }
        t->text = TAKE_PTR(s);
        return 1;
}

static bool stack_has(const char *root, const char *service, const char *module) {
        _cleanup_(pam_stack_clear) struct pam_stack s = {};
        return pam_stack_load(root, service, &s) >= 0 && s.error == 0 && s.include_error == 0 &&
               pam_stack_find(&s, module) >= 0;
}

/* What a note adds when jump counts were corrected. */
#define JUMPS_NOTE(n) ((n) > 0 ? "; jump counts corrected so every jump lands where it did" : "")

/* After t's lines changed: every jump of its session stack lands where it did (counts of its
 * own lines corrected: *ret_n), or the run refuses, naming the jump.  0, or -1 when refused. */
static int keep_jumps(struct run *r, struct target *t, const char *service, int *ret_n) {
        char where[PAMEDIT_WHERE_MAX];
        int k = pam_file_keep_jumps(r->c->root, service, t->old, &t->f, where);
        *ret_n = k;
        if (k == -EXDEV)
                run_error(r, "%s: this jump would land on another module once %s's lines change, "
                          "and rdmalimits does not edit that file: change it by hand (nothing written)", where,
                          t->display);
        else if (k < 0)
                run_oom(r);
        return k < 0 ? -1 : 0;
}

/* enable: plan one service.  explicit: named by --service. */
/*
 * Does pam_rdmalimit run after the last pam_limits that runs, in the service's stack as the
 * edit leaves it (text: the service file then; includes from the tree), for every user a
 * policy has a rule for?  The session engine's walks (session_walks_every_user(), as doctor
 * walks it: each copy of the module with the policy it reads, a pam_limits whose file cannot
 * be read failing, a module the model cannot know assumed to succeed).  When it does not and
 * the path is certain, the run refuses, naming the users and the line that stops it; when the
 * path depends on a module's assumed result, a warning.  0, or -1 when refused.
 */
/* Where a walk stops before the rest of the stack: the line that ends it, or its failure;
 * false when it does neither. */
static bool stack_end_why(const struct pam_stack *st, const struct stack_run *run, char *why, size_t size) {
        if (run->ended_at >= 0) {
                const struct pam_entry *e = &st->v[run->ended_at];
                snprintf(why, size, "%s:%u '%s %s' ends the stack", e->file, e->line, e->control, e->module);
                return true;
        }
        if (run->failed) {
                snprintf(why, size, "the stack fails before it");
                return true;
        }
        return false;
}

static int check_module_runs(struct run *r, const struct target *t, const char *name, const char *text) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        _cleanup_(session_walks_clear) struct session_walks w = {};
        struct session_lines lines = tool_session_lines(&r->reads);
        char why[PAMEDIT_WHERE_MAX + 384] = "";

        if (pam_stack_load_text(r->c->root, name, text, &st) < 0) {
                run_oom(r);
                return -1;
        }
        if (st.error || st.include_error)
                return 0;   /* reported elsewhere (pam_plan_service) */
        if (session_walks_every_user(&st, &lines, &w) < 0) {
                run_oom(r);
                return -1;
        }
        /* a module file libpam cannot load: the line runs, returns PAM_MODULE_UNKNOWN, sets nothing */
        for (size_t j = 0; j < w.n; j++)
                for (size_t k = 0; k < w.v[j].run.n_run; k++) {
                        const struct pam_entry *e = &st.v[w.v[j].run.run[k]];
                        if (e->unloadable && streq(e->name, "pam_rdmalimit")) {
                                run_error(r, "%s: %s:%u: %s %s%s: the line would do nothing; install pam_rdmalimit "
                                          "first (nothing written)", t->display, e->file, e->line,
                                          e->no_function ? "no session function (pam_sm_open_session) in"
                                                         : "libpam cannot load",
                                          e->module,
                                          e->no_function ? "" : " (it is not in the module directory, or the path "
                                                                "does not exist)");
                                return -1;
                        }
                }
        /* every user a policy has a rule for: the first walk where the module does not run last */
        const struct session_walk *bad = NULL;
        for (size_t j = 0; j < w.n && !bad; j++) {
                const struct stack_run *run = &w.v[j].run;
                bool limits = run->last_limits >= 0;
                if (session_walk_order(run) == SESSION_MODULE_LAST)
                        continue;
                /* a condition the model cannot know skips both: the module runs whenever pam_limits does */
                if (run->assumed && !limits && run->last_module < 0 && !run->failed && run->ended_at < 0)
                        continue;
                bad = &w.v[j];
        }
        if (!bad)
                return 0;
        const struct stack_run *run = &bad->run;
        bool limits = run->last_limits >= 0;
        if (stack_end_why(&st, run, why, sizeof why)) {
                /* the line that ends the walk, or its failure */
        } else if (run->last_module >= 0) {
                const struct pam_entry *e = &st.v[run->last_module], *l = &st.v[run->last_limits];
                snprintf(why, sizeof why, "the last copy that runs (%s:%u) runs before pam_limits (%s:%u)", e->file,
                         e->line, l->file, l->line);
        } else {
                /* the entry the walk's path goes from to past the (last) module line: its jump */
                long mod = -1;
                for (size_t i = 0; i < st.n; i++)
                        if (streq(st.v[i].name, "pam_rdmalimit"))
                                mod = (long)i;
                snprintf(why, sizeof why, "a jump skips it");
                for (size_t k = 0; mod >= 0 && k < run->n_run; k++) {
                        size_t a = run->run[k], b = k + 1 < run->n_run ? run->run[k + 1] : st.n;
                        if ((long)a < mod && (long)b > mod) {
                                const struct pam_entry *e = &st.v[a];
                                snprintf(why, sizeof why, "%s:%u '%s %s' jumps over it (its count as the edit "
                                         "leaves it, landing where it did)", e->file, e->line, e->control, e->module);
                                break;
                        }
                }
        }
        _cleanup_free_ char *users = w.n_policies ? session_walk_users(&w, bad->mask) : strdup("");
        _cleanup_free_ char *who = users && *users ? strf(" for a user %s", users) : strdup("");
        if (!users || !who) {
                run_oom(r);
                return -1;
        }
        if (run->assumed) {
                log_warning(r->c, "%s: if the modules whose results rdmalimits cannot know succeed, pam_rdmalimit "
                            "does not run after pam_limits%s (%s); check the stack", t->display, who, why);
                return 0;
        }
        run_error(r, "%s: pam_rdmalimit would not run after pam_limits in the %s session stack%s: %s%s; "
                  "rdmalimits enable cannot make it run there (%s)", t->display, name, who, why,
                  limits ? "" : " (pam_limits does not run either)",
                  r->after_tools ? "pam-auth-update added it to the shared stack, which this one does not reach"
                                 : "nothing written");
        return -1;
}

/* Do the files pam-auth-update writes for the profile (Session-Type: Additional) hold the
 * module now?  It exits 0 and writes nothing when a file has changes of an admin in its block
 * ("Local modifications to /etc/pam.d/common-*, not updating").  Then, for each service found
 * not to need a line of its own ("not needed": the shared stack it runs after its pam_limits
 * gets the module), does the module now run after pam_limits: its stack may end before the
 * shared one (a sufficient line).  0, or CMD_FINDINGS, said. */
static int check_after_pau(struct run *r) {
        static const char *const shared[] = { "common-session", "common-session-noninteractive" };
        for (size_t i = 0; i < ELEMENTSOF(shared); i++) {
                _cleanup_(pam_stack_clear) struct pam_stack st = {};
                bool found = false;
                if (pam_stack_load_phase(r->c->root, shared[i], "session", &st) < 0)
                        return log_oom();
                if (st.error == -ENOENT)
                        continue;
                for (size_t k = 0; k < st.n && !found; k++)
                        found = streq(st.v[k].name, "pam_rdmalimit");
                if (!found) {
                        log_error("pam-auth-update --enable rdmalimit exited 0, but %s/%s has no pam_rdmalimit line: "
                                  "pam-auth-update leaves a file whose managed block an admin changed as it is (it "
                                  "says \"Local modifications to /etc/pam.d/common-*, not updating\"); add the line "
                                  "after pam_limits by hand, or run 'pam-auth-update --force --enable rdmalimit', "
                                  "which replaces the admin's changes", shown(r->c, PAM_DIR), shared[i]);
                        for (size_t j = 0; j < r->nt; j++)
                                if (strncmp(r->t[j].note, "not needed", 10) == 0)
                                        snprintf(r->t[j].note, sizeof r->t[j].note, "NOT covered: the shared stack "
                                                 "its pam_limits runs before has no pam_rdmalimit (pam-auth-update "
                                                 "changed nothing, above)");
                        return CMD_FINDINGS;
                }
        }
        r->after_tools = true;
        unsigned before = r->errors;
        for (size_t i = 0; i < r->nt; i++) {
                struct target *t = &r->t[i];
                if (strncmp(t->note, "not needed", 10) != 0 || !t->old)
                        continue;
                unsigned had = r->errors;
                if (check_module_runs(r, t, t->name, t->old) < 0) {
                        if (r->errors == had)
                                return log_oom();
                        snprintf(t->note, sizeof t->note, "NOT covered: the shared stack has pam_rdmalimit now, but "
                                 "this stack does not run it after pam_limits (above)");
                }
        }
        return r->errors > before ? CMD_FINDINGS : 0;
}

/*
 * A stack whose pam_limits runs before the shared stack is "not needed" when the module the
 * tool adds at the end of the shared stack's block runs after that pam_limits: the walk of
 * every user a policy has a rule for reaches the shared stack's last line after its last
 * pam_limits.  A stack that ends first (a sufficient line after pam_limits) never runs it:
 * refused, naming where it ends (a path that rests on a module the model cannot know: a
 * warning).  0, or -1 when refused.
 */
static int check_reaches_shared(struct run *r, const struct target *t, const char *name) {
        _cleanup_(pam_stack_clear) struct pam_stack st = {};
        _cleanup_(session_walks_clear) struct session_walks w = {};
        struct session_lines lines = tool_session_lines(&r->reads);
        long last_shared = -1;

        if (pam_stack_load_text(r->c->root, name, t->old, &st) < 0 || session_walks_every_user(&st, &lines, &w) < 0) {
                run_oom(r);
                return -1;
        }
        if (st.error || st.include_error)
                return 0;   /* reported elsewhere */
        /* the lines of a file the distribution's tool manages (pam_service_manager()) */
        const char *file = NULL;
        bool managed = false;
        for (size_t i = 0; i < st.n; i++) {
                if (!file || !streq(file, st.v[i].file)) {
                        const char *b = strrchr(st.v[i].file, '/');
                        enum pam_manager m;
                        file = st.v[i].file;
                        managed = pam_service_manager(r->c->root, b ? b + 1 : file, &m) >= 0 && m != PAM_MANAGER_NONE;
                }
                if (managed)
                        last_shared = (long)i;
        }
        if (last_shared < 0)
                return 0;
        for (size_t j = 0; j < w.n; j++) {
                const struct stack_run *run = &w.v[j].run;
                bool limits = false, reached = false;
                for (size_t k = 0; k < run->n_run && !reached; k++) {
                        limits |= (long)run->run[k] == run->last_limits;
                        reached = limits && (long)run->run[k] == last_shared;
                }
                if (reached || run->last_limits < 0)
                        continue;
                char why[PAMEDIT_WHERE_MAX + 128] = "the stack ends before it";
                (void)stack_end_why(&st, run, why, sizeof why);
                if (run->assumed) {
                        log_warning(r->c, "%s: if the modules whose results rdmalimits cannot know succeed, the %s "
                                    "stack does not reach the end of the shared stack after pam_limits (%s): the "
                                    "module the distribution's tool adds there would not run; check the stack",
                                    t->display, name, why);
                        return 0;
                }
                run_error(r, "%s: pam_rdmalimit, which the distribution's tool adds at the end of the shared stack, "
                          "would not run after pam_limits in the %s session stack: %s; rdmalimits enable cannot "
                          "make it run there (nothing written)", t->display, name, why);
                return -1;
        }
        return 0;
}

static void plan_enable(struct run *r, const char *name, bool explicit) {
        const struct ctx *c = r->c;
        struct target *t = service_target(r, name, explicit);
        struct session_lines lines = tool_session_lines(&r->reads);
        struct pam_plan p;
        int jumps;

        if (!t)
                return;
        /* a stack its service does not run (sshd with UsePAM no): the edit stands, and says so */
        struct session_pam_answer pa;
        if (session_service_pam(c->root, name, 0, &pa) < 0) {
                run_oom(r);
                return;
        }
        if (pa.kind == SESSION_PAM_NONE || pa.kind == SESSION_PAM_NO_DAEMON) {
                char fix[1024] = "";
                if (pa.kind == SESSION_PAM_NONE)
                        session_pam_fix(pa.where, fix, sizeof fix);
                log_warning(c, "%s: %s; a line of this stack takes effect only when %s runs it%s%s%s", t->display,
                            pa.why, name, *fix ? " (fix: " : "", fix, *fix ? ")" : "");
        }
        if (pam_plan_service(c->root, &t->f, &lines, &p) < 0) {
                run_oom(r);
                return;
        }
        if (p.verdict == PAM_V_INSERT && !explicit && !p.after_managed) {
                if (p.managed_later) {
                        if (check_reaches_shared(r, t, name) < 0)
                                return;
                        snprintf(t->note, sizeof t->note, "not needed: its pam_limits (%s) runs before the shared "
                                 "stack the distribution's tool manages", p.limits_where);
                } else
                        snprintf(t->note, sizeof t->note, "not changed: its pam_limits (%s) runs without a shared "
                                 "stack; 'rdmalimits enable --service %s' adds the module there", p.limits_where, name);
                return;
        }
        if (p.verdict == PAM_V_INSERT || p.verdict == PAM_V_CONFLICT) {
                /* a line of ours that pam_limits now follows moves after it */
                if (pam_file_remove_marked(&t->f) > 0 && pam_plan_service(c->root, &t->f, &lines, &p) < 0) {
                        run_oom(r);
                        return;
                }
        }
        switch (p.verdict) {
        case PAM_V_DONE:
                if (check_module_runs(r, t, name, t->old) < 0)
                        return;
                snprintf(t->note, sizeof t->note, "unchanged: pam_rdmalimit already runs after pam_limits (%s after %s)",
                         p.where, p.limits_where);
                return;
        case PAM_V_NO_LIMITS:
                if (explicit)
                        run_error(r, "%s: no session pam_limits line in its stack (includes "
                                  "followed): rdmalimits puts pam_rdmalimit after pam_limits and "
                                  "has nothing to follow here", t->display);
                else
                        target_drop_last(r);
                return;
        case PAM_V_BROKEN:
                if (p.bounded)
                        run_error(r, "%s: %s (nothing written)", p.where, pam_include_strerror(p.error));
                else
                        run_error(r, "%s: the included file cannot be read: %s", p.where,
                                  fs_strerror(p.error));
                return;
        case PAM_V_CONFLICT:
                run_error(r, "%s: pam_rdmalimit runs before the last pam_limits (%s), in a line "
                          "rdmalimits did not add; move it after pam_limits or remove it by hand "
                          "(nothing written)", p.where, p.limits_where);
                return;
        case PAM_V_MANAGED:
                snprintf(t->note, sizeof t->note, "its last pam_limits is in %s (%s), managed by %s", p.managed_file,
                         p.where, pam_manager_name(p.manager));
                if (p.manager == PAM_MANAGER_AUTHSELECT)
                        r->need_authselect = true;
                else
                        r->need_pau = true;
                return;
        case PAM_V_INSERT:
                if (pam_file_insert_mark(&t->f, p.at) < 0) {
                        run_oom(r);
                        return;
                }
                if (keep_jumps(r, t, name, &jumps) < 0)
                        return;
                if (target_render(r, t) > 0) {
                        if (check_module_runs(r, t, name, t->text) < 0)
                                return;
                        snprintf(t->note, sizeof t->note, "pam_rdmalimit after pam_limits (%s), line %zu%s", p.limits_where,
                                 p.at + 2, JUMPS_NOTE(jumps));
                }
                return;
        }
}

static void plan_disable(struct run *r, const char *name, bool explicit) {
        struct target *t = service_target(r, name, explicit);
        int jumps;

        if (!t)
                return;
        size_t n = pam_file_remove_marked(&t->f);
        if (n == 0) {
                if (explicit)
                        snprintf(t->note, sizeof t->note, "unchanged: no line of rdmalimits enable");
                else
                        target_drop_last(r);
                return;
        }
        if (keep_jumps(r, t, name, &jumps) < 0)
                return;
        if (target_render(r, t) > 0)
                snprintf(t->note, sizeof t->note, "%zu line%s of rdmalimits enable%s", n, n == 1 ? "" : "s",
                         JUMPS_NOTE(jumps));
}

/* A profile or feature name as authselect writes them in authselect.conf: letters, digits and
 * "._/-", not starting with '-' (it becomes a word of a command line). */
static bool authselect_word(const char *s) {
        static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-";
        return *s && *s != '-' && strspn(s, ok) == strlen(s) && strlen(s) < 200;
}

/* The words of a file of authselect's kind (authselect.conf, the record): one a line, '#'
 * comments and blank lines skipped, into ret.  0, a negative errno, or -EBADMSG (said, with
 * the file and line). */
static int authselect_words(struct run *r, int fd, const char *display, struct strv *ret) {
        _cleanup_free_ char *text = NULL;
        unsigned lineno = 0;
        int k = fs_read_all(fd, 64 * 1024, &text, NULL);
        if (k < 0)
                return k;
        for (char *l = text, *next; l && *l; l = next) {
                next = strchr(l, '\n');
                if (next)
                        *next++ = '\0';
                lineno++;
                l += strspn(l, " \t");
                l[strcspn(l, "#")] = '\0';
                size_t n = strlen(l);
                while (n > 0 && strchr(" \t\r", l[n - 1]))
                        l[--n] = '\0';
                if (!*l)
                        continue;
                if (!authselect_word(l)) {
                        char e[512];
                        run_error(r, "%s:%u: '%s' is not a profile or feature name of authselect", display, lineno,
                                  str_escape(l, e, sizeof e));
                        return -EBADMSG;
                }
                if (strv_push(ret, l) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The selected profile (r->as_base) and its features (r->as_feat) from authselect.conf.  0,
 * -ENOENT, -ENODATA (no profile in it), -EBADMSG (said), or another negative errno. */
static int authselect_current(struct run *r) {
        _cleanup_close_ int fd = -1;
        _cleanup_(strv_clear) struct strv w = {};
        int k = fs_open_config_in_root(r->c->root, AUTHSELECT_CONF, false, false, &fd, NULL);
        if (k >= 0)
                k = authselect_words(r, fd, shown(r->c, AUTHSELECT_CONF), &w);
        if (k < 0)
                return k;
        if (w.n == 0)
                return -ENODATA;
        snprintf(r->as_base, sizeof r->as_base, "%s", w.v[0]);
        strv_clear(&r->as_feat);
        for (size_t i = 1; i < w.n; i++)
                if (strv_push(&r->as_feat, w.v[i]) < 0)
                        return -ENOMEM;
        return 0;
}

/* The profile recorded in the profile directory (r->profilefd) as selected before enable, into
 * r->as_previous ("" when there is no record).  0, -EBADMSG (said) or a negative errno. */
static int authselect_read_record(struct run *r) {
        _cleanup_close_ int fd = -1;
        _cleanup_(strv_clear) struct strv w = {};
        int k = fs_open_config(r->profilefd, AUTHSELECT_RECORD, false, true, &fd, NULL);
        r->as_previous[0] = '\0';
        if (k == -ENOENT)
                return 0;
        if (k >= 0)
                k = authselect_words(r, fd, shown(r->c, RECORD_PATH), &w);
        if (k < 0)
                return k;
        if (w.n != 1 || streq(w.v[0], AUTHSELECT_PROFILE)) {
                run_error(r, "%s: not one profile other than %s", shown(r->c, RECORD_PATH),
                          AUTHSELECT_PROFILE);
                return -EBADMSG;
        }
        snprintf(r->as_previous, sizeof r->as_previous, "%s", w.v[0]);
        return 0;
}

/* "authselect select PROFILE FEATURES --force": the selected features without ours, with
 * ours when with_feature.  Shown in r->cmds (in the tree under --root), run from r->as_argv.
 * 0, or run_oom(). */
static int add_select(struct run *r, const char *profile, bool with_feature) {
        _cleanup_free_ char *shown_cmd = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&shown_cmd, &len);
        int k = f ? 0 : -ENOMEM;

        strv_clear(&r->as_argv);
        if (k == 0)
                k = strv_push(&r->as_argv, "authselect") < 0 || strv_push(&r->as_argv, "select") < 0 ||
                    strv_push(&r->as_argv, profile) < 0;
        for (size_t i = 0; k == 0 && i < r->as_feat.n; i++)
                if (!streq(r->as_feat.v[i], PAMEDIT_FEATURE))
                        k = strv_push(&r->as_argv, r->as_feat.v[i]);
        if (k == 0 && with_feature)
                k = strv_push(&r->as_argv, PAMEDIT_FEATURE);
        if (k == 0)
                k = strv_push(&r->as_argv, "--force");
        if (f) {
                fputs(r->chroot, f);
                for (size_t i = 0; i < r->as_argv.n; i++)
                        fprintf(f, "%s%s", i ? " " : "", r->as_argv.v[i]);
                if (fclose(f) != 0)
                        k = -ENOMEM;
        }
        if (k != 0 || strv_consume(&r->cmds, TAKE_PTR(shown_cmd)) < 0)
                return run_oom(r);
        r->pending = true;
        return 0;
}

/* The record of the profile selected before (r->as_base), when it is not there yet. */
static int plan_record(struct run *r) {
        if (streq(r->as_previous, r->as_base))
                return 0;
        free(r->as_record);
        if (asprintf(&r->as_record, "# The authselect profile selected before 'rdmalimits enable' selected %s.\n"
                     "# 'rdmalimits disable' selects it again, with the features then selected.\n%s\n",
                     AUTHSELECT_PROFILE, r->as_base) < 0) {
                r->as_record = NULL;
                return run_oom(r);
        }
        return 0;
}

/* Is a command on PATH (as posix_spawnp() would find it)? */
static bool on_path(const char *name) {
        const char *path = getenv("PATH");
        if (!path)
                path = "/usr/local/bin:/usr/bin:/bin";
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, ":");
                char buf[PATH_MAX];
                if (n > 0 && snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, name) < (int)sizeof buf &&
                    access(buf, X_OK) == 0)
                        return true;
                p += n + (p[n] == ':');
        }
        return false;
}

/* The first line of t whose jump count keep_jumps() rewrote: its line number in the file as
 * read, 0 when none. */
static unsigned changed_jump_line(const struct target *t) {
        for (size_t i = 0; i < t->f.n; i++)
                if (t->f.v[i].jump_kept)
                        return t->f.v[i].lineno;
        return 0;
}

/* enable, the profile's files: the module's line after pam_limits in system-auth and
 * password-auth of custom/rdmalimit (r->profilefd), behind the feature.  A jump that crosses
 * the line is refused: its count would be right either with the feature or without it, and
 * authselect renders the file both ways (select without it, disable-feature, the package's
 * removal). */
static void plan_profile_files(struct run *r) {
        static const char *const files[] = { "system-auth", "password-auth" };
        int jumps;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                struct target *t = target_load(r, r->profilefd, AUTHSELECT_PROFILE_DIR, files[i], true);
                if (!t)
                        continue;
                int k = pam_file_mark_after_limits(&t->f);
                if (k == 0 && keep_jumps(r, t, files[i], &jumps) < 0)
                        continue;
                if (k == 0 && jumps > 0) {
                        run_error(r, "%s:%u: this jump crosses the line pam_rdmalimit gets behind the feature %s: no "
                                  "count lands where it did both with the feature and without it (authselect renders "
                                  "the file both ways); change the jump by hand",
                                  t->display, changed_jump_line(t), PAMEDIT_FEATURE);
                        target_drop_last(r);
                        continue;
                }
                if (k == -ENOENT)
                        run_error(r, "%s: no session pam_limits line to follow", t->display);
                else if (k < 0)
                        run_oom(r);
                else if (k == 0 && target_render(r, t) > 0)
                        snprintf(t->note, sizeof t->note, "pam_rdmalimit after pam_limits in the authselect profile, "
                                 "behind its feature %s", PAMEDIT_FEATURE);
                else
                        target_drop_last(r);
        }
}

/* The authselect side of enable: the custom profile custom/rdmalimit (made from the selected
 * profile when it does not exist) with the module after pam_limits in system-auth and
 * password-auth behind the feature with-rdmalimit, the profile selected before recorded in it,
 * then `authselect select custom/rdmalimit FEATURES with-rdmalimit --force`. */
static void plan_authselect(struct run *r) {
        const struct ctx *c = r->c;
        int k = authselect_current(r);

        if (k == -EBADMSG)
                return;
        if (k < 0) {
                run_error(r, "%s: %s; authselect has no profile selected here: select one first "
                          "(e.g. 'authselect select sssd'), then run rdmalimits enable again",
                          shown(c, AUTHSELECT_CONF), k == -ENODATA ? "empty" : fs_strerror(k));
                return;
        }
        bool selected = streq(r->as_base, AUTHSELECT_PROFILE);
        bool featured = strv_contains(r->as_feat.v, PAMEDIT_FEATURE);
        k = fs_open_dir_in_root(c->root, AUTHSELECT_PROFILE_DIR, FS_DIR_NOFOLLOW, &r->profilefd);
        if (k < 0 && k != -ENOENT) {
                run_error(r, "%s: %s", shown(c, AUTHSELECT_PROFILE_DIR), fs_strerror(k));
                return;
        }
        if (k == -ENOENT) {
                if (selected) {
                        run_error(r, "authselect: profile %s is selected but %s does not exist",
                                  AUTHSELECT_PROFILE, shown(c, AUTHSELECT_PROFILE_DIR));
                        return;
                }
                if (add_cmd(r, "%sauthselect create-profile rdmalimit -b %s", r->chroot, r->as_base) < 0)
                        return;
                r->pending = true;
                if (r->as_tool) {
                        /* run here: the new profile is then edited as an existing one, and selected */
                        r->as_create = true;
                        snprintf(r->as_note, sizeof r->as_note, "it puts pam_rdmalimit after pam_limits in the new "
                                 "profile's system-auth and password-auth (behind its feature %s) and records the "
                                 "profile selected before (%s)", PAMEDIT_FEATURE, r->as_base);
                        add_select(r, AUTHSELECT_PROFILE, true);
                } else if (fs_root_is_set(c->root))
                        add_cmd(r, "rdmalimits --root %s enable", c->root);
                else
                        add_cmd(r, "rdmalimits enable");
                return;
        }
        if (authselect_read_record(r) < 0)
                return;
        if (!selected && r->as_previous[0] && !streq(r->as_previous, r->as_base)) {
                run_error(r, "%s was made from the profile %s, but %s is selected: remove that directory "
                          "(rdmalimits enable then makes it again from %s) or select %s first (nothing written)",
                          shown(c, AUTHSELECT_PROFILE_DIR), r->as_previous, r->as_base, r->as_base, r->as_previous);
                return;
        }
        size_t before = r->nt;
        plan_profile_files(r);
        if (r->errors)
                return;
        bool edited = r->nt > before;
        if (!selected && plan_record(r) < 0)
                return;
        if (selected && featured && !edited && stack_has(c->root, "system-auth", "pam_rdmalimit") &&
            stack_has(c->root, "password-auth", "pam_rdmalimit")) {
                if (!c->quiet && !c->json)
                        printf("authselect: unchanged: profile %s selected with %s, pam_rdmalimit after pam_limits\n",
                               AUTHSELECT_PROFILE, PAMEDIT_FEATURE);
                return;
        }
        add_select(r, AUTHSELECT_PROFILE, true);
}

/* The authselect side of disable: custom/rdmalimit selected goes back to the profile recorded
 * when enable selected it, with the features selected now but ours. */
static void plan_authselect_disable(struct run *r) {
        const struct ctx *c = r->c;
        int k = authselect_current(r);

        if (k == -EBADMSG)
                return;
        if (k < 0 || !streq(r->as_base, AUTHSELECT_PROFILE)) {
                if (stack_has(c->root, "system-auth", "pam_rdmalimit") || stack_has(c->root, "password-auth", "pam_rdmalimit"))
                        run_error(r, "system-auth or password-auth runs pam_rdmalimit, but the authselect profile "
                                  "selected is %s, not %s: rdmalimits enable did not put it there; take it out of "
                                  "that profile by hand (nothing written)", k < 0 ? "none" : r->as_base, AUTHSELECT_PROFILE);
                return;
        }
        k = fs_open_dir_in_root(c->root, AUTHSELECT_PROFILE_DIR, FS_DIR_NOFOLLOW, &r->profilefd);
        if (k >= 0)
                k = authselect_read_record(r);
        if (k == -EBADMSG)
                return;
        if (k < 0 || !r->as_previous[0]) {
                run_error(r, "%s: %s; rdmalimits cannot tell which authselect profile was selected before "
                          "%s: select it yourself ('authselect select PROFILE FEATURES --force'; nothing written)",
                          shown(c, RECORD_PATH), k < 0 ? fs_strerror(k) : "no record",
                          AUTHSELECT_PROFILE);
                return;
        }
        add_select(r, r->as_previous, false);
}

static void plan_pau(struct run *r) {
        const struct ctx *c = r->c;
        struct stat st;

        if (stack_has(c->root, "common-session", "pam_rdmalimit")) {
                if (!c->quiet && !c->json)
                        printf("%s/common-session: unchanged: pam_rdmalimit is enabled there (pam-auth-update)\n",
                               shown(c, PAM_DIR));
                return;
        }
        if (fs_stat_in_root(c->root, PAM_CONFIGS_PROFILE, false, &st) < 0 || !S_ISREG(st.st_mode)) {
                run_error(r, "%s is not installed: pam-auth-update enables the module in "
                          "common-session through that profile ('make install' or the package "
                          "installs it; the source is conf/pam-configs/rdmalimit)",
                          shown(c, PAM_CONFIGS_PROFILE));
                return;
        }
        if (add_cmd(r, "%spam-auth-update --enable rdmalimit", r->chroot) < 0)
                return;
        r->run_pau = true;
        r->pending = true;
}

/* The name of t's backup, in its directory (t->name has been checked to leave room). */
static const char *backup_name(const struct target *t, char buf[static 256]) {
        snprintf(buf, 256, "%s%s", t->name, PAMEDIT_BACKUP_SUFFIX);
        return buf;
}

/* dirfd/name as it is now into *p (no data when there is none), to be put back if the commit
 * fails after replacing it.  A link, a file of another kind or one that cannot be read is
 * refused (said, counted): 0 or -1. */
static int prior_read(struct run *r, int dirfd, const char *name, const char *display, struct prior *p) {
        _cleanup_close_ int fd = -1;
        struct stat st;
        int k = fs_open_config(dirfd, name, false, true, &fd, &st);

        free(p->data);
        *p = (struct prior){};
        if (k == -ENOENT)
                return 0;
        if (k >= 0)
                k = fs_read_all(fd, 1024 * 1024, &p->data, &p->len);
        if (k < 0) {
                run_error(r, "%s: %s; rdmalimits would replace it and could not put it back if the edit failed "
                          "(remove it; nothing written)", display, k == -ELOOP ? "a symbolic link" : fs_strerror(k));
                return -1;
        }
        p->mode = st.st_mode & 07777;
        return 0;
}

/* Can the directory of the file shown as display (its descriptor dirfd) be written?  Said and
 * counted when not: 0 or -1. */
static int dir_writable(struct run *r, int dirfd, const char *display) {
        const char *slash = strrchr(display, '/');
        if (faccessat(dirfd, ".", W_OK, 0) == 0)
                return 0;
        run_error(r, "%.*s: %s; rdmalimits cannot write there (nothing written)",
                  (int)(slash ? slash - display : (ptrdiff_t)strlen(display)), display, errno_text(-errno));
        return -1;
}

/*
 * Before the first write, what can be known of every write the commit makes (targets from
 * from on, the record): each name and its backup's fit fs_write_atomic() (FS_WRITE_NAME_MAX),
 * each directory is writable, and each backup and the record are held as they are now, to be
 * put back if a later write fails.  Problems are said and counted in r->errors.
 */
static void plan_writes(struct run *r, size_t from) {
        const size_t suffix = strlen(PAMEDIT_BACKUP_SUFFIX);
        int dir = -1;

        for (size_t i = from; i < r->nt; i++) {
                struct target *t = &r->t[i];
                _cleanup_free_ char *shown_bak = NULL;
                char bak[256];
                if (!t->text)
                        continue;
                if (strlen(t->name) + suffix > FS_WRITE_NAME_MAX) {
                        run_error(r, "%s: its name is too long for its backup %s%s (%zu bytes, rdmalimits writes names "
                                  "of at most %d): rename it or edit it by hand (nothing written)", t->display, t->display,
                                  PAMEDIT_BACKUP_SUFFIX, strlen(t->name) + suffix, FS_WRITE_NAME_MAX);
                        continue;
                }
                if (t->dirfd != dir && dir_writable(r, t->dirfd, t->display) < 0)
                        return;
                dir = t->dirfd;
                backup_name(t, bak);
                if (asprintf(&shown_bak, "%s%s", t->display, PAMEDIT_BACKUP_SUFFIX) < 0) {
                        run_oom(r);
                        return;
                }
                prior_read(r, t->dirfd, bak, shown_bak, &t->bak);
        }
        if (!r->as_record || r->profilefd < 0)
                return;
        if (r->profilefd != dir && dir_writable(r, r->profilefd, shown(r->c, RECORD_PATH)) < 0)
                return;
        prior_read(r, r->profilefd, AUTHSELECT_RECORD, shown(r->c, RECORD_PATH), &r->record);
}

/* Put dirfd/name back as p holds it (removed when there was none).  0 (also when only the
 * directory could not be synced: the bytes are back) or a negative errno. */
static int prior_restore(int dirfd, const char *name, const struct prior *p) {
        int k = p->data ? fs_write_atomic(dirfd, name, p->data, p->len, p->mode) : fs_unlink_sync(dirfd, name);
        return k == FS_ERR_DIRSYNC || k == -ENOENT ? 0 : k;
}

/* One target: its backup first (the old bytes as they were, so that the backup is exact; a
 * failed directory sync of the backup alone does not stop the edit), then the file.  0 or a
 * reported negative errno; t->bak.replaced and t->written say what was written. */
static int commit_one(struct target *t) {
        char bak[256];
        backup_name(t, bak);
        int k = fs_write_atomic(t->dirfd, bak, t->old, t->old_len, t->mode);
        t->bak.replaced = k == 0 || k == FS_ERR_DIRSYNC;
        if (!t->bak.replaced) {
                log_error("%s%s: cannot write the backup: %s; %s is unchanged", t->display, PAMEDIT_BACKUP_SUFFIX,
                          errno_text(k), t->display);
                return k;
        }
        k = managed_write(t->dirfd, t->name, t->display, t->text, t->mode);
        t->written = k == 0 || k == FS_ERR_DIRSYNC;   /* replaced, though not synced */
        return k;
}

/*
 * A write of the commit failed: every file it replaced (targets from from on, their backups,
 * the record) goes back as it was, the last first.  A target put back, or never written, is
 * no change any more (its text and note are dropped, so no output claims it); one that cannot
 * be put back is said, with where its old text is.  0 when nothing this commit wrote is left
 * changed, else -1 (said).
 */
static int undo_commit(struct run *r, size_t from) {
        unsigned left = 0;
        int k;

        if (r->record.replaced && (k = prior_restore(r->profilefd, AUTHSELECT_RECORD, &r->record)) < 0) {
                log_error("%s: cannot put it back as it was: %s", shown(r->c, RECORD_PATH), errno_text(k));
                left++;
        } else {
                r->record.replaced = false;
                free(r->as_record);
                r->as_record = NULL;
        }
        for (size_t i = r->nt; i-- > from;) {
                struct target *t = &r->t[i];
                char bak[256];
                backup_name(t, bak);
                if (t->written && (k = fs_write_atomic(t->dirfd, t->name, t->old, t->old_len, t->mode)) < 0 &&
                    k != FS_ERR_DIRSYNC) {
                        log_error("%s: cannot put it back as it was: %s; it keeps the new text, the old one is in "
                                  "%s%s", t->display, errno_text(k), t->display, PAMEDIT_BACKUP_SUFFIX);
                        left++;
                        continue;       /* its backup holds the old text: kept */
                }
                if (t->written)
                        log_error("%s: put back as it was", t->display);
                t->written = false;
                if (t->bak.replaced && (k = prior_restore(t->dirfd, bak, &t->bak)) < 0) {
                        log_error("%s%s: cannot put it back as it was: %s", t->display, PAMEDIT_BACKUP_SUFFIX,
                                  errno_text(k));
                        left++;
                } else
                        t->bak.replaced = false;
                free(t->text);
                t->text = NULL;
                t->note[0] = '\0';
        }
        if (left)
                log_error("%u file%s left changed", left, left == 1 ? "" : "s");
        return left ? -1 : 0;
}

/* Write every changed target from from on, then the record; when a write fails, put back what
 * this commit wrote (undo_commit()).  0 or a reported negative errno. */
static int commit_targets(struct run *r, size_t from) {
        int k = 0;
        for (size_t i = from; i < r->nt && k == 0; i++)
                if (r->t[i].text)
                        k = commit_one(&r->t[i]);
        if (k == 0 && r->as_record && r->profilefd >= 0) {
                k = managed_write(r->profilefd, AUTHSELECT_RECORD, shown(r->c, RECORD_PATH), r->as_record, 0644);
                r->record.replaced = k == 0 || k == FS_ERR_DIRSYNC;
        }
        if (k < 0 && undo_commit(r, from) == 0 && from == 0)
                log_error("nothing changed");
        return k;
}

/* "FILE: VERB NOTE" of a target, its file name and note through the one escaper (a tree's
 * file names and lines are anybody's bytes) */
static void print_target(const struct target *t, const char *verb) {
        char d[4096], n[4096];
        printf("%s: %s%s\n", str_escape(t->display, d, sizeof d), verb, str_escape(t->note, n, sizeof n));
}

/* Run a command of authselect, say so; 0, or CMD_FINDINGS (said). */
static int run_authselect_cmd(struct run *r, char *const argv[], bool *ran) {
        _cleanup_free_ char *line = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&line, &len);
        if (!f)
                return log_oom();
        for (size_t i = 0; argv[i]; i++)
                fprintf(f, "%s%s", i ? " " : "", argv[i]);
        if (fclose(f) != 0 || !line)
                return log_oom();
        int k = run_wait(argv);
        *ran = true;
        if (!r->c->quiet && !r->c->json)
                printf("ran: %s (status %d)\n", line, k);
        if (k != 0) {
                log_error("%s failed (%s %d)", line, k < 0 ? "error" : "status", k < 0 ? -k : k);
                return CMD_FINDINGS;
        }
        return 0;
}

/* enable: create-profile (then the new profile's files edited and the record written, as for a
 * profile that exists), select; disable: select the profile selected before. */
static int run_authselect(struct run *r, bool *ran) {
        int k;
        if (r->as_create) {
                char *argv[] = { "authselect", "create-profile", "rdmalimit", "-b", r->as_base, NULL };
                if ((k = run_authselect_cmd(r, argv, ran)))
                        return k;
                /* the new profile: planned as one that exists (the commands are those planned) */
                size_t before = r->nt, ncmds = r->cmds.n;
                r->as_create = false;
                closep(&r->profilefd);
                plan_authselect(r);
                strv_truncate(&r->cmds, ncmds);
                plan_writes(r, before);
                if (r->errors || r->as_create) {
                        log_error("%s was made but not selected: %u problem%s with it", shown(r->c, AUTHSELECT_PROFILE_DIR),
                                  r->errors, r->errors == 1 ? "" : "s");
                        return CMD_FINDINGS;
                }
                if ((k = commit_targets(r, before)))
                        return k;
        }
        if (r->as_argv.n == 0)
                return 0;
        return run_authselect_cmd(r, r->as_argv.v, ran);
}

/* Run the mechanism's commands where that is possible.  0, or CMD_FINDINGS. */
static int run_mechanisms(struct run *r, bool *ran) {
        int k;
        *ran = false;
        if (!isatty(STDIN_FILENO))
                setenv("DEBIAN_FRONTEND", "noninteractive", 0);
        if (r->run_pau) {
                char *argv[] = { "pam-auth-update", "--enable", "rdmalimit", NULL };
                k = run_wait(argv);
                if (k == -ENOENT)
                        return 0;
                *ran = true;
                if (!r->c->quiet && !r->c->json)
                        printf("ran: pam-auth-update --enable rdmalimit (status %d)\n", k);
                if (k != 0) {
                        log_error("pam-auth-update --enable rdmalimit failed (%s %d)", k < 0 ? "error" : "status",
                                  k < 0 ? -k : k);
                        return CMD_FINDINGS;
                }
        }
        if (r->as_tool && (r->as_create || r->as_argv.n > 0))
                return run_authselect(r, ran);
        return 0;
}

/* What the record says, for the output. */
static const char *record_note(const struct run *r, char *buf, size_t size) {
        snprintf(buf, size, "the profile selected before %s: %s", AUTHSELECT_PROFILE, r->as_base);
        return buf;
}

static void print_json(const struct run *r, bool changed, const char *diff, bool ran) {
        struct json j;
        json_doc_begin(&j);
        json_kbool(&j, "changed", changed);
        json_karr_begin(&j, "files");
        for (size_t i = 0; i < r->nt; i++)
                if (r->t[i].text) {
                        json_obj_begin(&j);
                        json_kstr(&j, "file", r->t[i].display);
                        json_kstr(&j, "change", r->t[i].note);
                        json_obj_end(&j);
                }
        if (r->as_record) {
                char note[512];
                json_obj_begin(&j);
                json_kstr(&j, "file", shown(r->c, RECORD_PATH));
                json_kstr(&j, "change", record_note(r, note, sizeof note));
                json_obj_end(&j);
        }
        json_arr_end(&j);
        json_karr_begin(&j, "commands");
        for (size_t i = 0; i < r->cmds.n; i++)
                json_str(&j, r->cmds.v[i]);
        json_arr_end(&j);
        json_kbool(&j, "commands_run", ran);
        json_klines(&j, "diff", diff);
        change_json_end(r->c, &j);
}

/* The services named: every --service, then the arguments (n_named() of them). */
static size_t n_named(const struct ctx *c) {
        return c->n_services + (size_t)c->argc;
}

static const char *named(const struct ctx *c, size_t i) {
        return i < c->n_services ? c->services[i] : c->argv[i - c->n_services];
}

/* The service names given are file names in pam.d. 0 or CMD_USAGE. */
static int check_service_names(const struct ctx *c) {
        for (size_t i = 0; i < n_named(c); i++)
                if (!valid_name(named(c, i))) {
                        log_error("%s'%s': not a PAM service name (a file name in %s)", i < c->n_services ? "--service " : "",
                                  named(c, i), PAM_DIR);
                        return CMD_USAGE;
                }
        return 0;
}

/* Every service of pam.d that needs it; the distribution's shared stacks: enable goes through
 * its tool; disable says how to take the module out of pam-auth-update's, and goes back to the
 * authselect profile selected before enable. */
static int plan_all_services(struct run *r) {
        const struct ctx *c = r->c;
        _cleanup_(strv_clear) struct strv names = {};
        enum pam_manager m;

        int k = list_services(r, &names);
        if (k)
                return k;
        for (size_t i = 0; i < names.n; i++)
                (r->disabling ? plan_disable : plan_enable)(r, names.v[i], false);
        if (pam_service_manager(c->root, "common-session", &m) >= 0 && m == PAM_MANAGER_PAM_AUTH_UPDATE)
                r->need_pau = !r->disabling || stack_has(c->root, "common-session", "pam_rdmalimit");
        /* disable: plan_authselect_disable() decides */
        if ((pam_service_manager(c->root, "system-auth", &m) >= 0 && m == PAM_MANAGER_AUTHSELECT) ||
            (pam_service_manager(c->root, "password-auth", &m) >= 0 && m == PAM_MANAGER_AUTHSELECT))
                r->need_authselect = true;
        return 0;
}

/* What would change: whether anything does, and (for --diff, --json) the diff of every file. */
static int collect_changes(const struct run *r, bool *ret_changed, char **ret_diff) {
        _cleanup_free_ char *diff = NULL;
        bool changed = false;

        for (size_t i = 0; i < r->nt; i++) {
                const struct target *t = &r->t[i];
                if (!t->text)
                        continue;
                changed = true;
                if (r->c->diff || r->c->json) {
                        _cleanup_free_ char *d = unified_diff_string(t->display, t->old, t->display, t->text);
                        char *nd = NULL;
                        if (!d || asprintf(&nd, "%s%s", diff ? diff : "", d) < 0)
                                return log_oom();
                        free(diff);
                        diff = nd;
                }
        }
        if (r->as_record) {
                changed = true;
                if (r->c->diff || r->c->json) {
                        const char *f = shown(r->c, RECORD_PATH);
                        _cleanup_free_ char *d = unified_diff_string(f, "", f, r->as_record);
                        char *nd = NULL;
                        if (!d || asprintf(&nd, "%s%s", diff ? diff : "", d) < 0)
                                return log_oom();
                        free(diff);
                        diff = nd;
                }
        }
        *ret_changed = changed;
        *ret_diff = TAKE_PTR(diff);
        return 0;
}

static bool any_target_changed(const struct run *r) {
        for (size_t i = 0; i < r->nt; i++)
                if (r->t[i].text)
                        return true;
        return false;
}

static void print_text(const struct run *r, bool changed, bool ran, bool explicit, const char *pamdir) {
        const struct ctx *c = r->c;
        bool disabling = r->disabling;

        for (size_t i = 0; i < r->nt; i++) {
                const struct target *t = &r->t[i];
                if (t->text)
                        print_target(t, c->check ? (disabling ? "would remove " : "would add ")
                                                 : (disabling ? "removed " : "added "));
                else if (t->note[0])
                        print_target(t, "");
        }
        if (r->as_record) {
                char note[512];
                printf("%s: %s%s\n", shown(c, RECORD_PATH), c->check ? "would record " : "recorded ",
                       record_note(r, note, sizeof note));
        }
        if (changed && !c->check && any_target_changed(r))
                printf("The files as they were: FILE%s next to each.\n", PAMEDIT_BACKUP_SUFFIX);
        if (r->cmds.n > 0 && !ran) {
                printf(c->check ? "It would run:\n"
                                : fs_root_is_set(c->root) ? "To finish, run (under --root rdmalimits runs none of them; "
                                                            "the distribution's tools edit its shared stacks):\n"
                                                          : "To finish, run (the tools were not found):\n");
                for (size_t i = 0; i < r->cmds.n; i++)
                        printf("  %s\n", r->cmds.v[i]);
                if (c->check && r->as_create)
                        printf("Between the two, %s.\n", r->as_note);
        }
        if (!disabling)
                return;
        if (!changed && !explicit && !r->pending)
                printf("%s: no line of rdmalimits enable in any service; nothing to remove\n", pamdir);
        if (r->need_pau)
                printf("common-session is pam-auth-update's: 'pam-auth-update --disable rdmalimit' takes the module "
                       "out of it (rdmalimits disable does not)\n");
}

#ifndef SECUREDIR
#define SECUREDIR "/lib/security"
#endif

/* Before handing the stack to pam-auth-update or authselect: would libpam load the
 * pam_rdmalimit.so their line names, with its session function?  A stack the tool edits itself
 * is walked after the edit (check_module_runs()); theirs is written by them.  0, or -1 after
 * the refusal. */
static int check_module_installed(struct run *r) {
        struct pam_moddirs m;
        enum pam_mod_state st;
        int k;

        if (pam_moddirs_load(&m, r->c->root, SECUREDIR) < 0) {
                run_oom(r);
                return -1;
        }
        k = pam_module_state(&m, r->c->root, "pam_rdmalimit.so", pam_phase_function("session"), &st, NULL);
        pam_moddirs_clear(&m);
        if (k == -ENOMEM) {
                run_oom(r);
                return -1;
        }
        if (k < 0 || !pam_mod_unknown(st))
                return 0;
        run_error(r, "libpam cannot load pam_rdmalimit.so here (%s): the line %s would add would do nothing; "
                  "install pam_rdmalimit first (nothing written)",
                  st == PAM_MOD_NO_FUNCTION ? "it has no pam_sm_open_session" : "it is not in the PAM module directory",
                  r->need_authselect ? "authselect" : "pam-auth-update");
        return -1;
}

/* Plan every edit, refuse them all on any problem, show, write, run the distribution's tools. */
static int enable_disable(const struct ctx *c, bool disabling) {
        _cleanup_(run_done) struct run run = {
                .c = c, .disabling = disabling, .pamfd = -1, .lockfd = -1, .profilefd = -1, .reads = { .ctx = c }
        };
        struct run *r = &run;
        const char *pamdir = shown(c, PAM_DIR);
        _cleanup_free_ char *diff = NULL;
        bool explicit = n_named(c) > 0, changed = false, ran = false;
        int k;

        if (fs_root_is_set(c->root))
                snprintf(r->chroot, sizeof r->chroot, "chroot %s ", c->root);
        k = check_service_names(c);
        if (k == 0)
                k = ctx_open_dir_locked(c, PAM_DIR, 0, pamdir, &r->pamfd, &r->lockfd); /* as apply locks limits.d */
        if (k != 0)
                return k;
        for (size_t i = 0; i < n_named(c); i++)
                (r->disabling ? plan_disable : plan_enable)(r, named(c, i), true);
        if (!explicit && (k = plan_all_services(r)))
                return k;
        r->as_tool = !fs_root_is_set(c->root) && on_path("authselect");
        if (!r->disabling && r->errors == 0 && (r->need_pau || r->need_authselect))
                (void)check_module_installed(r);
        if (!r->disabling && r->errors == 0) {
                if (r->need_pau)
                        plan_pau(r);
                if (r->need_authselect)
                        plan_authselect(r);
        } else if (r->errors == 0 && r->need_authselect)
                plan_authselect_disable(r);
        if (r->errors == 0)
                plan_writes(r, 0);
        if (r->errors) {
                log_error("%u problem%s found; nothing written", r->errors, r->errors == 1 ? "" : "s");
                return CMD_FINDINGS;
        }
        k = collect_changes(r, &changed, &diff);
        if (k < 0)
                return k;
        if (c->diff && diff && !c->json)
                print_lines(stdout, diff);
        if (!c->check) {
                k = commit_targets(r, 0);
                if (k < 0)
                        return k;       /* said, and what was written put back: nothing to report */
                if (!fs_root_is_set(c->root))
                        k = run_mechanisms(r, &ran);
                if (k == 0 && ran && r->run_pau && !r->disabling)
                        k = check_after_pau(r);
                /* the new profile's files were put back if they could not all be written */
                if (k < 0) {
                        free(diff);
                        diff = NULL;
                        if (collect_changes(r, &changed, &diff) < 0)
                                return k;
                }
        }
        if (c->json)
                print_json(r, changed || (r->pending && (ran || c->check)), diff, ran);
        else if (!c->quiet)
                print_text(r, changed, ran, explicit, pamdir);
        if (k == 0 && c->check && (changed || r->pending))
                k = CMD_WOULD_CHANGE;
        return k;
}

int cmd_enable(struct ctx *c) {
        return enable_disable(c, false);
}

int cmd_disable(struct ctx *c) {
        return enable_disable(c, true);
}
