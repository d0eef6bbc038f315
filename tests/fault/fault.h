/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/*
 * fault.c linked into a test program (not preloaded): the program arms one fault at a time
 * itself, around the call it tests.  While armed the FAULT_* variables are not read.
 *
 *   fault_arm("open", "*.conf", 2, EIO)   the 2nd openat of a file matching *.conf fails
 *   fault_arm("alloc", NULL, 3, ENOMEM)   the 3rd malloc/calloc/realloc returns NULL (with
 *                                         FAULT_ALLOC defined when fault.c is compiled)
 *   fault_arm(call, NULL, n, 0)           no failure: only fault_hook()'s function is called
 *
 * The calls: those of fault.c's header, and fstat, fstatat, mkdirat, readlinkat, opendir,
 * fdopendir, fdopen, fopen, access, clock_gettime, sysinfo, dlopen, vasprintf, getrandom, openat2 (syscall(SYS_openat2, ...)),
 * socket, bind, sendto, recvmsg, recvfrom, poll, getrlimit, setrlimit, getpwnam_r, getpwuid_r, getgrnam_r,
 * getgrgid_r (these return the error number, errno untouched, as POSIX allows).  nth "0" with from set: every matching call.
 */
#include <stdbool.h>
#include <stddef.h>

void fault_arm(const char *call, const char *path_pattern, unsigned long nth, int err);
/* every matching call from the nth on (nth >= 1) */
void fault_arm_from(const char *call, const char *path_pattern, unsigned long nth, int err);
/* the first count matching calls */
void fault_arm_first(const char *call, const char *path_pattern, unsigned long count, int err);
void fault_disarm(void);
/* How many faults were injected (or hooks called) since fault_arm(). */
unsigned long fault_injected(void);
/* fn is called at each selected call, before it is made (or failed); NULL for none. */
void fault_hook(void (*fn)(void));
/* open, openat, fstatat and fopen of path, or of a path under it, go under to instead, until
 * fault_redirect(NULL, NULL): a canned /proc file, a fake sysfs directory. */
void fault_redirect(const char *path, const char *to);
/*
 * A fake netlink bus for proto (NETLINK_GENERIC...): the sockets opened on it after this call
 * talk to fn instead of the kernel.  fn gets each request sent and queues the kernel's answer
 * with fault_netlink_reply(), one datagram a call (at most 64 queued, 32 KiB each: -1 when
 * full); the program reads them as sent by the kernel.  When the program reads with nothing
 * queued, fn is called with req NULL: it may queue more (a long dump).  The socket's port id
 * is FAULT_NL_PORTID.  fault_netlink(-1, NULL, NULL) ends it.
 */
#define FAULT_NL_PORTID 4242u
typedef void (*fault_nl_fn)(const void *req, size_t len, void *data);
void fault_netlink(int proto, fault_nl_fn fn, void *data);
int fault_netlink_reply(const void *buf, size_t len);
/* sysinfo() answers *si (its totalram and mem_unit: a machine's RAM the test chooses) until
 * fault_sysinfo(NULL). */
struct sysinfo;
void fault_sysinfo(const struct sysinfo *si);
/* Whether the allocators are interposed (not in a sanitizer build: ASan has its own). */
bool fault_alloc_supported(void);
