/*
 * What memory a buffer or segment is, in the words the core, the device
 * back ends and the transports share (a fabric translates it into its own
 * vocabulary, as transports/ofi does into libfabric's FI_HMEM_*).
 */
#ifndef SHMI_MEM_KIND_H
#define SHMI_MEM_KIND_H

typedef enum shmi_mem_kind {
    SHMI_MEM_HOST = 0, /* ordinary host memory */
    SHMI_MEM_CUDA,     /* NVIDIA GPU memory */
    SHMI_MEM_ROCM      /* AMD GPU memory */
} shmi_mem_kind_t;

#endif /* SHMI_MEM_KIND_H */
