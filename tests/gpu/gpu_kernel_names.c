/*
 * The device reduction kernels' loader (src/gpu/gpu_kernels.c), without a
 * GPU.
 *
 *   gpu_kernel_names names
 *       every (operator, datatype) that the reduction tables define has a
 *       kernel name, but long double, which has none; undefined pairs have
 *       none; and each name is a symbol of the embedded CUDA image and of
 *       the HIP image, where the build has them (src/gpu/kernels/images.h).
 *       Skipped (77) when the build has neither image: then there is no
 *       compiled kernel to compare the names with.
 *   gpu_kernel_names nodriver cuda|hip
 *       a reduction where the vendor's library or device is missing is an
 *       error (SHMI_EIO, or SHMI_ENOTSUP in a build without the image),
 *       the same on a second call, and never a crash. Skipped (77) where
 *       the back end finds a device: the arrays here are host memory.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/gpu_kernels.h"
#include "gpu/kernels/images.h"
#include "services/error.h"
#include "tests/common/check.h"

/* 1 when name, ended by its NUL, is in image: a symbol of one of the
 * image's ELF objects (the symbol string tables hold it so). */
static int image_has(const unsigned char *image, size_t size, const char *name)
{
    size_t len = strlen(name) + 1;

    for (size_t i = 0; i + len <= size; i++)
        if (image[i] == (unsigned char)name[0] &&
            memcmp(image + i, name, len) == 0)
            return 1;
    return 0;
}

static int check_names(void)
{
    int named = 0;

    if (shmi_gpu_image_cuda_size == 0 && shmi_gpu_image_hip_size == 0) {
        printf("no device image in this build (no nvcc or hipcc at "
               "configure): skipped\n");
        return 77;
    }
    printf("images: cuda %zu bytes, hip %zu bytes\n", shmi_gpu_image_cuda_size,
           shmi_gpu_image_hip_size);
    for (int op = 0; op < SHMI_OP_COUNT; op++) {
        for (int dt = 0; dt < SHMI_DT_COUNT; dt++) {
            const char *name = shmi_gpu_kernels_name(op, dt);
            const char *type = shmi_dtype_table[dt].name;

            if (!shmi_reduce_valid(op, dt) || dt == SHMI_DT_LONGDOUBLE) {
                CHECK_MSG(name == NULL, "op %d on %s: %s", op, type, name);
                continue;
            }
            if (!CHECK_MSG(name != NULL, "op %d on %s has no kernel", op, type))
                continue;
            named++;
            CHECK_MSG(shmi_gpu_image_cuda_size == 0 ||
                          image_has(shmi_gpu_image_cuda,
                                    shmi_gpu_image_cuda_size, name),
                      "%s (op %d on %s) is not in the CUDA image", name, op,
                      type);
            CHECK_MSG(shmi_gpu_image_hip_size == 0 ||
                          image_has(shmi_gpu_image_hip, shmi_gpu_image_hip_size,
                                    name),
                      "%s (op %d on %s) is not in the HIP image", name, op,
                      type);
        }
    }
    printf("%d (operator, type) pairs named a kernel\n", named);
    return check_summary("gpu_kernel_names", check_failures(), -1);
}

static int check_nodriver(const char *backend)
{
    const shmi_gpu_ops_t *g = shmi_gpu_backend(backend);
    double acc[4] = {1, 2, 3, 4}, in[4] = {1, 1, 1, 1};
    long double lacc[4] = {0}, lin[4] = {0};
    int count = 0, first, again;

    if (g && g->probe(&count) == 0 && count > 0) {
        printf("%s: a GPU is present (this case is for machines without "
               "one): skipped\n",
               backend);
        return 77;
    }
    first = shmi_gpu_kernels_reduce(backend, acc, in, 4, SHMI_OP_SUM,
                                    SHMI_DT_DOUBLE, NULL);
    CHECK_MSG(first == SHMI_EIO || first == SHMI_ENOTSUP,
              "%s: a reduction without a device gives %d (%s)", backend, first,
              shmi_strerror(first));
    again = shmi_gpu_kernels_reduce(backend, acc, in, 4, SHMI_OP_SUM,
                                    SHMI_DT_DOUBLE, NULL);
    CHECK_MSG(again == first, "%s: the second reduction gives %d, not %d",
              backend, again, first);
    CHECK(shmi_gpu_kernels_reduce(backend, lacc, lin, 4, SHMI_OP_SUM,
                                  SHMI_DT_LONGDOUBLE, NULL) == SHMI_ENOTSUP);
    CHECK(shmi_gpu_kernels_reduce(backend, acc, in, 4, SHMI_OP_AND,
                                  SHMI_DT_DOUBLE, NULL) == SHMI_ENOTSUP);
    CHECK(shmi_gpu_kernels_reduce("opencl", acc, in, 4, SHMI_OP_SUM,
                                  SHMI_DT_DOUBLE, NULL) == SHMI_EINVAL);
    CHECK_MSG(acc[0] == 1 && acc[3] == 4, "%s: host memory was written",
              backend);
    printf("%s: a reduction without a device: %s\n", backend,
           shmi_strerror(first));
    return check_summary("gpu_kernel_names nodriver", check_failures(), -1);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "names") == 0)
        return check_names();
    if (argc == 3 && strcmp(argv[1], "nodriver") == 0)
        return check_nodriver(argv[2]);
    fprintf(stderr, "usage: gpu_kernel_names names | nodriver cuda|hip\n");
    return 2;
}
