/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fault.so: an LD_PRELOAD shim that makes the Nth call of one file-system function fail.
 *
 *   FAULT_CALL   write | fsync | rename (= renameat) | open (= openat) | fchmod | flock |
 *                unlinkat | close | read | mkdir
 *   FAULT_NTH    which matching call fails, 1-based (default 1); "N+" fails it and every
 *                later matching call
 *   FAULT_ERRNO  EIO, ENOSPC, EACCES, EPERM, EROFS, EDQUOT, ENOLCK, EINTR, EAGAIN, EBADF or a
 *                number (default EIO)
 *   FAULT_PATH   optional fnmatch(3) pattern on the base name of the file concerned: the path
 *                argument (for rename: either name), or for calls on a descriptor the file it
 *                refers to (/proc/self/fd/N); only calls on matching files are counted
 *   FAULT_LOG    optional file: one line is appended for every injected fault, so a test can
 *                tell that the fault really happened
 *   FAULT_MODE   "before" (default): the call fails without being made; "after": the call is
 *                made, then reported as failed (e.g. mkdir that lost a race: the directory
 *                exists, errno EEXIST); a descriptor opened that way is closed again
 *
 * Only direct calls from the program are seen (stdio's internal writes are not).  A failed
 * close() closes the descriptor anyway, as Linux does.  Without FAULT_CALL the shim only
 * passes calls through.
 *
 * Linked into a test program instead, the program arms the faults itself (fault.h): then
 * fstat, fstatat, mkdirat, readlinkat, opendir, fdopendir, fdopen, fopen, access,
 * clock_gettime, sysinfo, dlopen, vasprintf, getrandom, openat2, socket, bind, sendto, recvfrom, recvmsg, poll, getrlimit, setrlimit
 * and getpwnam_r, getpwuid_r, getgrnam_r, getgrgid_r (the error number returned, errno untouched) can
 * fail too (and fopen, open, openat and fstatat can be sent elsewhere: fault_redirect()), and with
 * FAULT_ALLOC defined malloc, calloc and realloc ("alloc": strdup, asprintf, getline and the
 * rest of libc allocate through them).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"

/* a function the sanitizers leave alone (see getrlimit, syscall) */
#if defined(__SANITIZE_ADDRESS__) || defined(__has_feature)
#define NO_ASAN __attribute__((no_sanitize("address", "undefined")))
#else
#define NO_ASAN
#endif

#define EXPORT __attribute__((visibility("default")))

static unsigned long counter;

/* fault_arm()'s fault: while armed, the FAULT_* variables are not read */
static struct {
        bool armed, from;
        char call[16], path[256];
        unsigned long nth, until, injected;
        int err;
        void (*hook)(void);
        int in_hook;
} ctl;

static const struct {
        const char *name;
        int value;
} errnos[] = {
        { "EIO", EIO },       { "ENOSPC", ENOSPC }, { "EACCES", EACCES }, { "EPERM", EPERM },
        { "EROFS", EROFS },   { "EDQUOT", EDQUOT }, { "ENOLCK", ENOLCK }, { "EINTR", EINTR },
        { "EAGAIN", EAGAIN }, { "EBADF", EBADF },   { "EEXIST", EEXIST }, { "ENOENT", ENOENT },
};

static int fault_errno(void) {
        const char *e = getenv("FAULT_ERRNO");

        if (!e || !*e)
                return EIO;
        for (size_t i = 0; i < sizeof errnos / sizeof errnos[0]; i++)
                if (strcmp(e, errnos[i].name) == 0)
                        return errnos[i].value;
        int v = atoi(e);
        return v > 0 ? v : EIO;
}

static bool call_selected(const char *call) {
        const char *c = ctl.armed ? ctl.call : getenv("FAULT_CALL");

        if (ctl.in_hook)
                return false;

        if (!c)
                return false;
        if (strcmp(c, "openat") == 0)
                c = "open";
        else if (strcmp(c, "renameat") == 0)
                c = "rename";
        return strcmp(c, call) == 0;
}

static const char *path_pattern(void) {
        return ctl.armed ? ctl.path : getenv("FAULT_PATH");
}

static bool path_matches(const char *path) {
        const char *pat = path_pattern();
        const char *base;

        if (!pat || !*pat)
                return true;
        if (!path)
                return false;
        base = strrchr(path, '/');
        base = base && base[1] ? base + 1 : path;
        return fnmatch(pat, base, 0) == 0;
}

static bool fd_matches(int fd) {
        char link[64], target[4096];
        ssize_t n;

        if (!path_pattern() || !*path_pattern())
                return true;
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        n = readlink(link, target, sizeof target - 1);
        if (n < 0)
                return false;
        target[n] = '\0';
        return path_matches(target);
}

/* Count this call; the errno to fail it with, or 0. */
static int should_fail(const char *call, const char *what) {
        const char *nth = getenv("FAULT_NTH"), *log = getenv("FAULT_LOG");
        unsigned long want = 1;
        bool from = false;
        char *end;

        if (ctl.armed) {
                want = ctl.nth;
                from = ctl.from;
                log = NULL;
        } else if (nth && *nth) {
                want = strtoul(nth, &end, 10);
                from = *end == '+';
        }
        counter++;
        if (!(counter == want || (from && counter > want)))
                return 0;
        if (ctl.armed && ctl.until && counter > ctl.until)
                return 0;
        if (ctl.armed) {
                ctl.injected++;
                if (ctl.hook) {
                        int saved = errno;
                        ctl.in_hook++;
                        ctl.hook();
                        ctl.in_hook--;
                        errno = saved;
                }
                return ctl.err;
        }
        int e = fault_errno();
        if (log && *log) {
                int saved = errno;
                FILE *f = fopen(log, "ae");
                if (f) {
                        fprintf(f, "fault: %s #%lu (%s): %s\n", call, counter, what ? what : "", strerror(e));
                        fclose(f);
                }
                errno = saved;
        }
        return e;
}

static bool after_mode(void) {
        const char *m = ctl.armed ? NULL : getenv("FAULT_MODE");
        return m && strcmp(m, "after") == 0;
}

/* The call's fault: 0 for none. */
#define FAULT(cond, call, what) ((cond) ? should_fail((call), (what)) : 0)

/*
 * The rest of a wrapper once e, the call's fault, is known: in "before" mode a faulted call is
 * not made; in "after" mode it is made, then reported as failed, and a descriptor it opened
 * (close_fd) is closed again.
 */
#define FINISH(e, type, close_fd, real_call)                              \
        do {                                                              \
                if ((e) && !after_mode()) {                               \
                        errno = (e);                                      \
                        return -1;                                        \
                }                                                         \
                type ret_ = (real_call);                                  \
                if (e) {                                                  \
                        if ((close_fd) && ret_ >= 0)                      \
                                real_close_fd((int)ret_);                 \
                        errno = (e);                                      \
                        return -1;                                        \
                }                                                         \
                return ret_;                                              \
        } while (0)

/* real_NAME: libc's NAME, of the type of its declaration */
#define REAL(name)                                                        \
        static __typeof__(name) *real_##name;                             \
        if (!real_##name)                                                 \
                real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name);

static void real_close_fd(int fd) {
        REAL(close);
        int saved = errno;
        real_close(fd);
        errno = saved;
}

/* fault_redirect() (in a test program): a path under one prefix is opened under another, by
 * open, openat and fopen (a canned /proc file, a fake /sys/class/infiniband) */
static char redirect_from[256], redirect_to[4096];

EXPORT void fault_redirect(const char *path, const char *to) {
        snprintf(redirect_from, sizeof redirect_from, "%s", path ? path : "");
        snprintf(redirect_to, sizeof redirect_to, "%s", to ? to : "");
}

/* path, or (in buf) with the prefix redirect_from replaced by redirect_to */
static const char *redirected(const char *path, char *buf, size_t size) {
        size_t n = strlen(redirect_from);
        if (!n || !path || strncmp(path, redirect_from, n) != 0 || (path[n] && path[n] != '/'))
                return path;
        snprintf(buf, size, "%s%s", redirect_to, path + n);
        return buf;
}

/* open, open64, openat, openat64: the mode is there only with O_CREAT or O_TMPFILE */
#define OPEN_WRAPPER(name, params, args)                                  \
        EXPORT int name params {                                          \
                mode_t mode = 0;                                          \
                char buf[4096];                                           \
                const char *path = redirected(asked, buf, sizeof buf);    \
                if (flags & (O_CREAT | O_TMPFILE)) {                      \
                        va_list ap;                                       \
                        va_start(ap, flags);                              \
                        mode = va_arg(ap, mode_t);                        \
                        va_end(ap);                                       \
                }                                                         \
                REAL(name);                                               \
                int e = FAULT(call_selected("open") && path_matches(path), "open", path); \
                FINISH(e, int, true, real_##name args);                   \
        }

OPEN_WRAPPER(open, (const char *asked, int flags, ...), (path, flags, mode))
OPEN_WRAPPER(open64, (const char *asked, int flags, ...), (path, flags, mode))
OPEN_WRAPPER(openat, (int dirfd, const char *asked, int flags, ...), (dirfd, path, flags, mode))
OPEN_WRAPPER(openat64, (int dirfd, const char *asked, int flags, ...), (dirfd, path, flags, mode))

/* a call on the descriptor fd: FAULT_PATH is matched against the file it refers to */
#define FD_WRAPPER(type, name, params, args)                              \
        EXPORT type name params {                                         \
                REAL(name);                                               \
                int e = FAULT(call_selected(#name) && fd_matches(fd), #name, NULL); \
                FINISH(e, type, false, real_##name args);                 \
        }

FD_WRAPPER(ssize_t, write, (int fd, const void *buf, size_t len), (fd, buf, len))
FD_WRAPPER(ssize_t, read, (int fd, void *buf, size_t len), (fd, buf, len))
FD_WRAPPER(int, fsync, (int fd), (fd))
FD_WRAPPER(int, fchmod, (int fd, mode_t mode), (fd, mode))
FD_WRAPPER(int, flock, (int fd, int op), (fd, op))

/*
 * A fake netlink socket (fault_netlink()): socket(AF_NETLINK, ..., proto) returns one end of a
 * Unix datagram pair (so poll() and close() work on it); bind() and getsockname() succeed with
 * the port id FAULT_NL_PORTID; sendto() hands the request to the test's function, which queues
 * its answers with fault_netlink_reply(); recvmsg() returns them one datagram at a time from
 * the queue, sent by the kernel (nl_pid 0), and with the queue empty asks the real socket,
 * which has nothing (EAGAIN, or poll() waits out its deadline).
 */
#define NL_FAKE_DGRAMS 64
#define NL_FAKE_DGRAM_MAX 32768
static struct {
        int proto, fd, peer;
        fault_nl_fn fn;
        void *data;
        unsigned head, tail;
        size_t len[NL_FAKE_DGRAMS];
        unsigned char buf[NL_FAKE_DGRAMS][NL_FAKE_DGRAM_MAX];
} nlf = { .proto = -1, .fd = -1, .peer = -1 };

static void nl_fake_forget(void) {
        REAL(close);
        if (nlf.peer >= 0)
                real_close(nlf.peer);
        nlf.fd = nlf.peer = -1;
        nlf.head = nlf.tail = 0;
}

/* Linux releases the descriptor even when close() fails: so does the shim, in both modes. */
EXPORT int close(int fd) {
        REAL(close);
        if (fd >= 0 && fd == nlf.fd)
                nl_fake_forget();
        int e = FAULT(call_selected("close") && fd_matches(fd), "close", NULL);
        int ret = real_close(fd);
        if (e) {
                errno = e;
                return -1;
        }
        return ret;
}

/* rename, renameat, renameat2: counted when either name matches FAULT_PATH */
static int rename_fault(const char *from, const char *to) {
        return FAULT(call_selected("rename") && (path_matches(from) || path_matches(to)),
                     "rename", to);
}

EXPORT int rename(const char *from, const char *to) {
        REAL(rename);
        int e = rename_fault(from, to);
        FINISH(e, int, false, real_rename(from, to));
}

EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to) {
        REAL(renameat);
        int e = rename_fault(from, to);
        FINISH(e, int, false, real_renameat(fromfd, from, tofd, to));
}

EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags) {
        REAL(renameat2);
        int e = rename_fault(from, to);
        FINISH(e, int, false, real_renameat2(fromfd, from, tofd, to, flags));
}

EXPORT int unlinkat(int dirfd, const char *path, int flags) {
        REAL(unlinkat);
        int e = FAULT(call_selected("unlinkat") && path_matches(path), "unlinkat", path);
        FINISH(e, int, false, real_unlinkat(dirfd, path, flags));
}

EXPORT int mkdir(const char *path, mode_t mode) {
        REAL(mkdir);
        int e = FAULT(call_selected("mkdir") && path_matches(path), "mkdir", path);
        FINISH(e, int, false, real_mkdir(path, mode));
}

/* ---- in a test program (fault.h) ---- */

static void arm(const char *call, const char *pattern, unsigned long nth, bool from, int err) {
        ctl.armed = false;
        ctl.until = 0;
        snprintf(ctl.call, sizeof ctl.call, "%s", call);
        snprintf(ctl.path, sizeof ctl.path, "%s", pattern ? pattern : "");
        ctl.nth = nth;
        ctl.from = from;
        ctl.err = err;
        ctl.injected = 0;
        counter = 0;
        ctl.armed = true;
}

EXPORT void fault_arm(const char *call, const char *pattern, unsigned long nth, int err) {
        arm(call, pattern, nth, false, err);
}

EXPORT void fault_arm_from(const char *call, const char *pattern, unsigned long nth, int err) {
        arm(call, pattern, nth, true, err);
}

EXPORT void fault_arm_first(const char *call, const char *pattern, unsigned long count, int err) {
        arm(call, pattern, 1, true, err);
        ctl.until = count;
}

EXPORT void fault_disarm(void) {
        ctl.armed = false;
        ctl.hook = NULL;
        counter = 0;
}

EXPORT unsigned long fault_injected(void) {
        return ctl.injected;
}

EXPORT void fault_hook(void (*fn)(void)) {
        ctl.hook = fn;
}

/* the fault of a call on the descriptor fd (FAULT_PATH: the file it refers to) */
#define FD_FAULT(call, fd) FAULT(call_selected(call) && fd_matches(fd), call, NULL)
#define PATH_FAULT(call, path) FAULT(call_selected(call) && path_matches(path), call, path)

EXPORT int fstat(int fd, struct stat *st) {
        REAL(fstat);
        int e = FD_FAULT("fstat", fd);
        FINISH(e, int, false, real_fstat(fd, st));
}

EXPORT int fstatat(int dirfd, const char *asked, struct stat *st, int flags) {
        REAL(fstatat);
        char buf[4096];
        const char *path = redirected(asked, buf, sizeof buf);
        int e = PATH_FAULT("fstatat", path);
        FINISH(e, int, false, real_fstatat(dirfd, path, st, flags));
}

EXPORT int access(const char *path, int mode) {
        REAL(access);
        int e = PATH_FAULT("access", path);
        FINISH(e, int, false, real_access(path, mode));
}

EXPORT int mkdirat(int dirfd, const char *path, mode_t mode) {
        REAL(mkdirat);
        int e = PATH_FAULT("mkdirat", path);
        FINISH(e, int, false, real_mkdirat(dirfd, path, mode));
}

EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t size) {
        REAL(readlinkat);
        int e = PATH_FAULT("readlinkat", path);
        FINISH(e, ssize_t, false, real_readlinkat(dirfd, path, buf, size));
}

EXPORT int clock_gettime(clockid_t clock, struct timespec *ts) {
        REAL(clock_gettime);
        int e = FAULT(call_selected("clock_gettime"), "clock_gettime", NULL);
        FINISH(e, int, false, real_clock_gettime(clock, ts));
}

/* fault_sysinfo(): what sysinfo() answers instead of the kernel, until fault_sysinfo(NULL) */
static struct sysinfo fake_si;
static bool fake_si_set;

EXPORT void fault_sysinfo(const struct sysinfo *si) {
        fake_si_set = si != NULL;
        if (si)
                fake_si = *si;
}

EXPORT int sysinfo(struct sysinfo *si) {
        REAL(sysinfo);
        int e = FAULT(call_selected("sysinfo"), "sysinfo", NULL);
        if (!e && fake_si_set) {
                *si = fake_si;
                return 0;
        }
        FINISH(e, int, false, real_sysinfo(si));
}

/*
 * getpwnam_r, getpwuid_r, getgrnam_r, getgrgid_r: a faulted call fails as POSIX has it, the
 * error number returned and no entry, errno left as it was (glibc sets it too, another
 * implementation need not).
 */
#define NSS_R(name, key_type, ent_type)                                                         \
        EXPORT int name(key_type key, ent_type *ent, char *buf, size_t size, ent_type **res) {    \
                REAL(name);                                                                      \
                int e = FAULT(call_selected(#name), #name, NULL);                                \
                if (e) {                                                                         \
                        *res = NULL;                                                             \
                        return e;                                                                \
                }                                                                                \
                return real_##name(key, ent, buf, size, res);                                    \
        }
NSS_R(getpwnam_r, const char *, struct passwd)
NSS_R(getpwuid_r, uid_t, struct passwd)
NSS_R(getgrnam_r, const char *, struct group)
NSS_R(getgrgid_r, gid_t, struct group)

EXPORT ssize_t getrandom(void *buf, size_t len, unsigned flags) {
        REAL(getrandom);
        int e = FAULT(call_selected("getrandom"), "getrandom", NULL);
        FINISH(e, ssize_t, false, real_getrandom(buf, len, flags));
}

/* pointer-returning calls: NULL and errno */
#define PTR_FINISH(e, real_call)                                          \
        do {                                                              \
                if (e) {                                                  \
                        errno = (e);                                      \
                        return NULL;                                      \
                }                                                         \
                return (real_call);                                       \
        } while (0)

EXPORT DIR *opendir(const char *path) {
        REAL(opendir);
        int e = PATH_FAULT("opendir", path);
        PTR_FINISH(e, real_opendir(path));
}

EXPORT DIR *fdopendir(int fd) {
        REAL(fdopendir);
        int e = FD_FAULT("fdopendir", fd);
        PTR_FINISH(e, real_fdopendir(fd));
}

EXPORT FILE *fdopen(int fd, const char *mode) {
        REAL(fdopen);
        int e = FD_FAULT("fdopen", fd);
        PTR_FINISH(e, real_fdopen(fd, mode));
}

EXPORT FILE *fopen(const char *path, const char *mode) {
        REAL(fopen);
        int e = PATH_FAULT("fopen", path);
        char buf[4096];
        PTR_FINISH(e, real_fopen(redirected(path, buf, sizeof buf), mode));
}

EXPORT FILE *fopen64(const char *path, const char *mode) {
        REAL(fopen64);
        int e = PATH_FAULT("fopen", path);
        char buf[4096];
        PTR_FINISH(e, real_fopen64(redirected(path, buf, sizeof buf), mode));
}

#ifdef FAULT_ALLOC
/* vasprintf(3) on its own ("vasprintf": -1, as when its allocation fails) */
EXPORT int vasprintf(char **ret, const char *fmt, va_list ap) {
        REAL(vasprintf);
        int e = FAULT(call_selected("vasprintf"), "vasprintf", NULL);
        if (e) {
                errno = e;
                return -1;
        }
        return real_vasprintf(ret, fmt, ap);
}

/* dlopen(3): NULL (dlerror() says nothing of it).  In a test program only: preloaded, the shim
 * would become the caller whose RUNPATH and namespace dlopen() goes by. */
EXPORT void *dlopen(const char *file, int mode) {
        REAL(dlopen);
        int e = PATH_FAULT("dlopen", file);
        PTR_FINISH(e, real_dlopen(file, mode));
}
#endif

EXPORT void fault_netlink(int proto, fault_nl_fn fn, void *data) {
        nl_fake_forget();
        nlf.proto = fn ? proto : -1;
        nlf.fn = fn;
        nlf.data = data;
}

EXPORT int fault_netlink_reply(const void *buf, size_t len) {
        if (nlf.tail - nlf.head >= NL_FAKE_DGRAMS || len > NL_FAKE_DGRAM_MAX)
                return -1;
        memcpy(nlf.buf[nlf.tail % NL_FAKE_DGRAMS], buf, len);
        nlf.len[nlf.tail % NL_FAKE_DGRAMS] = len;
        nlf.tail++;
        return 0;
}

EXPORT int socket(int domain, int type, int protocol) {
        REAL(socket);
        int e = FAULT(call_selected("socket"), "socket", NULL);
        if (!e && domain == AF_NETLINK && nlf.proto >= 0 && protocol == nlf.proto) {
                int sv[2];
                if (socketpair(AF_UNIX, SOCK_DGRAM | (type & SOCK_CLOEXEC), 0, sv) < 0)
                        return -1;
                nl_fake_forget();
                nlf.fd = sv[0];
                nlf.peer = sv[1];
                return sv[0];
        }
        FINISH(e, int, true, real_socket(domain, type, protocol));
}

EXPORT int bind(int fd, __CONST_SOCKADDR_ARG sa, socklen_t len) {
        REAL(bind);
        int e = FAULT(call_selected("bind"), "bind", NULL);
        if (!e && fd >= 0 && fd == nlf.fd)
                return 0;
        FINISH(e, int, false, real_bind(fd, sa, len));
}

EXPORT int getsockname(int fd, __SOCKADDR_ARG sa, socklen_t *len) {
        REAL(getsockname);
        if (fd >= 0 && fd == nlf.fd) {
                struct sockaddr_nl me = { .nl_family = AF_NETLINK, .nl_pid = FAULT_NL_PORTID };
                memcpy(sa.__sockaddr__, &me, *len < sizeof me ? *len : sizeof me);
                *len = sizeof me;
                return 0;
        }
        return real_getsockname(fd, sa, len);
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags, __CONST_SOCKADDR_ARG sa, socklen_t salen) {
        REAL(sendto);
        int e = FAULT(call_selected("sendto"), "sendto", NULL);
        if (!e && fd >= 0 && fd == nlf.fd) {
                nlf.fn(buf, len, nlf.data);
                return (ssize_t)len;
        }
        FINISH(e, ssize_t, false, real_sendto(fd, buf, len, flags, sa, salen));
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, __SOCKADDR_ARG sa, socklen_t *salen) {
        REAL(recvfrom);
        int e = FAULT(call_selected("recvfrom"), "recvfrom", NULL);
        FINISH(e, ssize_t, false, real_recvfrom(fd, buf, len, flags, sa, salen));
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags) {
        REAL(recvmsg);
        int e = FAULT(call_selected("recvmsg"), "recvmsg", NULL);
        if (!e && fd >= 0 && fd == nlf.fd && nlf.head == nlf.tail)
                nlf.fn(NULL, 0, nlf.data);   /* the queue is empty: the test may add more */
        if (!e && fd >= 0 && fd == nlf.fd && nlf.head != nlf.tail) {
                unsigned k = nlf.head++ % NL_FAKE_DGRAMS;
                size_t n = nlf.len[k], room = msg->msg_iovlen ? msg->msg_iov[0].iov_len : 0;
                memcpy(msg->msg_iov[0].iov_base, nlf.buf[k], n < room ? n : room);
                msg->msg_flags = n > room ? MSG_TRUNC : 0;
                if (msg->msg_name) {
                        struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
                        memcpy(msg->msg_name, &kernel, msg->msg_namelen < sizeof kernel ? msg->msg_namelen : sizeof kernel);
                        msg->msg_namelen = sizeof kernel;
                }
                return (ssize_t)n;
        }
        FINISH(e, ssize_t, false, real_recvmsg(fd, msg, flags));
}

/*
 * getrlimit and setrlimit: only while armed by the program (fault_arm()).  The sanitizers'
 * runtime calls them while it starts, before anything instrumented may run (at -O0 even
 * reading a global faults there): unarmed, they go straight to prlimit(), uninstrumented.
 */

NO_ASAN EXPORT int getrlimit(__rlimit_resource_t res, struct rlimit *rl) {
        if (!__atomic_load_n(&ctl.armed, __ATOMIC_RELAXED))
                return prlimit(0, res, NULL, rl);
        REAL(getrlimit);
        int e = FAULT(call_selected("getrlimit"), "getrlimit", NULL);
        FINISH(e, int, false, real_getrlimit(res, rl));
}

NO_ASAN EXPORT int setrlimit(__rlimit_resource_t res, const struct rlimit *rl) {
        if (!__atomic_load_n(&ctl.armed, __ATOMIC_RELAXED))
                return prlimit(0, res, rl, NULL);
        REAL(setrlimit);
        int e = FAULT(call_selected("setrlimit"), "setrlimit", NULL);
        FINISH(e, int, false, real_setrlimit(res, rl));
}

EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout) {
        REAL(poll);
        int e = FAULT(call_selected("poll"), "poll", NULL);
        FINISH(e, int, false, real_poll(fds, nfds, timeout));
}

/* syscall(2): only openat2 is counted ("openat2"); the rest pass through */
/* it reads six arguments whatever the call takes, as the kernel does: not what a sanitizer accepts */
NO_ASAN EXPORT long syscall(long number, ...) {
        REAL(syscall);
        va_list ap;
        long a[6];
        va_start(ap, number);
        for (int i = 0; i < 6; i++)
                a[i] = va_arg(ap, long);
        va_end(ap);
        int e = 0;
#ifdef SYS_openat2
        if (number == SYS_openat2)
                e = PATH_FAULT("openat2", (const char *)a[1]);
#endif
        FINISH(e, long, number == SYS_openat2, real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]));
}

#if defined(FAULT_ALLOC) && !defined(__SANITIZE_ADDRESS__)
/* glibc's own allocator under the interposed names: libc calls these too (strdup, asprintf,
 * getline, fopen), so "alloc" fails whatever allocates next. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);

#define ALLOC_FAULT() (ctl.armed && !ctl.in_hook && strcmp(ctl.call, "alloc") == 0 ? should_fail("alloc", NULL) : 0)

EXPORT void *malloc(size_t size) {
        int e = ALLOC_FAULT();
        PTR_FINISH(e, __libc_malloc(size));
}

EXPORT void *calloc(size_t n, size_t size) {
        int e = ALLOC_FAULT();
        PTR_FINISH(e, __libc_calloc(n, size));
}

EXPORT void *realloc(void *p, size_t size) {
        int e = ALLOC_FAULT();
        PTR_FINISH(e, __libc_realloc(p, size));
}

EXPORT bool fault_alloc_supported(void) {
        return true;
}
#else
EXPORT bool fault_alloc_supported(void) {
        return false;
}
#endif
