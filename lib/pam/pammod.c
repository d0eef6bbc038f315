/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "config.h"

#include <dirent.h>
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "macro.h"
#include "pammod.h"

static char *join(const char *dir, const char *name) {
        char *p;
        return asprintf(&p, "%s/%s", dir, name) < 0 ? NULL : p;
}

/* the multiarch directories DIR/TRIPLET/security that exist */
static int add_multiarch(struct pam_moddirs *m, const char *root, const char *lib) {
        DIR *dir = NULL;
        struct dirent *de;
        int r = fs_opendir_in_root(root, lib, &dir);

        if (r < 0)
                return r == -ENOMEM ? r : 0;
        r = 0;
        while (r >= 0 && (de = readdir(dir))) {
                if (de->d_name[0] == '.' || fnmatch("*-*-*", de->d_name, FNM_PERIOD) != 0)
                        continue;
                _cleanup_free_ char *sub = join(lib, de->d_name), *p = sub ? join(sub, "security") : NULL;
                if (!p)
                        r = -ENOMEM;
                else if (!strv_contains(m->dirs.v, p) && (r = fs_exists_in_root(root, p, true)) > 0)
                        r = strv_push(&m->dirs, p);
        }
        closedir(dir);
        return r;
}

int pam_moddirs_load(struct pam_moddirs *m, const char *root, const char *securedir) {
        static const char *const fixed[] = { "/lib/x86_64-linux-gnu/security", "/usr/lib/x86_64-linux-gnu/security",
                                             "/lib/security",  "/usr/lib/security",
                                             "/lib64/security", "/usr/lib64/security" };
        int r = 0;

        *m = (struct pam_moddirs){ .pamdir = -1 };
        for (size_t i = 0; i < ELEMENTSOF(fixed) && r >= 0; i++)
                r = strv_push(&m->dirs, fixed[i]);
        if (r >= 0)
                r = add_multiarch(m, root, "/usr/lib");
        if (r >= 0)
                r = add_multiarch(m, root, "/lib");
        if (r >= 0 && securedir && securedir[0] == '/' && !strv_contains(m->dirs.v, securedir))
                r = strv_push(&m->dirs, securedir);
        for (size_t i = 0; r >= 0 && i < m->dirs.n && m->pamdir < 0; i++) {
                _cleanup_free_ char *a = join(m->dirs.v[i], "pam_permit.so"), *b = join(m->dirs.v[i], "pam_unix.so");
                if (!a || !b)
                        r = -ENOMEM;
                else if ((r = fs_exists_in_root(root, a, false)) == 0)
                        r = fs_exists_in_root(root, b, false);
                if (r > 0)
                        m->pamdir = (long)i;
        }
        if (r < 0) {
                pam_moddirs_clear(m);
                return r;
        }
        m->loaded = true;
        return 0;
}

void pam_moddirs_clear(struct pam_moddirs *m) {
        strv_clear(&m->dirs);
        m->pamdir = -1;
        m->loaded = false;
}

/* ---- the module's functions: its ELF dynamic symbol table, read, never loaded ---- */

/* A module file is a shared object of some hundred KiB; its symbol table a few KiB. */
#define ELF_MAX_FILE  (256u << 20)
#define ELF_MAX_TABLE (16u << 20)

/* size bytes at off, all of them inside the file: 0 or -errno (-EBADMSG: beyond its end) */
static int read_exact(int fd, uint64_t file_size, uint64_t off, void *buf, size_t size) {
        if (off > file_size || size > file_size - off)
                return -EBADMSG;
        for (size_t done = 0; done < size;) {
                ssize_t n = pread(fd, (char *)buf + done, size - done, (off_t)(off + done));
                if (n < 0)
                        return negative_errno();
                if (n == 0)
                        return -EBADMSG;
                done += (size_t)n;
        }
        return 0;
}

/* One section header of either class, widened. */
struct elf_shdr {
        uint32_t type, link;
        uint64_t offset, size, entsize;
};

struct elf_file {
        int fd;
        uint64_t size;
        bool is64;
        uint64_t shoff;
        unsigned shnum, shentsize;
};

static int elf_section(const struct elf_file *f, unsigned i, struct elf_shdr *ret) {
        if (f->is64) {
                Elf64_Shdr h;
                int r = read_exact(f->fd, f->size, f->shoff + (uint64_t)i * f->shentsize, &h, sizeof h);
                if (r < 0)
                        return r;
                *ret = (struct elf_shdr){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize };
        } else {
                Elf32_Shdr h;
                int r = read_exact(f->fd, f->size, f->shoff + (uint64_t)i * f->shentsize, &h, sizeof h);
                if (r < 0)
                        return r;
                *ret = (struct elf_shdr){ h.sh_type, h.sh_link, h.sh_offset, h.sh_size, h.sh_entsize };
        }
        return 0;
}

/* A section's bytes, malloc()ed (bounded by ELF_MAX_TABLE). */
static int elf_read_section(const struct elf_file *f, const struct elf_shdr *s, char **ret) {
        if (s->size == 0 || s->size > ELF_MAX_TABLE)
                return -EBADMSG;
        _cleanup_free_ char *buf = malloc(s->size);
        if (!buf)
                return -ENOMEM;
        int r = read_exact(f->fd, f->size, s->offset, buf, s->size);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(buf);
        return 0;
}

