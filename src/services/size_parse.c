/*
 * The size form of SHMEM_SYMMETRIC_SIZE (and of every SIZE variable).
 *
 * OpenSHMEM 1.6, section "Environment Variables", SHMEM_SYMMETRIC_SIZE:
 *   value: "Positive decimal value (integer or floating point) with an
 *   optional character suffix"; it "is interpreted as an
 *   implementation-defined size (in bytes) at least as large as the integer
 *   ceiling of the product of the numeric prefix and the scaling factor";
 *   k/K = 2^10, m/M = 2^20, g/G = 2^30, t/T = 2^40.
 *   "20m" is 20971520; "3.1m" is 3250586 (the ceiling of 3250585.6);
 *   "Only one multiplier is recognized, so 20kk will not produce the same
 *   desired result as 20m. Any unrecognized suffix is treated as an error".
 *
 * So Weft accepts exactly: DIGITS, DIGITS.DIGITS, DIGITS. or .DIGITS,
 * followed by at most one of kKmMgGtT, and nothing else (no sign, no
 * exponent, no blanks, no second suffix). The value must be positive. The
 * result is exactly the ceiling of prefix * 2^shift, computed in decimal so
 * that no floating-point rounding moves it ("3.1m" stays 3250586).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "services/env.h"
#include "services/error.h"

/* Enough fraction digits for any sensible value; longer input is an error
 * rather than a silent truncation. */
#define SIZE_MAX_FRACTION_DIGITS 64

/* Power-of-two shift of a suffix character, or -1 when it is not one. */
static int suffix_shift(char c)
{
    switch (c) {
    case 'k':
    case 'K': return 10;
    case 'm':
    case 'M': return 20;
    case 'g':
    case 'G': return 30;
    case 't':
    case 'T': return 40;
    default: return -1;
    }
}

/*
 * Multiplies the decimal fraction 0.d[0]d[1]...d[n-1] by 2^shift in place.
 * Returns the integer part that carries out of the point (< 2^shift); *rest
 * becomes nonzero when a nonzero fraction remains.
 */
static uint64_t fraction_scale(unsigned char *d, size_t n, int shift, int *rest)
{
    uint64_t carried = 0;

    for (int s = 0; s < shift; s++) {
        unsigned carry = 0;

        for (size_t i = n; i-- > 0;) {
            unsigned v = d[i] * 2u + carry;

            d[i] = (unsigned char)(v % 10u);
            carry = v / 10u;
        }
        carried = carried * 2u + carry;
    }
    *rest = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i])
            *rest = 1;
    return carried;
}

int shmi_size_parse(const char *text, size_t *bytes)
{
    unsigned char frac[SIZE_MAX_FRACTION_DIGITS];
    size_t nfrac = 0, ndigits = 0;
    uint64_t whole = 0, scaled, part;
    const char *p = text;
    int shift = 0, rest = 0, any_nonzero = 0;

    if (!text || !bytes)
        return SHMI_EINVAL;
    for (; *p >= '0' && *p <= '9'; p++, ndigits++) {
        uint64_t digit = (uint64_t)(*p - '0');

        if (whole > (UINT64_MAX - digit) / 10u)
            return SHMI_EINVAL; /* integer part overflows */
        whole = whole * 10u + digit;
        any_nonzero |= *p != '0';
    }
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9'; p++, ndigits++) {
            if (nfrac == SIZE_MAX_FRACTION_DIGITS)
                return SHMI_EINVAL;
            frac[nfrac++] = (unsigned char)(*p - '0');
            any_nonzero |= *p != '0';
        }
    }
    if (ndigits == 0)
        return SHMI_EINVAL; /* "", "m", ".", "-1" ... */
    if (*p) {
        shift = suffix_shift(*p);
        if (shift < 0 || p[1] != '\0')
            return SHMI_EINVAL; /* unknown or repeated suffix, trailing text */
    }
    if (!any_nonzero)
        return SHMI_EINVAL; /* the specification asks for a positive value */

    if (shift > 0 && whole > (UINT64_MAX >> shift))
        return SHMI_EINVAL;
    scaled = whole << shift;
    part = fraction_scale(frac, nfrac, shift, &rest);
    if (scaled > UINT64_MAX - part - (uint64_t)rest)
        return SHMI_EINVAL;
    scaled += part + (uint64_t)rest; /* rest != 0: round up (the ceiling) */
    if (scaled > SIZE_MAX)
        return SHMI_EINVAL;
    *bytes = (size_t)scaled;
    return 0;
}
