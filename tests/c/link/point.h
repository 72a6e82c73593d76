/* Shared by both units: a struct passed by value across them. */
struct point { int x, y; };
struct point shift(struct point p, int dx);
extern int shifts;          /* defined in geometry.c */
int counter(void);
static inline int twice(int v) { return 2 * v; }
