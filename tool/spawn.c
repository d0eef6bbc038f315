/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running another program (systemctl daemon-reload, ssh): posix_spawnp() and its exit status.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dropin.h"
#include "escape.h"
#include "fsutil.h"
#include "hwcache.h"
#include "ident.h"
#include "size.h"
#include "tool.h"

extern char **environ;

int run_wait(char *const argv[]) {
        pid_t pid;
        int st, k = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
        if (k != 0)
                return -k;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return negative_errno();
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}
