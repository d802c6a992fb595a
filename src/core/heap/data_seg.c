/*
 * The data segment: the program's global and static variables, which the
 * specification makes symmetric (docs/design.md, decision 3).
 *
 * Every PE runs the same executable, so a global has the same offset from
 * the start of the writable PT_LOAD segment in every process, whatever the
 * load address (PIE, ASLR). That segment, page aligned and minus its RELRO
 * part (read-only after relocation, holding no user variable), is
 * SHMI_SEG_DATA.
 *
 * To make on-node access load/store, the segment is remapped at start-up
 * when another PE of this node will map it (SHMEM_LOCAL=1, several PEs on
 * the node): its non-zero pages are copied into a memfd, which is mapped
 * MAP_SHARED and moved (mremap) over the same addresses, so the program sees
 * the same values at the same addresses, and local peers can map the memfd
 * too. What this implies:
 *  - writes by other threads between the copy and the remap would be lost.
 *    A SHMEM program calls shmem_init before its own threads use globals,
 *    and the threads of the runtime's libraries keep their state in their
 *    own shared objects; but an interpreter that already runs threads when
 *    it loads Weft (the executable being the interpreter) should set
 *    SHMEM_DATA_REMAP=0;
 *  - a child made by fork() shares (not copies) the parent's globals while
 *    it runs, unlike in a normal process; exec() ends that;
 *  - the memory stays mapped after shmem_finalize (the program may still use
 *    its globals), so it is released only when the process exits.
 * SHMEM_DATA_REMAP=0 turns the remap off: the segment is then reached by
 * peers through the fabric only.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/heap/heap.h"
#include "services/error.h"

typedef struct data_find {
    uintptr_t start, end; /* of the last writable PT_LOAD */
    uintptr_t relro_end;  /* end of PT_GNU_RELRO, 0 when none */
    int done;
} data_find_t;

static int find_cb(struct dl_phdr_info *info, size_t sz, void *arg)
{
    data_find_t *f = arg;

    (void)sz;
    /* The first object reported is the main program. */
    if (f->done)
        return 1;
    f->done = 1;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && lo >= f->start) {
            f->start = lo;
            f->end = lo + ph->p_memsz;
        } else if (ph->p_type == PT_GNU_RELRO) {
            f->relro_end = lo + ph->p_memsz;
        }
    }
    return 1;
}

int shmi_data_seg_find(char **base, size_t *size, char **user,
                       size_t *user_size)
{
    uintptr_t page = shmi_page_size(), lo, hi, ulo;
    data_find_t f = {0, 0, 0, 0};

    dl_iterate_phdr(find_cb, &f);
    if (!f.end)
        return SHMI_ENOTSUP;
    lo = f.start & ~(page - 1);
    /* The dynamic linker protects RELRO up to the page holding its end; the
     * rest of that page stays writable. */
    if (f.relro_end > lo && f.relro_end <= f.end)
        lo = f.relro_end & ~(page - 1);
    hi = (f.end + page - 1) & ~(page - 1);
    if (hi <= lo)
        return SHMI_ENOTSUP;
    /* The program's variables: from the end of RELRO (or the segment's
     * start) to the end of bss, without the page rounding on either side. */
    ulo = f.relro_end > f.start && f.relro_end <= f.end ? f.relro_end : f.start;
    *base = (char *)lo;
    *size = hi - lo;
    *user = (char *)ulo;
    *user_size = f.end - ulo;
    return 0;
}

/*
 * The two functions below read whole pages of the segment, including the
 * padding between variables that AddressSanitizer poisons: that is a copy of
 * raw memory, not an access to the variables, so they are not instrumented
 * (and copy through a volatile pointer, which the compiler cannot turn into
 * an intercepted memcpy).
 */
__attribute__((no_sanitize_address)) static int page_is_zero(const char *p,
                                                             size_t page)
{
    const unsigned long *w = (const unsigned long *)p;

    for (size_t i = 0; i < page / sizeof(*w); i++)
        if (w[i])
            return 0;
    return 1;
}

/* Copies the non-zero pages of [base, base+size) to dst: untouched bss
 * (often most of it) costs a read, and no memory in the object. */
__attribute__((no_sanitize_address)) static void
copy_pages(char *dst, const char *base, size_t size)
{
    size_t page = shmi_page_size(), n = page / sizeof(unsigned long);

    for (size_t off = 0; off < size; off += page) {
        const unsigned long *s = (const unsigned long *)(base + off);
        volatile unsigned long *d = (volatile unsigned long *)(dst + off);

        if (page_is_zero(base + off, page))
            continue;
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    }
}

int shmi_data_seg_remap(char *base, size_t size, shmi_shm_t *obj)
{
    int ret = shmi_shm_create("memfd", "data", size, obj);
    char *tmp;
    void *p;

    if (ret != 0)
        return ret;
    tmp = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, obj->fd, 0);
    if (tmp == MAP_FAILED) {
        SHMI_LOG(SHMI_LOG_WARN, "heap", "mapping the data copy: %s",
                 strerror(errno));
        ret = SHMI_EIO;
        goto release;
    }
    copy_pages(tmp, base, size);
    /* From the copy to here nothing may write the segment (see above).
     * mremap replaces the old pages in one step, and leaves them in place
     * when it fails (unlike a failing mmap with MAP_FIXED). */
    p = mremap(tmp, size, size, MREMAP_MAYMOVE | MREMAP_FIXED, base);
    if (p == MAP_FAILED) {
        SHMI_LOG(SHMI_LOG_WARN, "heap", "remapping the data segment: %s",
                 strerror(errno));
        munmap(tmp, size);
        ret = SHMI_EIO;
        goto release;
    }
    obj->desc.align = shmi_page_size();
    return 0;
release:
    shmi_shm_release(obj);
    return ret;
}
