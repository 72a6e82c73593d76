#ifndef __TL_MATH_H
#define __TL_MATH_H
#define HUGE_VAL (1e308 * 10.0)
#define INFINITY (1e308f * 10.0f)
#define NAN (0.0f / 0.0f)
double sqrt(double x);
double fabs(double x);
double floor(double x);
double ceil(double x);
double fmod(double x, double y);
double trunc(double x);
double round(double x);
double pow(double x, double y);
double exp(double x);
double log(double x);
double sin(double x);
double cos(double x);
float sqrtf(float x);
float fabsf(float x);
/* Classification macros, for float and double arguments (what x - x is: 0, or NaN
   for an infinity and a NaN) */
#define isnan(x) ((x) != (x))
#define isinf(x) (!isnan(x) && isnan((x) - (x)))
#define isfinite(x) (!isnan((x) - (x)))
#define isnormal(x) (isfinite(x) && (sizeof(x) == sizeof(float) ? fabsf(x) >= 1.17549435e-38F : fabs(x) >= 2.2250738585072014e-308))
#define signbit(x) (sizeof(x) == sizeof(float) ? (int)((union { float f; unsigned u; }){ (float)(x) }.u >> 31) : (int)((union { double d; unsigned long long u; }){ (double)(x) }.u >> 63))
#endif
