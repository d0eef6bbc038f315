/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rdmalimits doctor [--pid PID] [--unit UNIT]: the checks live in lib/doctor/; this file loads
 * the inputs (limits tree, users, policy) and prints the report.
 *
 * Text: findings grouped by path of entry ("ssh login", ..., "configuration files"), each
 * line prefixed OK / INFO / WARN / FAIL, its fix on the next line, a one-line summary last.
 * A file location follows the message in parentheses; an object ("sshd (pid 123)", a unit)
 * leads the line as its subject.
 * --quiet prints only the FAIL lines.
 *
 * JSON: {"findings": [{"severity", "id", "where", "message", "fix", "group", "ok"}], "errors": N,
 * "warnings": N}.  Checks that passed ARE included, as severity "info" with "ok": true (every
 * other finding has "ok": false), so a consumer sees what was verified, not only what failed;
 * "id" (a stable name of the finding), "where" and "fix" are null when there is none.
 *
 * Exit status: 1 when there is any error, else 0.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "doctor.h"
#include "escape.h"
#include "fsutil.h"
#include "ident.h"
#include "policy.h"
#include "rlimit.h"
#include "session.h"
#include "size.h"
#include "tool.h"

#ifndef SECUREDIR
#define SECUREDIR "/lib/security"
#endif

static const char *prefix(enum diag_severity l) {
        static const char *const names[] = { [DIAG_ERROR] = "FAIL", [DIAG_WARNING] = "WARN", [DIAG_INFO] = "INFO",
                                             [DIAG_OK] = "OK" };
        return (unsigned)l < ELEMENTSOF(names) ? names[l] : "?";
}

/* One finding (as the comment at the top says), every text of it through the one escaper. */
static void print_finding(const struct diag *f) {
        bool subject = f->path && !strchr(f->path, '/');

        printf("  %-4s ", prefix(f->severity));
        if (subject) {
                str_escape_fputs(f->path, stdout);
                fputs(": ", stdout);
        }
        str_escape_fputs(f->message, stdout);
        if (f->path && !subject) {
                fputs(" (", stdout);
                str_escape_fputs(f->path, stdout);
                fputc(')', stdout);
        }
        putchar('\n');
        if (f->fix) {
                fputs("       fix: ", stdout);
                str_escape_fputs(f->fix, stdout);
                putchar('\n');
        }
}

static void print_text(const struct diag_list *rep, bool quiet) {
        bool first = true;
        for (int g = 0; g < _DOCTOR_GROUP_MAX; g++) {
                bool header = false;
                for (size_t i = 0; i < rep->n; i++) {
                        const struct diag *f = &rep->v[i];
                        if ((int)f->group != g || (quiet && f->severity != DIAG_ERROR))
                                continue;
                        if (!header) {
                                printf("%s%s\n", first ? "" : "\n", doctor_group_name(f->group));
                                header = true;
                                first = false;
                        }
                        print_finding(f);
                }
        }
        if (quiet)
                return;
        size_t e = diag_count(rep, DIAG_ERROR), w = diag_count(rep, DIAG_WARNING);
        printf("\n%s: %zu error%s, %zu warning%s, %zu info, %zu ok\n", e ? "FAIL" : w ? "WARN" : "OK", e,
               e == 1 ? "" : "s", w, w == 1 ? "" : "s", diag_count(rep, DIAG_INFO), diag_count(rep, DIAG_OK));
}

static void print_json(const struct diag_list *rep) {
        struct json j;
        json_doc_begin(&j);
        json_karr_begin(&j, "findings");
        for (size_t i = 0; i < rep->n; i++) {
                const struct diag *f = &rep->v[i];
                json_obj_begin(&j);
                json_kstr(&j, "severity", f->severity == DIAG_OK ? "info" : diag_severity_name(f->severity));
                json_kstr(&j, "id", f->id);
                json_kstr(&j, "where", f->path);
                json_kstr(&j, "message", f->message);
                json_kstr(&j, "fix", f->fix);
                json_kstr(&j, "group", doctor_group_name(f->group));
                json_kbool(&j, "ok", f->severity == DIAG_OK);
                json_obj_end(&j);
        }
        json_arr_end(&j);
        json_ku64(&j, "errors", diag_count(rep, DIAG_ERROR));
        json_ku64(&j, "warnings", diag_count(rep, DIAG_WARNING));
        json_doc_end(&j);
}

