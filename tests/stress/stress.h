/*
 * Shared by the soak test's files: stress.c (set-up, the random
 * point-to-point operations, main) and stress_rounds.c (the steps every PE
 * takes together: signal ring, collectives, the checks at a round's end).
 */
#ifndef STRESS_H
#define STRESS_H

#include <stddef.h>
#include <stdint.h>

#define SLOT_SIZE (1u << 20)
#define HDR_PARTS 4
#define MAX_ERRORS_SHOWN 20

/* What a writer last put into one slot (see verify_slots). */
typedef struct {
    uint64_t nparts;
    uint64_t off[HDR_PARTS];
    uint64_t len[HDR_PARTS];
    uint64_t seq[HDR_PARTS];
} slot_hdr_t;

/* Counter kinds whose totals are checked each round. */
enum { K_INT, K_LONG, K_ULL, K_CAS, K_SIG, K_NKINDS };

typedef struct {
    /* symmetric */
    unsigned char *slots;   /* npes * SLOT_SIZE */
    slot_hdr_t *hdr;        /* npes */
    unsigned char *getsrc;  /* SLOT_SIZE */
    unsigned char *ringbuf; /* SLOT_SIZE */
    unsigned char *csrc;    /* SLOT_SIZE */
    unsigned char *cdst;    /* SLOT_SIZE */
    int *ctr_int;
    long *ctr_long;
    unsigned long long *ctr_ull;
    int *cas_ctr;
    uint64_t *sig_add;
    uint64_t *sig_ring;
    long *swap_cell;        /* npes, indexed by writer */
    double *dswap_cell;     /* npes */
    float *fcell;           /* npes */
    long *red_src, *red_dst;
    /* private */
    unsigned char *lbuf[HDR_PARTS];
    long *added;            /* K_NKINDS * npes, cumulative */
    long *lastswap;         /* npes: value I last swapped into each target */
    double *lastdswap;
    uint64_t *seq;          /* npes: next write sequence per target */
    unsigned long long *lastfetch; /* npes: last fetch_add result per target */
    int me, npes;
    size_t max_size;
    size_t max_reduce;
    uint64_t rng;
    long ops, errors;
    int counter_off[K_NKINDS]; /* a cumulative total went wrong: say it once */
    double slowest;          /* longest single random operation, seconds */
    const char *slowest_what;
} stress_t;

/* Where each PE is, for the watchdog's message. */
extern volatile const char *phase;

uint64_t rnd(uint64_t *s);
uint64_t rnd_below(uint64_t *s, uint64_t n);
size_t rnd_size(uint64_t *s, size_t max);
void fill(unsigned char *p, size_t n, uint64_t a, uint64_t b, uint64_t seq,
          size_t off);
void error(stress_t *st, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int check(stress_t *st, const char *what, const unsigned char *p, size_t n,
          uint64_t a, uint64_t b, uint64_t seq, size_t off);
unsigned char *slot(stress_t *st, int writer);
double now(void);

/* stress_rounds.c */
void ring_step(stress_t *st, uint64_t *rs, long round);
void collective_step(stress_t *st, uint64_t *rs, long round);
int round_end(stress_t *st, int stop_here);

#endif /* STRESS_H */
