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
#endif
