/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/*
 * For the unit tests that link fault.c: what a program exec()ed now would inherit, and a
 * call made with descriptor 0 free.
 *
 * fd_inherited() forks and execs this test program again (/proc/self/exe) with
 * FDCHECK_LIST set: its constructor lists the descriptors above 2 it was given and exits
 * before main().  A descriptor opened without O_CLOEXEC shows up there.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((constructor)) static void fdcheck_child(void) {
        const char *out = getenv("FDCHECK_LIST");
        if (!out)
                return;
        int pfd = atoi(out);
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        if (!d)
                _exit(2);
        while ((de = readdir(d))) {
                int fd = atoi(de->d_name);
                if (de->d_name[0] == '.' || fd <= 2 || fd == pfd || fd == dirfd(d))
                        continue;
                dprintf(pfd, "%d ", fd);
        }
        _exit(0);
}

/* The descriptors above 2 an exec()ed program gets now: "3 7 " or "" (in buf). */
static inline const char *fd_inherited(char *buf, size_t size) {
        int p[2];
        char env[32];
        if (pipe2(p, 0) < 0)
                abort();
        snprintf(env, sizeof env, "FDCHECK_LIST=%d", p[1]);
        pid_t pid = fork();
        if (pid == 0) {
                char *const argv[] = { (char *)"fdcheck", NULL }, *const envp[] = { env, NULL };
                close(p[0]);
                execve("/proc/self/exe", argv, envp);
                _exit(3);
        }
        close(p[1]);
        size_t n = 0;
        ssize_t k;
        while (n + 1 < size && (k = read(p[0], buf + n, size - 1 - n)) > 0)
                n += (size_t)k;
        buf[n] = '\0';
        close(p[0]);
        int st;
        if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                abort();
        return buf;
}

/* stdin moved away (descriptor 0 free) and back */
static int fdcheck_saved_stdin = -1;
static inline void fd0_free(void) {
        fdcheck_saved_stdin = fcntl(0, F_DUPFD_CLOEXEC, 3);
        close(0);
}
static inline void fd0_restore(void) {
        if (fdcheck_saved_stdin >= 0) {
                dup2(fdcheck_saved_stdin, 0);
                close(fdcheck_saved_stdin);
                fdcheck_saved_stdin = -1;
        }
}