/* Does the file's .dynsym define sym (a symbol with a section: not an import)?  1, 0. */
static int elf_defines(const struct elf_file *f, const char *sym) {
        size_t want = strlen(sym);
        for (unsigned i = 0; i < f->shnum; i++) {
                struct elf_shdr ds, ss;
                int r = elf_section(f, i, &ds);
                if (r < 0)
                        return r;
                if (ds.type != SHT_DYNSYM)
                        continue;
                size_t esize = f->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
                if (ds.entsize != esize || ds.link >= f->shnum)
                        return -EBADMSG;
                if ((r = elf_section(f, ds.link, &ss)) < 0)
                        return r;
                if (ss.type != SHT_STRTAB)
                        return -EBADMSG;
                _cleanup_free_ char *syms = NULL, *strs = NULL;
                if ((r = elf_read_section(f, &ds, &syms)) < 0 || (r = elf_read_section(f, &ss, &strs)) < 0)
                        return r;
                for (uint64_t k = 0; k + esize <= ds.size; k += esize) {
                        uint32_t name;
                        uint16_t shndx;
                        if (f->is64) {
                                Elf64_Sym s;
                                memcpy(&s, syms + k, sizeof s);
                                name = s.st_name;
                                shndx = s.st_shndx;
                        } else {
                                Elf32_Sym s;
                                memcpy(&s, syms + k, sizeof s);
                                name = s.st_name;
                                shndx = s.st_shndx;
                        }
                        if (shndx == SHN_UNDEF || name >= ss.size || ss.size - name <= want)
                                continue;
                        if (memcmp(strs + name, sym, want + 1) == 0)
                                return 1;
                }
                return 0;       /* one dynamic symbol table per object */
        }
        return -ENODATA;        /* no .dynsym: not a shared object libpam could load */
}

int pam_module_defines(const char *root, const char *path, const char *sym) {
        _cleanup_close_ int fd = -1;
        unsigned char ident[EI_NIDENT];
        struct stat st;
        int r = fs_open_in_root(root, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0, &fd);

        if (r < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADMSG;
        if ((uint64_t)st.st_size > ELF_MAX_FILE)
                return -EFBIG;
        struct elf_file f = { .fd = fd, .size = (uint64_t)st.st_size };
        if ((r = read_exact(fd, f.size, 0, ident, sizeof ident)) < 0)
                return r;
        /* this machine's byte order only: libpam loads no other */
        if (memcmp(ident, ELFMAG, SELFMAG) != 0 ||
            ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
                return -EBADMSG;
        if (ident[EI_CLASS] == ELFCLASS64) {
                Elf64_Ehdr h;
                if ((r = read_exact(fd, f.size, 0, &h, sizeof h)) < 0)
                        return r;
                f = (struct elf_file){ fd, f.size, true, h.e_shoff, h.e_shnum, h.e_shentsize };
        } else if (ident[EI_CLASS] == ELFCLASS32) {
                Elf32_Ehdr h;
                if ((r = read_exact(fd, f.size, 0, &h, sizeof h)) < 0)
                        return r;
                f = (struct elf_file){ fd, f.size, false, h.e_shoff, h.e_shnum, h.e_shentsize };
        } else
                return -EBADMSG;
        /* no section headers (or more than e_shnum can count): cannot tell */
        if (f.shoff == 0 || f.shnum == 0 || f.shentsize != (f.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
                return -ENODATA;
        return elf_defines(&f, sym);
}

const char *pam_phase_function(const char *phase) {
        static const struct {
                const char *phase, *fn;
        } fns[] = { { "auth", "pam_sm_authenticate" }, { "account", "pam_sm_acct_mgmt" },
                    { "password", "pam_sm_chauthtok" }, { "session", "pam_sm_open_session" } };
        for (size_t i = 0; phase && i < ELEMENTSOF(fns); i++)
                if (strcasecmp(phase, fns[i].phase) == 0)
                        return fns[i].fn;
        return NULL;
}

/* A loadable module without fn: libpam's handler has no function, and the line returns
 * PAM_MODULE_UNKNOWN (pam_dispatch.c).  A file that cannot be read as ELF is taken as having it. */
static enum pam_mod_state with_function(const char *root, const char *path, const char *fn) {
        return fn && pam_module_defines(root, path, fn) == 0 ? PAM_MOD_NO_FUNCTION : PAM_MOD_FOUND;
}

int pam_module_state(const struct pam_moddirs *m, const char *root, const char *module, const char *fn,
                     enum pam_mod_state *ret, char **ret_found) {
        _cleanup_free_ char *found = NULL;

        if (ret_found)
                *ret_found = NULL;
        if (module[0] == '/') {
                int r = fs_exists_in_root(root, module, false);
                if (r < 0)
                        return r;
                *ret = r > 0 ? with_function(root, module, fn) : m->pamdir < 0 ? PAM_MOD_UNCHECKED : PAM_MOD_MISSING;
                return 0;
        }
        if (m->pamdir < 0) {
                *ret = PAM_MOD_UNCHECKED;
                return 0;
        }
        *ret = PAM_MOD_MISSING;
        for (size_t i = 0; i < m->dirs.n; i++) {
                _cleanup_free_ char *p = join(m->dirs.v[i], module);
                if (!p)
                        return -ENOMEM;
                int r = fs_exists_in_root(root, p, false);
                if (r < 0)
                        return r;
                if (r == 0)
                        continue;
                if ((long)i == m->pamdir) {
                        *ret = with_function(root, p, fn);
                        return 0;
                }
                if (!found) {
                        found = TAKE_PTR(p);
                        *ret = PAM_MOD_ELSEWHERE;
                }
        }
        if (ret_found)
                *ret_found = TAKE_PTR(found);
        return 0;
}