/* doctor --pid: a new session of user through service, modelled as explain models it. */
static int doctor_session_of(const char *user, const char *service, pid_t service_pid, uint64_t got_soft,
                             uint64_t got_hard, struct doctor_session *ret, void *data) {
        struct ctx c = *(const struct ctx *)data;
        _cleanup_(tool_session_clear) struct tool_session s = {};
        struct session_target t;

        c.service = service;
        c.pid = service_pid;
        c.json = false;
        int r = tool_session_load(&c, user, service_pid, false, &s);
        if (r == -ENOMEM)
                return r;
        if (r)
                return 1;
        session_target(&s.m, s.t, &s.svc, s.service, true, (struct rl_pair){ got_soft, got_hard }, &t);
        *ret = (struct doctor_session){
                .final_known = s.m.final_known && (s.m.kind == LC_SESSION_LIMITS || s.m.kind == LC_SESSION_NO_LIMITS),
                .soft = s.m.final.soft,
                .hard = s.m.final.hard,
                .target_known = t.known,
                .target_soft = t.want.soft,
                .target_hard = t.want.hard,
                .target_has_soft = t.want_soft,
                .target_has_hard = t.want_hard,
                .short_of_target = t.cause != SESSION_SHORT_NONE,
        };
        snprintf(ret->target_from, sizeof ret->target_from, "%s", t.from);
        snprintf(ret->why, sizeof ret->why, "%s", t.why);
        snprintf(ret->fix, sizeof ret->fix, "%s", t.fix);
        return 0;
}

/* UsePAM=1: the PAM session "slurm" slurmstepd opens, as explain --slurm models it. */
static int doctor_slurm_pam(const char *user, const struct slurm_conf *conf, const struct lc_service *sd,
                            struct slurm_pam *ret, bool *ret_used, void *data) {
        return tool_slurm_pam(data, user, conf, sd, ret, ret_used);
}

int cmd_doctor(struct ctx *c) {
        _cleanup_(diag_list_clear) struct diag_list rep = {}, pd = {};
        _cleanup_(lc_tree_freep) struct lc_tree *t = NULL;
        _cleanup_(ident_freep) struct ident *id = NULL;
        _cleanup_(policy_freep) struct policy *p = NULL;
        _cleanup_free_ char *policy_path = NULL, *policy_text = NULL;
        size_t policy_len = 0;
        int r;

        /* only --pid's accounting probes users' processes */
        if ((c->given & OPT_PROBE_TIMEOUT) && !c->pid) {
                log_error("doctor: --probe-timeout applies to --pid (the accounting of its user)");
                return CMD_USAGE;
        }
        /* what each stack line reads, loaded as explain loads it */
        _cleanup_(tool_session_clear) struct tool_session reads = { .ctx = c };
        const struct session_lines lines = tool_session_lines(&reads);
        if (ctx_ident(c, &id) < 0 || ctx_load_tree(c, NULL, &t) < 0)
                return CMD_FINDINGS;
        policy_path = fs_root_path(c->root, c->policy_path);
        r = policy_path ? check_policy_file(c, &pd, &p, &policy_text, &policy_len) : -ENOMEM;
        if (r == -ENOMEM) {
                log_error("out of memory");
                return CMD_FINDINGS;
        }
        struct doctor_input in = {
                .root = c->root,
                .tree = t,
                .id = id,
                .policy = r == 0 ? p : NULL,
                .policy_exists = r != -ENOENT,
                .policy_path = policy_path,
                .policy_name = c->policy_path,
                .policy_text = policy_text,
                .policy_len = policy_len,
                .policy_diags = &pd,
                .lines = &lines,
                .securedir = SECUREDIR,
                .service = c->service,
                .unit = c->unit,
                .pid = c->pid,
                .probe_timeout = c->probe_timeout,
                .hw_cache_given = c->given & OPT_CACHE,
                .hw_cache = c->cache,
                .slurm_conf = c->slurm_conf,
                .session_of = c->pid && !c->root ? doctor_session_of : NULL,
                .session_data = c,
                .slurm_pam_of = doctor_slurm_pam,
        };
        r = doctor_run(&in, &rep);
        if (r < 0) {
                log_error("doctor: %s", errno_text(r));
                return CMD_FINDINGS;
        }
        if (c->json)
                print_json(&rep);
        else
                print_text(&rep, c->quiet);
        return diag_count(&rep, DIAG_ERROR) ? CMD_FINDINGS : 0;
}
